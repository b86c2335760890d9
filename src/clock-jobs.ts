/**
 * Work that falls due as a program's clock moves: e.g. a management operation whose effective date
 * arrives. Each job brings one program up to date with its current time and must be idempotent
 * (running it twice at the same time changes nothing the second time).
 *
 * Jobs run (1) in the transaction of `POST /v1/simulate/clock`, right after the clock moves, so the
 * response and every later read see their effects; and (2) every minute for every program, since
 * the clock also moves at real speed. A resource that needs one adds it to the list below.
 */
import { fulfilPhysicalCards } from './cards/jobs.js';
import { programNowMs, type WallClock } from './clock.js';
import type { Db, Tx } from './db/database.js';
import type { ProgramScope } from './programs/scope.js';

export type ClockJob = (tx: Tx, scope: ProgramScope) => Promise<void>;

export const clockJobs: readonly ClockJob[] = [fulfilPhysicalCards];

export async function runClockJobs(tx: Tx, scope: ProgramScope, jobs: readonly ClockJob[] = clockJobs): Promise<void> {
  for (const job of jobs) await job(tx, scope);
}

/** Runs every job for every program, each program in its own transaction. */
export async function sweepAllPrograms(db: Db, wall: WallClock, jobs: readonly ClockJob[] = clockJobs): Promise<void> {
  if (jobs.length === 0) return;
  const programs = await db.kysely.selectFrom('programs').select(['id', 'clock_offset_ms']).execute();
  for (const program of programs) {
    await db.transaction((tx) =>
      runClockJobs(
        tx,
        { programId: program.id, clockOffsetMs: program.clock_offset_ms, nowMs: programNowMs(wall, program.clock_offset_ms) },
        jobs,
      ),
    );
  }
}
