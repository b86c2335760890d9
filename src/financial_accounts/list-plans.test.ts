/**
 * GET /v1/financial_accounts with every combination of its filters (account_token,
 * business_account_token, type) on every page shape (first page, after and before a cursor) and
 * unpaged (listAll: the whole list, and GET /v1/balances): the rows the filters name, and each read
 * a range of an index that constrains what is asked, never a walk of the program's accounts:
 *  - an account (or business account) is a range of `financial_accounts_by_account` (its few
 *    financial accounts), the type and the other account a condition on them;
 *  - a type alone a range of `financial_accounts_by_type` (migration 0027); no filter the program's
 *    `financial_accounts_by_created`, in list order.
 * SQLite plans without statistics; PostgreSQL by cost, so the table holds 12,000 accounts over
 * two programs (one RESERVE in 100) and is ANALYZEd; for ISSUING (most accounts) it may walk by
 * creation, which reads little more than the page.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, expectedPage, pageShapes, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import * as store from './store.js';

const PROGRAM = 'p-list';
const ROWS = 10_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const createdMs = (i: number) => BASE_MS + Math.floor(i / 2);
const tokenOf = (i: number) => `fa-${String(i).padStart(6, '0')}`;
/** Four financial accounts an account; one in 100 RESERVE, one in 7 OPERATING, the program's own (no account) one in 50. */
const accountOf = (i: number) => (i % 50 === 9 ? null : `a-${Math.floor(i / 4)}`);
const typeOf = (i: number) => (i % 100 === 7 ? 'RESERVE' : i % 7 === 0 ? 'OPERATING' : 'ISSUING');

const row = (programId: string, i: number) => ({
  program_id: programId, token: tokenOf(i), account_token: accountOf(i), type: typeOf(i), nickname: null, status: 'OPEN', substatus: null, is_for_benefit_of: 0,
  account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: createdMs(i), updated_ms: createdMs(i),
});

const ACCOUNT = 'a-1001';
const cases: store.ListFilters[] = [undefined, 'ISSUING', 'RESERVE'].flatMap((type) =>
  [{}, { account_token: ACCOUNT }, { business_account_token: ACCOUNT }, { account_token: ACCOUNT, business_account_token: ACCOUNT }, { account_token: ACCOUNT, business_account_token: 'a-7' }].map((accounts) =>
    type === undefined ? accounts : { ...accounts, type },
  ),
);
const CURSOR = tokenOf(5_001);

describeWithDb('financial account list plans', () => {
  const storage = useMigratedDb();
  const rows = Array.from({ length: ROWS }, (_, i) => row(PROGRAM, i));
  const newestFirst = [...rows].reverse();

  beforeAll(async () => {
    const { kysely } = storage.db;
    await seedRows(kysely, 'financial_accounts', [...rows, ...Array.from({ length: 2_000 }, (_, i) => row('p-other', i))]);
    await analyzed(kysely, ['financial_accounts']);
  }, 60_000);

  const keeps = (filters: store.ListFilters) => (r: (typeof rows)[number]) =>
    (filters.type === undefined || r.type === filters.type) && [filters.account_token, filters.business_account_token].every((token) => token === undefined || r.account_token === token);
  const matching = (filters: store.ListFilters) => newestFirst.filter(keeps(filters));

  /** The index the filters must range over, and the column it seeks. */
  const indexOf = (filters: store.ListFilters): [string, string | undefined] =>
    filters.account_token !== undefined || filters.business_account_token !== undefined
      ? ['financial_accounts_by_account', 'account_token']
      : filters.type !== undefined
        ? ['financial_accounts_by_type', 'type']
        : ['financial_accounts_by_created', undefined];

  function expectPlan(filters: store.ListFilters, plan: string[], label: string): void {
    const [index, column] = indexOf(filters);
    const text = plan.join('\n');
    if (engine === 'sqlite') {
      const reads = plan.filter((step) => /^(SEARCH|SCAN) financial_accounts\b/.test(step));
      expect(reads, label).toEqual([expect.stringMatching(new RegExp(`^SEARCH financial_accounts USING INDEX ${index} \\(program_id=\\?${column === undefined ? '' : ` AND ${column}=\\?`}`))]);
      expect(text, label).not.toMatch(/TEMP B-TREE/);
    } else {
      expect(text, label).not.toMatch(/Seq Scan|Bitmap Heap Scan/);
      // An account's few financial accounts may be sorted (its four, by cost); nothing else is.
      if (column !== 'account_token') expect(text, label).not.toMatch(/\bSort\b/);
      // ISSUING, most accounts, PostgreSQL may walk by creation, by cost: it reads little more than the page.
      if (column !== undefined && filters.type !== 'ISSUING') expect(text, label).not.toMatch(/financial_accounts_by_created/);
    }
  }

  it('every filter combination, on every page shape: the rows the filters name, a range of the index that serves them', async () => {
    const { kysely } = storage.db;
    for (const filters of cases) {
      for (const shape of pageShapes(CURSOR)) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const listed = await store.list(kysely, PROGRAM, filters, shape.page);
        expect({ tokens: listed.rows.map((r) => r.token), has_more: listed.has_more }, label).toEqual(expectedPage(rows, keeps(filters), shape.page));
        expectPlan(filters, await pagePlan(kysely, (watched) => store.list(watched, PROGRAM, filters, shape.page)), label);
      }
    }
  });

  it('every filter combination unpaged (the whole list, GET /v1/balances), also as of a time: the rows the filters name, a range of the index that serves them', async () => {
    const { kysely } = storage.db;
    for (const filters of cases.flatMap((given) => [given, { ...given, created_through_ms: createdMs(ROWS / 2) }])) {
      const label = JSON.stringify(filters);
      const listed = await store.listAll(kysely, PROGRAM, filters);
      const through = filters.created_through_ms ?? Infinity;
      expect(listed.map((r) => r.token), label).toEqual(matching(filters).filter((r) => r.created_ms <= through).map((r) => r.token).reverse());
      const plan = await pagePlan(kysely, (watched) => store.listAll(watched, PROGRAM, filters));
      if (engine === 'sqlite' || indexOf(filters)[1] !== undefined) expectPlan(filters, plan, label);
    }
  });
});
