/** SQL for 3DS authentications. */
import type { Executor } from '../db/database.js';
import type { ThreeDsAuthenticationsTable } from './tables.js';

export type AuthenticationRow = ThreeDsAuthenticationsTable;

export async function insert(exec: Executor, row: AuthenticationRow): Promise<void> {
  await exec.insertInto('three_ds_authentications').values(row).execute();
}

export function find(exec: Executor, programId: string, token: string): Promise<AuthenticationRow | undefined> {
  return exec.selectFrom('three_ds_authentications').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}
