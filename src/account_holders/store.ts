/** SQL for account holders. */
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { anyOfUnindexed, keysetPage, type PageParams } from '../db/pagination.js';
import { containsIgnoringCase } from '../db/text-search.js';
import type { AccountHoldersTable } from './tables.js';

export type AccountHolderRow = AccountHoldersTable;

export async function insert(exec: Executor, row: AccountHolderRow): Promise<void> {
  await exec.insertInto('account_holders').values(row).execute();
}

function byToken(exec: Executor, programId: string, token: string) {
  return exec.selectFrom('account_holders').selectAll().where('program_id', '=', programId).where('token', '=', token);
}

export function find(exec: Executor, programId: string, token: string): Promise<AccountHolderRow | undefined> {
  return byToken(exec, programId, token).executeTakeFirst();
}

/**
 * The holder, locked for the rest of the transaction: updates of one holder serialize on it
 * (PostgreSQL `FOR UPDATE`; SQLite transactions hold the write lock).
 */
export function lock(db: Db, exec: Executor, programId: string, token: string): Promise<AccountHolderRow | undefined> {
  return db.forUpdate(byToken(exec, programId, token)).executeTakeFirst();
}

export type AccountHolderChanges = Partial<Omit<AccountHolderRow, 'program_id' | 'token' | 'account_token' | 'created_ms'>>;

export async function update(exec: Executor, programId: string, token: string, changes: AccountHolderChanges): Promise<void> {
  await exec.updateTable('account_holders').set(changes).where('program_id', '=', programId).where('token', '=', token).execute();
}

export interface ListFilters {
  begin?: string | undefined;
  end?: string | undefined;
  external_id?: string | undefined;
  email?: string | undefined;
  phone_number?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  legal_business_name?: string | undefined;
}

const PARTIAL_MATCH_COLUMNS = ['first_name', 'last_name', 'legal_business_name'] as const;

/**
 * One page of the program's holders matching the filters. The exact-match filters each have their
 * index (`account_holders_by_external_id`, `_by_email`, `_by_phone`); given together, the first
 * drives the page in this order (an external id names one holder, a phone number is the most often
 * shared) and the others are conditions on its rows (`anyOfUnindexed`: SQLite, without statistics,
 * took the index created last and walked every holder of a shared phone number for one email).
 * The names, substrings, are conditions on the rows found (alone, they walk the program's holders
 * in list order: no index serves `%text%`).
 */
export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = exec.selectFrom('account_holders').selectAll().where('program_id', '=', programId);
  const exact = [
    { column: 'external_id', value: filters.external_id },
    { column: 'email_lower', value: filters.email?.toLowerCase() },
    { column: 'phone_number', value: filters.phone_number },
  ].flatMap(({ column, value }) => (value === undefined ? [] : [{ column, value }]));
  exact.forEach(({ column, value }, index) => {
    query = query.where(index === 0 ? sql<boolean>`${sql.ref(column)} = ${value}` : anyOfUnindexed(exec, column, [value]));
  });
  for (const column of PARTIAL_MATCH_COLUMNS) {
    const text = filters[column];
    if (text !== undefined) query = query.where(containsIgnoringCase(column, text));
  }
  return keysetPage(exec, query, 'account_holders', programId, page, filters);
}

/**
 * Records a review decision, only if the holder is still pending review (a conditional update, so
 * two concurrent reviews cannot both decide). Returns whether it did.
 */
export async function decidePendingReview(
  exec: Executor,
  programId: string,
  token: string,
  decision: { status: string; status_reasons: string },
  nowMs: number,
): Promise<boolean> {
  const result = await exec
    .updateTable('account_holders')
    .set({ ...decision, verification_updated_ms: nowMs, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', '=', 'PENDING_REVIEW')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
