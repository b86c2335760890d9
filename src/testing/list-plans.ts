/**
 * The list plan tests' one toolkit (each resource's list-plans.test.ts): seeding a listed table
 * (`seedRows`, `analyzed`, `useSeededList`), the page shapes a list is asked for (`pageShapes`),
 * the page a keyset list must answer (`expectedPage`), and what a page's plan may read
 * (`expectIndexRanges`); then the money movement lists' shared test (`describeMovementListPlans`).
 * The plans themselves come from testing/plans.ts; rows written directly, from testing/list-rows.ts.
 */
import { PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { exclusiveEndMs } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import type { CreatedRange, Page, PageParams } from '../db/pagination.js';
import type { Database } from '../db/schema.js';
import { describeWithDb, engine, useMigratedDb } from './harness.js';
import { seededCreatedMs } from './list-rows.js';
import { pagePlan } from './plans.js';

/** A listed row's place in list order. */
export interface ListedRow {
  token: string;
  created_ms: number;
}

/** One way of asking a list for a page: cursors and `begin`/`end`. */
export interface PageShape {
  name: string;
  page: PageParams;
  range: CreatedRange;
}

/**
 * The page shapes a list plan test asks for, `pageSize` rows each (default 5): the first page,
 * after and before `cursor` (a row in the middle of the program's); for a list with begin/end,
 * also within `range`, `range` after the cursor, and `range`'s end before it.
 */
export function pageShapes(cursor: string, { range, pageSize = 5 }: { range?: { begin: string; end: string }; pageSize?: number } = {}): PageShape[] {
  const page_size = pageSize;
  const shapes: PageShape[] = [
    { name: 'first page', page: { page_size }, range: {} },
    { name: 'after a cursor', page: { page_size, starting_after: cursor }, range: {} },
    { name: 'before a cursor', page: { page_size, ending_before: cursor }, range: {} },
  ];
  if (range === undefined) return shapes;
  return [
    ...shapes,
    { name: 'begin/end', page: { page_size }, range },
    { name: 'begin/end after a cursor', page: { page_size, starting_after: cursor }, range },
    { name: 'end before a cursor', page: { page_size, ending_before: cursor }, range: { end: range.end } },
  ];
}

/**
 * The page a keyset list must answer, from every row of the program (`rows`, in any order, also
 * those a cursor may name that no page shows): those `keep` keeps, within `range` (`begin`/`end`,
 * both exclusive; other fields of the object are ignored), newest first by `(created_ms, token)`,
 * after (or before) the place of the page's cursor, `page_size` of them.
 */
export function expectedPage<Row extends ListedRow>(
  rows: readonly Row[],
  keep: (row: Row) => boolean,
  page: PageParams,
  range: CreatedRange = {},
): { tokens: string[]; has_more: boolean } {
  const fromMs = range.begin === undefined ? -Infinity : Date.parse(range.begin) + 1;
  const beforeMs = range.end === undefined ? Infinity : exclusiveEndMs(range.end);
  const newestFirst = rows.filter((row) => keep(row) && row.created_ms >= fromMs && row.created_ms < beforeMs).sort((a, b) => b.created_ms - a.created_ms || (a.token < b.token ? 1 : -1));
  const place = (token: string) => {
    const row = rows.find((candidate) => candidate.token === token);
    if (row === undefined) throw new Error(`no cursor row ${token}`);
    return row;
  };
  const isAfter = (row: ListedRow, cursor: ListedRow) => row.created_ms < cursor.created_ms || (row.created_ms === cursor.created_ms && row.token < cursor.token);
  const size = page.page_size ?? 50;
  const first = (listed: Row[]) => ({ tokens: listed.slice(0, size).map((row) => row.token), has_more: listed.length > size });
  if (page.starting_after !== undefined) {
    const cursor = place(page.starting_after);
    return first(newestFirst.filter((row) => isAfter(row, cursor)));
  }
  if (page.ending_before !== undefined) {
    const cursor = place(page.ending_before);
    const before = first(newestFirst.filter((row) => row.token !== cursor.token && !isAfter(row, cursor)).reverse());
    return { tokens: before.tokens.reverse(), has_more: before.has_more };
  }
  return first(newestFirst);
}

/** What a page's plan may read of a table: see `expectIndexRanges`. */
export interface IndexRanges {
  /** The indexes (names, or patterns of names) a read of the table may be a range of. */
  indexes: readonly string[];
  /** How many reads of the table (SQLite's SEARCHes; PostgreSQL's Limits when more than one): exactly so many (default 1), or `'some'`. */
  reads?: number | 'some';
  /** SQLite: each read's index constrains, for each group, one of its columns (`column=?`). */
  constrains?: ReadonlyArray<readonly string[]>;
  /** PostgreSQL, which plans by cost: it scans one of these (default `indexes`); `null`, any. */
  postgres?: readonly string[] | null;
  /** PostgreSQL: indexes the page never uses (a walk of the program's rows for a rare filter's). */
  never?: readonly string[];
  /**
   * PostgreSQL: the table read only by index scans each right under a Limit (a page of a range in
   * list order, never a bitmap of rows then sorted), a Sort only over the merge of ranges' pages
   * (under the page's own Limit).
   */
  limited?: boolean;
  /** PostgreSQL: a Sort of a single range's rows (`reads` 1) is of no more than these (the page's LIMIT: a filter's few rows read whole and sorted). */
  pageRows?: number;
}

/**
 * A page's plan reads `table` only as ranges of indexes, never the whole of it, and sorts nothing
 * but the merge of pages (a multi-valued filter's, a page per value).
 * SQLite: every read of `table` a SEARCH of one of `indexes` by program (`reads` of them, each
 * constraining a column of every group of `constrains`); no SCAN but of a merged page, and a
 * TEMP B-TREE only right after one. PostgreSQL: no Seq Scan of `table`; an index scan of one of
 * `postgres`, none of `never`; `limited` (see `IndexRanges`); a merge of `reads` pages (a Limit
 * each), or a Sort of no more than `pageRows` rows.
 */
export function expectIndexRanges(plan: string[], table: string, label: string, { indexes, reads = 1, constrains = [], postgres = indexes, never = [], limited = false, pageRows = 6 }: IndexRanges): void {
  const text = plan.join('\n');
  const said = `${label}\n${text}`;
  if (engine === 'sqlite') {
    const tableReads = plan.filter((step) => new RegExp(`^(SEARCH|SCAN) ${table}( |$)`).test(step));
    if (reads === 'some') expect(tableReads.length, said).toBeGreaterThan(0);
    else expect(tableReads, said).toHaveLength(reads);
    for (const read of tableReads) {
      const constraint = new RegExp(`^SEARCH ${table} USING (?:COVERING )?INDEX (?:${indexes.join('|')}) \\((program_id=\\?.*)\\)$`).exec(read)?.[1];
      expect(constraint, `${label}: ${read}\n${text}`).toBeDefined();
      for (const columns of constrains) expect(columns.some((column) => new RegExp(`\\b${column}=\\?`).test(constraint ?? '')), `${label}: ${read} constrains one of ${columns.join(', ')}`).toBe(true);
    }
    plan.forEach((step, i) => {
      if (/^SCAN /.test(step) && !new RegExp(`^SCAN ${table}( |$)`).test(step)) expect(step, said).toMatch(/^SCAN page_\d+$/);
      if (/TEMP B-TREE/.test(step)) expect(plan[i - 1], said).toMatch(/^SCAN page_\d+$/);
    });
    return;
  }
  expect(text, said).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
  if (postgres !== null) expect(text, said).toMatch(new RegExp(`(Index|Index Only|Bitmap Index) Scan (Backward )?(using|on) (${postgres.join('|')})\\b`));
  for (const index of never) expect(text, said).not.toMatch(new RegExp(`using ${index}\\b`));
  if (limited) {
    expect(text, said).not.toMatch(new RegExp(`Bitmap Heap Scan on ${table}\\b`));
    expect(text, said).toMatch(new RegExp(`Index (Only )?Scan (Backward )?using \\w+ on ${table}\\s`));
    const nodes = plan.filter((line) => /^\s*(->\s+)?[A-Z]/.test(line) && !/^\s*(->\s+)?[A-Z][\w ]*(Cond|Key|Filter):/.test(line)).map((line) => line.replace(/^\s*(->\s+)?/, ''));
    if (/\bSort\b/.test(text)) expect(text.match(/Limit\s+\(/g)?.length ?? 0, said).toBeGreaterThanOrEqual(2);
    nodes.forEach((node, i) => {
      if (new RegExp(`^Index (Only )?Scan (Backward )?using \\w+ on ${table}\\s`).test(node)) expect(nodes[i - 1], said).toMatch(/^Limit /);
      if (/^(Sort|Incremental Sort) /.test(node)) expect(nodes[i + 1], said).toMatch(/^(HashAggregate|Unique|Append|Merge Append|Subquery Scan) /);
    });
  }
  if (typeof reads === 'number' && reads > 1) expect(text.match(/->\s+Limit\s+\(/g), said).toHaveLength(reads);
  else if (reads === 1) for (const sorted of text.matchAll(/Sort {2}\(cost=[\d.]+ rows=(\d+)/g)) expect(Number(sorted[1]), `${label}: a sort of more than a page\n${text}`).toBeLessThanOrEqual(pageRows);
}

/** Inserts `rows` into `table` 500 at a time (within both engines' bound on a statement's parameters). */
export async function seedRows<T extends keyof Database>(kysely: Kysely<Database>, table: T, rows: ReadonlyArray<Insertable<Database[T]>>): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) await kysely.insertInto(table).values(rows.slice(start, start + 500) as never).execute();
}

/** PostgreSQL plans from statistics: gathers them for `tables` once seeded (SQLite plans without). */
export async function analyzed(kysely: Kysely<Database>, tables: readonly string[]): Promise<void> {
  if (!(kysely.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(kysely);
}

/**
 * A migrated database for the enclosing `describe` whose `table` holds `count` rows of `programId`
 * (`rowOf(programId, i)`, also handed back as `rows`) and half as many of another program, which no
 * page may show; PostgreSQL's statistics gathered.
 */
export function useSeededList<T extends keyof Database, R extends Insertable<Database[T]>>(
  table: T,
  programId: string,
  count: number,
  rowOf: (programId: string, i: number) => R,
): { readonly db: Db; rows: R[] } {
  const storage = useMigratedDb();
  const rows = Array.from({ length: count }, (_, i) => rowOf(programId, i));
  beforeAll(async () => {
    const { kysely } = storage.db;
    await seedRows(kysely, table, rows);
    await seedRows(kysely, table, Array.from({ length: count / 2 }, (_, i) => rowOf(`${programId}-other`, i)));
    await analyzed(kysely, [table]);
  }, 60_000);
  return {
    get db() {
      return storage.db;
    },
    rows,
  };
}

// ---------------------------------------------------------------------------------------------
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
const PROGRAM = 'p-list';
const OTHER_PROGRAM = 'p-other';
const ROWS = 6_000;
const OTHER_ROWS = 1_500;
const createdMs = seededCreatedMs;
const tokenOf = (i: number) => `t-${String(i).padStart(6, '0')}`;
const FINANCIAL_ACCOUNTS = 10;

/** What a seeded row carries that the filters read. */
interface RowFacts {
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

interface MovementListFilters extends CreatedRange {
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
    account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: createdMs(0), updated_ms: createdMs(0),
  };
}

const CURSOR = tokenOf(3_001);
const PAGE_SHAPES = pageShapes(CURSOR, { range: { begin: new Date(createdMs(400)).toISOString(), end: new Date(createdMs(5_000)).toISOString() } });

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

/** Whether the filters (but begin/end: `expectedPage`'s) keep `row`, applied here. */
function matches(row: RowFacts, filters: MovementListFilters): boolean {
  const names = Object.values(row.financialAccounts);
  const ofAccount = (account: string | undefined) => account === undefined || names.some((fa) => financialAccountsOf(account).includes(fa));
  return (
    (filters.financial_account_token === undefined || names.includes(filters.financial_account_token)) &&
    ofAccount(filters.account_token) &&
    ofAccount(filters.business_account_token) &&
    (filters.status === undefined || row.status === filters.status) &&
    (filters.result === undefined || row.result === filters.result) &&
    (filters.category === undefined || row.category === filters.category)
  );
}

const isByAccount = (filters: MovementListFilters) => filters.financial_account_token !== undefined || filters.account_token !== undefined || filters.business_account_token !== undefined;

/** A status the result refuses matches nothing: the query's constant false condition, checked once before any row is read. */
const refusesAll = (filters: MovementListFilters) => filters.status !== undefined && filters.result !== undefined && (filters.status === 'DECLINED') !== (filters.result === 'DECLINED');

/**
 * What the page may read: SQLite, SEARCHes of the table's indexes that constrain each filter asked
 * for (beside an account, the account's column alone: its rows, the rest conditions on them), no
 * SCAN or sort but the merge's (a status the result refuses: a constant false condition, checked
 * before any row is read). PostgreSQL plans by cost: never a Seq Scan; without an account, the
 * table read only by ranges under a Limit each (no bitmap), a Sort only to merge ranges' pages,
 * and a rare filter's rows (DECLINED, the rare category) never found by walking the program's rows
 * in list order. Beside an account PostgreSQL may, by cost, rather read a rare category's or
 * status's few rows of the program from their index (a range or a bitmap) and sort them than walk
 * the account's rows: either bounded by what its statistics say is small.
 */
function movementRanges(movements: MovementList, filters: MovementListFilters): IndexRanges {
  const any = { indexes: [`${movements.table}_\\w+`], reads: 'some', postgres: null } as const;
  if (refusesAll(filters)) return { ...any, constrains: [] };
  if (isByAccount(filters)) return { ...any, constrains: [movements.accountColumns] };
  const rare = filters.status === 'DECLINED' || filters.result === 'DECLINED' || filters.category === movements.categories[2];
  return {
    ...any,
    constrains: [...(filters.category !== undefined ? [['category']] : []), ...(filters.status !== undefined || filters.result !== undefined ? [['status', 'result']] : [])],
    limited: true,
    never: rare ? [`${movements.table}_by_created`] : [],
  };
}

export function describeMovementListPlans(movements: MovementList): void {
  describeWithDb(`${movements.table} list plans`, () => {
    const storage = useMigratedDb();
    const rows = Array.from({ length: ROWS }, (_, i) => factsOf(movements, PROGRAM, i));

    beforeAll(async () => {
      const { kysely } = storage.db;
      const other = Array.from({ length: OTHER_ROWS }, (_, i) => factsOf(movements, OTHER_PROGRAM, i));
      await seedRows(kysely, movements.table, [...rows, ...other].map(movements.rowOf) as never);
      await seedRows(kysely, 'financial_accounts', [PROGRAM, OTHER_PROGRAM].flatMap((programId) => Array.from({ length: FINANCIAL_ACCOUNTS }, (_, k) => financialAccountRow(programId, `fa-${k}`))));
      await analyzed(kysely, [movements.table, 'financial_accounts']);
    }, 60_000);

    it('every filter combination, on every page shape: the rows the filters name, each read a range of an index that constrains them', async () => {
      const { kysely } = storage.db;
      for (const filters of filterCases(movements)) {
        for (const shape of PAGE_SHAPES) {
          const label = `${JSON.stringify(filters)} ${shape.name}`;
          const asked = { ...filters, ...shape.range };
          const listed = await movements.list(kysely, PROGRAM, asked, shape.page);
          expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(rows, (row) => matches(row, filters), shape.page, shape.range));
          const plan = await pagePlan(storage.db.kysely, (watched) => movements.list(watched, PROGRAM, asked, shape.page));
          expectIndexRanges(plan, movements.table, label, movementRanges(movements, filters));
        }
      }
    }, 300_000);
  });
}
