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
import type { Db, Executor, Tx } from './db/database.js';
import { applyDuePrenotes } from './external_bank_accounts/service.js';
import { applyDueOperations } from './management_operations/service.js';
import type { ProgramScope } from './programs/scope.js';
import { expireDueAuthorizations } from './transactions/service.js';

/** `db` is passed for what needs the engine (row locks through `db.forUpdate`, the ledger). */
export type ClockJob = (db: Db, tx: Tx, scope: ProgramScope) => Promise<void>;

export const clockJobs: readonly ClockJob[] = [fulfilPhysicalCards, applyDueOperations, applyDuePrenotes, expireDueAuthorizations];

export async function runClockJobs(db: Db, tx: Tx, scope: ProgramScope, jobs: readonly ClockJob[] = clockJobs): Promise<void> {
  for (const job of jobs) await job(db, tx, scope);
}

/**
 * For reads that must show what has fallen due by the program's clock even before the next sweep
 * (e.g. a balance once a management operation's effective date has come): a cheap read-only check,
 * and only when something is due, a write transaction that runs the job. Writes that depend on the
 * same state run the job itself at the start of their own transaction instead.
 */
export async function catchUp(db: Db, scope: ProgramScope, isDue: (exec: Executor, scope: ProgramScope) => Promise<boolean>, job: ClockJob): Promise<void> {
  if (await isDue(db.kysely, scope)) await db.transaction((tx) => job(db, tx, scope));
}

/** Runs every job for every program, each program in its own transaction. */
export async function sweepAllPrograms(db: Db, wall: WallClock, jobs: readonly ClockJob[] = clockJobs): Promise<void> {
  if (jobs.length === 0) return;
  const programs = await db.kysely.selectFrom('programs').select(['id', 'clock_offset_ms']).execute();
  for (const program of programs) {
    await db.transaction((tx) =>
      runClockJobs(
        db,
        tx,
        { programId: program.id, clockOffsetMs: program.clock_offset_ms, nowMs: programNowMs(wall, program.clock_offset_ms) },
        jobs,
      ),
    );
  }
}
