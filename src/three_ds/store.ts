/** SQL for 3DS authentications. */
import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import type { ThreeDsAuthenticationsTable } from './tables.js';

export type AuthenticationRow = ThreeDsAuthenticationsTable;

export async function insert(exec: Executor, row: AuthenticationRow): Promise<void> {
  await exec.insertInto('three_ds_authentications').values(row).execute();
}

function byToken(exec: Executor, programId: string, token: string) {
  return exec.selectFrom('three_ds_authentications').selectAll().where('program_id', '=', programId).where('token', '=', token);
}

export function find(exec: Executor, programId: string, token: string): Promise<AuthenticationRow | undefined> {
  return byToken(exec, programId, token).executeTakeFirst();
}

/** The authentication, locked for the rest of the database transaction: resolutions of one challenge apply one at a time. */
export function lock(db: Db, tx: Tx, programId: string, token: string): Promise<AuthenticationRow | undefined> {
  return db.forUpdate(byToken(tx, programId, token)).executeTakeFirst();
}

/** Records the outcome of a pending challenge (locked by `lock`). */
export async function resolveChallenge(tx: Tx, programId: string, token: string, outcome: Pick<AuthenticationRow, 'authentication_result' | 'challenge_status'>): Promise<void> {
  await tx.updateTable('three_ds_authentications').set(outcome).where('program_id', '=', programId).where('token', '=', token).execute();
}

/** The challenges still pending (migration 0032's partial index three_ds_pending_challenges: its term, as a literal). */
function pendingChallenges(exec: Executor, programId: string) {
  return exec.selectFrom('three_ds_authentications').where('program_id', '=', programId).where('authentication_result', '=', sql.lit('PENDING_CHALLENGE'));
}

/** When the oldest pending challenge was issued; undefined when none is pending. */
export async function oldestPendingChallengeMs(exec: Executor, programId: string): Promise<number | undefined> {
  const row = await pendingChallenges(exec, programId).select('created_ms').orderBy('created_ms').limit(1).executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_ms);
}

function issuedThrough(exec: Executor, programId: string, issuedThroughMs: number) {
  return pendingChallenges(exec, programId).select('token').where('created_ms', '<=', issuedThroughMs).orderBy('created_ms').orderBy('token');
}

/** The pending challenges issued at or before `issuedThroughMs`, oldest first. */
export async function pendingChallengesIssuedThrough(exec: Executor, programId: string, issuedThroughMs: number): Promise<string[]> {
  return (await issuedThrough(exec, programId, issuedThroughMs).execute()).map((row) => row.token);
}

/** The distinct instants at which the pending challenges issued at or before `issuedThroughMs` were issued, earliest first. */
export async function pendingChallengeIssueInstantsThrough(exec: Executor, programId: string, issuedThroughMs: number): Promise<number[]> {
  const rows = await pendingChallenges(exec, programId).select('created_ms').where('created_ms', '<=', issuedThroughMs).distinct().orderBy('created_ms').execute();
  return rows.map((row) => Number(row.created_ms));
}

/** Locks those challenges, in that order, for the rest of the transaction. */
export async function lockPendingChallengesIssuedThrough(db: Db, tx: Tx, programId: string, issuedThroughMs: number): Promise<void> {
  await db.forUpdate(issuedThrough(tx, programId, issuedThroughMs)).execute();
}

/** The program's decisioning secret, encrypted; undefined before its first retrieval or rotation. */
export async function findDecisioningSecret(exec: Executor, programId: string): Promise<string | undefined> {
  return (await exec.selectFrom('three_ds_decisioning_secrets').select('secret_encrypted').where('program_id', '=', programId).executeTakeFirst())?.secret_encrypted;
}

/** Records `secretEncrypted` as the program's decisioning secret unless it has one (a concurrent first retrieval keeps the other's). */
export async function insertDecisioningSecretIfNone(tx: Tx, programId: string, secretEncrypted: string): Promise<void> {
  await tx.insertInto('three_ds_decisioning_secrets').values({ program_id: programId, secret_encrypted: secretEncrypted }).onConflict((conflict) => conflict.column('program_id').doNothing()).execute();
}

/** Replaces the program's decisioning secret (or records its first). */
export async function replaceDecisioningSecret(tx: Tx, programId: string, secretEncrypted: string): Promise<void> {
  await tx
    .insertInto('three_ds_decisioning_secrets')
    .values({ program_id: programId, secret_encrypted: secretEncrypted })
    .onConflict((conflict) => conflict.column('program_id').doUpdateSet({ secret_encrypted: secretEncrypted }))
    .execute();
}
