/**
 * External bank accounts filtered by every value of each array filter (one or several values, and
 * several filters together, with and without an account) hold exactly the items of the whole list
 * that match, newest first, however they are paged (each filter ranges over its own index, one
 * range per value: db/account-list-plans.test.ts).
 */
import type Lithic from 'lithic';
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { fund, manualBankAccount, newAccount } from '../testing/money.js';
import { expectPagedBothWays, type PagedList } from '../testing/paging.js';
import { ACCOUNT_TYPES, OWNER_TYPES, STATES, VERIFICATION_STATES } from './schemas.js';

type Item = Lithic.ExternalBankAccountListResponse;
type Filters = { account_token?: string } & Partial<Record<(typeof ARRAY_FIELDS)[number][0], string[]>>;

/** Each array filter and the field it tests. */
const ARRAY_FIELDS = [
  ['account_types', 'type'],
  ['countries', 'country'],
  ['owner_types', 'owner_type'],
  ['states', 'state'],
  ['verification_states', 'verification_state'],
] as const;

function matches(item: Item, filters: Filters): boolean {
  if (filters.account_token !== undefined && item.account_token !== filters.account_token) return false;
  return ARRAY_FIELDS.every(([filter, field]) => filters[filter] === undefined || filters[filter].includes(item[field]));
}

describeWithDb('filtered lists of external bank accounts', () => {
  const context = useTestServer();
  let program: TestProgram;
  let accountToken: string;

  beforeAll(async () => {
    program = await context.server.newProgram('bank account filters');
    const { client } = program;
    const funding = await newAccount(client, 'funding');
    await fund(client, funding, 1_000); // enough for the micro-deposits: those accounts are PENDING
    const { kysely } = context.server.server.db;
    accountToken = (await kysely.selectFrom('accounts').select('token').where('program_id', '=', program.programId).executeTakeFirstOrThrow()).token;
    const make = async (extra: Record<string, unknown>) => (await client.externalBankAccounts.create({ ...manualBankAccount(funding), ...extra } as never)).token;
    const made = [
      await make({}),
      await make({ type: 'SAVINGS', verification_method: 'MICRO_DEPOSIT' }),
      await make({ owner_type: 'BUSINESS', account_token: accountToken }),
      await make({ type: 'SAVINGS', verification_method: 'PRENOTE', account_token: accountToken }),
      await make({ verification_method: 'MICRO_DEPOSIT' }),
      await make({ type: 'SAVINGS', owner_type: 'BUSINESS' }),
      await make({ account_token: accountToken }),
      await make({ type: 'SAVINGS' }),
      await make({ verification_method: 'PRENOTE' }),
    ];
    // No endpoint closes or pauses a bank account or takes one outside the USA, and only a
    // micro-deposit verification runs out of funds: the rows are given those values, for the filters to find.
    const set = (index: number, values: Partial<{ state: string; country: string; verification_state: string }>) =>
      kysely.updateTable('external_bank_accounts').set(values).where('program_id', '=', program.programId).where('token', '=', made[index] as string).execute();
    await set(0, { state: 'CLOSED' });
    await set(2, { state: 'PAUSED', country: 'CAN' });
    await set(5, { verification_state: 'FAILED_VERIFICATION', state: 'CLOSED' });
    await set(6, { verification_state: 'INSUFFICIENT_FUNDS', country: 'CAN' });
    await set(7, { country: 'MEX' });
  });

  it('every value of each array filter, alone and together, across pages both ways', async () => {
    const list: PagedList = (query) => program.client.externalBankAccounts.list(query as never);
    const all = (await program.client.externalBankAccounts.list({ page_size: 100 })).data;
    expect(all).toHaveLength(9);
    const values = { account_types: ACCOUNT_TYPES, countries: ['USA', 'CAN', 'MEX', 'GBR'], owner_types: OWNER_TYPES, states: STATES, verification_states: VERIFICATION_STATES };
    const filterSets: Filters[] = [
      ...Object.entries(values).flatMap(([filter, each]) => each.map((value) => ({ [filter]: [value] }))),
      { verification_states: ['PENDING', 'FAILED_VERIFICATION'] },
      { states: ['CLOSED', 'PAUSED'] },
      { countries: ['CAN', 'MEX'] },
      { account_types: ['CHECKING', 'SAVINGS'] },
      { verification_states: ['PENDING', 'ENABLED'], account_types: ['SAVINGS'] },
      { states: ['ENABLED', 'CLOSED'], countries: ['USA'], owner_types: ['BUSINESS'] },
      { account_types: ['CHECKING'], states: ['CLOSED', 'PAUSED', 'ENABLED'], countries: ['CAN', 'USA'] },
      { account_token: accountToken },
      { account_token: accountToken, states: ['ENABLED'] },
      { account_token: accountToken, verification_states: ['PENDING', 'INSUFFICIENT_FUNDS'], countries: ['CAN', 'USA'] },
    ];
    for (const filters of filterSets) {
      const expected = all.filter((item) => matches(item, filters)).map((item) => item.token);
      await expectPagedBothWays(list, filters, expected);
    }
  });
});
