/**
 * Request validation. Two Ajv instances:
 * - bodies are validated strictly: no type coercion ("5" is not an integer) and unknown
 *   properties are errors, not silently removed;
 * - query strings, path parameters and headers arrive as text, so they are coerced to the declared
 *   types, and a comma-separated value fills an array (`states=ENABLED,PAUSED`, as the SDK sends).
 *
 * `describeValidationError` turns Ajv's first error into a message that names the field with a
 * readable path, e.g. `parameters.conditions[1].value: must be array`.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FastifyReply, FastifyRequest, FastifySchema, FastifySchemaCompiler, HookHandlerDoneFunction } from 'fastify';
import { InvalidRequestError } from '../errors.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

const common: Options = { allErrors: false, useDefaults: true, strict: false, messages: true };

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: false });
const textAjv = createAjv({ coerceTypes: 'array', removeAdditional: false });

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<FastifySchema>>;
};

/** `/parameters/conditions/1/value` → `parameters.conditions[1].value`. */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter((part) => part !== '');
  if (extra !== undefined) parts.push(extra);
  let path = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return path;
}

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
    default:
      return `${fieldPath(error.instancePath) || where}: ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Query parameters declared as arrays accept both repeated keys (`states=A&states=B`) and one
 * comma-separated value (`states=A,B`). Registered once, as an `onRoute` hook, for every route.
 */
export function arrayQueryParameters(schema: FastifySchema | undefined): string[] {
  const properties = (schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'array')
    .map(([name]) => name);
}

export function splitCommaSeparated(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.flatMap((item) => (typeof item === 'string' ? item.split(',').filter((part) => part !== '') : [item]));
  }
}

/** The path of the first key or string value in `value` that `flags` (a key's path ends with it), or undefined. */
function firstFlaggedPath(value: unknown, flags: (text: string, isKey: boolean) => boolean, path = ''): string | undefined {
  if (typeof value === 'string') return flags(value, false) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const itemPath = Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
    if (!Array.isArray(value) && flags(key, true)) return itemPath;
    const found = firstFlaggedPath(item, flags, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The path of the first string (value or key) in `value` that contains U+0000, or undefined.
 * JSON and query strings can carry it, but PostgreSQL text cannot store it: without this check such
 * input reached the database and failed there (a 500).
 */
export function nulCharacterPath(value: unknown): string | undefined {
  return firstFlaggedPath(value, (text) => text.includes('\u0000'));
}

/** Keys JavaScript gives a meaning of their own (prototype pollution): never allowed in a body. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor']);

/** The path of the first `__proto__` or `constructor` key in a parsed JSON value, or undefined. */
export function reservedKeyPath(value: unknown): string | undefined {
  return firstFlaggedPath(value, (text, isKey) => isKey && RESERVED_KEYS.has(text));
}

/** preValidation for every route: a 400 naming the field when the body or query holds U+0000. */
export function rejectNulCharacters(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  for (const [part, value] of [['body', request.body], ['querystring', request.query]] as const) {
    const path = nulCharacterPath(value);
    if (path !== undefined) return done(new InvalidRequestError(`${path || part}: must not contain the NUL character (U+0000)`));
  }
  return done();
}
