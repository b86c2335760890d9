/**
 * Keyset pagination, the SQL half of `http/pagination.ts`. Lists are ordered newest first by
 * `(created_ms, token)`; a cursor is an item's token, resolved to its `(created_ms, token)` with
 * a primary-key lookup, and the page is a range scan from there on an index that ends in
 * `(created_ms, token)`. Cost is independent of how deep the page is or how big the table grows.
 * A deleted row's place is kept (`rememberDeleted`), so a cursor naming it still pages on: the
 * SDKs' "list and delete each" loop asks for the page after the item it just deleted.
 */
import { PostgresAdapter, sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { exclusiveEndMs } from '../clock.js';
import { InvalidRequestError, invariant } from '../errors.js';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

export interface PageParams {
  page_size?: number | undefined;
  starting_after?: string | undefined;
  ending_before?: string | undefined;
}

export interface Page<Row> {
  rows: Row[];
  has_more: boolean;
}

/** Tables that can be listed: they carry `program_id`, `token` and `created_ms`. */
export type KeysetTable = {
  [K in keyof Database]: Database[K] extends { program_id: string; token: string; created_ms: number } ? K : never;
}[keyof Database];

const DEFAULT_PAGE_SIZE = 50;

/** `begin`/`end` of a list (exclusive RFC 3339 bounds on `created_ms`). */
export interface CreatedRange {
  begin?: string | undefined;
  end?: string | undefined;
}

/**
 * Runs `query` (already filtered to one program and the list's filters) for one page of `range`.
 * `table` is where cursors are looked up; `alias` qualifies the ordering columns when the query
 * joins other tables.
 *
 * The range and the cursor are one condition on `created_ms` (a BETWEEN, or one comparison), the
 * tie within the cursor's millisecond a separate test on the token: SQLite, without statistics,
 * rates two separate bounds as narrow enough on the program's `*_by_created` index to prefer it to
 * a filter's index (`*_by_status`, `*_by_fa`…), and walks every row of the range the filter refuses.
 *
 * A list whose filter is an OR (a transfer from OR to an account, a payment of any of an account's
 * financial accounts) passes one query per alternative instead (`anyOf`), which may overlap: each is
 * paged on its own index, and the page is the first of their pages merged, so it costs a page per
 * alternative, not a walk of the program.
 */
export async function keysetPage<O>(
  exec: Executor,
  query: SelectQueryBuilder<Database, never, O> | ReadonlyArray<SelectQueryBuilder<Database, never, O>>,
  table: KeysetTable,
  programId: string,
  page: PageParams,
  range: CreatedRange = {},
  alias: string = table,
): Promise<Page<O>> {
  if (page.starting_after !== undefined && page.ending_before !== undefined) {
    throw new InvalidRequestError('starting_after, ending_before: use one cursor at a time');
  }
  const pageSize = page.page_size ?? DEFAULT_PAGE_SIZE;
  const forward = page.ending_before === undefined;
  const created = sql.ref(`${alias}.created_ms`);
  const token = sql.ref(`${alias}.token`);

  const bounds = createdBoundsMs(range);
  const alternatives = Array.isArray(query) ? (query as ReadonlyArray<SelectQueryBuilder<Database, never, O>>) : [query as SelectQueryBuilder<Database, never, O>];
  let ranged = alternatives;
  const cursorToken = page.starting_after ?? page.ending_before;
  if (cursorToken !== undefined) {
    const cursor = (await placeOf(exec, table, programId, cursorToken)) ?? (await deletedPlaceOf(exec, table, programId, cursorToken));
    if (!cursor) {
      const field = forward ? 'starting_after' : 'ending_before';
      throw new InvalidRequestError(`${field}: no item with token '${cursorToken}' in this list`);
    }
    if (forward) bounds.throughMs = Math.min(bounds.throughMs ?? Infinity, cursor.created_ms);
    else bounds.fromMs = Math.max(bounds.fromMs ?? -Infinity, cursor.created_ms);
    const after = forward
      ? sql<boolean>`(${created} < ${cursor.created_ms} or ${token} < ${cursor.token})`
      : sql<boolean>`(${created} > ${cursor.created_ms} or ${token} > ${cursor.token})`;
    ranged = ranged.map((alternative) => alternative.where(after));
  }
  const direction = forward ? sql`desc` : sql`asc`;
  const pages = ranged.map((alternative) =>
    createdWithin(alternative, bounds, alias)
      .orderBy(sql`${created} ${direction}`)
      .orderBy(sql`${token} ${direction}`)
      .limit(pageSize + 1),
  );
  const rows = await (pages.length === 1 ? (pages[0] as (typeof pages)[number]) : mergedPages(exec, pages, direction, pageSize + 1)).execute();
  const has_more = rows.length > pageSize;
  const pageRows = rows.slice(0, pageSize);
  if (!forward) pageRows.reverse();
  return { rows: pageRows, has_more };
}

/**
 * The first `limit` rows of the alternatives' pages together, in the pages' order, each row once
 * (UNION: a row two alternatives match is the same row); each page a subquery, as SQLite needs for
 * its own ORDER BY and LIMIT.
 */
function mergedPages<O>(exec: Executor, pages: ReadonlyArray<SelectQueryBuilder<Database, never, O>>, direction: RawBuilder<unknown>, limit: number) {
  const [first, ...rest] = pages.map((page, index) => exec.selectFrom(page.as(`page_${index}`)).selectAll() as unknown as SelectQueryBuilder<Database, never, O>);
  invariant(first !== undefined, 'a keyset page needs at least one query');
  return rest
    .reduce((merged, page) => merged.union(page), first)
    .orderBy(sql`created_ms ${direction}`)
    .orderBy(sql`token ${direction}`)
    .limit(limit);
}

/** Beyond this many alternatives, `anyOf` is one query with `in` lists (SQLite allows 500 terms in a compound SELECT). */
const ALTERNATIVES_MAX = 64;

/** `(column in (values) or …)` over `columns`; no values match nothing. */
export function anyOfCondition(columns: readonly string[], values: readonly string[]): RawBuilder<boolean> {
  if (values.length === 0) return sql<boolean>`1 = 0`;
  return sql<boolean>`(${sql.join(columns.map((column) => sql`${sql.ref(column)} in (${sql.join(values)})`), sql` or `)})`;
}

/**
 * `column in (values)` as a condition on the rows another filter's index finds. SQLite plans without
 * statistics: where two indexes serve a query equally well (one account's bank accounts in one
 * state: `*_by_account` or `*_by_state`) it takes the one created last, and would walk every ENABLED
 * bank account of the program for the account's few; so there the column is kept from any index
 * (`+column`, SQLite's way of saying so). PostgreSQL, which plans from statistics, gets the plain
 * condition (an expression's selectivity it could only guess). No values match nothing.
 */
export function anyOfUnindexed(exec: Executor, column: string, values: readonly string[]): RawBuilder<boolean> {
  if (values.length === 0) return sql<boolean>`1 = 0`;
  const operand = exec.getExecutor().adapter instanceof PostgresAdapter ? sql.ref(column) : sql`+${sql.ref(column)}`;
  return sql<boolean>`${operand} in (${sql.join(values)})`;
}

/**
 * The list filter "one of `columns` is one of `values`" as alternatives for `keysetPage`: one query
 * per column and value, each a range of its own `(program_id, column, created_ms, token)` index;
 * past ALTERNATIVES_MAX, or with no values, one query (`anyOfCondition`).
 */
export function anyOf<O>(query: SelectQueryBuilder<Database, never, O>, columns: readonly string[], values: readonly string[]): Array<SelectQueryBuilder<Database, never, O>> {
  if (values.length === 0 || columns.length * values.length > ALTERNATIVES_MAX) return [query.where(anyOfCondition(columns, values))];
  return columns.flatMap((column) => values.map((value) => query.where(sql<boolean>`${sql.ref(column)} = ${value}`)));
}

/**
 * `query` in list order, `(created_ms, token)`, for a read of every row a filter keeps (an
 * account's declined movements): SQLite then ranges over the filter's index (the `*_declined_by_*`
 * partial indexes, migrations 0033 and 0038); unordered, it walked the program's primary key, every
 * row.
 */
export function inListOrder<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return query.orderBy(sql`created_ms`).orderBy(sql`token`);
}

/** A row's place in `(created_ms, token)` order: a list cursor, or the cursor of a walk over a range in chunks. */
export interface RowKey {
  created_ms: number;
  token: string;
}

function placeOf(exec: Executor, table: KeysetTable, programId: string, token: string): Promise<RowKey | undefined> {
  return exec
    .selectFrom(table as 'financial_accounts')
    .select(['created_ms', 'token'])
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .executeTakeFirst();
}

function deletedPlaceOf(exec: Executor, table: KeysetTable, programId: string, token: string): Promise<RowKey | undefined> {
  return exec
    .selectFrom('deleted_list_items')
    .select(['created_ms', 'token'])
    .where('program_id', '=', programId)
    .where('list_table', '=', table)
    .where('token', '=', token)
    .executeTakeFirst();
}

/**
 * Keeps the place of a row deleted from `table` in this transaction, so that a cursor naming it
 * still pages on (nothing else of the row is kept).
 */
export async function rememberDeleted(exec: Executor, table: KeysetTable, programId: string, row: RowKey, deletedMs: number): Promise<void> {
  await exec
    .insertInto('deleted_list_items')
    .values({ program_id: programId, list_table: table, token: row.token, created_ms: row.created_ms, deleted_ms: deletedMs })
    .execute();
}

/**
 * One chunk of a walk over `query` in ascending `(created_ms, token)` order (its index's order):
 * the next `limit` rows after `after` (`null`: from the start), as `keysetChunk` reads one. The walk
 * goes on from the last row of a full chunk and ends at a shorter one.
 */
export function chunkAfter<O>(query: SelectQueryBuilder<Database, never, O>, alias: string, after: RowKey | null, limit: number): SelectQueryBuilder<Database, never, O> {
  return keysetChunk(query, { direction: 'asc', after, limit }, { created: `${alias}.created_ms`, token: `${alias}.token` });
}

/**
 * One chunk of a walk over a list in either order, within inclusive bounds on `created_ms`: the next
 * `limit` rows after `after` (`null`: from the start of the range) newest first (`desc`) or oldest
 * first (`asc`). A financial account's financial transactions merge several such walks, one per
 * source of them, into one list (financial_accounts/financial_transactions.ts).
 */
export interface KeysetWalk {
  direction: 'asc' | 'desc';
  after: RowKey | null;
  fromMs?: number | undefined;
  throughMs?: number | undefined;
  limit: number;
}

/**
 * `query`'s chunk of `walk`, ordered by the columns `created` and `token` (`alias.created_ms` and
 * `alias.token` by default); the bounds and the cursor's millisecond one condition on `created`, as
 * `keysetPage` states them.
 */
export function keysetChunk<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, walk: KeysetWalk, columns: { created: string; token: string }): SelectQueryBuilder<DB, TB, O> {
  const created = sql.ref(columns.created);
  const token = sql.ref(columns.token);
  const bounds: CreatedBoundsMs = {};
  if (walk.fromMs !== undefined) bounds.fromMs = walk.fromMs;
  if (walk.throughMs !== undefined) bounds.throughMs = walk.throughMs;
  let ranged = query;
  const { after } = walk;
  if (after !== null && walk.direction === 'desc') {
    bounds.throughMs = Math.min(bounds.throughMs ?? Infinity, after.created_ms);
    ranged = ranged.where(sql<boolean>`(${created} < ${after.created_ms} or ${token} < ${after.token})`);
  } else if (after !== null) {
    bounds.fromMs = Math.max(bounds.fromMs ?? -Infinity, after.created_ms);
    ranged = ranged.where(sql<boolean>`(${created} > ${after.created_ms} or ${token} > ${after.token})`);
  }
  const condition = withinBounds(columns.created, bounds);
  if (condition !== undefined) ranged = ranged.where(condition);
  const direction = walk.direction === 'desc' ? sql`desc` : sql`asc`;
  return ranged.orderBy(sql`${created} ${direction}`).orderBy(sql`${token} ${direction}`).limit(walk.limit);
}

/**
 * What a read of an account's rows of one kind (its declined transfers, say) is asked for: the one
 * of a token (a primary-key seek), or a chunk of a walk. Never all of them: an account's rows are
 * read a bounded chunk at a time.
 */
export type RowsAsked = string | KeysetWalk;

/** `query` (whose table is `alias`, with `token` and `created_ms`) narrowed to the rows `asked`. */
export function rowsAsked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, alias: string, asked: RowsAsked): SelectQueryBuilder<DB, TB, O> {
  if (typeof asked === 'string') return query.where(sql<boolean>`${sql.ref(`${alias}.token`)} = ${asked}`);
  return keysetChunk(query, asked, { created: `${alias}.created_ms`, token: `${alias}.token` });
}

/** Inclusive bounds on `created_ms`, in whole milliseconds; absent: open on that side. */
interface CreatedBoundsMs {
  fromMs?: number;
  throughMs?: number;
}

function createdBoundsMs(range: CreatedRange): CreatedBoundsMs {
  const bounds: CreatedBoundsMs = {};
  if (range.begin !== undefined) bounds.fromMs = Date.parse(range.begin) + 1;
  if (range.end !== undefined) bounds.throughMs = exclusiveEndMs(range.end) - 1;
  return bounds;
}

/** `bounds` as one condition on the column `created` (undefined: no bound). */
function withinBounds(created: string, { fromMs, throughMs }: CreatedBoundsMs): RawBuilder<boolean> | undefined {
  const column = sql.ref(created);
  if (fromMs !== undefined && throughMs !== undefined) return sql<boolean>`${column} between ${fromMs} and ${throughMs}`;
  if (fromMs !== undefined) return sql<boolean>`${column} >= ${fromMs}`;
  if (throughMs !== undefined) return sql<boolean>`${column} <= ${throughMs}`;
  return undefined;
}

/** `bounds` as one condition on `alias.created_ms`. */
function createdWithin<O>(query: SelectQueryBuilder<Database, never, O>, bounds: CreatedBoundsMs, alias: string): SelectQueryBuilder<Database, never, O> {
  const condition = withinBounds(`${alias}.created_ms`, bounds);
  return condition === undefined ? query : query.where(condition);
}

/** `begin`/`end` (exclusive) as one condition on the column `created` (a subquery's, say), or undefined when neither is given. */
export function createdBetweenCondition(created: string, range: CreatedRange): RawBuilder<boolean> | undefined {
  return withinBounds(created, createdBoundsMs(range));
}

/** Applies `begin`/`end` (exclusive) to a query on `alias.created_ms` (a list passes them to `keysetPage` instead). */
export function createdBetween<O>(query: SelectQueryBuilder<Database, never, O>, range: CreatedRange, alias: string): SelectQueryBuilder<Database, never, O> {
  return createdWithin(query, createdBoundsMs(range), alias);
}
