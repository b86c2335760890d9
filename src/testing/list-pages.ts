/**
 * List plan tests' shared parts: seeding a listed table, the page shapes a list is asked for, the
 * page a keyset list must answer, and what its plan may read (`expectIndexRanges`). The plans
 * themselves come from testing/plans.ts.
 */
import { PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely';
import { beforeAll, expect } from 'vitest';
import { exclusiveEndMs } from '../clock.js';
import type { CreatedRange, PageParams } from '../db/pagination.js';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { useMigratedDb } from './harness.js';

/** A listed row's place in list order. */
export interface ListPlace {
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
 * The page shapes a list plan test asks for, `page_size` rows each: the first page, after and
 * before `cursor` (a row in the middle of the program's); for a list with begin/end, also within
 * `range`, `range` after the cursor, and `range`'s end before it.
 */
export function pageShapes(cursor: string, range?: { begin: string; end: string }, page_size = 5): PageShape[] {
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
 * The page a keyset list must answer from the rows its filters keep (`matching`, in any order):
 * newest first by `(created_ms, token)`, within `range` (exclusive bounds), after (or before) the
 * place of the page's cursor, `cursor`.
 */
export function expectedPage(matching: readonly ListPlace[], cursor: ListPlace | undefined, page: PageParams, range: CreatedRange): { tokens: string[]; has_more: boolean } {
  const fromMs = range.begin === undefined ? -Infinity : Date.parse(range.begin) + 1;
  const beforeMs = range.end === undefined ? Infinity : exclusiveEndMs(range.end);
  const isAfter = (row: ListPlace, place: ListPlace) => row.created_ms < place.created_ms || (row.created_ms === place.created_ms && row.token < place.token);
  const newestFirst = matching
    .filter((row) => row.created_ms >= fromMs && row.created_ms < beforeMs)
    .sort((a, b) => b.created_ms - a.created_ms || (a.token < b.token ? 1 : -1));
  const size = page.page_size ?? 50;
  const first = (rows: ListPlace[]) => ({ tokens: rows.slice(0, size).map((row) => row.token), has_more: rows.length > size });
  if (page.starting_after !== undefined) return first(newestFirst.filter((row) => cursor !== undefined && isAfter(row, cursor)));
  if (page.ending_before === undefined) return first(newestFirst);
  const before = first(newestFirst.filter((row) => cursor !== undefined && row.token !== cursor.token && !isAfter(row, cursor)).reverse());
  return { tokens: before.tokens.reverse(), has_more: before.has_more };
}

/**
 * A page's plan reads `table` only as ranges of `indexes`, never the whole of it, and sorts
 * nothing but the merge of pages (a multi-valued filter's, a page per value).
 * SQLite: every read of `table` a SEARCH of one of `indexes` by program (`reads` of them); no SCAN
 * of `table`, and a TEMP B-TREE only right after a SCAN of a merged page. PostgreSQL, which plans by
 * cost: no Seq Scan of `table`; an Index Scan of one of `postgres` (default `indexes`); a Sort only
 * over a merge of `reads` pages (a Limit each), or of rows it expects to be no more than the page
 * (`pageRows`, its LIMIT: a filter's few rows within an index range, read whole and sorted).
 */
export function expectIndexRanges(
  engine: 'sqlite' | 'postgres',
  plan: string[],
  table: string,
  label: string,
  { indexes, reads = 1, postgres = indexes, pageRows = 6 }: { indexes: readonly string[]; reads?: number; postgres?: readonly string[]; pageRows?: number },
): void {
  const text = plan.join('\n');
  if (engine === 'sqlite') {
    const tableReads = plan.filter((step) => new RegExp(`^(SEARCH|SCAN) ${table}( |$)`).test(step));
    expect(tableReads, `${label}\n${text}`).toHaveLength(reads);
    for (const read of tableReads) expect(read, `${label}\n${text}`).toMatch(new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX (${indexes.join('|')}) \\(program_id=\\?`));
    plan.forEach((step, i) => {
      if (/TEMP B-TREE/.test(step)) expect(plan[i - 1], `${label}\n${text}`).toMatch(/^SCAN page_\d+$/);
    });
  } else {
    expect(text, label).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
    expect(text, label).toMatch(new RegExp(`(Index|Index Only|Bitmap Index) Scan (Backward )?(using|on) (${postgres.join('|')})\\b`));
    if (reads > 1) expect(text.match(/->\s+Limit\s+\(/g), label).toHaveLength(reads);
    else for (const sorted of text.matchAll(/Sort {2}\(cost=[\d.]+ rows=(\d+)/g)) expect(Number(sorted[1]), `${label}: a sort of more than a page\n${text}`).toBeLessThanOrEqual(pageRows);
  }
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
