/** Query plans for tests: the statements a read runs, as it runs them, and their plans. */
import { CompiledQuery, createQueryId, PostgresAdapter, type Kysely, type RootOperationNode } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../db/schema.js';

/** Every statement `read` runs on the Kysely it is given, compiled again to be explained. */
export async function statementsOf(kysely: Kysely<Database>, read: (watched: Kysely<Database>) => Promise<unknown>): Promise<CompiledQuery[]> {
  const nodes: RootOperationNode[] = [];
  await read(
    kysely.withPlugin({
      transformQuery: ({ node }) => {
        nodes.push(node);
        return node;
      },
      transformResult: async ({ result }) => result,
    }),
  );
  return nodes.map((node) => kysely.getExecutor().compileQuery(node, createQueryId()));
}

/** The plan of `statement`, a line per step: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN lines. */
export async function planOf(kysely: Kysely<Database>, statement: CompiledQuery): Promise<string[]> {
  const postgres = kysely.getExecutor().adapter instanceof PostgresAdapter;
  const plan = await kysely.executeQuery<Record<string, string>>(CompiledQuery.raw(`${postgres ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${statement.sql}`, [...statement.parameters]));
  return plan.rows.map((row) => (postgres ? row['QUERY PLAN'] : row.detail) ?? '');
}

/** The plan of the last statement `read` runs (a list's page; before it, the cursor's lookup). */
export async function pagePlan(kysely: Kysely<Database>, read: (watched: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const statement = (await statementsOf(kysely, read)).at(-1);
  if (statement === undefined) throw new Error('the read ran no statement');
  return planOf(kysely, statement);
}

/** A row's place in list order. */
export interface ListedRow {
  created_ms: number;
  token: string;
}

/** The page shapes a list's plan is checked on: first page, after and before a cursor, each `pageSize` long. */
export function pageShapes(cursor: string, pageSize = 5): Array<{ name: string; page: { page_size: number; starting_after?: string; ending_before?: string } }> {
  return [
    { name: 'first page', page: { page_size: pageSize } },
    { name: 'after a cursor', page: { page_size: pageSize, starting_after: cursor } },
    { name: 'before a cursor', page: { page_size: pageSize, ending_before: cursor } },
  ];
}

/**
 * The page a keyset list must answer, from every row of the program: those `keep` keeps, newest
 * first by `(created_ms, token)`, after (or before) the cursor's place, `page_size` of them.
 */
export function expectedPage<Row extends ListedRow>(
  rows: readonly Row[],
  keep: (row: Row) => boolean,
  page: { page_size: number; starting_after?: string | undefined; ending_before?: string | undefined },
): { tokens: string[]; has_more: boolean } {
  const newestFirst = rows.filter(keep).sort((a, b) => b.created_ms - a.created_ms || (a.token < b.token ? 1 : -1));
  const place = (token: string) => {
    const row = rows.find((candidate) => candidate.token === token);
    if (row === undefined) throw new Error(`no cursor row ${token}`);
    return row;
  };
  const isAfter = (row: ListedRow, cursor: ListedRow) => row.created_ms < cursor.created_ms || (row.created_ms === cursor.created_ms && row.token < cursor.token);
  const first = (listed: Row[]) => ({ tokens: listed.slice(0, page.page_size).map((row) => row.token), has_more: listed.length > page.page_size });
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

/**
 * SQLite: every read of `table` is a SEARCH of an index `index` matches (never a SCAN), and the only
 * sort is that of the merge of several ranges' pages (`keysetPage`'s `anyOf`), each a page long.
 */
export function expectSqliteRange(plan: string[], table: string, index: RegExp, label: string): void {
  const reads = plan.filter((step) => new RegExp(`^(SEARCH|SCAN) ${table} `).test(step));
  expect(reads.length, label).toBeGreaterThan(0);
  for (const read of reads) expect(read, label).toMatch(new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX ${index.source} \\(`));
  plan.forEach((step, i) => {
    if (/TEMP B-TREE/.test(step)) expect(plan[i - 1], label).toMatch(/^SCAN page_\d+$/);
  });
}

/**
 * PostgreSQL: `table` is read only by index scans each under a Limit (a page of a range, in list
 * order), never a Seq Scan or a bitmap (whose rows would then be sorted); a Sort only over the merge
 * of several ranges' pages.
 */
export function expectPostgresRange(plan: string[], table: string, label: string): void {
  const nodes = plan.filter((line) => /^\s*(->\s+)?[A-Z]/.test(line) && !/^\s*(->\s+)?[A-Z][\w ]*(Cond|Key|Filter):/.test(line)).map((line) => line.replace(/^\s*(->\s+)?/, ''));
  expect(plan.join('\n'), label).not.toMatch(new RegExp(`(Seq Scan|Bitmap Heap Scan) on ${table}\\s`));
  expect(plan.join('\n'), label).toMatch(new RegExp(`Index (Only )?Scan (Backward )?using \\w+ on ${table}\\s`));
  nodes.forEach((node, i) => {
    if (new RegExp(`^Index (Only )?Scan (Backward )?using \\w+ on ${table}\\s`).test(node)) expect(nodes[i - 1], label).toMatch(/^Limit /);
    if (/^(Sort|Incremental Sort) /.test(node)) expect(nodes[i + 1], label).toMatch(/^(HashAggregate|Unique|Append|Merge Append|Subquery Scan) /);
  });
}

/** A list's `begin`/`end` (exclusive) applied to a row, as the test states them. */
export function inCreatedRange(range: { begin?: string | undefined; end?: string | undefined }): (row: ListedRow) => boolean {
  const from = range.begin === undefined ? -Infinity : Date.parse(range.begin);
  const until = range.end === undefined ? Infinity : Date.parse(range.end);
  return (row) => row.created_ms > from && row.created_ms < until;
}
