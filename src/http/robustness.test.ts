/**
 * No input is a 500. For every route in the OpenAPI document (so every route, including those added
 * later), send malformed and randomly generated requests and check the answer is a 2xx or a 4xx with
 * the contract's error body, never a 5xx. Path parameters are random UUIDs, malformed strings, or
 * real tokens of the program; bodies are random JSON, wrong types for declared fields, extreme
 * numbers, long strings and NUL characters.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';

interface OpenApiOperation {
  requestBody?: { content?: { 'application/json'?: { schema?: JsonSchema } } };
  parameters?: Array<{ in: string; name: string; schema?: JsonSchema }>;
}
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
}

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

describeWithDb('robustness: no input is a 500', () => {
  const context = useTestServer();

  async function routes(): Promise<Array<{ method: string; path: string; operation: OpenApiOperation }>> {
    const response = await context.server.request('GET', '/openapi.json');
    const document = (await response.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
    return Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
  }

  async function expectNoServerError(method: string, url: string, body: string | undefined, apiKey = context.program.apiKey) {
    const response = await context.server.request(method, url, { apiKey, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    expect(response.status, `${method} ${url} ${body?.slice(0, 200) ?? ''} → ${response.status} ${text.slice(0, 300)}`).toBeLessThan(500);
    if (response.status >= 400) {
      const error = JSON.parse(text) as { debugging_request_id?: unknown; message?: unknown };
      expect(typeof error.message).toBe('string');
      expect(error.debugging_request_id).toBe(response.headers.get('x-request-id'));
    }
  }

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
        const properties = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
        for (const field of Object.keys(properties)) {
          for (const value of NASTY_VALUES) await expectNoServerError(method, url, JSON.stringify({ [field]: value }));
        }
      }
    }
  }, 240_000);

  it("answers random bodies built from each write route's own fields without a 5xx", async () => {
    const writes = (await routes()).filter(({ method }) => method === 'POST' || method === 'PATCH');
    const existing = (await context.program.client.financialAccounts.list()).data.map((account) => account.token);
    const tokens = [crypto.randomUUID(), ...existing];
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...NASTY_VALUES, ...tokens));
    const request = fc.constantFrom(...writes).chain((route) => {
      const fields = Object.keys(route.operation.requestBody?.content?.['application/json']?.schema?.properties ?? {});
      return fc.record({
        route: fc.constant(route),
        token: fc.constantFrom(...tokens),
        body: fc.subarray(fields).chain((chosen) => fc.tuple(...chosen.map((field) => fc.tuple(fc.constant(field), value)))),
      });
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ route, token, body }) => {
        await expectNoServerError(route.method, fillPath(route.path, token), JSON.stringify(Object.fromEntries(body)));
      }),
      { numRuns: 600, seed: Number(process.env.ROBUSTNESS_SEED ?? 20261122) },
    );
  }, 240_000);

  it('answers every route without a key with 401 or 404, never a 5xx', async () => {
    for (const { method, path } of await routes()) {
      const response = await context.server.request(method, fillPath(path, crypto.randomUUID()));
      expect([401, 404], `${method} ${path}`).toContain(response.status);
    }
  });
});
