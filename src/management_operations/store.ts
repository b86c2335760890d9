/** SQL for management operations. */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import { insertRows, prepared } from '../db/prepared.js';
import { inListOrder, rowsAsked, type PageParams, type RowsAsked } from '../db/pagination.js';
import { keysetPageOfFinancialAccounts } from '../financial_accounts/store.js';
import { MANAGEMENT_OPERATION_STATUSES } from './schemas.js';
import type { FinancialAccountsTable } from '../financial_accounts/tables.js';
import type { ManagementOperationsTable } from './tables.js';

export type ManagementOperationRow = ManagementOperationsTable;
type Status = ManagementOperationRow['status'];

export async function insert(exec: Executor, row: ManagementOperationRow): Promise<void> {
  await insertRows(exec, 'management_operations', [row]);
}

export function find(exec: Executor, programId: string, token: string): Promise<ManagementOperationRow | undefined> {
  return exec.selectFrom('management_operations').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/**
 * The earliest effective date among the program's PENDING operations that can take effect when it
 * comes (`takesEffectWhenDue`): the next to fall due. One waiting for its SUSPENDED account is not
 * among them: it falls due when the account is OPEN again, and the change that reopens the account
 * applies it (`waitingTokensOf`).
 */
const selectFirstPendingDate = prepared((db, programId: string) =>
  pendingWithAccounts(db, programId).select('operation.effective_date').where(takesEffectWhenDue).orderBy('operation.effective_date').limit(1),
);

export async function firstPendingEffectiveDate(exec: Executor, programId: string): Promise<string | undefined> {
  return (await selectFirstPendingDate(exec, programId))[0]?.effective_date;
}

/** An operation (`operation`, joined with its `account`) that takes effect when due: its account is OPEN, or it is credited to suspense. */
function takesEffectWhenDue(eb: ExpressionBuilder<DueJoin, 'operation' | 'account'>) {
  return eb.or([eb('account.status', '=', 'OPEN'), eb('operation.credit_in_suspense', '=', 1)]);
}

type DueJoin = { operation: ManagementOperationsTable; account: FinancialAccountsTable };

/** The program's PENDING operations (`operation`) joined with their financial account (`account`). */
function pendingWithAccounts(exec: Executor, programId: string) {
  return exec
    .selectFrom('management_operations as operation')
    .innerJoin('financial_accounts as account', (join) =>
      join.onRef('account.program_id', '=', 'operation.program_id').onRef('account.token', '=', 'operation.financial_account_token'),
    )
    .where('operation.program_id', '=', programId)
    .where('operation.status', '=', 'PENDING');
}

/**
 * Tokens of the PENDING operations whose effective date is on or before `today`, in the order they
 * fell due (effective date, then creation, then token): the order they take effect and are locked
 * in. Leaves out those that must wait for their account to be OPEN again (read unlocked: the caller
 * checks again under its locks).
 */
export async function dueTokens(exec: Executor, programId: string, today: string): Promise<string[]> {
  const query = pendingWithAccounts(exec, programId).select('operation.token').where('operation.effective_date', '<=', today).where(takesEffectWhenDue);
  return (await inDueOrder(query).execute()).map((row) => row.token);
}

/**
 * Tokens of the account's PENDING operations whose effective date is on or before `today` and which
 * wait for the account to be OPEN again (it is not OPEN), in the order they fell due.
 */
export async function waitingTokensOf(exec: Executor, programId: string, financialAccountToken: string, today: string): Promise<string[]> {
  const query = pendingWithAccounts(exec, programId)
    .select('operation.token')
    .where('operation.financial_account_token', '=', financialAccountToken)
    .where('operation.effective_date', '<=', today)
    .where('account.status', '!=', 'OPEN')
    .where('operation.credit_in_suspense', '=', 0);
  return (await inDueOrder(query).execute()).map((row) => row.token);
}

function inDueOrder<Q extends SelectQueryBuilder<DueJoin, 'operation' | 'account', { token: string }>>(query: Q): Q {
  return query.orderBy('operation.effective_date').orderBy('operation.created_ms').orderBy('operation.token') as Q;
}

/** The distinct effective dates, on or before `throughDate`, of the PENDING operations that take effect when due, earliest first. */
export async function pendingDatesThrough(exec: Executor, programId: string, throughDate: string): Promise<string[]> {
  const rows = await pendingWithAccounts(exec, programId)
    .select('operation.effective_date')
    .distinct()
    .where('operation.effective_date', '<=', throughDate)
    .where(takesEffectWhenDue)
    .orderBy('operation.effective_date')
    .execute();
  return rows.map((row) => row.effective_date);
}

/** The operation, locked for the rest of the database transaction (PostgreSQL `FOR UPDATE`), whatever its status. */
export function lock(db: Db, tx: Tx, programId: string, token: string): Promise<ManagementOperationRow | undefined> {
  return db.forUpdate(tx.selectFrom('management_operations').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

/** The operation, locked, if it is still PENDING (a concurrent job may have applied it). */
export function lockIfPending(db: Db, tx: Tx, programId: string, token: string): Promise<ManagementOperationRow | undefined> {
  const query = tx
    .selectFrom('management_operations')
    .selectAll()
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', '=', 'PENDING');
  return db.forUpdate(query).executeTakeFirst();
}

/** Moves the operation from `from` to a new state, only if it is still in `from`. Returns rows updated. */
export async function transition(
  exec: Executor,
  programId: string,
  token: string,
  from: Status,
  to: Pick<ManagementOperationRow, 'status' | 'result' | 'pending_amount_cents' | 'settled_amount_cents'>,
  nowMs: number,
): Promise<number> {
  const result = await exec
    .updateTable('management_operations')
    .set({ ...to, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The DECLINED operations on a financial account, which its financial transactions show: one range
 * of `management_operations_declined_by_financial_account` (migration 0038; the status a literal, as
 * the partial index states it).
 */
export function declinedOnQuery(exec: Executor, programId: string, financialAccountToken: string) {
  return exec
    .selectFrom('management_operations')
    .where('program_id', '=', programId)
    .where('financial_account_token', '=', financialAccountToken)
    .where('status', '=', sql.lit('DECLINED'));
}

/** Those operations (`declinedOnQuery`): that of a token if it is one (a primary-key seek), or a chunk of a walk (`RowsAsked`). */
export function declinedOn(exec: Executor, programId: string, financialAccountToken: string, asked: RowsAsked) {
  const query = declinedOnQuery(exec, programId, financialAccountToken).select(['token', 'created_ms', 'direction']);
  return rowsAsked(query, 'management_operations', asked).execute();
}

export interface ListFilters {
  business_account_token?: string | undefined;
  financial_account_token?: string | undefined;
  category?: string | undefined;
  status?: string | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  const query = exec.selectFrom('management_operations').selectAll().where('program_id', '=', programId);
  return keysetPageOfFinancialAccounts(exec, query, ['financial_account_token'], MANAGEMENT_OPERATION_STATUSES, filters, 'management_operations', programId, page);
}

/** Whether the financial account has an operation still waiting for its effective date. */
export async function hasPendingFor(exec: Executor, programId: string, financialAccountToken: string): Promise<boolean> {
  const pending = exec
    .selectFrom('management_operations')
    .select('token')
    .where('program_id', '=', programId)
    .where('financial_account_token', '=', financialAccountToken)
    .where('status', '=', 'PENDING');
  return (await inListOrder(pending).limit(1).executeTakeFirst()) !== undefined;
}
