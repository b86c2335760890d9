/**
 * Response shapes for tests: a hand-kept copy of what the SDK's type of a resource declares (its
 * keys, which are optional, JSON types, nullability and enum values), and `shapeProblems`, which
 * lists every way an answer differs from it: a missing required key, a key the type does not
 * declare, a wrong JSON type, a null where none is allowed, a value outside an enum.
 *
 * A shape maps each key to its spec; a key ending in `?` is optional (it may be absent). A spec is
 * a primitive (`string`, `integer`, `number`, `boolean`; `uuid`, `date`, `date-time` are strings
 * in that format; `any-object` is an object whatever its keys), `oneOf(…)`, `arrayOf(spec)`,
 * `object(shape)`, `nullable(spec)` or `union({ name: spec, … })`: a value that matches one of the
 * variants. A variant is named as the SDK's union names it (sdk-types.ts pairs them by name): an
 * object by its interface (`VelocityLimitParams`), anything else by its JSON type (`string`,
 * `number`, `boolean`, `array`).
 */
type Primitive = 'string' | 'uuid' | 'date' | 'date-time' | 'integer' | 'number' | 'boolean' | 'any-object';
export type Spec =
  | Primitive
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'array'; of: Spec }
  | { kind: 'object'; shape: Shape }
  | { kind: 'nullable'; of: Spec }
  | { kind: 'union'; variants: { readonly [name: string]: Spec } };
export type Shape = { readonly [key: string]: Spec };

export const oneOf = (...values: string[]): Spec => ({ kind: 'enum', values });
export const arrayOf = (of: Spec): Spec => ({ kind: 'array', of });
export const object = (shape: Shape): Spec => ({ kind: 'object', shape });
export const nullable = (of: Spec): Spec => ({ kind: 'nullable', of });
export const union = (variants: { readonly [name: string]: Spec }): Spec => ({ kind: 'union', variants });

const FORMATS: Record<'uuid' | 'date' | 'date-time', RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
};

function describeValue(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

const member = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function specProblems(value: unknown, spec: Spec, path: string): string[] {
  if (typeof spec === 'string') {
    if (spec === 'integer') return Number.isInteger(value) ? [] : [`${path}: ${JSON.stringify(value)} is not an integer`];
    if (spec === 'number') return typeof value === 'number' ? [] : [`${path}: ${describeValue(value)} is not a number`];
    if (spec === 'boolean') return typeof value === 'boolean' ? [] : [`${path}: ${describeValue(value)} is not a boolean`];
    if (spec === 'any-object') return describeValue(value) === 'object' ? [] : [`${path}: ${describeValue(value)} is not an object`];
    if (typeof value !== 'string') return [`${path}: ${describeValue(value)} is not a string`];
    return spec === 'string' || FORMATS[spec].test(value) ? [] : [`${path}: '${value}' is not a ${spec}`];
  }
  switch (spec.kind) {
    case 'nullable':
      return value === null ? [] : specProblems(value, spec.of, path);
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value) ? [] : [`${path}: ${JSON.stringify(value)} is not one of ${spec.values.join(', ')}`];
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, index) => specProblems(item, spec.of, `${path}[${index}]`)) : [`${path}: ${describeValue(value)} is not an array`];
    case 'object':
      return shapeProblems(value, spec.shape, path);
    case 'union':
      return unionProblems(value, spec.variants, path);
  }
}

/**
 * None when `value` matches a variant; else one line naming each variant's problems, leaving out
 * the variants of another JSON type when some are of the value's own (their problems lie inside it).
 */
function unionProblems(value: unknown, variants: { readonly [name: string]: Spec }, path: string): string[] {
  const byVariant: Array<[string, string[]]> = [];
  for (const [name, variant] of Object.entries(variants)) {
    const problems = specProblems(value, variant, path);
    if (problems.length === 0) return [];
    byVariant.push([name, problems]);
  }
  const sameType = byVariant.filter(([, problems]) => problems.every((problem) => !problem.startsWith(`${path}: `)));
  const shown = (sameType.length > 0 ? sameType : byVariant).map(([name, problems]) => `${name} (${problems.join('; ')})`);
  return [`${path}: matches no variant: ${shown.join(', ')}`];
}

/** Every difference between `value` and `shape` (empty when it conforms), each naming its path. */
export function shapeProblems(value: unknown, shape: Shape, path = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path || '(root)'}: ${describeValue(value)} is not an object`];
  const record = value as Record<string, unknown>;
  const at = (key: string) => member(path, key);
  const problems: string[] = [];
  const declared = new Set<string>();
  for (const [declaration, spec] of Object.entries(shape)) {
    const optional = declaration.endsWith('?');
    const key = optional ? declaration.slice(0, -1) : declaration;
    declared.add(key);
    if (!(key in record)) {
      if (!optional) problems.push(`${at(key)}: is missing`);
      continue;
    }
    problems.push(...specProblems(record[key], spec, at(key)));
  }
  for (const key of Object.keys(record)) if (!declared.has(key)) problems.push(`${at(key)}: is not declared`);
  return problems;
}

/** Each variant of each union in `shape`, as `path<name>` (an array's items at `path[]`), nested ones too. */
export function unionVariants(shape: Shape): string[] {
  return variantsIn(object(shape), '');
}

function variantsIn(spec: Spec, path: string): string[] {
  if (typeof spec === 'string' || spec.kind === 'enum') return [];
  switch (spec.kind) {
    case 'nullable':
      return variantsIn(spec.of, path);
    case 'array':
      return variantsIn(spec.of, `${path}[]`);
    case 'object':
      return Object.entries(spec.shape).flatMap(([key, each]) => variantsIn(each, member(path, key.replace(/\?$/, ''))));
    case 'union':
      return Object.entries(spec.variants).flatMap(([name, each]) => [`${path}<${name}>`, ...variantsIn(each, `${path}<${name}>`)]);
  }
}

/** The variants of `unionVariants(shape)` that `value` takes: at each union in it, every variant its part there matches. */
export function unionVariantsTaken(value: unknown, shape: Shape): string[] {
  return variantsTaken(value, object(shape), '');
}

function variantsTaken(value: unknown, spec: Spec, path: string): string[] {
  if (typeof spec === 'string' || spec.kind === 'enum') return [];
  switch (spec.kind) {
    case 'nullable':
      return value === null ? [] : variantsTaken(value, spec.of, path);
    case 'array':
      return Array.isArray(value) ? value.flatMap((item) => variantsTaken(item, spec.of, `${path}[]`)) : [];
    case 'object': {
      if (!isRecord(value)) return [];
      return Object.entries(spec.shape).flatMap(([declaration, each]) => {
        const key = declaration.replace(/\?$/, '');
        return key in value ? variantsTaken(value[key], each, member(path, key)) : [];
      });
    }
    case 'union':
      return Object.entries(spec.variants)
        .filter(([, each]) => specProblems(value, each, path).length === 0)
        .flatMap(([name, each]) => [`${path}<${name}>`, ...variantsTaken(value, each, `${path}<${name}>`)]);
  }
}

/**
 * The structure of a JSON value, to compare two values' shapes whatever they hold: an object's
 * keys (sorted), each with its value's structure; an array's distinct item structures (in a fixed order);
 * else the JSON type (`string`, `number`, `boolean`, `null`).
 */
export type JsonStructure = string | readonly JsonStructure[] | { readonly [key: string]: JsonStructure };

export function jsonStructure(value: unknown): JsonStructure {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const items = new Map(value.map((item) => jsonStructure(item)).map((structure) => [JSON.stringify(structure), structure]));
    return [...items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, structure]) => structure);
  }
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, jsonStructure((value as Record<string, unknown>)[key])]));
  return typeof value;
}
