/** SQL for external bank accounts. */
import type { Db, Executor, Tx } from '../db/database.js';
import { anyOf, anyOfUnindexed, keysetPage, type PageParams } from '../db/pagination.js';
import type { ExternalBankAccountsTable } from './tables.js';

export type ExternalBankAccountRow = ExternalBankAccountsTable;
export type Changes = Partial<Omit<ExternalBankAccountRow, 'program_id' | 'token' | 'created_ms' | 'updated_ms'>>;

export async function insert(exec: Executor, row: ExternalBankAccountRow): Promise<void> {
  await exec.insertInto('external_bank_accounts').values(row).execute();
}

function byToken(exec: Executor, programId: string, token: string) {
  return exec.selectFrom('external_bank_accounts').selectAll().where('program_id', '=', programId).where('token', '=', token);
}

export function find(exec: Executor, programId: string, token: string): Promise<ExternalBankAccountRow | undefined> {
  return byToken(exec, programId, token).executeTakeFirst();
}

/** The row, locked for the rest of the transaction: steps on one bank account run one at a time. */
export function lock(db: Db, tx: Tx, programId: string, token: string): Promise<ExternalBankAccountRow | undefined> {
  return db.forUpdate(byToken(tx, programId, token)).executeTakeFirst();
}

/**
 * Locks the program's row: creates of the program's own bank accounts then run one at a time
 * (PostgreSQL; a SQLite write transaction already excludes every other writer).
 */
export async function lockProgram(db: Db, tx: Tx, programId: string): Promise<void> {
  await db.forUpdate(tx.selectFrom('programs').select('id').where('id', '=', programId)).execute();
}

/** The owner's bank accounts with this routing number whose account number ends in `lastFour` (null owner: the program's own). */
export function findByRoutingAndLastFour(exec: Executor, programId: string, accountToken: string | null, routingNumber: string, lastFour: string) {
  return exec
    .selectFrom('external_bank_accounts')
    .select(['token', 'account_number_encrypted'])
    .where('program_id', '=', programId)
    .where('account_token', accountToken === null ? 'is' : '=', accountToken)
    .where('routing_number', '=', routingNumber)
    .where('last_four', '=', lastFour)
    .execute();
}

export async function update(exec: Executor, programId: string, token: string, changes: Changes, nowMs: number): Promise<void> {
  await exec.updateTable('external_bank_accounts').set({ ...changes, updated_ms: nowMs }).where('program_id', '=', programId).where('token', '=', token).execute();
}

/**
 * ENABLED at `enabledMs`, if it is still the PENDING prenote whose wait ends at `dueMs` (read due by
 * the caller): a concurrent `retry_prenote` that started a new wait is not enabled by a job that
 * read the old one. 1 or 0.
 */
export async function enableDuePrenote(exec: Executor, programId: string, token: string, dueMs: number, enabledMs: number): Promise<number> {
  const result = await exec
    .updateTable('external_bank_accounts')
    .set({ verification_state: 'ENABLED', prenote_due_ms: null, updated_ms: enabledMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('verification_state', '=', 'PENDING')
    .where('prenote_due_ms', '=', dueMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The distinct instants through `throughMs` at which a PENDING prenote falls due, earliest first. */
export async function prenoteDueInstantsThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  const rows = await exec
    .selectFrom('external_bank_accounts')
    .select('prenote_due_ms')
    .distinct()
    .where('program_id', '=', programId)
    .where('verification_state', '=', 'PENDING')
    .where('prenote_due_ms', '<=', throughMs)
    .orderBy('prenote_due_ms')
    .execute();
  return rows.map((row) => Number(row.prenote_due_ms));
}

/** PENDING prenotes whose waiting time is over, in the order it ended, with when it ended and their last change. */
export async function duePrenotes(
  exec: Executor,
  programId: string,
  nowMs: number,
  limit?: number,
): Promise<Array<{ token: string; prenote_due_ms: number; updated_ms: number }>> {
  let query = duePrenotesInOrder(exec, programId, nowMs).select(['token', 'prenote_due_ms', 'updated_ms']);
  if (limit !== undefined) query = query.limit(limit);
  return (await query.execute()).map((row) => ({ token: row.token, prenote_due_ms: Number(row.prenote_due_ms), updated_ms: Number(row.updated_ms) }));
}

/** Locks the prenotes `duePrenotes` lists, in that order, for the rest of the transaction. */
export async function lockDuePrenotes(db: Db, tx: Tx, programId: string, nowMs: number): Promise<void> {
  await db.forUpdate(duePrenotesInOrder(tx, programId, nowMs).select('token')).execute();
}

function duePrenotesInOrder(exec: Executor, programId: string, nowMs: number) {
  return exec
    .selectFrom('external_bank_accounts')
    .where('program_id', '=', programId)
    .where('verification_state', '=', 'PENDING')
    .where('prenote_due_ms', '<=', nowMs)
    .orderBy('prenote_due_ms')
    .orderBy('token');
}

export interface ListFilters {
  account_token?: string | undefined;
  account_types?: string[] | undefined;
  countries?: string[] | undefined;
  owner_types?: string[] | undefined;
  states?: string[] | undefined;
  verification_states?: string[] | undefined;
}

/**
 * The array filters, in the order in which the first given drives the page (migrations 0027 and
 * 0028: a range of its index per value, `anyOf`); the others are conditions on the rows it finds.
 * Verification states first: theirs is the only spread that changes here (PENDING until verified,
 * then ENABLED or FAILED_VERIFICATION); then the two account types and the two owner types. States
 * and countries last: every bank account here is ENABLED (no endpoint changes it) and USA (the only
 * country accepted), so their usual values keep every row.
 *
 * `usual`: the value most bank accounts have. A filter that asks for it is a poor driver (its
 * ranges hold most of the program's rows, however few the other filters keep), so the first filter
 * that does not drives, if any: `verification_states=ENABLED&owner_types=BUSINESS` walked every
 * verified bank account for the businesses'. SQLite plans without statistics and takes the driver
 * as given; PostgreSQL picks by cost within each value's page.
 */
const ARRAY_FILTERS = [
  { name: 'verification_states', column: 'verification_state', usual: 'ENABLED' },
  { name: 'account_types', column: 'type', usual: 'CHECKING' },
  { name: 'owner_types', column: 'owner_type', usual: 'INDIVIDUAL' },
  { name: 'states', column: 'state', usual: 'ENABLED' },
  { name: 'countries', column: 'country', usual: 'USA' },
] as const;

/**
 * One page of the program's bank accounts matching the filters. An account's (its few bank
 * accounts) are found by account, every array filter a condition on them; otherwise the first
 * array filter of ARRAY_FILTERS given that asks for no usual value drives the page, or the first
 * given when all do.
 */
export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = exec.selectFrom('external_bank_accounts').selectAll().where('program_id', '=', programId);
  if (filters.account_token !== undefined) query = query.where('account_token', '=', filters.account_token);
  const given = ARRAY_FILTERS.flatMap(({ name, column, usual }) => {
    const values = filters[name];
    return values !== undefined && values.length > 0 ? [{ column, values, selective: !values.includes(usual) }] : [];
  });
  const driver = filters.account_token === undefined ? (given.find((filter) => filter.selective) ?? given[0]) : undefined;
  for (const filter of given) {
    if (filter !== driver) query = query.where(anyOfUnindexed(exec, filter.column, filter.values));
  }
  return keysetPage(exec, driver === undefined ? query : anyOf(query, [driver.column], driver.values), 'external_bank_accounts', programId, page);
}
