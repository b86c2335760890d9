/** SQL for programs and API keys. */
import { sql } from 'kysely';
import type { Engine, Executor } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { ApiKeysTable, ProgramsTable } from './tables.js';

/** Readiness: the database answers a query (on every `GET /v1/status`: prepared). */
const selectOne = prepared((db) => db.selectNoFrom(sql<number>`1`.as('one')));

export async function ping(exec: Executor): Promise<void> {
  await selectOne(exec);
}

/**
 * Holds the keys table until the transaction ends against other provisioners (and key writes),
 * not against reads. SQLite needs nothing: its write transactions already exclude each other.
 */
export async function lockKeysForProvisioning(tx: Executor, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`lock table api_keys in share row exclusive mode`.execute(tx);
}

export async function insertProgram(exec: Executor, row: ProgramsTable): Promise<void> {
  await exec.insertInto('programs').values(row).execute();
}

export async function insertApiKey(exec: Executor, row: ApiKeysTable): Promise<void> {
  await exec.insertInto('api_keys').values(row).execute();
}

/** Runs on every request (authentication), hence prepared once. */
const selectKeyByHash = prepared((db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('programs', 'programs.id', 'api_keys.program_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.key_hash',
      'api_keys.revoked_ms',
      'programs.id as program_id',
      'programs.clock_offset_ms',
      'programs.clock_moved_wall_ms',
    ])
    .where('api_keys.key_hash', '=', keyHash),
);

export async function findKeyByHash(exec: Executor, keyHash: string) {
  const [row] = await selectKeyByHash(exec, keyHash);
  return row;
}

export function findProgram(exec: Executor, programId: string) {
  return exec.selectFrom('programs').selectAll().where('id', '=', programId).executeTakeFirst();
}

/** A program's clock offset as committed now (the webhook dispatcher dates an outcome by it: a move may have committed while its request was under way). */
export async function clockOffsetMs(exec: Executor, programId: string): Promise<number> {
  const program = await exec.selectFrom('programs').select('clock_offset_ms').where('id', '=', programId).executeTakeFirstOrThrow();
  return Number(program.clock_offset_ms);
}

/** Every program's clock (the minute sweep brings each up to date). */
export function listProgramClocks(exec: Executor) {
  return exec.selectFrom('programs').select(['id', 'clock_offset_ms', 'clock_moved_wall_ms']).execute();
}

export function listKeys(exec: Executor) {
  return exec
    .selectFrom('api_keys')
    .innerJoin('programs', 'programs.id', 'api_keys.program_id')
    .select(['api_keys.id', 'api_keys.key_prefix', 'api_keys.created_ms', 'api_keys.revoked_ms', 'programs.id as program_id', 'programs.name as program_name'])
    .orderBy('api_keys.created_ms')
    .execute();
}

export async function countActiveKeys(exec: Executor): Promise<number> {
  const row = await exec
    .selectFrom('api_keys')
    .select(sql<number>`count(*)`.as('count'))
    .where('revoked_ms', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function revokeKey(exec: Executor, keyId: string, nowMs: number): Promise<number> {
  const result = await exec
    .updateTable('api_keys')
    .set({ revoked_ms: nowMs })
    .where('id', '=', keyId)
    .where('revoked_ms', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Moves the clock forward only: the offset never decreases, even under concurrent moves. */
export async function advanceClockOffset(exec: Executor, programId: string, newOffsetMs: number, movedWallMs: number): Promise<number> {
  const result = await exec
    .updateTable('programs')
    .set({ clock_offset_ms: newOffsetMs, clock_moved_wall_ms: movedWallMs })
    .where('id', '=', programId)
    .where('clock_offset_ms', '<=', newOffsetMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function requireFunds(exec: Executor, programId: string): Promise<number> {
  const row = await exec.selectFrom('programs').select('require_funds').where('id', '=', programId).executeTakeFirstOrThrow();
  return row.require_funds;
}

export async function setRequireFunds(exec: Executor, programId: string, requireFunds: number): Promise<void> {
  await exec.updateTable('programs').set({ require_funds: requireFunds }).where('id', '=', programId).execute();
}
