/**
 * Financial accounts filtered by type (alone and with an account) hold exactly the items of the
 * whole list of that type, newest first, however they are paged and when not paged at all; and
 * `GET /v1/balances` by financial_account_type lists exactly the accounts of that type, oldest
 * first, also as of a time (those that existed then). The type filter ranges over its own index:
 * db/account-list-plans.test.ts.
 */
import type Lithic from 'lithic';
import { CursorPage } from 'lithic/pagination';
import { beforeAll, expect, it } from 'vitest';
import { acceptedAccountToken } from '../testing/enrollment.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { newAccount } from '../testing/money.js';
import { expectPagedBothWays, type PagedList } from '../testing/paging.js';
import { BALANCE_ACCOUNT_TYPES } from './schemas.js';

type Item = Lithic.FinancialAccount;
type Filters = Lithic.FinancialAccountListParams;

const matches = (item: Item, filters: Filters) =>
  (filters.type === undefined || item.type === filters.type) &&
  [filters.account_token, filters.business_account_token].every((token) => token === undefined || item.account_token === token);

describeWithDb('financial accounts filtered by type', () => {
  const context = useTestServer();
  let program: TestProgram;
  let all: Item[];
  let accounts: string[];

  beforeAll(async () => {
    program = await context.server.newProgram('types');
    const { client } = program;
    // Each enrolled holder's account opens with its ISSUING financial account.
    accounts = [await acceptedAccountToken(client)];
    await newAccount(client, 'program 1');
    accounts.push(await acceptedAccountToken(client));
    await client.financialAccounts.create({ nickname: 'first account’s', type: 'OPERATING', account_token: accounts[0] as string });
    await newAccount(client, 'program 2');
    await client.financialAccounts.create({ nickname: 'second account’s', type: 'OPERATING', account_token: accounts[1] as string });
    await newAccount(client, 'program 3');
    all = (await client.financialAccounts.list({ page_size: 100 } as never)).data;
  });

  const filterSets = (): Filters[] => [
    ...BALANCE_ACCOUNT_TYPES.map((type) => ({ type })),
    ...accounts.flatMap((account) => [{ account_token: account }, ...BALANCE_ACCOUNT_TYPES.map((type) => ({ business_account_token: account, type }))]),
  ];

  it('every type, alone and with an account, across pages both ways and as one page', async () => {
    expect(new Set(all.map((item) => item.type))).toEqual(new Set(['ISSUING', 'OPERATING', 'RESERVE']));
    const list: PagedList = (query) => program.client.getAPIList<Item, CursorPage<Item>>('/v1/financial_accounts', CursorPage, { query });
    for (const filters of filterSets()) {
      const expected = all.filter((item) => matches(item, filters)).map((item) => item.token);
      await expectPagedBothWays(list, filters, expected);
      const whole = await program.client.financialAccounts.list(filters);
      expect(whole.data.map((item) => item.token), JSON.stringify(filters)).toEqual(expected);
      expect(whole.has_more).toBe(false);
    }
  });

  it('GET /v1/balances by financial_account_type, alone and with an account, now and as of a time', async () => {
    const oldestFirst = [...all].reverse();
    const middle = oldestFirst[Math.floor(oldestFirst.length / 2)] as Item;
    for (const filters of filterSets()) {
      for (const balanceDate of [undefined, middle.created]) {
        const { type, ...accountFilters } = filters;
        const query = { ...accountFilters, ...(type === undefined ? {} : { financial_account_type: type }), ...(balanceDate === undefined ? {} : { balance_date: balanceDate }) };
        const expected = oldestFirst.filter((item) => matches(item, filters) && (balanceDate === undefined || Date.parse(item.created) <= Date.parse(balanceDate))).map((item) => item.token);
        const balances = await program.client.balances.list(query);
        expect(balances.data.map((balance) => balance.financial_account_token), JSON.stringify(query)).toEqual(expected);
        for (const balance of balances.data) expect(balance.financial_account_type).toBe(all.find((item) => item.token === balance.financial_account_token)?.type);
      }
    }
  });
});
