/**
 * Idempotency, written once for every POST.
 *
 * A POST may carry `Idempotency-Key` (or, on routes whose config sets `idempotentBodyToken`, a body
 * `token`, which Lithic uses the same way). Before the handler runs, the key is claimed for this
 * request (a committed in-flight row). The handler does its work through `commit`, which writes
 * the serialised response into the key's row in the same database transaction as the effect, so
 * the effect and its recorded answer commit together or not at all. Then:
 *  - a repeat with the same method, URL and body gets the stored status and body, byte for byte;
 *  - a repeat with a different request is 400;
 *  - a repeat while the first is still in flight is 409 (the SDKs retry 409);
 *  - a request that fails releases its claim, since it changed nothing; the key can be retried.
 * A claim whose request died (crash) expires after LEASE_MS and can then be taken over.
 * `Idempotency-Key` records are kept for RETENTION_MS of wall time (24 hours, as Lithic and Stripe
 * keep keys), then the sweep deletes them and the key may be used again. A body token's record stays
 * as long as its resource: reusing that token always returns the original.
 * Records give nothing away at rest: a card's response holds its PAN and CVV and a request may
 * hold a PIN, so responses are stored encrypted and fingerprints are keyed hashes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Secrets } from '../crypto/secrets.js';
import type { WallClock } from '../clock.js';
import type { Db, Tx } from '../db/database.js';
import { ConflictError, InvalidRequestError } from '../errors.js';
import * as store from './idempotency-store.js';

const LEASE_MS = 60_000;
export const RETENTION_MS = 24 * 3_600_000;
const RETENTION_BATCH = 1_000;
const MAX_KEY_LENGTH = 255;

export interface IdempotencyClaim {
  key: string;
  owner: string;
  completed: boolean;
}

export const REPLAY_HEADER = 'idempotent-replayed';

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What identifies a request: method, URL and canonical body. Keyed (HMAC), not a plain hash: a body
 * may hold a PIN block, which a plain hash would expose to guessing.
 */
export function requestFingerprint(secrets: Secrets, method: string, url: string, body: unknown): string {
  return secrets.lookupHash(`${method} ${url}\n${canonicalJson(body ?? null)}`);
}

/** The request's idempotency key and the field that carried it (named in error messages). */
function idempotencyKeyOf(request: FastifyRequest): { key: string; field: string } | undefined {
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key !== undefined && key !== '') {
    if (key.length > MAX_KEY_LENGTH) throw new InvalidRequestError(`Idempotency-Key: must be at most ${MAX_KEY_LENGTH} characters`);
    return { key, field: 'Idempotency-Key' };
  }
  const bodyToken = (request.body as { token?: unknown } | undefined)?.token;
  if (request.routeOptions.config.idempotentBodyToken && typeof bodyToken === 'string') return { key: `${store.BODY_TOKEN_PREFIX}${bodyToken}`, field: 'token' };
  return undefined;
}

/** preHandler for POST routes: claims the key, or answers a replay / conflict itself. */
export async function claimIdempotencyKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  request.idempotency = null;
  if (request.method !== 'POST') return undefined;
  const found = idempotencyKeyOf(request);
  if (found === undefined) return undefined;
  const { key, field } = found;

  const { db, wall } = request.server.deps;
  const programId = request.scope.programId;
  const print = requestFingerprint(request.server.deps.secrets, request.method, request.url, request.body);
  const owner = request.id;
  const leaseExpiresMs = wall.nowMs() + LEASE_MS;

  const claimed = await store.insertClaim(db.kysely, {
    program_id: programId,
    idempotency_key: key,
    fingerprint: print,
    state: 'in_flight',
    owner,
    lease_expires_ms: leaseExpiresMs,
    response_status: null,
    response_body: null,
    created_ms: request.scope.nowMs,
  });
  if (claimed) {
    request.idempotency = { key, owner, completed: false };
    return undefined;
  }

  const existing = await store.find(db.kysely, programId, key);
  if (!existing) {
    // The holder released it between our insert and read: the caller may simply retry.
    throw new ConflictError(`${field}: a request with this key was just being processed; retry`);
  }
  if (existing.fingerprint !== print) {
    throw new InvalidRequestError(`${field}: this key was already used with a different request`);
  }
  if (existing.state === 'complete') {
    return reply
      .code(existing.response_status ?? 200)
      .header(REPLAY_HEADER, 'true')
      .type('application/json; charset=utf-8')
      .send(existing.response_body ? request.server.deps.secrets.decrypt(existing.response_body) : '');
  }
  if (existing.lease_expires_ms < wall.nowMs() && (await store.takeOverExpired(db.kysely, programId, key, existing.owner, owner, leaseExpiresMs))) {
    request.idempotency = { key, owner, completed: false };
    return undefined;
  }
  throw new ConflictError(`${field}: a request with this key is still being processed`);
}

/**
 * onSend: a claim whose request did not complete is released (the request changed nothing), before
 * the answer leaves, so that a client retrying right after a failure finds the key free.
 */
export async function releaseUnfinishedClaim(request: FastifyRequest): Promise<void> {
  const claim = request.idempotency;
  if (!claim || claim.completed) return;
  await store.release(request.server.deps.db.kysely, request.scope.programId, claim.key, claim.owner);
}

/**
 * Runs a write in one database transaction and answers with its result. Every POST, PATCH and
 * DELETE handler goes through here. The response is serialised with the route's schema inside the
 * transaction and, when the request holds an idempotency claim, stored with the effect.
 */
export async function commit<T>(request: FastifyRequest, reply: FastifyReply, work: (tx: Tx) => Promise<T>): Promise<FastifyReply> {
  const claim = request.idempotency;
  const payload = await request.server.deps.db.transaction(async (tx) => {
    const result = await work(tx);
    const body = reply.statusCode === 204 ? '' : String(reply.serialize(result));
    if (claim) {
      const encrypted = request.server.deps.secrets.encrypt(body);
      const stored = await store.complete(tx, request.scope.programId, claim.key, claim.owner, reply.statusCode, encrypted);
      if (!stored) throw new ConflictError('Idempotency-Key: the claim on this key expired before the request finished; retry');
    }
    return body;
  });
  if (claim) claim.completed = true;
  return reply.type('application/json; charset=utf-8').send(payload);
}

/** The sweep's share: deletes the records older than RETENTION_MS, in batches. Returns how many. */
export async function expireIdempotencyRecords(db: Db, wall: WallClock): Promise<number> {
  const beforeMs = wall.nowMs() - RETENTION_MS + LEASE_MS;
  let deleted = 0;
  for (;;) {
    const batch = await store.deleteLeasedBefore(db.kysely, beforeMs, RETENTION_BATCH);
    deleted += batch;
    if (batch < RETENTION_BATCH) return deleted;
  }
}
