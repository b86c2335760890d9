/** SQL for financial accounts. */
import type { Executor } from '../db/database.js';
import { keysetPage, type PageParams } from '../db/pagination.js';
import type { FinancialAccountsTable } from './tables.js';

export type FinancialAccountRow = FinancialAccountsTable;

export async function insert(exec: Executor, row: FinancialAccountRow): Promise<void> {
  await exec.insertInto('financial_accounts').values(row).execute();
}

export function find(exec: Executor, programId: string, token: string): Promise<FinancialAccountRow | undefined> {
  return exec
    .selectFrom('financial_accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .executeTakeFirst();
}

export interface ListFilters {
  account_token?: string | undefined;
  type?: string | undefined;
}

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = exec.selectFrom('financial_accounts').selectAll().where('program_id', '=', programId);
  if (filters.account_token !== undefined) query = query.where('account_token', '=', filters.account_token);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  return keysetPage(exec, query, 'financial_accounts', programId, page);
}
