/** SQL for account holders. */
import type { Db, Executor } from '../db/database.js';
import { keysetPage, type PageParams } from '../db/pagination.js';
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

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = exec.selectFrom('account_holders').selectAll().where('program_id', '=', programId);
  if (filters.external_id !== undefined) query = query.where('external_id', '=', filters.external_id);
  if (filters.email !== undefined) query = query.where('email_lower', '=', filters.email.toLowerCase());
  if (filters.phone_number !== undefined) query = query.where('phone_number', '=', filters.phone_number);
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
