/**
 * Idempotency, written once for every POST.
 *
 * A POST may carry `Idempotency-Key`, and on routes whose config sets `idempotentBodyToken` a body
 * `token`, which Lithic uses the same way: each is a key. Before the handler runs, every key of the
 * request is claimed for it (a committed in-flight row each; the body token first). The handler does
 * its work through `commit`, which writes the serialised response into the keys' rows in the same
 * database transaction as the effect, so the effect and its recorded answer commit together or not
 * at all. Then, for each key:
 *  - a repeat with the same method, URL and body gets the stored status and body, byte for byte;
 *  - a repeat with a different request is 400;
 *  - a repeat while the first is still in flight is 409 (the SDKs retry 409);
 *  - a request the handler refused (400, 404, 422: the request itself was wrong, or the state
 *    forbade it) records that answer under its `Idempotency-Key` like a success, so its repeat gets
 *    the same answer and still changes nothing (as Stripe does); its body token, which names a
 *    resource that was not created, is released; a request that failed otherwise (a 5xx, an expired claim)
 *    releases its claims, since it changed nothing, and the keys can be retried. Requests refused
 *    before their keys were claimed (schema validation, a key conflict) record nothing.
 * So the same request with the same body token replays the original whatever header comes with it
 * or came with the original (the token's own record answers; a header that only accompanies a
 * replay is not recorded), and two such requests racing create one resource (the second finds the
 * token in flight: 409).
 * A claim whose request died (crash) expires after LEASE_MS and can then be taken over.
 * The two kinds of key never share a record (`store.headerKey`): a header spelled like a token's key
 * is stored apart from it.
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
import { rereadProgramTime } from './auth.js';
import { REQUEST_ID_HEADER } from './errors.js';
import * as store from './idempotency-store.js';
import { lowerCaseTokensInUrl } from './validation.js';

const LEASE_MS = 60_000;
const RETENTION_MS = 24 * 3_600_000;
const RETENTION_BATCH = 1_000;
const MAX_KEY_LENGTH = 255;

/** The keys a request holds (every one completed or released with the request), and their owner. */
export interface IdempotencyClaim {
  keys: string[];
  owner: string;
  completed: boolean;
  /** Every key of the request is claimed: what happens next is the handler's answer. */
  handled: boolean;
}

/** Answers of the handler that are recorded like a success: the request was refused and changed nothing. */
const RECORDED_REFUSALS: ReadonlySet<number> = new Set([400, 404, 422]);

const REPLAY_HEADER = 'idempotent-replayed';

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

interface NamedKey {
  key: string;
  /** The field that carried it, named in error messages. */
  field: string;
}

/**
 * The request's idempotency keys: the body `token` first, on routes that opt in (it names the
 * resource, so it decides whatever header comes with it), then `Idempotency-Key`.
 */
function idempotencyKeysOf(request: FastifyRequest): NamedKey[] {
  const keys: NamedKey[] = [];
  const bodyToken = (request.body as { token?: unknown } | undefined)?.token;
  if (request.routeOptions.config.idempotentBodyToken && typeof bodyToken === 'string') {
    keys.push({ key: `${store.BODY_TOKEN_PREFIX}${bodyToken}`, field: 'token' });
  }
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key !== undefined && key !== '') {
    if (key.length > MAX_KEY_LENGTH) throw new InvalidRequestError(`Idempotency-Key: must be at most ${MAX_KEY_LENGTH} characters`);
    keys.push({ key: store.headerKey(key), field: 'Idempotency-Key' });
  }
  return keys;
}

/**
 * preHandler for POST routes: claims every key of the request, in order, or answers a replay /
 * conflict itself. The first key already complete for the same request is replayed (a body token's
 * record outlives a header's); a key used for another request is a 400, one in flight a 409. Keys
 * claimed before such an answer are released by `releaseUnfinishedClaim`, like any unfinished claim.
 */
export async function claimIdempotencyKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  request.idempotency = null;
  if (request.method !== 'POST') return undefined;
  const keys = idempotencyKeysOf(request);
  if (keys.length === 0) return undefined;

  // The body's tokens are already in lower case (lowerCaseTokens); the path's are, as the route reads them.
  const print = requestFingerprint(request.server.deps.secrets, request.method, lowerCaseTokensInUrl(request.url), request.body);
  const claim: IdempotencyClaim = { keys: [], owner: request.id, completed: false, handled: false };
  request.idempotency = claim;
  for (const named of keys) {
    const replay = await claimKey(request, named, print, claim.owner);
    if (replay) {
      const body = replay.response_body ? request.server.deps.secrets.decrypt(replay.response_body) : '';
      // A replay is the original answer: its header names the request its body names (a refusal, a simulation).
      const originalRequestId = body.includes('"debugging_request_id"') ? (JSON.parse(body) as { debugging_request_id?: unknown }).debugging_request_id : undefined;
      if (typeof originalRequestId === 'string') reply.header(REQUEST_ID_HEADER, originalRequestId);
      return sendBody(reply.code(replay.response_status ?? 200).header(REPLAY_HEADER, 'true'), body);
    }
    claim.keys.push(named.key);
  }
  claim.handled = true;
  return undefined;
}

/** Claims one key for this request (undefined), or returns its completed record to replay; throws a 400 or 409. */
async function claimKey(request: FastifyRequest, { key, field }: NamedKey, print: string, owner: string) {
  const { db, wall } = request.server.deps;
  const programId = request.scope.programId;
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
  if (claimed) return undefined;

  const existing = await store.find(db.kysely, programId, key);
  if (!existing) {
    // The holder released it between our insert and read: the caller may simply retry.
    throw new ConflictError(`${field}: a request with this key was just being processed; retry`);
  }
  if (existing.fingerprint !== print) {
    throw new InvalidRequestError(`${field}: this key was already used with a different request`);
  }
  if (existing.state === 'complete') return existing;
  if (existing.lease_expires_ms < wall.nowMs() && (await store.takeOverExpired(db.kysely, programId, key, existing.owner, owner, leaseExpiresMs))) {
    return undefined;
  }
  throw new ConflictError(`${field}: a request with this key is still being processed`);
}

/**
 * onSend: a claim whose request did not complete either records the handler's refusal (400, 404,
 * 422) or is released (the request changed nothing), before the answer leaves, so that a client
 * retrying right after gets the same refusal or finds the key free.
 */
export async function releaseUnfinishedClaim(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const claim = request.idempotency;
  if (!claim || claim.completed || claim.keys.length === 0) return payload;
  const { db, secrets } = request.server.deps;
  let release = claim.keys;
  if (claim.handled && RECORDED_REFUSALS.has(reply.statusCode) && typeof payload === 'string') {
    // Only a header key records it: a body token names a resource that was not created, and stays free.
    const headerKeys = claim.keys.filter((key) => !key.startsWith(store.BODY_TOKEN_PREFIX));
    const stored = headerKeys.length === 0 ? 0 : await store.complete(db.kysely, request.scope.programId, headerKeys, claim.owner, reply.statusCode, secrets.encrypt(payload));
    if (stored > 0 && stored === headerKeys.length) release = claim.keys.filter((key) => key.startsWith(store.BODY_TOKEN_PREFIX));
  }
  claim.completed = true;
  if (release.length > 0) await store.release(db.kysely, request.scope.programId, release, claim.owner);
  return payload;
}

/** Sends a serialised answer: JSON, or nothing at all (no content type) for an empty one. */
function sendBody(reply: FastifyReply, payload: string): FastifyReply {
  return payload === '' ? reply.send() : reply.type('application/json; charset=utf-8').send(payload);
}

/**
 * Runs a write in one database transaction and answers with its result. Every POST, PATCH and
 * DELETE handler goes through here. The response is serialised with the route's schema inside the
 * transaction and, when the request holds an idempotency claim, stored with the effect. A 204, or
 * work that returns nothing (a call the SDK declares void), answers an empty body.
 *
 * The write waits while the program's clock is being moved, then reads the program's time again:
 * what it records is never dated before what a move that committed meanwhile applied
 * (programs/clock-gate.ts). A clock move holds the gate itself and says so (`clockGateHeld`).
 */
export async function commit<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<T>,
  options: { clockGateHeld?: boolean } = {},
): Promise<FastifyReply> {
  const leave = options.clockGateHeld ? undefined : await request.server.deps.clockGate.enterWrite(request.scope.programId);
  try {
    await rereadProgramTime(request);
    return await committed(request, reply, work);
  } finally {
    leave?.();
  }
}

async function committed<T>(request: FastifyRequest, reply: FastifyReply, work: (tx: Tx) => Promise<T>): Promise<FastifyReply> {
  const claim = request.idempotency;
  const payload = await request.server.deps.db.transaction(async (tx) => {
    const result = await work(tx);
    const body = reply.statusCode === 204 || result === undefined ? '' : String(reply.serialize(result));
    if (claim && claim.keys.length > 0) {
      const encrypted = request.server.deps.secrets.encrypt(body);
      const stored = await store.complete(tx, request.scope.programId, claim.keys, claim.owner, reply.statusCode, encrypted);
      if (stored !== claim.keys.length) throw new ConflictError('Idempotency-Key: the claim on this key expired before the request finished; retry');
    }
    return body;
  });
  if (claim) claim.completed = true;
  return sendBody(reply, payload);
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
