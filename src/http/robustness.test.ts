/**
 * No input is a 500. For every route in the OpenAPI document (so every route, including those added
 * later), send malformed and randomly generated requests and check the answer is a 2xx or a 4xx with
 * the contract's error body, never a 5xx. Path parameters are random UUIDs, malformed strings, or
 * real tokens of the program; bodies are random JSON, wrong types for declared fields, extreme
 * numbers, long strings and NUL characters. Write routes are also fuzzed field by field from their
 * body schema: each variant of a union body (anyOf / oneOf / allOf of if-then branches), and the
 * fields of nested objects and of array items (`address.city`, `beneficial_owner_individuals[0].dob`,
 * an Auth Rule's `parameters.period`), on top of an otherwise plausible body of that variant, so the
 * bad value gets past the schema's `required` and discriminator checks to the code behind them.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { AUTHORIZATION_ATTRIBUTES, OPERATIONS, PAN_ENTRY_MODES, THREE_DS_ATTRIBUTES } from '../auth_rules/attributes.js';
import { expectErrorResponse } from '../testing/api-errors.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bodySchema, openApiRoutes, type JsonSchema, type Route } from '../testing/openapi.js';
import { ownedResources } from '../testing/owned.js';

const NASTY_VALUES: unknown[] = [
  null,
  '',
  ' ',
  'x'.repeat(5000),
  'nul\u0000byte',
  '💳',
  -1,
  0,
  1.5,
  -0.0001,
  Number.MAX_SAFE_INTEGER,
  1e308,
  -1e308,
  true,
  [],
  [null],
  {},
  { nested: { deeper: [1, 'two'] } },
  '00000000-0000-0000-0000-000000000000',
  '2026-02-30',
  '9999-12-31T23:59:59Z',
  '4111111111111111',
];

/** A string list of at most a few values of the given ones (an Auth Rule condition's `value`, a filter). */
const someOf = (values: readonly string[]): JsonSchema => ({ type: 'array', items: { type: 'string', enum: [...values] } });
const CONDITION: JsonSchema = {
  type: 'object',
  required: ['attribute', 'operation', 'value'],
  properties: {
    attribute: { type: 'string', enum: [...Object.keys(AUTHORIZATION_ATTRIBUTES), ...Object.keys(THREE_DS_ATTRIBUTES)] },
    operation: { type: 'string', enum: [...OPERATIONS] },
    value: { anyOf: [{ type: 'string' }, { type: 'integer' }, someOf(['5411', 'USA', 'CONTACTLESS'])] },
  },
};
const PERIOD: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: 10, maximum: 2_678_400 },
    { type: 'string', enum: ['DAY', 'WEEK', 'MONTH', 'YEAR'] },
    { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['CUSTOM', 'DAY', 'WEEK', 'MONTH', 'YEAR'] }, duration: { type: 'integer' }, day_of_week: { type: 'integer' }, day_of_month: { type: 'integer' }, month: { type: 'integer' } } },
  ],
};
const FILTERS: JsonSchema = {
  type: 'object',
  properties: { include_mccs: someOf(['5411']), exclude_mccs: someOf(['5411']), include_countries: someOf(['USA']), exclude_countries: someOf(['USA']), include_pan_entry_modes: someOf(PAN_ENTRY_MODES) },
};
const CONDITIONS: JsonSchema = { type: 'array', items: CONDITION, minItems: 1 };
const RULE_PARAMETERS: Record<string, JsonSchema> = {
  CONDITIONAL_BLOCK: { type: 'object', required: ['conditions'], properties: { conditions: CONDITIONS } },
  CONDITIONAL_ACTION: { type: 'object', required: ['action', 'conditions'], properties: { action: { type: 'string', enum: ['DECLINE', 'CHALLENGE'] }, conditions: CONDITIONS } },
  CONDITIONAL_3DS_ACTION: { type: 'object', required: ['action', 'conditions'], properties: { action: { type: 'string', enum: ['DECLINE', 'CHALLENGE'] }, conditions: CONDITIONS } },
  VELOCITY_LIMIT: {
    type: 'object',
    required: ['scope', 'period', 'filters'],
    properties: { scope: { type: 'string', enum: ['CARD', 'ACCOUNT'] }, period: PERIOD, filters: FILTERS, limit_amount: { type: 'integer', minimum: 0, maximum: 100_000 }, limit_count: { type: 'integer', minimum: 0, maximum: 100 } },
  },
  MERCHANT_LOCK: { type: 'object', required: ['merchants'], properties: { merchants: { type: 'array', items: { type: 'object', properties: { merchant_id: { type: 'string' }, descriptor: { type: 'string' }, comment: { type: 'string' } } }, minItems: 1 } } },
};
/**
 * Objects the OpenAPI document leaves open because code checks them (an Auth Rule's `parameters`
 * by rule type, parameters.ts): their shapes, so that they are fuzzed field by field like declared ones.
 */
const UNDECLARED_OBJECTS: Record<string, JsonSchema> = {
  parameters: { anyOf: Object.values(RULE_PARAMETERS) },
};
/** Bodies the OpenAPI document leaves one shape because code tells the variants apart: an Auth Rule's parameters go with its type. */
const UNDECLARED_UNIONS: Record<string, JsonSchema[]> = {
  'POST /v2/auth_rules': Object.entries(RULE_PARAMETERS).map(([type, parameters]) => ({
    type: 'object',
    required: ['type', 'parameters'],
    properties: { type: { type: 'string', enum: [type] }, parameters },
  })),
};

/** Values that pass the usual checks on fields of these names (US addresses, phones, ids). */
const PLAUSIBLE: Record<string, unknown> = {
  address1: '123 Main St',
  city: 'New York',
  state: 'NY',
  postal_code: '10001',
  country: 'USA',
  currency: 'USD',
  email: 'holder@example.com',
  phone_number: '+15555555555',
  phone_numbers: ['+15555555555'],
  government_id: '12-3456789',
  routing_number: '021000021',
  account_number: '123456789',
  dob: '1990-05-17',
  tos_timestamp: '2026-01-01T00:00:00Z',
};

/** The fields of a schema that is an object, or a union with objects (`parameters: object | null`): every branch's. */
function objectShape(schema: JsonSchema | undefined, name?: string): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.properties !== undefined) return schema;
  const shapes = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((branch) => objectShape(branch, name) ?? []);
  if (shapes.length > 0) return { type: 'object', properties: Object.assign({}, ...shapes.map((shape) => shape.properties)) };
  return schema.type === 'object' && name !== undefined ? objectShape(UNDECLARED_OBJECTS[name]) : undefined;
}

function withUndeclaredUnion(route: Route): JsonSchema | undefined {
  const schema = bodySchema(route.operation);
  const union = UNDECLARED_UNIONS[`${route.method} ${route.path}`];
  return union === undefined || schema === undefined ? schema : { ...schema, anyOf: union };
}

/** A body schema's variants: each branch of a top-level union, with the fields the schema shares. */
function variants(schema: JsonSchema | undefined): JsonSchema[] {
  if (schema === undefined) return [];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]
    .flatMap((branch) => (branch.if !== undefined ? [branch.then, branch.else] : [branch]))
    .filter((branch): branch is JsonSchema => branch?.properties !== undefined);
  if (branches.length === 0) return [schema];
  return branches.map((branch) => ({
    ...branch,
    properties: { ...schema.properties, ...branch.properties },
    required: [...new Set([...(schema.required ?? []), ...(branch.required ?? [])])],
  }));
}

type FieldPath = Array<string | number>;

/** Every field of an object schema and, down to `depth` more levels, of its nested objects and array items. */
function fieldPaths(shape: JsonSchema, depth: number): FieldPath[] {
  return Object.entries(shape.properties ?? {}).flatMap(([name, schema]) => {
    const inner = depth > 0 ? objectShape(schema, name) : undefined;
    const items = depth > 0 && schema.type === 'array' ? objectShape(schema.items) : undefined;
    return [
      [name],
      ...(inner ? fieldPaths(inner, depth - 1).map((path) => [name, ...path]) : []),
      ...(items ? fieldPaths(items, depth - 1).map((path) => [name, 0, ...path]) : []),
    ];
  });
}

/** A value the schema (probably) accepts: enums, formats, patterns and lengths respected, objects with their required fields and some others. */
function plausible(schema: JsonSchema, tokens: string[], name = '', depth = 4): fc.Arbitrary<unknown> {
  if (name in PLAUSIBLE) return fc.constant(PLAUSIBLE[name]);
  const undeclared = schema.type === 'object' && schema.properties === undefined ? UNDECLARED_OBJECTS[name] : undefined;
  if (undeclared !== undefined) return plausible(undeclared, tokens, '', depth);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((branch) => branch.type !== 'null');
  if (branches.length > 0) return fc.oneof(...branches.map((branch) => plausible(branch, tokens, name, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((each) => each !== 'null') : schema.type;
  const shape = type === 'object' ? objectShape(schema, name) : undefined;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return fc.constantFrom(...tokens);
      if (schema.format === 'date-time') return fc.constant('2026-01-01T00:00:00Z');
      if (schema.format === 'date') return fc.constant('1990-05-17');
      if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern)).map((text) => text.slice(0, schema.maxLength ?? 64));
      return fc.constant('Cardwright test'.padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? 64));
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 10_000, Math.max(schema.minimum ?? 0, 0) + 10_000) });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 0 && schema.items !== undefined ? fc.array(plausible(schema.items, tokens, '', depth - 1), { minLength: Math.max(schema.minItems ?? 0, 1), maxLength: Math.max(schema.minItems ?? 0, 1) }) : fc.constant([]);
    case 'object': {
      if (shape === undefined || depth === 0) return fc.constant({});
      const required = new Set(shape.required ?? []);
      const fields = Object.entries(shape.properties ?? {});
      return fc.subarray(fields.filter(([field]) => !required.has(field))).chain((optional) =>
        fc.record(Object.fromEntries([...fields.filter(([field]) => required.has(field)), ...optional].map(([field, inner]) => [field, plausible(inner, tokens, field, depth - 1)]))),
      );
    }
    default:
      return fc.constant(null);
  }
}

/** Sets `path` in `body` to `value`, creating the objects and arrays on the way. */
function setPath(body: Record<string, unknown>, path: FieldPath, value: unknown): void {
  let at: Record<string | number, unknown> = body;
  path.slice(0, -1).forEach((key, index) => {
    const next = at[key];
    if (typeof next !== 'object' || next === null) at[key] = typeof path[index + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  });
  at[path[path.length - 1] as string | number] = value;
}

describeWithDb('robustness: no input is a 500', () => {
  const context = useTestServer();

  const routes = () => openApiRoutes(context.server);

  async function expectNoServerError(method: string, url: string, body: string | undefined, apiKey = context.program.apiKey) {
    const response = await context.server.request(method, url, { apiKey, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    expect(response.status, `${method} ${url} ${body?.slice(0, 1000) ?? ''} → ${response.status} ${text.slice(0, 300)}`).toBeLessThan(500);
    if (response.status >= 400) {
      const error = JSON.parse(text) as { debugging_request_id?: unknown; message?: unknown };
      expect(typeof error.message).toBe('string');
      expect(error.debugging_request_id).toBe(response.headers.get('x-request-id'));
    }
  }

  /** Real tokens of the program by path parameter name: holders of each kind, their accounts, a card, its transaction, a rule, money movements… */
  const ownedTokens = async () => (await ownedResources(context.program.client)).tokens;

  function fillPath(path: string, value: string): string {
    return path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
  }

  it('answers every route with malformed path parameters, bodies and query strings without a 5xx', async () => {
    const all = await routes();
    expect(all.length).toBeGreaterThan(10);
    const existing = (await context.program.client.financialAccounts.list()).data[0]?.token as string;
    for (const { method, path, operation } of all) {
      for (const token of [crypto.randomUUID(), 'not-a-uuid', existing, '%00', '..']) {
        const url = fillPath(path, token);
        if (method === 'GET' || method === 'DELETE') {
          await expectNoServerError(method, url, undefined);
          await expectNoServerError(method, `${url}?page_size=-1&begin=yesterday&unknown=1`, undefined);
          continue;
        }
        for (const body of ['', '{', '[]', 'null', '"string"', '{"a":', '{}', JSON.stringify({ token: 'x' })]) {
          await expectNoServerError(method, url, body);
        }
        const fields = new Set(variants(bodySchema(operation)).flatMap((variant) => Object.keys(variant.properties ?? {})));
        for (const field of fields) {
          for (const value of NASTY_VALUES) await expectNoServerError(method, url, JSON.stringify({ [field]: value }));
        }
      }
    }
  }, 240_000);

  it("answers random bodies built from each write route's own fields without a 5xx", async () => {
    const writes = (await routes()).filter(({ method }) => method === 'POST' || method === 'PATCH');
    const owned = await ownedTokens();
    PLAUSIBLE.pan = owned.pan?.[0];
    const { pan: _pan, ...resources } = owned;
    const tokens = [crypto.randomUUID(), ...Object.values(resources).flat()];
    // A path's token is mostly one of the resource it names, so the bodies reach the code behind the lookup.
    const pathToken = (path: string) => fc.constantFrom(crypto.randomUUID(), ...(owned[/\{([^}]+)\}/.exec(path)?.[1] ?? ''] ?? tokens));
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...NASTY_VALUES, ...tokens));
    // One case per variant of each route's body: a union body (account holders, external bank accounts) is fuzzed in each shape.
    const cases = writes.flatMap((route) => variants(withUndeclaredUnion(route)).map((variant) => ({ route, variant, paths: fieldPaths(variant, 2) })));
    expect(cases.filter(({ paths }) => paths.some((path) => path.length > 1)).length).toBeGreaterThan(5);
    const request = cases.length === 0 ? fc.constant(undefined) : fc.constantFrom(...cases).chain(({ route, variant, paths }) =>
      fc.record({
        route: fc.constant(route),
        token: pathToken(route.path),
        // Mostly an otherwise plausible body, so the bad values reach the code behind the schema's required fields.
        base: fc.oneof({ arbitrary: plausible(variant, tokens), weight: 3 }, { arbitrary: fc.constant({}), weight: 1 }),
        changes: paths.length === 0 ? fc.constant([]) : fc.uniqueArray(fc.tuple(fc.constantFrom(...paths), value), { maxLength: 3, selector: ([path]) => path.join('.') }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        if (generated === undefined) return;
        const { route, token, base, changes } = generated;
        const body = structuredClone(base) as Record<string, unknown>;
        for (const [path, change] of changes) setPath(body, path, change);
        await expectNoServerError(route.method, fillPath(route.path, token), JSON.stringify(body));
      }),
      { numRuns: 3000, seed: Number(process.env.ROBUSTNESS_SEED ?? 20261122) },
    );
  }, 240_000);

  it('answers every route without a key, or with an unknown one, with a 401 in the one error shape', async () => {
    for (const { method, path } of await routes()) {
      for (const apiKey of [undefined, 'cw_unknown-key-0000']) {
        const response = await context.server.request(method, fillPath(path, crypto.randomUUID()), apiKey === undefined ? {} : { apiKey });
        await expectErrorResponse(response, 401, apiKey === undefined ? /^Please provide API key/ : /^Could not find API key/);
      }
    }
  });
});
