/** SQL for idempotency records (see idempotency.ts). */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { IdempotencyKeysTable } from './idempotency-tables.js';

/** How a body `token` is stored as a key (idempotency.ts). */
export const BODY_TOKEN_PREFIX = 'token:';
const ESCAPED_HEADER_PREFIX = 'header:';

/**
 * How an `Idempotency-Key` header is stored: as sent, unless it begins like a body token's key (or
 * like an escaped header), which is then stored behind ESCAPED_HEADER_PREFIX, so that no header
 * can take or replay a token's record.
 */
export function headerKey(key: string): string {
  return key.startsWith(BODY_TOKEN_PREFIX) || key.startsWith(ESCAPED_HEADER_PREFIX) ? `${ESCAPED_HEADER_PREFIX}${key}` : key;
}

export async function insertClaim(exec: Executor, row: IdempotencyKeysTable): Promise<boolean> {
  const result = await exec
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((conflict) => conflict.columns(['program_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function find(exec: Executor, programId: string, key: string) {
  return exec
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('program_id', '=', programId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Takes over an in-flight claim whose lease has expired (its request died). */
export async function takeOverExpired(
  exec: Executor,
  programId: string,
  key: string,
  expiredOwner: string,
  owner: string,
  leaseExpiresMs: number,
): Promise<boolean> {
  const result = await exec
    .updateTable('idempotency_keys')
    .set({ owner, lease_expires_ms: leaseExpiresMs })
    .where('program_id', '=', programId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('owner', '=', expiredOwner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Completes the claims on `keys` this owner still holds; returns how many. */
export async function complete(
  exec: Executor,
  programId: string,
  keys: readonly string[],
  owner: string,
  status: number,
  body: string,
): Promise<number> {
  const result = await exec
    .updateTable('idempotency_keys')
    .set({ state: 'complete', response_status: status, response_body: body })
    .where('program_id', '=', programId)
    .where('idempotency_key', 'in', keys)
    .where('owner', '=', owner)
    .where('state', '=', 'in_flight')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function release(exec: Executor, programId: string, keys: readonly string[], owner: string): Promise<void> {
  await exec
    .deleteFrom('idempotency_keys')
    .where('program_id', '=', programId)
    .where('idempotency_key', 'in', keys)
    .where('owner', '=', owner)
    .where('state', '=', 'in_flight')
    .execute();
}

/**
 * Deletes up to `limit` `Idempotency-Key` records whose lease ended before `beforeMs` (wall time):
 * completed ones past their retention, and claims whose request died long ago. Records of body
 * tokens (`token:…`) stay: that token is the resource's own, and reusing it returns the original
 * for as long as the resource exists. Returns how many it deleted.
 */
export async function deleteLeasedBefore(exec: Executor, beforeMs: number, limit: number): Promise<number> {
  const result = await sql`delete from idempotency_keys where (program_id, idempotency_key) in
    (select program_id, idempotency_key from idempotency_keys
      where lease_expires_ms < ${beforeMs} and idempotency_key not like ${`${BODY_TOKEN_PREFIX}%`} limit ${limit})`.execute(exec);
  return Number(result.numAffectedRows ?? 0);
}
