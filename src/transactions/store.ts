/**
 * SQL for card transactions, their events and the spend buckets (per day and per hour). The queries on the path of
 * every authorization are prepared once (db/prepared.ts); lists and the rarely used filtered sums
 * are built per call.
 */
import { eventsOfTransactions, inChunks } from '../db/chunks.js';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import { anyOf, anyOfUnindexed, keysetPage, rowsAsked, type PageParams, type RowsAsked } from '../db/pagination.js';
import { INSERT_PARAMETERS_MAX, insertRows, prepared, preparedByShape, preparedDeferredWrite } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { invariant } from '../errors.js';
import type { VelocityFilters } from '../engine/rules-seam.js';
import type { AccountsTable } from '../accounts/tables.js';
import type { CardsTable } from '../cards/tables.js';
import type { CardTransactionEventsTable, CardTransactionsTable } from './tables.js';
import { cardPresentValuesOf } from './entry-mode.js';

export type TransactionRow = CardTransactionsTable;
export type EventRow = CardTransactionEventsTable;

/** The card with what an authorization needs of its account and program, in one read. */
export type CardForAuthorizationRow = CardsTable & {
  account_state: AccountsTable['state'];
  account_daily_spend_limit_cents: AccountsTable['daily_spend_limit_cents'];
  account_monthly_spend_limit_cents: AccountsTable['monthly_spend_limit_cents'];
  account_lifetime_spend_limit_cents: AccountsTable['lifetime_spend_limit_cents'];
  account_created_ms: number;
  issuing_financial_account_token: string;
  issuing_financial_account_status: string;
  require_funds: number;
  /** The program's Auth Rules version, for the evaluator (a read of its own otherwise: auth_rules/store.ts `rulesVersion`). */
  rules_version: string;
};

/**
 * The card with this PAN (by its keyed hash) in the program, its account's limits and state, the
 * status of the account's ISSUING financial account, whether the program requires funds and its
 * Auth Rules version (the program row is read anyway: this saves the evaluator's own read of the
 * version, a statement of ~6 µs of CPU on SQLite, measured in an in-process loop). An unlocked
 * read: on PostgreSQL the service then locks the account and the card (the seam's order); on
 * SQLite the transaction already holds the write lock.
 */
const selectCardForAuthorization = prepared((db, programId: string, panLookupHash: string) =>
  db
    .selectFrom('cards')
    .innerJoin('accounts', (join) => join.onRef('accounts.program_id', '=', 'cards.program_id').onRef('accounts.token', '=', 'cards.account_token'))
    .innerJoin('financial_accounts', (join) =>
      join.onRef('financial_accounts.program_id', '=', 'accounts.program_id').onRef('financial_accounts.token', '=', 'accounts.issuing_financial_account_token'),
    )
    .innerJoin('programs', 'programs.id', 'cards.program_id')
    .selectAll('cards')
    .select([
      'accounts.state as account_state',
      'accounts.daily_spend_limit_cents as account_daily_spend_limit_cents',
      'accounts.monthly_spend_limit_cents as account_monthly_spend_limit_cents',
      'accounts.lifetime_spend_limit_cents as account_lifetime_spend_limit_cents',
      'accounts.created_ms as account_created_ms',
      'accounts.issuing_financial_account_token',
      'financial_accounts.status as issuing_financial_account_status',
      'programs.require_funds',
      'programs.rules_version',
    ])
    .where('cards.program_id', '=', programId)
    .where('cards.pan_lookup_hash', '=', panLookupHash),
);

export async function findCardForAuthorization(exec: Executor, programId: string, panLookupHash: string): Promise<CardForAuthorizationRow | undefined> {
  const [row] = await selectCardForAuthorization(exec, programId, panLookupHash);
  return row as CardForAuthorizationRow | undefined;
}

/**
 * An INSERT of every column of a table, in a fixed column order (one compiled statement). Both
 * hot-path inserts of an authorization use it. Deferrable (db/pg-deferred.ts): their tokens are
 * fresh, and a later read of the table in the same transaction sends them first.
 */
function preparedInsert<Table extends 'card_transactions' | 'card_transaction_events', Row extends object>(table: Table, columns: ReadonlyArray<keyof Row & string>) {
  return async (exec: Executor, rows: readonly Row[]): Promise<void> => {
    const ordered = rows.map((row) => {
      const values: Record<string, unknown> = {};
      for (const column of columns) values[column] = row[column];
      return values as never;
    });
    await insertRows(exec, table, ordered, { deferrable: true });
  };
}

export const insertTransactions = preparedInsert<'card_transactions', TransactionRow>('card_transactions', [
  'program_id',
  'token',
  'account_token',
  'card_token',
  'financial_account_token',
  'kind',
  'status',
  'result',
  'authorization_amount_cents',
  'hold_cents',
  'settled_cents',
  'merchant_authorization_amount_cents',
  'merchant_currency',
  'spend_cents',
  'counts_as_spend',
  'return_reversed',
  'merchant_acceptor_id',
  'merchant_descriptor',
  'merchant_mcc',
  'merchant_city',
  'merchant_country',
  'merchant_state',
  'card_present',
  'partial_approval_capable',
  'expires_ms',
  'created_ms',
  'updated_ms',
]);

export const insertEvents = preparedInsert<'card_transaction_events', EventRow>('card_transaction_events', [
  'program_id',
  'transaction_token',
  'seq',
  'token',
  'type',
  'amount_cents',
  'settlement_cents',
  'effective_polarity',
  'result',
  'detailed_results',
  'rule_results',
  'created_ms',
]);

export function find(exec: Executor, programId: string, token: string): Promise<TransactionRow | undefined> {
  return exec.selectFrom('card_transactions').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/** Whether the program has a card transaction with this token. */
export async function exists(exec: Executor, programId: string, token: string): Promise<boolean> {
  const row = await exec.selectFrom('card_transactions').select('token').where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  return row !== undefined;
}

/** The given transactions of the program, however many (in no particular order; unknown tokens are left out). */
export function findMany(exec: Executor, programId: string, tokens: readonly string[]): Promise<TransactionRow[]> {
  return inChunks(tokens, (chunk) => exec.selectFrom('card_transactions').selectAll().where('program_id', '=', programId).where('token', 'in', chunk).execute());
}

/** The transaction, locked for the rest of the database transaction (PostgreSQL `FOR UPDATE`). */
export function lock(db: Db, tx: Tx, programId: string, token: string): Promise<TransactionRow | undefined> {
  return db.forUpdate(tx.selectFrom('card_transactions').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

/** The given transactions, locked in token order (PostgreSQL `FOR UPDATE`; unknown tokens are left out). */
export function lockMany(db: Db, tx: Tx, programId: string, tokens: readonly string[]): Promise<TransactionRow[]> {
  return inChunks([...tokens].sort(), (chunk) =>
    db.forUpdate(tx.selectFrom('card_transactions').selectAll().where('program_id', '=', programId).where('token', 'in', chunk).orderBy('token')).execute(),
  );
}

export type AmountChanges = Pick<
  TransactionRow,
  'status' | 'authorization_amount_cents' | 'hold_cents' | 'settled_cents' | 'spend_cents' | 'return_reversed' | 'expires_ms' | 'updated_ms'
>;

export async function updateAmounts(exec: Executor, programId: string, token: string, changes: AmountChanges): Promise<void> {
  await exec.updateTable('card_transactions').set(changes).where('program_id', '=', programId).where('token', '=', token).execute();
}

/** The columns `updateAmountsOfMany` sets, with their SQL types (PostgreSQL types a bare parameter in a CASE as text). */
const AMOUNT_COLUMNS = {
  status: 'text',
  authorization_amount_cents: 'bigint',
  hold_cents: 'bigint',
  settled_cents: 'bigint',
  spend_cents: 'bigint',
  return_reversed: 'integer',
  expires_ms: 'bigint',
  updated_ms: 'bigint',
} as const satisfies Record<keyof AmountChanges, string>;
const AMOUNT_COLUMN_NAMES = Object.keys(AMOUNT_COLUMNS) as (keyof AmountChanges)[];

/**
 * Sets each transaction's amounts, in one statement (`case token when … then … end` per column).
 * Shape: the number of transactions; arguments: the program, then the token and AMOUNT_COLUMNS
 * per transaction.
 */
const updateAmountsOfManyStatement = preparedByShape((db, shape, args) => {
  const count = Number(shape);
  const width = 1 + AMOUNT_COLUMN_NAMES.length;
  const tokens = Array.from({ length: count }, (_, index) => args[1 + width * index]);
  const perToken = (column: keyof AmountChanges) => {
    const offset = 1 + AMOUNT_COLUMN_NAMES.indexOf(column);
    const branches = tokens.map((token, index) => sql`when ${token} then cast(${args[1 + width * index + offset]} as ${sql.raw(AMOUNT_COLUMNS[column])})`);
    return sql<never>`case token ${sql.join(branches, sql` `)} end`;
  };
  return db
    .updateTable('card_transactions')
    .set(Object.fromEntries(AMOUNT_COLUMN_NAMES.map((column) => [column, perToken(column)])))
    .where('program_id', '=', args[0] as string)
    .where('token', 'in', tokens as string[]);
});

/** `updateAmounts` for many transactions at once (rows this transaction has locked). */
export async function updateAmountsOfMany(exec: Executor, programId: string, changes: ReadonlyArray<AmountChanges & { token: string }>): Promise<void> {
  const width = 1 + AMOUNT_COLUMN_NAMES.length;
  const perStatement = Math.floor(INSERT_PARAMETERS_MAX / (2 * width));
  for (let start = 0; start < changes.length; start += perStatement) {
    const chunk = changes.slice(start, start + perStatement);
    const args: unknown[] = [programId];
    for (const change of chunk) args.push(change.token, ...AMOUNT_COLUMN_NAMES.map((column) => change[column]));
    await updateAmountsOfManyStatement(exec, String(chunk.length), args);
  }
}

export async function nextEventSeq(exec: Executor, programId: string, transactionToken: string): Promise<number> {
  const row = await exec
    .selectFrom('card_transaction_events')
    .select(sql<number | null>`max(seq)`.as('max_seq'))
    .where('program_id', '=', programId)
    .where('transaction_token', '=', transactionToken)
    .executeTakeFirst();
  return row?.max_seq === null || row?.max_seq === undefined ? 0 : Number(row.max_seq) + 1;
}

/** The events of the given transactions, however many; each transaction's in order. */
export function eventsFor(exec: Executor, programId: string, transactionTokens: readonly string[]): Promise<EventRow[]> {
  return eventsOfTransactions(exec, 'card_transaction_events', programId, transactionTokens);
}

/**
 * When the card transaction event `eventToken` happened, if it is an event of a card transaction on
 * the financial account (its card's ISSUING account): a seek in `card_transaction_events_by_token`
 * (migration 0030), then the transaction's primary key.
 */
export async function eventOnAccountMs(exec: Executor, programId: string, financialAccountToken: string, eventToken: string): Promise<number | undefined> {
  const row = await exec
    .selectFrom('card_transaction_events as event')
    .innerJoin('card_transactions as transaction', (join) =>
      join.onRef('transaction.program_id', '=', 'event.program_id').onRef('transaction.token', '=', 'event.transaction_token'),
    )
    .select('event.created_ms')
    .where('event.program_id', '=', programId)
    .where('event.token', '=', eventToken)
    .where('transaction.financial_account_token', '=', financialAccountToken)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_ms);
}

/**
 * The DECLINED card transactions charged to a financial account (their card's ISSUING account),
 * which its financial transactions show: one range of `card_transactions_declined_by_financial_account`
 * (migration 0033; the status a literal, as the partial index states it); that of a token if
 * it is one (one seek, by primary key or in that index), or a chunk of a walk (`RowsAsked`).
 */
export function declinedOn(exec: Executor, programId: string, financialAccountToken: string, asked: RowsAsked) {
  const query = exec
    .selectFrom('card_transactions')
    .select(['token', 'created_ms', 'merchant_descriptor'])
    .where('program_id', '=', programId)
    .where('financial_account_token', '=', financialAccountToken)
    .where('status', '=', sql.lit('DECLINED'));
  return rowsAsked(query, 'card_transactions', asked).execute();
}

export interface ListFilters {
  account_token?: string | undefined;
  card_token?: string | undefined;
  /** Any of these statuses (the `result` filter is expressed as statuses). */
  statuses?: readonly string[] | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

/**
 * A page of the program's card transactions, newest first, one range of one list index: the card's
 * (`card_transactions_by_card`), else the account's, else one range of `card_transactions_by_status`
 * per status (`anyOf`: result=APPROVED is four), else the program's. The other filters are
 * conditions on the rows that range finds (`anyOfUnindexed`: SQLite, without statistics, would
 * take the status index created last and walk every transaction of the program in that status for
 * the card's few). A card's or account's page with a status thus reads that card's or account's
 * transactions until the page is full: bounded by its own history, not the program's.
 */
export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = exec.selectFrom('card_transactions').selectAll().where('program_id', '=', programId);
  const { card_token, account_token, statuses } = filters;
  if (card_token !== undefined) query = query.where('card_token', '=', card_token);
  if (account_token !== undefined) {
    query = card_token === undefined ? query.where('account_token', '=', account_token) : query.where(anyOfUnindexed(exec, 'account_token', [account_token]));
  }
  if (card_token === undefined && account_token === undefined && statuses !== undefined) return keysetPage(exec, anyOf(query, ['status'], statuses), 'card_transactions', programId, page, filters);
  if (statuses !== undefined) query = query.where(anyOfUnindexed(exec, 'status', statuses));
  return keysetPage(exec, query, 'card_transactions', programId, page, filters);
}

/**
 * Whether a PENDING card transaction draws on the financial account, whatever its hold (an
 * authorization of 0, or advised down to 0, holds nothing but the network may still clear it).
 */
export async function hasPendingOn(exec: Executor, programId: string, financialAccountToken: string): Promise<boolean> {
  const row = await exec
    .selectFrom('card_transactions')
    .select('token')
    .where('program_id', '=', programId)
    .where('status', '=', sql.lit('PENDING'))
    .where('financial_account_token', '=', financialAccountToken)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- expiry ---------------------------------------------------------------------------------------

/**
 * PENDING debit authorizations created at or before `createdThroughMs`, oldest first: those whose
 * expiry has come. Served by the status index (status and kind are literals, so the plan is fixed).
 */
const selectDueExpiries = prepared((db, programId: string, createdThroughMs: number, limit: number) =>
  db
    .selectFrom('card_transactions')
    .select('token')
    .where('program_id', '=', programId)
    .where('status', '=', sql.lit('PENDING'))
    .where('created_ms', '<=', createdThroughMs)
    .where('kind', '=', sql.lit('AUTHORIZATION'))
    .orderBy('created_ms')
    .orderBy('token')
    .limit(limit),
);

/** Tokens of PENDING debit authorizations created at or before `createdThroughMs`, oldest first. */
export async function dueExpiries(exec: Executor, programId: string, createdThroughMs: number, limit: number): Promise<string[]> {
  return (await selectDueExpiries(exec, programId, createdThroughMs, limit)).map((row) => row.token);
}

/** When the oldest PENDING debit authorization was created (the next to expire), if there is one. */
const selectOldestPendingAuthorization = prepared((db, programId: string) =>
  db
    .selectFrom('card_transactions')
    .select('created_ms')
    .where('program_id', '=', programId)
    .where('status', '=', sql.lit('PENDING'))
    .where('kind', '=', sql.lit('AUTHORIZATION'))
    .orderBy('created_ms')
    .orderBy('token')
    .limit(1),
);

export async function oldestPendingAuthorizationMs(exec: Executor, programId: string): Promise<number | undefined> {
  return (await selectOldestPendingAuthorization(exec, programId))[0]?.created_ms;
}

// ---- spend: per-day and per-hour buckets, and raw sums ------------------------------------------

export interface SpendSum {
  amount_cents: number;
  count: number;
}

function toSum(row: { amount_cents: number; count: number } | undefined): SpendSum {
  return { amount_cents: Number(row?.amount_cents ?? 0), count: Number(row?.count ?? 0) };
}

/** The two bucket tables: the same columns, but for the name of the bucket's start. */
const BUCKET_TABLES = {
  day: { table: 'card_spend_days', start: 'day_start_ms' },
  hour: { table: 'card_spend_hours', start: 'hour_start_ms' },
} as const;

export type BucketSpan = keyof typeof BUCKET_TABLES;

/**
 * The prepared upsert of one bucket table: the card's bucket and its account's in one statement,
 * rows in that order; deferrable (PostgreSQL sends it with the transaction's next statement).
 */
function bucketUpsert(span: BucketSpan) {
  const { table, start } = BUCKET_TABLES[span];
  const add = (column: 'spent_cents' | 'approved_count') => sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  return preparedDeferredWrite((db, programId: string, cardToken: string, accountToken: string, startMs: number, spentCents: number, approvedCount: number) => {
    const row = (scopeToken: string) => ({ program_id: programId, scope_token: scopeToken, [start]: startMs, spent_cents: spentCents, approved_count: approvedCount });
    return db
      .insertInto(table)
      .values([row(cardToken), row(accountToken)] as never)
      .onConflict((conflict) =>
        conflict.columns(['program_id', 'scope_token', start] as never).doUpdateSet({ spent_cents: add('spent_cents'), approved_count: add('approved_count') } as never),
      );
  });
}

const upsertBuckets = { day: bucketUpsert('day'), hour: bucketUpsert('hour') };

/** A change of approved spend, for a card and for its account, in the buckets of a day and an hour. */
export interface SpendBucketDelta {
  card_token: string;
  account_token: string;
  day_start_ms: number;
  hour_start_ms: number;
  spent_cents: number;
  approved_count: number;
}

/** Adds to the day and hour buckets of a card and of its account (each created on first use). */
export async function addToSpendBuckets(exec: Executor, programId: string, delta: SpendBucketDelta): Promise<void> {
  const { card_token, account_token, spent_cents, approved_count } = delta;
  await upsertBuckets.day(exec, programId, card_token, account_token, delta.day_start_ms, spent_cents, approved_count);
  await upsertBuckets.hour(exec, programId, card_token, account_token, delta.hour_start_ms, spent_cents, approved_count);
}

/**
 * The multi-row upsert of one bucket table: shape, the number of rows; arguments: the program, then
 * scope token, start, spent and count per row (each bucket at most once: one statement may not
 * change a row twice).
 */
function bucketRowsUpsert(span: BucketSpan) {
  const { table, start } = BUCKET_TABLES[span];
  const add = (column: 'spent_cents' | 'approved_count') => sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  return preparedByShape((db, shape, args) => {
    const rows = Array.from({ length: Number(shape) }, (_, index) => {
      const [scopeToken, startMs, spentCents, approvedCount] = args.slice(1 + 4 * index, 5 + 4 * index);
      return { program_id: args[0], scope_token: scopeToken, [start]: startMs, spent_cents: spentCents, approved_count: approvedCount };
    });
    return db
      .insertInto(table)
      .values(rows as never)
      .onConflict((conflict) =>
        conflict.columns(['program_id', 'scope_token', start] as never).doUpdateSet({ spent_cents: add('spent_cents'), approved_count: add('approved_count') } as never),
      );
  });
}

const upsertBucketRows = { day: bucketRowsUpsert('day'), hour: bucketRowsUpsert('hour') };

/**
 * `addToSpendBuckets` for many changes at once (e.g. the holds one clock move expires): summed per
 * bucket, then one upsert per bucket table (or a few, for very many buckets).
 */
export async function addToSpendBucketsOfMany(exec: Executor, programId: string, deltas: readonly SpendBucketDelta[]): Promise<void> {
  for (const span of ['day', 'hour'] as const) {
    const rows = bucketRowsOf(span, deltas);
    const perStatement = Math.floor(INSERT_PARAMETERS_MAX / 5);
    for (let begin = 0; begin < rows.length; begin += perStatement) {
      const chunk = rows.slice(begin, begin + perStatement);
      const args = chunk.flatMap((bucket) => [bucket.scope_token, bucket.start_ms, bucket.spent_cents, bucket.approved_count]);
      await upsertBucketRows[span](exec, String(chunk.length), [programId, ...args]);
    }
  }
}

/** One bucket row of `addToSpendBucketsOfMany`: scope_rank 0 for a card's, 1 for an account's. */
export interface SpendBucketRow {
  scope_rank: number;
  scope_token: string;
  start_ms: number;
  spent_cents: number;
  approved_count: number;
}

/**
 * The order bucket rows are locked in (an upsert locks its rows in the order of its values): cards'
 * before accounts', as `addToSpendBuckets` locks one card's and then its account's; then by token and
 * start. Two writers that lock in this order never wait for each other in a cycle.
 */
function inLockOrder(a: SpendBucketRow, b: SpendBucketRow): number {
  if (a.scope_rank !== b.scope_rank) return a.scope_rank - b.scope_rank;
  if (a.scope_token !== b.scope_token) return a.scope_token < b.scope_token ? -1 : 1;
  return a.start_ms - b.start_ms;
}

/** The changes summed per bucket of the span's table (each bucket once), in lock order. */
export function bucketRowsOf(span: BucketSpan, deltas: readonly SpendBucketDelta[]): SpendBucketRow[] {
  const buckets = new Map<string, SpendBucketRow>();
  for (const delta of deltas) {
    const startMs = span === 'day' ? delta.day_start_ms : delta.hour_start_ms;
    for (const [scopeRank, scopeToken] of [delta.card_token, delta.account_token].entries()) {
      const key = `${scopeToken} ${startMs}`;
      const bucket = buckets.get(key) ?? { scope_rank: scopeRank, scope_token: scopeToken, start_ms: startMs, spent_cents: 0, approved_count: 0 };
      bucket.spent_cents += delta.spent_cents;
      bucket.approved_count += delta.approved_count;
      buckets.set(key, bucket);
    }
  }
  return [...buckets.values()].sort(inLockOrder);
}

export type SpendScope = 'CARD' | 'ACCOUNT';

/** What a part of a spend window is read from: the transactions themselves, or hour or day buckets. */
type SpendSource = 'raw' | BucketSpan;

export interface SpendPart {
  source: SpendSource;
  since_ms: number;
  until_ms: number;
}

const SCOPE_COLUMN = { CARD: 'card_token', ACCOUNT: 'account_token' } as const;

/** The spend of a card's or account's transactions created in [since, until): a range of their list index. */
function rawSpendQuery(db: Executor, scope: SpendScope, programId: string, token: string, sinceMs: number, untilMs: number) {
  return db
    .selectFrom('card_transactions')
    .select([sql<number>`coalesce(sum(spend_cents), 0)`.as('amount_cents'), sql<number>`coalesce(sum(counts_as_spend), 0)`.as('count')])
    .where('program_id', '=', programId)
    .where(SCOPE_COLUMN[scope], '=', token)
    .where('created_ms', '>=', sinceMs)
    .where('created_ms', '<', untilMs);
}

/** A part's sum, and the window it is part of (its index in the statement). */
interface SpendPartRow {
  amount_cents: number;
  count: number;
  window_index: number;
}

/**
 * The sum of one part, tagged with the index of its window: raw rows by their list index (card or
 * account, created_ms), or buckets by key.
 */
function partQuery(
  db: Kysely<Database>,
  windowIndex: number,
  scope: SpendScope,
  source: SpendSource,
  args: readonly unknown[],
): SelectQueryBuilder<Database, 'card_transactions' | 'card_spend_days' | 'card_spend_hours', SpendPartRow> {
  const [programId, token, sinceMs, untilMs] = args as [string, string, number, number];
  const window = sql.lit(windowIndex).as('window_index');
  if (source === 'raw') return rawSpendQuery(db, scope, programId, token, sinceMs, untilMs).select(window);
  const { table, start } = BUCKET_TABLES[source];
  return db
    .selectFrom(table)
    .select([sql<number>`coalesce(sum(spent_cents), 0)`.as('amount_cents'), sql<number>`coalesce(sum(approved_count), 0)`.as('count'), window])
    .where('program_id', '=', programId)
    .where('scope_token', '=', token)
    .where(sql.ref(start), '>=', sinceMs)
    .where(sql.ref(start), '<', untilMs);
}

/** The parts of one window of one card or account. */
export interface SpendWindowParts {
  scope: SpendScope;
  token: string;
  parts: readonly SpendPart[];
}

/**
 * The parts of some windows in ONE statement (a UNION ALL of their sums, one row each, tagged
 * with the index of its window): one round trip, which on PostgreSQL is taken while the account
 * is locked. Shape `SCOPE:source,source,…;SCOPE:…` (a window each); the arguments are the
 * program, then per window its token and each part's since and until.
 */
const selectSpendParts = preparedByShape<SpendPartRow>((db, shape, args) => {
  const [programId] = args;
  let next = 1;
  const queries = shape.split(';').flatMap((window, windowIndex) => {
    const [scope, sources] = window.split(':') as [SpendScope, string];
    const token = args[next++];
    return sources.split(',').map((source) => {
      const [sinceMs, untilMs] = [args[next++], args[next++]];
      return partQuery(db, windowIndex, scope, source as SpendSource, [programId, token, sinceMs, untilMs]);
    });
  });
  const [first, ...rest] = queries;
  invariant(first !== undefined, 'a window with no part runs no query');
  return rest.reduce((union, query) => union.unionAll(query), first);
});

/**
 * Σ over the parts of each window, in the order given (a window of no part: zero). One statement
 * for all of them (none when no window has a part): an authorization sums its account's windows
 * and its card's together.
 */
export async function spendPartsSums(exec: Executor, programId: string, windows: readonly SpendWindowParts[]): Promise<SpendSum[]> {
  const sums = windows.map((): SpendSum => ({ amount_cents: 0, count: 0 }));
  const read = windows.filter((window) => window.parts.length > 0);
  if (read.length === 0) return sums;
  const sumOfRead = read.map((window) => sums[windows.indexOf(window)] as SpendSum);
  const shape = read.map((window) => `${window.scope}:${window.parts.map((part) => part.source).join(',')}`).join(';');
  const args = [programId, ...read.flatMap((window) => [window.token, ...window.parts.flatMap((part) => [part.since_ms, part.until_ms])])];
  for (const row of await selectSpendParts(exec, shape, args)) {
    const sum = sumOfRead[Number(row.window_index)] as SpendSum;
    const part = toSum(row);
    sum.amount_cents += part.amount_cents;
    sum.count += part.count;
  }
  return sums;
}

/**
 * The spend of a card's or account's transactions in a range, with the filters of a velocity
 * rule (merchant MCC and country, PAN entry mode: entry-mode.ts): a range scan of the list index,
 * filtered.
 */
export async function filteredSpendSum(
  exec: Executor,
  programId: string,
  scope: SpendScope,
  token: string,
  range: { since_ms: number; until_ms: number },
  filters: VelocityFilters,
): Promise<SpendSum> {
  let query = rawSpendQuery(exec, scope, programId, token, range.since_ms, range.until_ms).where('counts_as_spend', '=', 1);
  if (filters.include_mccs) query = query.where('merchant_mcc', 'in', [...filters.include_mccs]);
  if (filters.exclude_mccs) query = query.where('merchant_mcc', 'not in', [...filters.exclude_mccs]);
  if (filters.include_countries) query = query.where('merchant_country', 'in', [...filters.include_countries]);
  if (filters.exclude_countries) query = query.where('merchant_country', 'not in', [...filters.exclude_countries]);
  if (filters.include_pan_entry_modes) {
    const cardPresent = cardPresentValuesOf(filters.include_pan_entry_modes);
    if (cardPresent.length === 0) return { amount_cents: 0, count: 0 };
    query = query.where('card_present', 'in', cardPresent);
  }
  return toSum(await query.executeTakeFirst());
}

const countCardAttempts = prepared((db, programId: string, cardToken: string, sinceMs: number, untilMs: number) =>
  db
    .selectFrom('card_transactions')
    .select(sql<number>`count(*)`.as('count'))
    .where('program_id', '=', programId)
    .where('card_token', '=', cardToken)
    .where('created_ms', '>=', sinceMs)
    .where('created_ms', '<', untilMs),
);

/** Transactions of any result on the card created in [sinceMs, untilMs). */
export async function cardAttempts(exec: Executor, programId: string, cardToken: string, sinceMs: number, untilMs: number): Promise<number> {
  const [row] = await countCardAttempts(exec, programId, cardToken, sinceMs, untilMs);
  return Number(row?.count ?? 0);
}
