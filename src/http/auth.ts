/**
 * Authentication: every route except those marked `config: { public: true }` needs
 * `Authorization: <API key>`, which resolves the program the request acts for. Unknown routes are
 * answered 404 without asking for a key.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { programNowMs } from '../clock.js';
import { authenticate } from '../programs/service.js';
import { sendError } from './errors.js';

const MESSAGES = {
  missing: 'Please provide API key in Authorization header',
  unknown: 'Could not find API key',
  revoked: 'API key is not active',
} as const;

export async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.is404 || request.routeOptions.config.public) return undefined;
  const { db, wall } = request.server.deps;
  const result = await authenticate(db.kysely, request.headers.authorization);
  if (!result.ok) return sendError(request, reply, 401, MESSAGES[result.reason]);
  request.scope = {
    programId: result.programId,
    clockOffsetMs: result.clockOffsetMs,
    nowMs: programNowMs(wall, result.clockOffsetMs),
  };
  return undefined;
}
