/**
 * SQL for the ledger. Only `ledger.ts` calls this file. The statements every money movement runs
 * (lock a balance, write the movement's entries, which carry their journal, apply the deltas) are compiled once
 * (db/prepared.ts): they are on the path of every card authorization.
 */
import { inChunks } from '../db/chunks.js';
import { PostgresAdapter, sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { keysetChunk, type KeysetWalk } from '../db/pagination.js';
import { insertRows, preparedByShape, preparedOverTokens } from '../db/prepared.js';
import type { FinancialAccountType } from '../financial_accounts/schemas.js';
import type { Database } from '../db/schema.js';
import type { Balance } from './ledger.js';
import type { LedgerEntriesTable } from './tables.js';

const balanceColumns = [
  'financial_account_token',
  'available_cents',
  'pending_cents',
  'last_transaction_token',
  'last_transaction_event_token',
  'created_ms',
  'updated_ms',
] as const;

export async function insertBalance(exec: Executor, programId: string, financialAccountToken: string, nowMs: number) {
  await insertRows(exec, 'balances', [
    {
      program_id: programId,
      financial_account_token: financialAccountToken,
      available_cents: 0,
      pending_cents: 0,
      last_transaction_token: null,
      last_transaction_event_token: null,
      created_ms: nowMs,
      updated_ms: nowMs,
    },
  ]);
}

/** `FOR UPDATE` on PostgreSQL (as `db.forUpdate`), for statements prepared per engine. */
function forUpdateOn<QB extends SelectQueryBuilder<Database, 'balances', Balance>>(db: Kysely<Database>, query: QB): QB {
  return db.getExecutor().adapter instanceof PostgresAdapter ? (query.forUpdate() as QB) : query;
}

/** Balance rows in token order, locked (on the path of every money movement: prepared). */
export const selectBalancesForUpdate = preparedOverTokens((db, programId, tokens) =>
  forUpdateOn(
    db,
    db.selectFrom('balances').select(balanceColumns).where('program_id', '=', programId).where('financial_account_token', 'in', tokens).orderBy('financial_account_token'),
  ),
);

/** The balance rows of the given financial accounts, however many. */
export function selectBalances(exec: Executor, programId: string, tokens: readonly string[]): Promise<Balance[]> {
  return inChunks(tokens, (chunk) =>
    exec.selectFrom('balances').select(balanceColumns).where('program_id', '=', programId).where('financial_account_token', 'in', chunk).execute(),
  );
}

export function selectAllBalances(exec: Executor, programId: string): Promise<Balance[]> {
  return exec.selectFrom('balances').select(balanceColumns).where('program_id', '=', programId).execute();
}

/** All of a movement's entries (its journal) in one statement. */
export async function insertEntries(exec: Executor, entries: LedgerEntriesTable[]) {
  await insertRows(exec, 'ledger_entries', entries, { deferrable: true });
}

/**
 * On PostgreSQL, the given balance rows locked in token order (`order by … for update`: rows are
 * locked as the sort returns them), as `lockBalances` locks them: a movement whose caller did not
 * lock first cannot deadlock another. An UPDATE alone locks its rows in whatever order its plan
 * finds them (a bitmap scan: the order on disk). SQLite's transaction holds the write lock: no
 * condition.
 */
function lockedInOrder(db: Kysely<Database>, programId: string, tokens: string[]) {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  return db.selectFrom('balances').select('financial_account_token').where('program_id', '=', programId).where('financial_account_token', 'in', tokens).orderBy('financial_account_token').forUpdate();
}

/**
 * The columns of `applyBalanceDeltasStatement`'s VALUES list, one row per account, in the order
 * of `BalanceChange`'s fields (SQLite and PostgreSQL both name a VALUES list's columns column1…).
 * Each value is cast: PostgreSQL types a bare parameter there as text.
 */
const CHANGE_FIELDS = [
  ['financial_account_token', 'text'],
  ['available_cents', 'bigint'],
  ['pending_cents', 'bigint'],
  ['last_transaction_token', 'text'],
  ['last_transaction_event_token', 'text'],
  ['updated_ms', 'bigint'],
] as const;

/** `change.<column>`: the VALUES column holding `field` of the account's change. */
function changeOf(field: (typeof CHANGE_FIELDS)[number][0]) {
  return sql.ref<never>(`change.column${CHANGE_FIELDS.findIndex(([name]) => name === field) + 1}`);
}

/**
 * Adds each account's delta to its balance row and stamps it with the last movement that touched
 * it, in ONE statement whatever the number of accounts (a book transfer changes two: one round trip
 * under the locks instead of two): `update balances … from (values (<change of account 0>), …) as
 * change where financial_account_token = change.column1`, a seek of balances_pk per account. It
 * was a CASE over the accounts' tokens per column, which bound 19 parameters per account where
 * this binds 6 (7 on PostgreSQL). Measured on better-sqlite3 alone, both statements taking turns in
 * one run of a book transfer's statements (2 accounts, savepoints in transactions of 26; 30,000
 * transfers, twice): a median of 17.7–19.5 µs per statement with the CASEs, 10.5–10.8 µs so.
 * Shape: the number of accounts; arguments: the program, then CHANGE_FIELDS per account.
 */
const applyBalanceDeltasStatement = preparedByShape<Balance & { financial_account_type: string }>((db, shape, args) => {
  const count = Number(shape);
  const programId = args[0] as string;
  const rows = Array.from({ length: count }, (_, index) => {
    const values = CHANGE_FIELDS.map(([, type], field) => sql`cast(${args[1 + CHANGE_FIELDS.length * index + field]} as ${sql.raw(type)})`);
    return sql`(${sql.join(values)})`;
  });
  const tokens = Array.from({ length: count }, (_, index) => args[1 + CHANGE_FIELDS.length * index] as string);
  const availableDelta = changeOf('available_cents');
  const pendingDelta = changeOf('pending_cents');
  // A touched row keeps the stamp of its latest movement: one stamped earlier that commits later (its
  // request read the clock before a move) adds its amounts, as its entries count at their time.
  const latest = (field: 'last_transaction_token' | 'last_transaction_event_token' | 'updated_ms') =>
    sql<never>`case when ${changeOf('updated_ms')} >= ${sql.ref('balances.updated_ms')} or ${sql.ref('balances.last_transaction_token')} is null then ${changeOf(field)} else ${sql.ref(`balances.${field}`)} end`;
  const locked = lockedInOrder(db, programId, tokens);
  return (
    db
      .updateTable('balances')
      .from(sql<Record<string, unknown>>`(values ${sql.join(rows)})`.as('change'))
      .set({
        available_cents: sql`available_cents + ${availableDelta}`,
        pending_cents: sql`pending_cents + ${pendingDelta}`,
        last_transaction_token: latest('last_transaction_token'),
        last_transaction_event_token: latest('last_transaction_event_token'),
        updated_ms: latest('updated_ms'),
      })
      .where('balances.program_id', '=', programId)
      .where(sql<boolean>`${sql.ref('balances.financial_account_token')} = ${changeOf('financial_account_token')}`)
      .$call((query) => (locked === undefined ? query : query.where('balances.financial_account_token', 'in', locked)))
      // Balances stay integers JavaScript holds exactly: a change past that bound updates nothing.
      .where(sql<boolean>`abs(available_cents + ${availableDelta}) <= ${sql.lit(Number.MAX_SAFE_INTEGER)}`)
      .where(sql<boolean>`abs(pending_cents + ${pendingDelta}) <= ${sql.lit(Number.MAX_SAFE_INTEGER)}`)
      .where(sql<boolean>`abs(available_cents + pending_cents + ${availableDelta} + ${pendingDelta}) <= ${sql.lit(Number.MAX_SAFE_INTEGER)}`)
      .returning((eb) => [
        ...balanceColumns.map((column) => `balances.${column}` as const),
        eb
          .selectFrom('financial_accounts')
          .select('type')
          .whereRef('financial_accounts.program_id', '=', 'balances.program_id')
          .whereRef('financial_accounts.token', '=', 'balances.financial_account_token')
          .$castTo<FinancialAccountType>()
          .as('financial_account_type'),
      ])
  );
});

/** A balance row as a movement left it, with its financial account's type (for `balance.updated`). */
export type UpdatedBalance = Balance & { financial_account_type: FinancialAccountType };

/** What movements change on one balance row: the net delta per bucket, and the last of them (token, event, time). */
export interface BalanceChange {
  financial_account_token: string;
  available_cents: number;
  pending_cents: number;
  last_transaction_token: string;
  last_transaction_event_token: string;
  updated_ms: number;
}

/**
 * Applies each change to its account's balance row and answers the rows as updated, in token
 * order. A row's stamp (updated, last transaction and event) stays that of its latest movement by
 * program time, as its history through now reads it. An account missing from the answer has no row, or its change would take an amount past
 * Number.MAX_SAFE_INTEGER cents (its row is then unchanged).
 */
export async function applyBalanceDeltas(exec: Executor, programId: string, changes: readonly BalanceChange[]): Promise<UpdatedBalance[]> {
  if (changes.length === 0) return [];
  const args: unknown[] = [programId];
  for (const change of changes) for (const [field] of CHANGE_FIELDS) args.push(change[field]);
  const rows = await applyBalanceDeltasStatement(exec, String(changes.length), args);
  return rows
    .map((row) => ({ ...row, financial_account_type: row.financial_account_type as FinancialAccountType }))
    .sort((a, b) => (a.financial_account_token < b.financial_account_token ? -1 : a.financial_account_token > b.financial_account_token ? 1 : 0));
}

export function sumEntriesByAccount(exec: Executor, programId: string) {
  return exec
    .selectFrom('ledger_entries')
    .select(['ledger_account', 'bucket', sql<number>`sum(amount_cents)`.as('sum_cents')])
    .where('program_id', '=', programId)
    .groupBy(['ledger_account', 'bucket'])
    .execute();
}

/** Each account's entries written at or before `throughMs`, summed per bucket: one statement per chunk of accounts. */
export function sumEntriesThrough(exec: Executor, programId: string, tokens: readonly string[], throughMs: number) {
  return inChunks(tokens, (chunk) =>
    exec
      .selectFrom('ledger_entries')
      .select(['ledger_account', 'bucket', sql<number>`sum(amount_cents)`.as('sum_cents')])
      .where('program_id', '=', programId)
      .where('ledger_account', 'in', chunk)
      .where('created_ms', '<=', throughMs)
      .groupBy(['ledger_account', 'bucket'])
      .execute(),
  );
}

/**
 * Each account's balance row less its entries written after `afterMs`, in one statement, so one
 * snapshot: rows (account, available, pending) that add up, per account, to its balance as of
 * `afterMs` (invariant 4: the row is the sum of all its entries). Cheap when little was written
 * since: a range of `ledger_entries_by_account_time` from `afterMs` on, read from the index alone.
 */
export function balancesLessEntriesAfter(exec: Executor, programId: string, tokens: readonly string[], afterMs: number) {
  const bucketSum = (bucket: 'available' | 'pending') => sql<number>`0 - sum(case when bucket = ${sql.lit(bucket)} then amount_cents else 0 end)`;
  return inChunks(tokens, (chunk) =>
    exec
      .selectFrom('balances')
      .select(['financial_account_token as ledger_account', 'available_cents', 'pending_cents'])
      .where('program_id', '=', programId)
      .where('financial_account_token', 'in', chunk)
      .unionAll(
        exec
          .selectFrom('ledger_entries')
          .select(['ledger_account', bucketSum('available').as('available_cents'), bucketSum('pending').as('pending_cents')])
          .where('program_id', '=', programId)
          .where('ledger_account', 'in', chunk)
          .where('created_ms', '>', afterMs)
          .groupBy('ledger_account'),
      )
      .execute(),
  );
}

/** Accounts per statement of `lastJournalsThrough`: one subquery each, well under SQLite's 500 terms of a compound SELECT. */
const LAST_JOURNALS_PER_QUERY = 100;

/**
 * Each account's last journal written at or before `throughMs` (latest `created_ms`, then journal
 * token): per account, a seek backwards from `throughMs` in `ledger_entries_by_account_time` that
 * stops at the first millisecond it finds; the accounts of a chunk in one statement (UNION ALL).
 */
export function lastJournalsThrough(exec: Executor, programId: string, tokens: readonly string[], throughMs: number) {
  const lastOf = (token: string, index: number) =>
    exec
      .selectFrom((db) =>
        db
          .selectFrom('ledger_entries')
          .select(['ledger_account', 'transaction_token', 'event_token', 'created_ms'])
          .where('program_id', '=', programId)
          .where('ledger_account', '=', token)
          .where('created_ms', '<=', throughMs)
          .orderBy('created_ms', 'desc')
          .orderBy('journal_token', 'desc')
          .limit(1)
          .as(`last_${index}`),
      )
      .selectAll();
  return inChunks(
    tokens,
    (chunk) => chunk.slice(1).reduce((query, token, index) => query.unionAll(lastOf(token, index + 1)), lastOf(chunk[0] as string, 0)).execute(),
    LAST_JOURNALS_PER_QUERY,
  );
}

/**
 * Which of an account's journals to read: those written at or before `throughMs`, or those of some
 * transactions (`transactionTokens`: a seek each of `ledger_entries_by_transaction`, migration 0037,
 * however long the account's history).
 */
export interface JournalsAsked {
  throughMs?: number;
  transactionTokens?: readonly string[];
}

/** Per journal touching the account: the journal and the account's net amount in each bucket. */
export function accountJournalAmounts(
  exec: Executor,
  programId: string,
  financialAccountToken: string,
  only: JournalsAsked = {},
) {
  let query = exec
    .selectFrom('ledger_entries')
    .select(['journal_token', 'kind', 'transaction_token', 'event_token', 'created_ms', 'bucket', sql<number>`sum(amount_cents)`.as('amount_cents')])
    .where('program_id', '=', programId)
    .where('ledger_account', '=', financialAccountToken);
  if (only.throughMs !== undefined) query = query.where('created_ms', '<=', only.throughMs);
  if (only.transactionTokens !== undefined) query = query.where('transaction_token', 'in', only.transactionTokens.length === 0 ? [''] : only.transactionTokens);
  return query
    .groupBy(['journal_token', 'kind', 'transaction_token', 'event_token', 'created_ms', 'bucket'])
    .orderBy('created_ms')
    .orderBy('journal_token')
    .execute();
}

/**
 * When an entry of the account with `column` = `value` was written: the newest (`desc`) or the
 * oldest (`asc`) such entry's time, if there is one. An event's is a backward walk of
 * `ledger_entries_by_account_time`'s own columns from the account's newest entry (migration 0025);
 * a transaction's, one seek of `ledger_entries_by_transaction` (migration 0037).
 */
async function entryWrittenMs(
  exec: Executor,
  programId: string,
  financialAccountToken: string,
  match: { column: 'event_token' | 'transaction_token'; value: string; order: 'asc' | 'desc' },
): Promise<number | undefined> {
  const row = await exec
    .selectFrom('ledger_entries')
    .select('created_ms')
    .where('program_id', '=', programId)
    .where('ledger_account', '=', financialAccountToken)
    .where(match.column, '=', match.value)
    .orderBy('created_ms', match.order)
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_ms);
}

/** When the journal of `eventToken` that touched the account was written, if there is one. */
export function eventJournalCreatedMs(exec: Executor, programId: string, financialAccountToken: string, eventToken: string): Promise<number | undefined> {
  return entryWrittenMs(exec, programId, financialAccountToken, { column: 'event_token', value: eventToken, order: 'desc' });
}

/**
 * Journal kinds by their first characters (`kind` begins with one of `prefixes`, or with none of
 * them when `negate`).
 */
export interface KindPrefixes {
  prefixes: readonly string[];
  negate: boolean;
}

/** The least string after every string that begins with `prefix` (its last character, the next one). */
function pastPrefix(prefix: string): string {
  return `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
}

/**
 * One chunk of a walk over the transactions that touched the account, in the walk's order of
 * `(created_ms, transaction_token)`, each at its first entry on the account: the entries of
 * `ledger_entries_by_account_time` in range, kept where no entry of the same transaction on the
 * account is older (a seek of `ledger_entries_by_transaction`, migration 0037). A
 * transaction whose first journal wrote several entries on the account (a hold: available and
 * pending) comes once per entry, side by side; the caller keeps one. Entries of one millisecond are
 * ordered by transaction token as they are read (a sort of that millisecond's few entries).
 */
export function firstEntriesOfTransactions(exec: Executor, programId: string, financialAccountToken: string, walk: KeysetWalk, kinds?: KindPrefixes) {
  let query = exec
    .selectFrom('ledger_entries as e')
    .select(['e.transaction_token as token', 'e.created_ms'])
    .where('e.program_id', '=', programId)
    .where('e.ledger_account', '=', financialAccountToken)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('ledger_entries as f')
            .select(sql.lit(1).as('one'))
            .whereRef('f.program_id', '=', 'e.program_id')
            .whereRef('f.ledger_account', '=', 'e.ledger_account')
            .whereRef('f.transaction_token', '=', 'e.transaction_token')
            .whereRef('f.created_ms', '<', 'e.created_ms'),
        ),
      ),
    );
  if (kinds !== undefined) {
    // A range of kinds per prefix, which PostgreSQL's statistics on `kind` can estimate (a function of
    // the column they could only guess, and it then read the account's whole range and sorted it).
    const begins = sql.join(kinds.prefixes.map((prefix) => sql`(e.kind >= ${prefix} and e.kind < ${pastPrefix(prefix)})`), sql` or `);
    query = query.where(kinds.negate ? sql<boolean>`not (${begins})` : sql<boolean>`(${begins})`);
  }
  return keysetChunk(query, walk, { created: 'e.created_ms', token: 'e.transaction_token' }).execute();
}

/** When the transaction `transactionToken` first touched the account, if it did (one seek). */
export function firstEntryMs(exec: Executor, programId: string, financialAccountToken: string, transactionToken: string): Promise<number | undefined> {
  return entryWrittenMs(exec, programId, financialAccountToken, { column: 'transaction_token', value: transactionToken, order: 'asc' });
}
