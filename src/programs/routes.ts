/**
 * `GET /v1/status`, the program clock (`GET`/`POST /v1/simulate/clock`) and the program's sandbox
 * settings (`GET`/`POST /v1/simulate/program`: `require_funds`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { runClockJobsAcross } from '../clock-jobs.js';
import { isoTimestamp } from '../clock.js';
import { commit } from '../http/idempotency.js';
import { DateTime, StrictObject, Type } from '../http/schemas.js';
import { sharedWhileRunning } from './readiness.js';
import { checkReadiness, fundsRequired, moveClock, setFundsRequired } from './service.js';

const Clock = Type.Object({ now: DateTime });
const ProgramSettings = Type.Object({ require_funds: Type.Boolean() });

export const programRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ready = sharedWhileRunning(() => checkReadiness(app.deps.db));

  app.get(
    '/v1/status',
    {
      schema: {
        summary: 'API status (readiness check)',
        description: 'OK once the database answers a query (PostgreSQL; SQLite is embedded); 503 while it cannot be reached.',
        tags: ['Status'],
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async () => {
      await ready();
      return { message: 'OK' };
    },
  );

  app.get(
    '/v1/simulate/clock',
    { schema: { summary: "The program's current time", tags: ['Simulation'], response: { 200: Clock } } },
    async (request) => ({ now: isoTimestamp(request.scope.nowMs) }),
  );

  app.post(
    '/v1/simulate/clock',
    {
      schema: {
        summary: "Move the program's clock forward",
        description: 'Everything time-dependent reads this clock. An instant earlier than its current time is refused (400).',
        tags: ['Simulation'],
        body: StrictObject({ now: DateTime }),
        response: { 200: Clock },
      },
    },
    async (request, reply) => {
      const { programId } = request.scope;
      // Alone: the program's writes under way commit first, and those arriving wait (programs/clock-gate.ts).
      const leave = await app.deps.clockGate.enterMove(programId);
      try {
        const sent = await commit(
          request,
          reply,
          async (tx) => {
            const nowMs = await moveClock(tx, app.deps.wall, request.scope, Date.parse(request.body.now));
            const moved = { ...request.scope, nowMs, clockOffsetMs: request.scope.clockOffsetMs + (nowMs - request.scope.nowMs) };
            await runClockJobsAcross(app.deps.db, tx, moved);
            return { now: isoTimestamp(nowMs) };
          },
          { clockGateHeld: true },
        );
        // After the move committed, before the writes waiting for it go on: they read its new time,
        // and what another server's request that read the old time commits is not hidden by a horizon.
        app.deps.authCache.forgetProgram(programId);
        app.deps.db.horizons.unsettle(programId);
        return sent;
      } finally {
        leave();
      }
    },
  );

  app.get(
    '/v1/simulate/program',
    {
      schema: {
        summary: "The program's sandbox settings",
        description: 'require_funds: whether card authorizations need the available funds of the card account’s ISSUING financial account.',
        tags: ['Simulation'],
        response: { 200: ProgramSettings },
      },
    },
    async (request) => ({ require_funds: await fundsRequired(app.deps.db.kysely, request.scope.programId) }),
  );

  app.post(
    '/v1/simulate/program',
    {
      schema: {
        summary: "Change the program's sandbox settings",
        description:
          'With require_funds true, an authorization above the available balance of the card account’s ISSUING financial account declines INSUFFICIENT_FUNDS. Off by default: balances may go negative.',
        tags: ['Simulation'],
        body: StrictObject({ require_funds: Type.Boolean() }),
        response: { 200: ProgramSettings },
      },
    },
    async (request, reply) =>
      commit(request, reply, async (tx) => ({ require_funds: await setFundsRequired(tx, request.scope.programId, request.body.require_funds) })),
  );
};
