/**
 * Programs (tenants), their API keys and their clocks.
 *
 * A program is created with everything Lithic gives a new program: its ISSUING, OPERATING and
 * RESERVE financial accounts and a default account (whose cards draw on the ISSUING account).
 * Everything a program owns carries its id; a key resolves to exactly one program.
 */
import { insertAccount } from '../accounts/service.js';
import { newToken } from '../ids.js';
import { isoTimestamp, LATEST_CLOCK_MS, programNowMs, type WallClock } from '../clock.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { insertFinancialAccount } from '../financial_accounts/service.js';
import { displayPrefix, generateApiKey, hashApiKey, sameHash } from './keys.js';
import type { AuthCache } from './auth-cache.js';
import type { ProgramScope } from './scope.js';
import * as store from './store.js';

/**
 * Throws (a 503) unless the database answers: what makes `GET /v1/status` a readiness check. An
 * embedded SQLite answers whenever this process does (a `select 1` would not even read its file),
 * so only a PostgreSQL is asked.
 */
export async function checkReadiness(db: Db): Promise<void> {
  if (db.engine === 'postgres') await store.ping(db.kysely);
}

/** A program with its own ISSUING, OPERATING and RESERVE financial accounts (each recording its `financial_account.created`) and its default account. */
async function insertProgramWithAccounts(tx: Tx, nowMs: number, name: string): Promise<string> {
  const programId = newToken();
  await store.insertProgram(tx, { id: programId, name, clock_offset_ms: 0, clock_moved_wall_ms: 0, require_funds: 0, rules_version: '', created_ms: nowMs });
  const programAccount = { account_token: null, nickname: null, is_for_benefit_of: false };
  const issuing = await insertFinancialAccount(tx, programId, { ...programAccount, type: 'ISSUING' }, nowMs);
  await insertFinancialAccount(tx, programId, { ...programAccount, type: 'OPERATING' }, nowMs);
  await insertFinancialAccount(tx, programId, { ...programAccount, type: 'RESERVE' }, nowMs);
  await insertAccount(
    tx,
    programId,
    { token: newToken(), state: 'ACTIVE', is_default: true, account_holder_token: null, issuing_financial_account_token: issuing.token },
    nowMs,
  );
  return programId;
}

export interface CreatedKey {
  id: string;
  key: string;
  programId: string;
}

/** Stores the hash of `key` (or of a new random key) for the program. Returns the key once. */
export async function createApiKey(db: Executor, wall: WallClock, programId: string, key = generateApiKey()): Promise<CreatedKey> {
  const program = await store.findProgram(db, programId);
  if (!program) throw new NotFoundError(`program '${programId}' not found`);
  const id = newToken();
  await store.insertApiKey(db, {
    id,
    program_id: programId,
    key_hash: hashApiKey(key),
    key_prefix: displayPrefix(key),
    created_ms: wall.nowMs(),
    revoked_ms: null,
  });
  return { id, key, programId };
}

/** A new program with one new key, in one transaction (a key that cannot be stored leaves no program behind). */
export function createProgramWithKey(db: Db, wall: WallClock, name: string, key?: string): Promise<CreatedKey> {
  return db.transaction((tx) => insertProgramWithKey(tx, wall, name, key));
}

async function insertProgramWithKey(tx: Tx, wall: WallClock, name: string, key?: string): Promise<CreatedKey> {
  const programId = await insertProgramWithAccounts(tx, wall.nowMs(), name);
  return createApiKey(tx, wall, programId, key);
}

/**
 * Start-up provisioning (CONTRACT): each configured key that is not stored yet becomes a new
 * program. With no key configured and no active key stored, one program and key are created and
 * returned so that the caller can print the key, once. One transaction that holds the keys table
 * against other provisioners: servers starting together on one database provision each key once
 * (and create one default key in all) instead of racing.
 */
export async function provisionKeys(db: Db, wall: WallClock, configuredKeys: readonly string[]): Promise<{ generated?: CreatedKey }> {
  return db.transaction(async (tx) => {
    await store.lockKeysForProvisioning(tx, db.engine);
    for (const key of configuredKeys) {
      const existing = await store.findKeyByHash(tx, hashApiKey(key));
      if (!existing) await insertProgramWithKey(tx, wall, `program ${displayPrefix(key)}…`, key);
    }
    if (configuredKeys.length === 0 && (await store.countActiveKeys(tx)) === 0) {
      return { generated: await insertProgramWithKey(tx, wall, 'default program') };
    }
    return {};
  });
}

export type Authentication =
  | { ok: true; programId: string; clockOffsetMs: number }
  | { ok: false; reason: 'missing' | 'unknown' | 'revoked' };

/** The key of an `Authorization` header: the bare key, as Lithic's SDKs send it, or `Bearer <key>`. */
function keyOf(authorization: string | undefined): string | undefined {
  const key = authorization?.replace(/^Bearer\s+/i, '').trim();
  return key ? key : undefined;
}

/** The cached authentication of a header, if `cache` holds one (no database, no waiting). */
export function cachedAuthentication(authorization: string | undefined, cache: AuthCache): Authentication | undefined {
  const key = keyOf(authorization);
  if (key === undefined) return undefined;
  const cached = cache.get(hashApiKey(key));
  return cached ? { ok: true, ...cached } : undefined;
}

/** Told, on each lookup in the database, when the program's clock was last moved (wall ms, 0 if never). */
export type ClockMoveListener = (programId: string, movedWallMs: number) => void;

/**
 * Resolves an `Authorization` header to its program. The key is hashed and looked up by hash (in
 * `cache` first, when given; see auth-cache.ts); the stored and computed hashes are then compared
 * in constant time. A lookup in the database tells `onClockMove` when the program's clock last moved.
 */
export async function authenticate(
  exec: Executor,
  authorization: string | undefined,
  cache?: AuthCache,
  onClockMove?: ClockMoveListener,
): Promise<Authentication> {
  const key = keyOf(authorization);
  if (key === undefined) return { ok: false, reason: 'missing' };
  const keyHash = hashApiKey(key);
  const cached = cache?.get(keyHash);
  if (cached) return { ok: true, ...cached };
  const epoch = cache?.epoch ?? 0;
  const found = await store.findKeyByHash(exec, keyHash);
  if (!found || !sameHash(found.key_hash, keyHash)) return { ok: false, reason: 'unknown' };
  if (found.revoked_ms !== null) return { ok: false, reason: 'revoked' };
  onClockMove?.(found.program_id, Number(found.clock_moved_wall_ms));
  const authentication = { programId: found.program_id, clockOffsetMs: found.clock_offset_ms };
  cache?.set(keyHash, authentication, epoch);
  return { ok: true, ...authentication };
}

export function listKeys(exec: Executor) {
  return store.listKeys(exec);
}

export async function revokeKey(exec: Executor, wall: WallClock, keyId: string): Promise<void> {
  const revoked = await store.revokeKey(exec, keyId, wall.nowMs());
  if (revoked === 0) throw new NotFoundError(`no active key with id '${keyId}'`);
}

/** Moves the program's clock forward to `targetMs`; earlier than its current time is refused. */
export async function moveClock(exec: Executor, wall: WallClock, scope: ProgramScope, targetMs: number): Promise<number> {
  const wallMs = wall.nowMs();
  const currentMs = programNowMs({ nowMs: () => wallMs }, scope.clockOffsetMs);
  if (targetMs > LATEST_CLOCK_MS) {
    throw new InvalidRequestError(`now: must not be later than ${isoTimestamp(LATEST_CLOCK_MS)}, the latest instant a program clock can be moved to`);
  }
  if (targetMs < currentMs) {
    throw new InvalidRequestError(
      `now: must not be earlier than the program's current time ${isoTimestamp(currentMs)}; the clock only moves forward`,
    );
  }
  const moved = await store.advanceClockOffset(exec, scope.programId, targetMs - wallMs, wallMs);
  if (moved === 0) {
    throw new InvalidRequestError('now: the clock was moved past this instant by a concurrent request; the clock only moves forward');
  }
  return targetMs;
}

/**
 * Whether the program's card authorizations need funds (sandbox setting, off by default so that a
 * new card can authorize at once; balances may then go negative).
 */
export async function fundsRequired(exec: Executor, programId: string): Promise<boolean> {
  return (await store.requireFunds(exec, programId)) === 1;
}

export async function setFundsRequired(exec: Executor, programId: string, required: boolean): Promise<boolean> {
  await store.setRequireFunds(exec, programId, required ? 1 : 0);
  return fundsRequired(exec, programId);
}
