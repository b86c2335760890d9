/**
 * Empty values in list filters, one rule for every array or enum filter of every list (read from
 * /openapi.json, so a list added later is covered too): leaving a parameter out is no filter; an
 * empty value (`x=`), an empty item (`x=A,`, `x=,A`, `x=,`) or an empty repeat (`x=A&x=`) is a 400
 * naming the parameter. The SDK never sends one: it leaves out an empty array (`states: []`), and
 * sends a non-empty one comma-separated (`arrayFormat: 'comma'`).
 */
import crypto from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { apiFailure, expectErrorResponse } from '../testing/api-errors.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { manualBankAccount, newAccount } from '../testing/money.js';
import { openApiRoutes, type JsonSchema } from '../testing/openapi.js';

const EMPTY = (name: string) => new RegExp(`^${name}: must not be empty or have an empty item \\(leave the parameter out for no filter\\)$`);

/** `x=`, an empty repeat, and (in an array, whose values are comma-separated) an empty item. */
function emptyForms(name: string, value: string, array: boolean): string[] {
  const repeats = [`${name}=`, `${name}=${value}&${name}=`, `${name}=&${name}=${value}`];
  return array ? [...repeats, `${name}=${value},`, `${name}=,${value}`, `${name}=${value},,${value}`, `${name}=,`] : repeats;
}

/** A valid value of a filter: its first enum member, or a country for `countries`. */
function sampleValue(schema: JsonSchema): string | undefined {
  const values = schema.type === 'array' ? schema.items?.enum : schema.enum;
  if (values !== undefined) return String(values[0]);
  return schema.type === 'array' ? 'USA' : undefined;
}

describeWithDb('empty values in list filters', () => {
  const context = useTestServer();
  let bankAccount: string;

  beforeAll(async () => {
    const { client } = context.program;
    bankAccount = (await client.externalBankAccounts.create(manualBankAccount(await newAccount(client)) as never)).token;
  });

  const get = (path: string) => context.server.request('GET', path, { apiKey: context.program.apiKey });

  it('every array or enum filter of every list refuses an empty value or item, naming the parameter', async () => {
    const filters: Array<{ path: string; name: string; value: string; array: boolean }> = [];
    for (const route of await openApiRoutes(context.server)) {
      if (route.method !== 'GET') continue;
      for (const parameter of route.operation.parameters ?? []) {
        const value = parameter.in === 'query' && parameter.schema ? sampleValue(parameter.schema) : undefined;
        if (value === undefined) continue;
        const path = route.path.replace(/\{[^}]+\}/g, () => crypto.randomUUID());
        filters.push({ path, name: parameter.name, value, array: parameter.schema?.type === 'array' });
      }
    }
    // The arrays of external bank accounts and events, and the single-valued enums of the others.
    for (const name of ['states', 'verification_states', 'account_types', 'owner_types', 'countries', 'event_types', 'category', 'status', 'result', 'state', 'scope']) {
      expect(filters.map((filter) => filter.name)).toContain(name);
    }
    for (const { path, name, value, array } of filters) {
      for (const query of emptyForms(name, value, array)) {
        await expectErrorResponse(await get(`${path}?${query}`), 400, EMPTY(name));
      }
    }
  });

  it('a filter left out is none, and the SDK leaves an empty array out', async () => {
    const { client } = context.program;
    const listed = async (query: string) => ((await (await get(`/v1/external_bank_accounts${query}`)).json()) as { data: Array<{ token: string }> }).data.map((item) => item.token);
    expect(await listed('')).toContain(bankAccount);
    expect(await listed('?states=ENABLED,PAUSED&verification_states=ENABLED')).toContain(bankAccount);
    expect(await listed('?states=CLOSED')).not.toContain(bankAccount);
    const sdk = await client.externalBankAccounts.list({ states: [], verification_states: [], account_types: [], countries: [] });
    expect(sdk.data.map((item) => item.token)).toContain(bankAccount);
  });

  it('an SDK array holding an empty item is the same 400', async () => {
    const { client } = context.program;
    for (const failure of [
      await apiFailure(client.externalBankAccounts.list({ countries: [''] })),
      await apiFailure(client.externalBankAccounts.list({ states: ['ENABLED', '' as never] })),
      await apiFailure(client.events.list({ event_types: ['' as never] })),
    ]) {
      expect(failure.status).toBe(400);
      expect(failure.message).toMatch(/^(countries|states|event_types): must not be empty or have an empty item/);
    }
  });

  it('a single-valued enum filter given empty is the same 400, naming it', async () => {
    const { client } = context.program;
    const failure = await apiFailure(client.bookTransfers.list({ category: '' as never }));
    expect(failure).toEqual({ status: 400, message: 'category: must not be empty or have an empty item (leave the parameter out for no filter)' });
    await expectErrorResponse(await get('/v1/cards?state='), 400, EMPTY('state'));
    await expectErrorResponse(await get('/v1/transactions?status=SETTLED&status='), 400, EMPTY('status'));
    // One value, not a list: a comma in it is an unknown value, still named.
    await expectErrorResponse(await get('/v1/book_transfers?category=FEE,'), 400, /^category: must be one of /);
    expect((await get('/v1/cards?state=OPEN')).status).toBe(200);
  });
});
