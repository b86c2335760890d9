/**
 * The plan checks of a money movement list (book transfers, external payments, management
 * operations): every filter combination the API offers, on every page shape, lists the rows the
 * filters applied here name, and its page is ranges of indexes that constrain what the filters ask,
 * never a walk of the program's rows. Each resource's list-plans.test.ts gives its table, its row
 * shape and its filters; `describeMovementListPlans` seeds and checks.
 *
 * Rows: two a millisecond over two programs (the other program's rows must never be read), ten
 * financial accounts of five accounts (`acct-k` owns `fa-2k` and `fa-2k+1`), statuses and categories
 * mixed so that the rare ones are rare (DECLINED one in 50, each other non-SETTLED status about one
 * in 20, one category one in 40, another one in three).
 *
 * What may still walk (checked, and said so): beside a financial account (or an account's), a
 * status, result or category is a condition on that account's movements, read through the account's
 * index: the walk is bounded by the account's own movements, never the program's.
 */
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { Executor } from '../db/database.js';
import type { CreatedRange, Page, PageParams } from '../db/pagination.js';
import { describeWithDb, engine, useMigratedDb } from './harness.js';
import { pagePlan } from './plans.js';

export const PROGRAM = 'p-list';
const OTHER_PROGRAM = 'p-other';
const ROWS = 6_000;
const OTHER_ROWS = 1_500;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const createdMs = (i: number) => BASE_MS + Math.floor(i / 2);
const tokenOf = (i: number) => `t-${String(i).padStart(6, '0')}`;
const FINANCIAL_ACCOUNTS = 10;

/** What a seeded row carries that the filters read. */
export interface RowFacts {
  i: number;
  program_id: string;
  token: string;
  created_ms: number;
  status: string;
  result: 'APPROVED' | 'DECLINED';
  category: string;
  /** The financial accounts the row names, one per account column. */
  financialAccounts: Record<string, string>;
}

type MovementTable = 'book_transfers' | 'external_payments' | 'management_operations';

export interface MovementListFilters extends CreatedRange {
  account_token?: string;
  business_account_token?: string;
  financial_account_token?: string;
  category?: string;
  status?: string;
  result?: string;
}

export interface MovementList {
  table: MovementTable;
  /** The columns naming financial accounts (a transfer's from and to). */
  accountColumns: readonly string[];
  statuses: readonly string[];
  /** [the common category, one of a row in three, the rare one]. */
  categories: readonly [string, string, string];
  /** Whether the list takes a `result` filter, and an `account_token` one. */
  hasResult: boolean;
  hasAccountToken: boolean;
  /** The row to insert for these facts. */
  rowOf: (facts: RowFacts) => Record<string, unknown>;
  list: (exec: Executor, programId: string, filters: MovementListFilters, page: PageParams) => Promise<Page<{ token: string }>>;
}

function factsOf(movements: MovementList, programId: string, i: number): RowFacts {
  const others = movements.statuses.filter((status) => status !== 'SETTLED' && status !== 'DECLINED');
  const other = others.find((_, k) => i % (20 + 7 * k) === 3);
  const status = i % 50 === 7 ? 'DECLINED' : (other ?? 'SETTLED');
  const [common, third, rare] = movements.categories;
  const category = i % 40 === 11 ? rare : i % 3 === 0 ? third : common;
  const financialAccounts = Object.fromEntries(movements.accountColumns.map((column, k) => [column, `fa-${(i * (2 * k + 1) + k) % FINANCIAL_ACCOUNTS}`]));
  const prefix = programId === PROGRAM ? 't' : 'o';
  return { i, program_id: programId, token: `${prefix}${tokenOf(i).slice(1)}`, created_ms: createdMs(i), status, result: status === 'DECLINED' ? 'DECLINED' : 'APPROVED', category, financialAccounts };
}

/** `acct-k` owns fa-2k and fa-2k+1; `acct-4` is also the business account asked for. */
const accountOfFinancialAccount = (fa: string) => `acct-${Math.floor(Number(fa.slice(3)) / 2)}`;
const financialAccountsOf = (account: string) =>
  Array.from({ length: FINANCIAL_ACCOUNTS }, (_, k) => `fa-${k}`).filter((fa) => accountOfFinancialAccount(fa) === account);

function financialAccountRow(programId: string, token: string) {
  return {
    program_id: programId, token, account_token: accountOfFinancialAccount(token), type: 'OPERATING', nickname: null, status: 'OPEN', substatus: null, is_for_benefit_of: 0,
    account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: BASE_MS, updated_ms: BASE_MS,
  };
}

const CURSOR = tokenOf(3_001);
const RANGE = { begin: new Date(createdMs(400)).toISOString(), end: new Date(createdMs(5_000)).toISOString() };
const PAGE_SHAPES: Array<{ name: string; page: PageParams; range: CreatedRange }> = [
  { name: 'first page', page: { page_size: 5 }, range: {} },
  { name: 'after a cursor', page: { page_size: 5, starting_after: CURSOR }, range: {} },
  { name: 'before a cursor', page: { page_size: 5, ending_before: CURSOR }, range: {} },
  { name: 'begin/end', page: { page_size: 5 }, range: RANGE },
  { name: 'begin/end after a cursor', page: { page_size: 5, starting_after: CURSOR }, range: RANGE },
  { name: 'end before a cursor', page: { page_size: 5, ending_before: CURSOR }, range: { end: RANGE.end } },
];

/**
 * Every combination of the list's status, result and category filters, alone and beside each
 * financial account filter; beside an account (where they are conditions on its rows), a sample.
 */
function filterCases(movements: MovementList): MovementListFilters[] {
  const accountCases: MovementListFilters[] = [{ financial_account_token: 'fa-3' }, { business_account_token: 'acct-4' }, { business_account_token: 'acct-1', financial_account_token: 'fa-3' }];
  if (movements.hasAccountToken) accountCases.push({ account_token: 'acct-1' }, { account_token: 'acct-1', business_account_token: 'acct-1' });
  const results = movements.hasResult ? [undefined, 'APPROVED', 'DECLINED'] : [undefined];
  const product = (statuses: ReadonlyArray<string | undefined>, resultsAsked: ReadonlyArray<string | undefined>, categories: ReadonlyArray<string | undefined>) =>
    statuses.flatMap((status) => resultsAsked.flatMap((result) => categories.map((category) => ({ status, result, category }))));
  const defined = (filters: MovementListFilters) => Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as MovementListFilters;
  const alone = product([undefined, ...movements.statuses], results, [undefined, ...movements.categories]);
  const beside = product([undefined, 'DECLINED', 'SETTLED'], results.slice(0, 2), [undefined, movements.categories[2]]);
  return [...alone.map(defined), ...accountCases.flatMap((accounts) => beside.map((filters) => defined({ ...accounts, ...filters })))];
}

function matches(row: RowFacts, filters: MovementListFilters): boolean {
  const names = Object.values(row.financialAccounts);
  const ofAccount = (account: string | undefined) => account === undefined || names.some((fa) => financialAccountsOf(account).includes(fa));
  return (
    (filters.financial_account_token === undefined || names.includes(filters.financial_account_token)) &&
    ofAccount(filters.account_token) &&
    ofAccount(filters.business_account_token) &&
    (filters.status === undefined || row.status === filters.status) &&
    (filters.result === undefined || row.result === filters.result) &&
    (filters.category === undefined || row.category === filters.category) &&
    (filters.begin === undefined || row.created_ms > Date.parse(filters.begin)) &&
    (filters.end === undefined || row.created_ms < Date.parse(filters.end))
  );
}

/** The page the list must answer, from every row of the program: the filters, applied here. */
function expectedPage(rowsNewestFirst: readonly RowFacts[], filters: MovementListFilters, page: PageParams): { tokens: string[]; has_more: boolean } {
  const rows = rowsNewestFirst;
  const newestFirst = rows.filter((row) => matches(row, filters));
  const size = page.page_size ?? 50;
  const cursorToken = page.starting_after ?? page.ending_before;
  const cursor = rows.find((row) => row.token === cursorToken);
  const isAfter = (row: RowFacts) => cursor !== undefined && (row.created_ms < cursor.created_ms || (row.created_ms === cursor.created_ms && row.token < cursor.token));
  const first = (listed: RowFacts[]) => ({ tokens: listed.slice(0, size).map((row) => row.token), has_more: listed.length > size });
  if (page.starting_after !== undefined) return first(newestFirst.filter(isAfter));
  if (page.ending_before !== undefined) {
    const before = first(newestFirst.filter((row) => row.token !== cursorToken && !isAfter(row)).reverse());
    return { tokens: before.tokens.reverse(), has_more: before.has_more };
  }
  return first(newestFirst);
}

const isByAccount = (filters: MovementListFilters) => filters.financial_account_token !== undefined || filters.account_token !== undefined || filters.business_account_token !== undefined;

/** A status the result refuses matches nothing: the query's constant false condition, checked once before any row is read. */
const refusesAll = (filters: MovementListFilters) => filters.status !== undefined && filters.result !== undefined && (filters.status === 'DECLINED') !== (filters.result === 'DECLINED');

/**
 * SQLite: every read of the table is a SEARCH of one of its indexes that constrains each filter the
 * page is asked for (beside an account, the account's column alone: its rows, the rest conditions on
 * them); no SCAN of it, and a temporary B-tree only to merge the ranges' pages (SCAN page_N), each a
 * page long.
 */
function expectSqlitePlan(movements: MovementList, filters: MovementListFilters, plan: string[], label: string): void {
  const { table } = movements;
  const reads = plan.filter((step) => new RegExp(`^(SEARCH|SCAN) ${table} `).test(step));
  const byAccount = isByAccount(filters);
  for (const read of refusesAll(filters) ? [] : reads) {
    const constraint = /^SEARCH \w+ USING (?:COVERING )?INDEX \w+ \((.*)\)$/.exec(read)?.[1];
    expect(constraint, `${label}: ${read}`).toMatch(/^program_id=\?/);
    const constrained = (column: string) => new RegExp(`\\b${column}=\\?`).test(constraint ?? '');
    if (byAccount) {
      expect(movements.accountColumns.some(constrained), `${label}: ${read}`).toBe(true);
      continue;
    }
    if (filters.category !== undefined) expect(constrained('category'), `${label}: ${read}`).toBe(true);
    if (filters.status !== undefined || filters.result !== undefined) expect(constrained('status') || constrained('result'), `${label}: ${read}`).toBe(true);
  }
  plan.forEach((step, i) => {
    if (/^SCAN/.test(step)) expect(step, label).toMatch(/^SCAN page_\d+$/);
    if (/TEMP B-TREE/.test(step)) expect(plan[i - 1], label).toMatch(/^SCAN page_\d+$|^COMPOUND QUERY|^UNION/);
  });
}

/**
 * PostgreSQL plans by cost: never a Seq Scan of the table; without an account, no bitmap of its
 * rows, a Sort only to merge ranges' pages (each under its own Limit), and a rare filter's rows
 * (DECLINED, the rare category) never found by walking the program's rows in list order.
 */
function expectPostgresPlan(movements: MovementList, filters: MovementListFilters, plan: string[], label: string): void {
  const text = plan.join('\n');
  expect(text, label).not.toMatch(new RegExp(`Seq Scan on ${movements.table}\\b`));
  if (refusesAll(filters)) return;
  // Beside an account PostgreSQL may, by cost, rather read a rare category's or status's few rows of the program from
  // their index (a range or a bitmap) and sort them than walk the account's rows: either bounded by what its statistics say is small.
  if (isByAccount(filters)) return;
  expect(text, label).not.toMatch(new RegExp(`Bitmap Heap Scan on ${movements.table}\\b`));
  const limits = text.match(/Limit\s+\(/g)?.length ?? 0;
  if (/\bSort\b/.test(text)) expect(limits, label).toBeGreaterThanOrEqual(2);
  if ((filters.status === 'DECLINED' || filters.result === 'DECLINED' || filters.category === movements.categories[2])) {
    expect(text, label).not.toMatch(new RegExp(`using ${movements.table}_by_created\\b`));
  }
}

export function describeMovementListPlans(movements: MovementList): void {
  describeWithDb(`${movements.table} list plans`, () => {
    const storage = useMigratedDb();
    const rows = Array.from({ length: ROWS }, (_, i) => factsOf(movements, PROGRAM, i));
    const newestFirst = [...rows].sort((a, b) => b.created_ms - a.created_ms || (a.token < b.token ? 1 : -1));

    beforeAll(async () => {
      const { kysely } = storage.db;
      const other = Array.from({ length: OTHER_ROWS }, (_, i) => factsOf(movements, OTHER_PROGRAM, i));
      const all = [...rows, ...other];
      for (let start = 0; start < all.length; start += 500) {
        await kysely.insertInto(movements.table).values(all.slice(start, start + 500).map(movements.rowOf) as never).execute();
      }
      const financialAccounts = [PROGRAM, OTHER_PROGRAM].flatMap((programId) => Array.from({ length: FINANCIAL_ACCOUNTS }, (_, k) => financialAccountRow(programId, `fa-${k}`)));
      await kysely.insertInto('financial_accounts').values(financialAccounts).execute();
      if (engine === 'postgres') for (const table of [movements.table, 'financial_accounts'] as const) await sql`analyze ${sql.table(table)}`.execute(kysely);
    }, 60_000);

    it('every filter combination, on every page shape: the rows the filters name, each read a range of an index that constrains them', async () => {
      const { kysely } = storage.db;
      for (const filters of filterCases(movements)) {
        for (const shape of PAGE_SHAPES) {
          const label = `${JSON.stringify(filters)} ${shape.name}`;
          const asked = { ...filters, ...shape.range };
          const listed = await movements.list(kysely, PROGRAM, asked, shape.page);
          expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(newestFirst, asked, shape.page));
          const plan = await pagePlan(storage.db.kysely, (watched) => movements.list(watched, PROGRAM, asked, shape.page));
          if (engine === 'sqlite') expectSqlitePlan(movements, filters, plan, label);
          else expectPostgresPlan(movements, filters, plan, label);
        }
      }
    }, 300_000);
  });
}
