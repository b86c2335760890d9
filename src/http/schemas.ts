/**
 * Building blocks for route schemas. Every route declares its request and response with these
 * (TypeBox → JSON Schema): Ajv validates requests from them, fast-json-stringify serialises
 * responses from them, and @fastify/swagger turns them into /openapi.json.
 */
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

export { Type, type Static, type TSchema };

/** Lithic's limit on free text a client attaches: memos, comments, card names. */
export const FREE_TEXT_MAX_LENGTH = 512;

/**
 * Text that shows something: at least one character other than white space, and no control
 * character (C0, DEL, C1: a tab, a line break, an escape…), which JSON can carry but no name or
 * label holds. Written with `\x` ranges, not `\p{Cc}`, so that it means the same with or without
 * the regular expression `u` flag (Ajv uses it, OpenAPI tools may not); its two leading classes do
 * not overlap, so it matches in linear time. A value that fails it is a 400 saying so (validation.ts).
 */
export const VISIBLE_TEXT_PATTERN = '^[^\\S\\x00-\\x1F\\x7F-\\x9F]*[^\\s\\x00-\\x1F\\x7F-\\x9F][^\\x00-\\x1F\\x7F-\\x9F]*$';

/**
 * Optional free text whose empty value means none (a memo: Lithic answers `""` where none was
 * given, and a card's memo is cleared with `""`): empty, or text as VISIBLE_TEXT_PATTERN.
 */
export const EMPTY_OR_VISIBLE_TEXT_PATTERN = `^$|${VISIBLE_TEXT_PATTERN}`;

/** A web page's address: http:// or https:// and a host (with `format: 'uri'`: a `javascript:` or `https://` alone is not one). */
export const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+(?:[/?#].*)?$';

/** A name or label a client gives (a holder's name, a nickname): 1 to `maxLength` characters that show something. */
export function VisibleText(maxLength: number, description = 'Not blank, no control characters') {
  return Type.String({ minLength: 1, maxLength, pattern: VISIBLE_TEXT_PATTERN, description });
}

/** Free text a client may leave empty (a memo): up to `maxLength` characters, `""` or text that shows something. */
export function EmptyOrVisibleText(maxLength: number, description = 'Empty, or not blank and without control characters') {
  return Type.String({ maxLength, pattern: EMPTY_OR_VISIBLE_TEXT_PATTERN, description });
}

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp, UTC' });
/** The answer of a call the SDK declares void: a 200 with no body. */
export const EmptyBody = Type.Null({ description: 'No body' });
export const IsoDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

/** A string enum with `type: string`, so validation errors and serialisation stay simple. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `T | null` for a primitive schema, as a type array (fast to serialise, valid OpenAPI 3.1). */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type?: string | string[]; enum?: unknown[] };
  // An enum must list null too, or a null value fails validation whatever `type` allows.
  if (Array.isArray(rest.enum)) rest.enum = [...rest.enum, null];
  if (typeof type === 'string') return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
}

/** An object that rejects unknown properties: a typo in a field name is a 400, not silently ignored. */
export function StrictObject<T extends Record<string, TSchema>>(properties: T, options: { description?: string } = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * A body of several shapes, the value of `field` choosing one. Written as `if field ∈ values then
 * shape` clauses rather than `anyOf`, so that a validation error names the field at fault in the
 * chosen shape instead of a mismatch with every other shape. `field` is required, unless
 * `absentMeans` names the value a body without it stands for (a shape whose SDK type has the field
 * optional): then that value's shape also applies when the field is absent.
 */
export function ShapeChosenBy<T>(
  field: string,
  shapes: ReadonlyArray<readonly [values: readonly string[], shape: TSchema]>,
  description: string,
  absentMeans?: string,
): TUnsafe<T> {
  return Type.Unsafe<T>({
    type: 'object',
    description,
    ...(absentMeans === undefined ? { required: [field] } : {}),
    properties: { [field]: StringEnum(shapes.flatMap(([values]) => values)) },
    allOf: shapes.map(([values, shape]) => {
      // `properties` also holds when the field is absent: only the shape absence stands for may apply then
      // (none when the field is required, so that its absence, not another shape's field, is the error).
      const chosen = { properties: { [field]: { enum: [...values] } } };
      const appliesWhenAbsent = absentMeans !== undefined && values.includes(absentMeans);
      return { if: appliesWhenAbsent ? chosen : { ...chosen, required: [field] }, then: shape };
    }),
  });
}

function errorBody(description: string) {
  return Type.Object({ debugging_request_id: Type.String({ format: 'uuid' }), message: Type.String() }, { description });
}

export const ErrorBody = errorBody('Every error has this shape');

const ERRORS = {
  400: errorBody('Invalid whatever the state: bad JSON, unknown field or enum value, wrong type, out of range, too long… (the message names the field)'),
  401: errorBody('No API key, or an unknown or revoked one'),
  404: errorBody("No such resource for this program (another program's is answered the same way)"),
  409: errorBody('The same Idempotency-Key is still being processed (retry)'),
  422: errorBody('Well-formed, but the current state forbids it'),
  '4xx': errorBody('Another client error, e.g. 413 (body over 1 MiB)'),
  '5xx': errorBody('503: the database cannot be reached now (retry; the same Idempotency-Key never applies a request twice); 500: a bug'),
};

interface DocumentedRoute {
  method: string | string[];
  config?: unknown;
  schema?: { summary?: string; operationId?: string; params?: unknown; querystring?: unknown; body?: unknown; response?: unknown };
}

/**
 * What /openapi.json says of a route beyond its own schemas, derived from them so that no route
 * repeats it: an operationId from its summary ("Create a card" → `createCard`), and its error
 * answers, all in the one shape: 401 unless public; 400 if it takes input (a POST always does: its
 * Idempotency-Key); 404 if it names a resource (path or body); 409 for a POST; 422 for a write, or
 * where the route's own response schema lists it (a GET the state can refuse). Documentation only:
 * the answers are serialised from the route's own schemas (app.ts adds 4xx/5xx there).
 */
export function documentRoute(route: DocumentedRoute): DocumentedRoute['schema'] {
  const schema = route.schema ?? {};
  const responses = schema.response as Record<string, unknown> | undefined;
  const method = String(route.method);
  const statuses: Array<keyof typeof ERRORS> = ['4xx', '5xx'];
  if (!(route.config as { public?: boolean } | undefined)?.public) statuses.push(401);
  if (schema.params !== undefined || schema.querystring !== undefined || schema.body !== undefined || method === 'POST') statuses.push(400);
  if (schema.params !== undefined || schema.body !== undefined) statuses.push(404);
  if (method === 'POST') statuses.push(409);
  if (method !== 'GET' || responses?.[422] !== undefined) statuses.push(422);
  const errors = Object.fromEntries(statuses.map((status) => [status, ERRORS[status]]));
  return { ...schema, operationId: schema.operationId ?? operationId(schema.summary ?? method), response: { ...responses, ...errors } };
}

function operationId(summary: string): string {
  const words = summary
    .replace(/\(.*?\)/g, ' ')
    .replace(/['’]s\b/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '' && !['a', 'an', 'the'].includes(word.toLowerCase()));
  return words.map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase())).join('');
}

/** Path parameter object for `/{name}` with a UUID. */
export function TokenParams<const K extends string>(name: K) {
  return Type.Object({ [name]: Uuid } as { [P in K]: typeof Uuid }, { additionalProperties: false });
}

export type ListResponse<T> = { data: T[]; has_more: boolean };

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), has_more: Type.Boolean() });
}
