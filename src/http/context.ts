/**
 * What Fastify carries for Cardwright: the dependencies on the app instance, the program scope and
 * idempotency claim on each request, and the route-level config flags the shared hooks read.
 */
import type { WallClock } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db } from '../db/database.js';
import type { AuthCache } from '../programs/auth-cache.js';
import type { ClockGate } from '../programs/clock-gate.js';
import type { ProgramScope } from '../programs/scope.js';
import type { IdempotencyClaim } from './idempotency.js';

/** Everything the routes need from outside; passed in, never global. */
export interface Deps {
  db: Db;
  wall: WallClock;
  secrets: Secrets;
  /** Successful authentications of this process (programs/auth-cache.ts). */
  authCache: AuthCache;
  /** Writes and clock moves of a program take turns (programs/clock-gate.ts). */
  clockGate: ClockGate;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
  interface FastifyRequest {
    /** The authenticated program and its time. Set for every route that is not public. */
    scope: ProgramScope;
    idempotency: IdempotencyClaim | null;
  }
  interface FastifyContextConfig {
    /** No API key needed (the OpenAPI document). */
    public?: boolean;
    /** The body's optional `token` works as an idempotency key (Lithic's create calls). */
    idempotentBodyToken?: boolean;
  }
}
