/** `GET /v1/status` and the program clock (`GET`/`POST /v1/simulate/clock`). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { runClockJobs } from '../clock-jobs.js';
import { isoTimestamp } from '../clock.js';
import { commit } from '../http/idempotency.js';
import { DateTime, StrictObject, Type } from '../http/schemas.js';
import { moveClock } from './service.js';

const Clock = Type.Object({ now: DateTime });

export const programRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/status',
    {
      schema: {
        summary: 'API status (readiness check)',
        tags: ['Status'],
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async () => ({ message: 'OK' }),
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
    async (request, reply) =>
      commit(request, reply, async (tx) => {
        const nowMs = await moveClock(tx, app.deps.wall, request.scope, Date.parse(request.body.now));
        await runClockJobs(app.deps.db, tx, { ...request.scope, nowMs, clockOffsetMs: request.scope.clockOffsetMs + (nowMs - request.scope.nowMs) });
        return { now: isoTimestamp(nowMs) };
      }),
  );
};
