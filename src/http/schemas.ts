/**
 * Building blocks for route schemas. Every route declares its request and response with these
 * (TypeBox → JSON Schema): Ajv validates requests from them, fast-json-stringify serialises
 * responses from them, and @fastify/swagger turns them into /openapi.json.
 */
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

export { Type, type Static, type TSchema };

/** Lithic's limit on free text a client attaches: memos, comments, card names. */
export const FREE_TEXT_MAX_LENGTH = 512;

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp, UTC' });
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
 * chosen shape instead of a mismatch with every other shape.
 */
export function ShapeChosenBy<T>(field: string, shapes: ReadonlyArray<readonly [values: readonly string[], shape: TSchema]>, description: string): TUnsafe<T> {
  return Type.Unsafe<T>({
    type: 'object',
    description,
    required: [field],
    properties: { [field]: StringEnum(shapes.flatMap(([values]) => values)) },
    allOf: shapes.map(([values, shape]) => ({ if: { properties: { [field]: { enum: [...values] } } }, then: shape })),
  });
}

export const ErrorBody = Type.Object(
  {
    debugging_request_id: Type.String({ format: 'uuid' }),
    message: Type.String(),
  },
  { description: 'Every error has this shape' },
);

/** Path parameter object for `/{name}` with a UUID. */
export function TokenParams<const K extends string>(name: K) {
  return Type.Object({ [name]: Uuid } as { [P in K]: typeof Uuid }, { additionalProperties: false });
}

export type ListResponse<T> = { data: T[]; has_more: boolean };

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), has_more: Type.Boolean() });
}
