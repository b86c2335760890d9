/** SQL for accounts. */
import type { Executor } from '../db/database.js';
import type { AccountsTable } from './tables.js';

export type AccountRow = AccountsTable;

export async function insert(exec: Executor, row: AccountRow): Promise<void> {
  await exec.insertInto('accounts').values(row).execute();
}

export function find(exec: Executor, programId: string, token: string): Promise<AccountRow | undefined> {
  return exec
    .selectFrom('accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .executeTakeFirst();
}

export function findDefault(exec: Executor, programId: string): Promise<AccountRow | undefined> {
  return exec
    .selectFrom('accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}
