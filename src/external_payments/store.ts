/** SQL for external payments. */
import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import { insertRows } from '../db/prepared.js';
import { rowsAsked, type PageParams, type RowsAsked } from '../db/pagination.js';
import { keysetPageOfFinancialAccounts } from '../financial_accounts/store.js';
import { EXTERNAL_PAYMENT_STATUSES } from './schemas.js';
import type { ExternalPaymentsTable } from './tables.js';

export type ExternalPaymentRow = ExternalPaymentsTable;
type Status = ExternalPaymentRow['status'];

export async function insert(exec: Executor, row: ExternalPaymentRow): Promise<void> {
  await insertRows(exec, 'external_payments', [row]);
}

export function find(exec: Executor, programId: string, token: string): Promise<ExternalPaymentRow | undefined> {
  return exec.selectFrom('external_payments').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/** The payment, locked for the rest of the database transaction (PostgreSQL `FOR UPDATE`). */
export function lock(db: Db, tx: Tx, programId: string, token: string): Promise<ExternalPaymentRow | undefined> {
  return db.forUpdate(tx.selectFrom('external_payments').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

/**
 * Applies `changes` only if the payment is still as `expected` says (status, and whether it has
 * settled): of concurrent actions on one payment exactly one updates it. Returns rows updated.
 */
export async function transition(
  exec: Executor,
  programId: string,
  token: string,
  expected: { status: Status; is_settled?: number },
  changes: Partial<Pick<ExternalPaymentRow, 'status' | 'is_settled' | 'pending_amount_cents' | 'settled_amount_cents'>>,
  nowMs: number,
): Promise<number> {
  let query = exec
    .updateTable('external_payments')
    .set({ ...changes, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', '=', expected.status);
  if (expected.is_settled !== undefined) query = query.where('is_settled', '=', expected.is_settled);
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

/**
 * The DECLINED payments of a financial account, for its financial transactions, from
 * `external_payments_declined_by_financial_account` (migration 0038; the status a literal, as the
 * partial index states it): that of a token if it is one (a primary-key seek), or a chunk of a
 * walk (`RowsAsked`).
 */
export function declinedOn(exec: Executor, programId: string, financialAccountToken: string, asked: RowsAsked) {
  const query = exec
    .selectFrom('external_payments')
    .select(['token', 'created_ms', 'payment_type'])
    .where('program_id', '=', programId)
    .where('financial_account_token', '=', financialAccountToken)
    .where('status', '=', sql.lit('DECLINED'));
  return rowsAsked(query, 'external_payments', asked).execute();
}

export interface ListFilters {
  business_account_token?: string | undefined;
  financial_account_token?: string | undefined;
  category?: string | undefined;
  result?: string | undefined;
  status?: string | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  const query = exec.selectFrom('external_payments').selectAll().where('program_id', '=', programId);
  return keysetPageOfFinancialAccounts(exec, query, ['financial_account_token'], EXTERNAL_PAYMENT_STATUSES, filters, 'external_payments', programId, page);
}
