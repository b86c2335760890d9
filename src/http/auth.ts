/**
 * The first steps of a request: its id goes on the response (`X-Request-Id`, the same id as an
 * error body's `debugging_request_id`), then authentication. Every route except those marked
 * `config: { public: true }` needs `Authorization: <API key>`, which resolves the program the
 * request acts for and that program's time. Unknown routes are answered 404 without asking for a key.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { programNowMs } from '../clock.js';
import type { ProgramScope } from '../programs/scope.js';
import { authenticate, cachedAuthentication, type Authentication } from '../programs/service.js';
import { REQUEST_ID_HEADER, sendError } from './errors.js';

const MESSAGES = {
  missing: 'Please provide API key in Authorization header',
  unknown: 'Could not find API key',
  revoked: 'API key is not active',
} as const;

/** Every request, found or not: its id goes on the response (the id of an error body too). */
export function setRequestId(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header(REQUEST_ID_HEADER, request.id);
  done();
}

/**
 * `onRequest` of every route not marked public (attached when the route is registered, so nothing
 * is looked up per request). In callback form: with the key's authentication cached (the usual
 * case) it finishes without waiting on anything; only a cache miss goes to the database.
 */
export function authenticateRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const { authCache } = request.server.deps;
  const cached = cachedAuthentication(request.headers.authorization, authCache);
  if (cached) return admit(request, reply, cached, done);
  lookUp(request).then(
    (result) => admit(request, reply, result, done),
    (error: Error) => done(error),
  );
}

/** Looks the key up in the database; a clock move read with it, by whichever server, settles this one's horizons (db/horizons.ts). */
function lookUp(request: FastifyRequest): Promise<Authentication> {
  const { db, authCache, wall } = request.server.deps;
  return authenticate(db.kysely, request.headers.authorization, authCache, (programId, movedWallMs) =>
    db.horizons.noteClockMove(programId, movedWallMs, wall.nowMs()),
  );
}

function admit(request: FastifyRequest, reply: FastifyReply, result: Authentication, done: HookHandlerDoneFunction): void {
  if (!result.ok) {
    sendError(request, reply, 401, MESSAGES[result.reason]);
    return;
  }
  request.scope = scopeOf(request, result);
  done();
}

function scopeOf(request: FastifyRequest, authenticated: { programId: string; clockOffsetMs: number }): ProgramScope {
  return {
    programId: authenticated.programId,
    clockOffsetMs: authenticated.clockOffsetMs,
    nowMs: programNowMs(request.server.deps.wall, authenticated.clockOffsetMs),
  };
}

/**
 * Reads the program's time again (a write does, once it holds the clock gate: programs/clock-gate.ts),
 * from the cache that a clock move of this process empties when it commits. A key revoked meanwhile
 * changes nothing here: the request was admitted.
 */
export async function rereadProgramTime(request: FastifyRequest): Promise<void> {
  const result = cachedAuthentication(request.headers.authorization, request.server.deps.authCache) ?? (await lookUp(request));
  if (result.ok && result.programId === request.scope.programId) request.scope = scopeOf(request, result);
}
