/** SQL for financial accounts. */
import type { Db, Executor } from '../db/database.js';
import { insertRows, preparedOverTokens } from '../db/prepared.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import { anyOf, anyOfCondition, anyOfUnindexed, keysetPage, type CreatedRange, type KeysetTable, type Page, type PageParams } from '../db/pagination.js';
import type { Database } from '../db/schema.js';
import type { FinancialAccountsTable } from './tables.js';

export type FinancialAccountRow = FinancialAccountsTable;

export async function insert(exec: Executor, row: FinancialAccountRow): Promise<void> {
  await insertRows(exec, 'financial_accounts', [row]);
}

export function find(exec: Executor, programId: string, token: string): Promise<FinancialAccountRow | undefined> {
  return exec
    .selectFrom('financial_accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .executeTakeFirst();
}

/**
 * The financial account, its row locked for the rest of the transaction (PostgreSQL `FOR UPDATE`):
 * a change of it (status, nickname) locks it before it reads and decides, and before its balance.
 */
export function lock(db: Db, exec: Executor, programId: string, token: string): Promise<FinancialAccountRow | undefined> {
  return db.forUpdate(exec.selectFrom('financial_accounts').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

/** The account's financial accounts that are not CLOSED, their rows locked in token order (as `lock`). */
export function lockOpenOfAccount(db: Db, exec: Executor, programId: string, accountToken: string): Promise<FinancialAccountRow[]> {
  return db
    .forUpdate(
      exec
        .selectFrom('financial_accounts')
        .selectAll()
        .where('program_id', '=', programId)
        .where('account_token', '=', accountToken)
        .where('status', '!=', 'CLOSED')
        .orderBy('token'),
    )
    .execute();
}

export interface ListFilters {
  account_token?: string | undefined;
  business_account_token?: string | undefined;
  type?: string | undefined;
  /** Only accounts created at or before this time. */
  created_through_ms?: number | undefined;
}

/**
 * The program's financial accounts matching the filters (every account token given must match).
 * The type is a range of `financial_accounts_by_type` (migration 0027), unless an account is named:
 * its few financial accounts are found by account, the type checked on them.
 */
function filtered(exec: Executor, programId: string, filters: ListFilters) {
  let query = exec.selectFrom('financial_accounts').selectAll().where('program_id', '=', programId);
  const accountTokens = [filters.account_token, filters.business_account_token].filter((token) => token !== undefined);
  for (const accountToken of accountTokens) query = query.where('account_token', '=', accountToken);
  if (filters.type !== undefined) {
    query = accountTokens.length > 0 ? query.where(anyOfUnindexed(exec, 'type', [filters.type])) : query.where('type', '=', filters.type);
  }
  if (filters.created_through_ms !== undefined) query = query.where('created_ms', '<=', filters.created_through_ms);
  return query;
}

export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  return keysetPage(exec, filtered(exec, programId, filters), 'financial_accounts', programId, page);
}

/** The tokens of an account's financial accounts. */
async function tokensOfAccount(exec: Executor, programId: string, accountToken: string): Promise<string[]> {
  const rows = await exec.selectFrom('financial_accounts').select('token').where('program_id', '=', programId).where('account_token', '=', accountToken).execute();
  return rows.map((row) => row.token);
}

/** The filters of a movement list that name financial accounts: one, or those of an account (or business). */
export interface FinancialAccountFilters {
  financial_account_token?: string | undefined;
  account_token?: string | undefined;
  business_account_token?: string | undefined;
}

/** A movement list's filters on the movement's own columns: category, status, result. */
export interface MovementFilters {
  category?: string | undefined;
  status?: string | undefined;
  result?: string | undefined;
}

/**
 * The statuses `filters` allow, or undefined for any. A movement is result DECLINED exactly when it
 * is status DECLINED (a decline is stored so, and is final), so a result is a set of statuses,
 * which the status indexes serve (migrations 0026, 0036): DECLINED, or every other status.
 */
function statusesAllowed(filters: MovementFilters, statuses: readonly string[]): readonly string[] | undefined {
  const byResult = filters.result === undefined ? undefined : statuses.filter((status) => (status === 'DECLINED') === (filters.result === 'DECLINED'));
  if (filters.status === undefined) return byResult;
  return byResult === undefined || byResult.includes(filters.status) ? [filters.status] : [];
}

/**
 * One page of a movement list whose rows name financial accounts in `columns` (a transfer's from
 * and to), filtered to those `filters` name: the first filter given (the single account first) is
 * paged as alternatives, one per column and financial account (`anyOf`), each on its own index;
 * any other is a condition on them. Beside an account, the movement's own filters
 * (`MovementFilters`) are conditions on the account's rows (`anyOfUnindexed`: SQLite would
 * otherwise prefer the status or category index, and walk every SETTLED transfer of the program for
 * one account's). Without one, they range over their indexes: a category over
 * `*_by_category_status` (migration 0036), one range per status allowed (every one of `statuses`
 * for a category alone), a status or result alone over `*_by_status`, one range per status it
 * allows; so a page never walks rows a filter refuses.
 */
export async function keysetPageOfFinancialAccounts<O>(
  exec: Executor,
  query: SelectQueryBuilder<Database, never, O>,
  columns: readonly string[],
  statuses: readonly string[],
  filters: FinancialAccountFilters & MovementFilters & CreatedRange,
  table: KeysetTable,
  programId: string,
  page: PageParams,
): Promise<Page<O>> {
  const sets: string[][] = [];
  if (filters.financial_account_token !== undefined) sets.push([filters.financial_account_token]);
  for (const accountToken of [filters.account_token, filters.business_account_token]) {
    if (accountToken !== undefined) sets.push(await tokensOfAccount(exec, programId, accountToken));
  }
  const [first, ...rest] = sets;
  const allowed = statusesAllowed(filters, statuses);
  if (first !== undefined) {
    let conditioned = query;
    if (filters.category !== undefined) conditioned = conditioned.where(anyOfUnindexed(exec, 'category', [filters.category]));
    if (allowed !== undefined) conditioned = conditioned.where(anyOfUnindexed(exec, 'status', allowed));
    const filtered = rest.reduce((narrowed, set) => narrowed.where(anyOfCondition(columns, set)), conditioned);
    return keysetPage(exec, anyOf(filtered, columns, first), table, programId, page, filters);
  }
  const ofCategory = filters.category === undefined ? query : query.where(sql<boolean>`${sql.ref('category')} = ${filters.category}`);
  const byStatus = filters.category === undefined && allowed === undefined ? [ofCategory] : anyOf(ofCategory, ['status'], allowed ?? statuses);
  return keysetPage(exec, byStatus, table, programId, page, filters);
}

/** The status of each of the financial accounts that exist among `tokens` (asked by every money movement: prepared). */
export const statusesOf = preparedOverTokens((db, programId, tokens) =>
  db.selectFrom('financial_accounts').select(['token', 'status']).where('program_id', '=', programId).where('token', 'in', tokens),
);

export async function update(
  exec: Executor,
  programId: string,
  token: string,
  changes: Partial<Pick<FinancialAccountRow, 'nickname' | 'status' | 'substatus'>>,
  nowMs: number,
): Promise<void> {
  await exec
    .updateTable('financial_accounts')
    .set({ ...changes, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .execute();
}

/** Every financial account of the program matching the filters, oldest first. */
export function listAll(exec: Executor, programId: string, filters: ListFilters) {
  return filtered(exec, programId, filters).orderBy('created_ms').orderBy('token').execute();
}
