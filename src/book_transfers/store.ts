/** SQL for book transfers. */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { insertRows } from '../db/prepared.js';
import { rowsAsked, type PageParams, type RowsAsked } from '../db/pagination.js';
import { keysetPageOfFinancialAccounts } from '../financial_accounts/store.js';
import { BOOK_TRANSFER_STATUSES } from './schemas.js';
import type { BookTransfersTable } from './tables.js';

export type BookTransferRow = BookTransfersTable;

export async function insert(exec: Executor, row: BookTransferRow): Promise<void> {
  await insertRows(exec, 'book_transfers', [row], { deferrable: true });
}

export function find(exec: Executor, programId: string, token: string): Promise<BookTransferRow | undefined> {
  return exec.selectFrom('book_transfers').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/**
 * SETTLED → REVERSED, only if the transfer is still SETTLED: of concurrent reverses exactly one
 * updates the row (the others wait for its lock, then find it REVERSED). Returns rows updated.
 */
export async function markReversed(exec: Executor, programId: string, token: string, nowMs: number): Promise<number> {
  const result = await exec
    .updateTable('book_transfers')
    .set({ status: 'REVERSED', settled_amount_cents: 0, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', '=', 'SETTLED')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The DECLINED transfers out of a financial account (funds refused them there), which its financial
 * transactions show: one range of `book_transfers_declined_by_from_financial_account` (migration
 * 0038; the status a literal, as the partial index states it).
 */
export function declinedFromQuery(exec: Executor, programId: string, financialAccountToken: string) {
  return exec
    .selectFrom('book_transfers')
    .where('program_id', '=', programId)
    .where('from_financial_account_token', '=', financialAccountToken)
    .where('status', '=', sql.lit('DECLINED'));
}

/** Those transfers (`declinedFromQuery`): that of a token if it is one (a primary-key seek), or a chunk of a walk (`RowsAsked`). */
export function declinedFrom(exec: Executor, programId: string, financialAccountToken: string, asked: RowsAsked) {
  const query = declinedFromQuery(exec, programId, financialAccountToken).select(['token', 'created_ms']);
  return rowsAsked(query, 'book_transfers', asked).execute();
}

export interface ListFilters {
  account_token?: string | undefined;
  business_account_token?: string | undefined;
  financial_account_token?: string | undefined;
  category?: string | undefined;
  result?: string | undefined;
  status?: string | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  const query = exec.selectFrom('book_transfers').selectAll().where('program_id', '=', programId);
  // From or to the accounts named: a page of each side and account on its own index, merged.
  return keysetPageOfFinancialAccounts(exec, query, ['from_financial_account_token', 'to_financial_account_token'], BOOK_TRANSFER_STATUSES, filters, 'book_transfers', programId, page);
}
