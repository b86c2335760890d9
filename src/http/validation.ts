/**
 * Request validation. Two Ajv instances:
 * - bodies are validated strictly: no type coercion ("5" is not an integer) and unknown
 *   properties are errors, not silently removed;
 * - query strings, path parameters and headers arrive as text, so they are coerced to the declared
 *   types, and a comma-separated value fills an array (`states=ENABLED,PAUSED`, as the SDK sends);
 *   an empty value or item of an array or enum filter is a 400 (`refuseEmptyValues`).
 *
 * `describeValidationError` turns Ajv's first error into a message that names the field with a
 * readable path, e.g. `parameters.conditions[1].value: must be array`.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FastifyReply, FastifyRequest, FastifySchema, FastifySchemaCompiler, HookHandlerDoneFunction } from 'fastify';
import { InvalidRequestError } from '../errors.js';
import { maskCardNumbers } from '../logger.js';
import { EMPTY_OR_VISIBLE_TEXT_PATTERN, VISIBLE_TEXT_PATTERN, WEB_URL_PATTERN } from './schemas.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

/** A UUID in its usual text form, either case. */
const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_TEXT = new RegExp(`^${UUID_PATTERN}$`, 'i');

const common: Options = { allErrors: false, useDefaults: true, strict: false, messages: true };

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options });
  addFormats(ajv);
  tightenDateTime(ajv);
  // A token is the bare 8-4-4-4-12 form (ajv-formats also passes a `urn:uuid:` prefix).
  ajv.addFormat('uuid', UUID_TEXT);
  return ajv;
}

/**
 * `date-time` as RFC 3339 writes it and as an instant can hold it: ajv-formats also passes a leap
 * second (`23:59:60Z`), which no Date can represent (Date.parse gives NaN), so it was accepted and
 * then misread. Such a value is now a 400 like any malformed date-time.
 */
function tightenDateTime(ajv: Ajv): void {
  const base = ajv.formats['date-time'] as { validate: (value: string) => boolean; compare?: (a: string, b: string) => number | undefined };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => base.validate(value) && Number.isFinite(Date.parse(value)),
    ...(base.compare ? { compare: base.compare } : {}),
  });
}

const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: false });
const textAjv = createAjv({ coerceTypes: 'array', removeAdditional: false });

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<FastifySchema>>;
};

/**
 * `/parameters/conditions/1/value` → `parameters.conditions[1].value`. A client's own key can be
 * anything, a card number too: error messages show it masked, as logs do.
 */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter((part) => part !== '');
  if (extra !== undefined) parts.push(extra);
  let path = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return maskCardNumbers(path);
}

/** Shared patterns said in words (a field's own pattern, `^[0-9]{16}$`, is shown as it is). */
const PATTERN_MEANINGS: ReadonlyMap<string, string> = new Map([
  [VISIBLE_TEXT_PATTERN, 'must contain a character other than white space, and no control characters'],
  [EMPTY_OR_VISIBLE_TEXT_PATTERN, 'must be empty, or contain a character other than white space, and no control characters'],
  [WEB_URL_PATTERN, 'must be an http:// or https:// URL naming a host'],
]);

export function describeValidationError(error: ErrorObject, context: string | undefined): string {
  const where = context === 'body' || context === undefined ? 'body' : context;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${fieldPath(error.instancePath, String(params.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${fieldPath(error.instancePath, String(params.additionalProperty))}: is not a recognised field`;
    case 'enum':
      return `${fieldPath(error.instancePath) || where}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${fieldPath(error.instancePath) || where}: must be ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `${fieldPath(error.instancePath) || where}: must be a valid ${String(params.format)}`;
    case 'pattern':
      return `${fieldPath(error.instancePath) || where}: ${PATTERN_MEANINGS.get(String(params.pattern)) ?? error.message ?? 'is invalid'}`;
    default:
      return `${fieldPath(error.instancePath) || where}: ${error.message ?? 'is invalid'}`;
  }
}

/** The query parameters of a route's schema whose declaration passes `test`. */
function queryParametersWhere(schema: FastifySchema | undefined, test: (property: { type?: unknown; enum?: unknown }) => boolean): string[] {
  const properties = (schema?.querystring as { properties?: Record<string, { type?: unknown; enum?: unknown }> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, property]) => test(property))
    .map(([name]) => name);
}

/** The query parameters of a route's schema declared with this JSON type. */
function queryParametersOfType(schema: FastifySchema | undefined, type: string): string[] {
  return queryParametersWhere(schema, (property) => property.type === type);
}

/**
 * Query parameters declared as arrays accept both repeated keys (`states=A&states=B`) and one
 * comma-separated value (`states=A,B`). Registered once, as an `onRoute` hook, for every route.
 */
export function arrayQueryParameters(schema: FastifySchema | undefined): string[] {
  return queryParametersOfType(schema, 'array');
}

/** Query parameters declared as integers (`page_size`, `limit`…): see `refuseLooseIntegers`. */
export function integerQueryParameters(schema: FastifySchema | undefined): string[] {
  return queryParametersOfType(schema, 'integer');
}

const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * An integer in a query string is written in decimal digits. Ajv's coercion reads text as
 * JavaScript's `Number` does, so `0x10`, `1e1`, ` 1` or `+5` would pass as numbers; they are a
 * 400 here, before validation, like any other wrong type.
 */
export function refuseLooseIntegers(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && !DECIMAL_INTEGER.test(item)) throw new InvalidRequestError(`${name}: must be integer (decimal digits)`);
    }
  }
}

export function splitCommaSeparated(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]));
  }
}

/** Query parameters declared with an `enum` (a list's single-valued filters: `category`, `status`…). */
export function enumQueryParameters(schema: FastifySchema | undefined): string[] {
  return queryParametersWhere(schema, (property) => property.enum !== undefined);
}

/**
 * One rule for empty values in a list's filters (arrays and enums, after `splitCommaSeparated`):
 * leaving the parameter out is no filter; an empty value (`states=`), an empty item (`states=A,`,
 * `states=,`) or an empty repeat (`category=A&category=`) is a 400 naming it. The SDK never sends
 * one (it leaves out an empty array, `states: []`), so it is a hand-made request whose meaning is
 * unclear: before, `states=` listed everything while `category=` was a 400.
 */
export function refuseEmptyValues(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if ((Array.isArray(value) ? value : [value]).includes('')) {
      throw new InvalidRequestError(`${name}: must not be empty or have an empty item (leave the parameter out for no filter)`);
    }
  }
}

/** Nesting deeper than this is refused: no request of the API comes near it, and it keeps every walk over input shallow. */
export const MAX_INPUT_DEPTH = 32;

/** Keys JavaScript gives a meaning of their own (prototype pollution): never allowed in a body. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor']);

export type InputProblem = { path: string; problem: 'nul' | 'surrogate' | 'reserved' | 'depth' };

/** A UTF-16 surrogate not in a pair (JSON can spell one, `"\\ud800"`): no Unicode text, so no database stores it as sent. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** What is wrong with a string (value or key) as text, if anything. */
function textProblem(text: string): 'nul' | 'surrogate' | undefined {
  if (text.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(text) ? 'surrogate' : undefined;
}

/**
 * The first problem in `value` that its schema cannot catch, walked without recursion (a body of
 * 1 MiB can nest half a million levels deep):
 *   - a string (value or key) that contains U+0000: JSON and query strings can carry it, but
 *     PostgreSQL text cannot store it (without this check such input failed there, a 500);
 *   - a string (value or key) with a lone UTF-16 surrogate: it is not Unicode text, and each
 *     engine stored it altered (as one or three U+FFFD), so what was read back was not what was sent;
 *   - a `__proto__` or `constructor` key, at any depth;
 *   - an object or array nested more than MAX_INPUT_DEPTH levels deep.
 */
export function inputProblem(value: unknown): InputProblem | undefined {
  const stack: Array<{ item: unknown; path: string; depth: number; key: string | undefined }> = [{ item: value, path: '', depth: 0, key: undefined }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { item, path, depth, key } = next;
    const keyProblem = key === undefined ? undefined : textProblem(key);
    if (keyProblem !== undefined) return { path, problem: keyProblem };
    if (key !== undefined && RESERVED_KEYS.has(key)) return { path, problem: 'reserved' };
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem !== undefined) return { path, problem };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) return { path, problem: 'depth' };
    const isArray = Array.isArray(item);
    const entries = isArray ? item.map((element, index) => [String(index), element] as const) : Object.entries(item);
    // Pushed last to first, so that the first entry is looked at first.
    for (let index = entries.length - 1; index >= 0; index--) {
      const [entryKey, element] = entries[index] as readonly [string, unknown];
      const elementPath = isArray ? `${path}[${entryKey}]` : path === '' ? entryKey : `${path}.${entryKey}`;
      stack.push({ item: element, path: elementPath, depth: depth + 1, key: isArray ? undefined : entryKey });
    }
  }
  return undefined;
}

/** Token fields whose names do not say so: the list cursors and a card's `replacement_for`. */
const OTHER_TOKEN_FIELDS: readonly string[] = ['starting_after', 'ending_before', 'replacement_for'];

/** Fields that carry tokens: `token`, `*_token`, `*_tokens`, and OTHER_TOKEN_FIELDS. */
function holdsTokens(key: string): boolean {
  return key === 'token' || key.endsWith('_token') || key.endsWith('_tokens') || OTHER_TOKEN_FIELDS.includes(key);
}

const lowerIfUuid = (value: unknown) => (typeof value === 'string' && UUID_TEXT.test(value) ? value.toLowerCase() : value);

const UUIDS_IN_TEXT = new RegExp(UUID_PATTERN, 'gi');

/** A request URL with its tokens in lower case: the same request whatever case its path's tokens are in. */
export function lowerCaseTokensInUrl(url: string): string {
  return url.replace(UUIDS_IN_TEXT, (token) => token.toLowerCase());
}

/**
 * Tokens are UUIDs, which are case-insensitive: Cardwright issues them in lower case and stores
 * them so, and an upper-case spelling of one (`PATCH /v1/cards/ABC…`) names the same resource.
 * Path parameters (all tokens) and the token fields of a query or body, at any depth (an account
 * holder's `individual.entity_token`), are lowered before validation; no other text is touched.
 */
export function lowerCaseTokens(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const params = request.params as Record<string, unknown> | undefined;
  for (const key of Object.keys(params ?? {})) (params as Record<string, unknown>)[key] = lowerIfUuid((params as Record<string, unknown>)[key]);
  lowerTokenFields(request.query, 0);
  lowerTokenFields(request.body, 0);
  done();
}

/** Lowers the token fields of an object and of the objects and arrays in it (no deeper than `rejectUnsafeInput` lets through). */
function lowerTokenFields(value: unknown, depth: number): void {
  if (value === null || typeof value !== 'object' || depth > MAX_INPUT_DEPTH) return;
  if (Array.isArray(value)) {
    for (const element of value) lowerTokenFields(element, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(record)) {
    if (holdsTokens(key)) record[key] = Array.isArray(field) ? field.map(lowerIfUuid) : lowerIfUuid(field);
    else lowerTokenFields(field, depth + 1);
  }
}

const INPUT_PROBLEMS: Record<InputProblem['problem'], string> = {
  nul: 'must not contain the NUL character (U+0000)',
  surrogate: 'must be valid Unicode text (it contains a lone UTF-16 surrogate)',
  reserved: 'is not an allowed key',
  depth: `is nested more than ${MAX_INPUT_DEPTH} levels deep`,
};

/** preValidation for every route with a body or query: a 400 naming the field for an `inputProblem`. */
export function rejectUnsafeInput(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  for (const [part, value] of [['body', request.body], ['querystring', request.query]] as const) {
    const found = inputProblem(value);
    if (found === undefined) continue;
    return done(new InvalidRequestError(`${maskCardNumbers(found.path || part)}: ${INPUT_PROBLEMS[found.problem]}`));
  }
  return done();
}

/**
 * preValidation for an operation that takes no query parameters: one sent anyway would go unread (a
 * `PATCH /v1/accounts/{token}?state=CLOSED` would answer 200 and close nothing), so it is a 400
 * naming it, as an unknown field of a list's query is. A callback hook, as rejectUnsafeInput is, so
 * the hot writes it runs on (book transfers, simulated authorizations) make no promise for it.
 */
export function refuseQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const [field] = Object.keys((request.query ?? {}) as object);
  if (field === undefined) return done();
  return done(new InvalidRequestError(`${maskCardNumbers(field)}: is not a recognised field (this operation takes no query parameters)`));
}

/**
 * preValidation for a write that takes no body: a body sent anyway would go unread (a `recover` with
 * `{"begin": …}` in it would recover everything), so it is a 400. No body, an empty one, or `{}`
 * is none.
 */
export async function refuseBody(request: { body: unknown }): Promise<void> {
  const { body } = request;
  if (body === undefined) return;
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0) return;
  throw new InvalidRequestError('body: this operation takes no body (its parameters, if any, go in the query string)');
}
