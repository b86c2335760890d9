/**
 * Work that falls due as a program's clock moves: e.g. a management operation whose effective date
 * arrives. Each job brings one program up to date with its current time and must be idempotent
 * (running it twice at the same time changes nothing the second time).
 *
 * Jobs run (1) in the transaction of `POST /v1/simulate/clock`, right after the clock moves, so the
 * response and every later read see their effects; (2) every minute for every program, since the
 * clock also moves at real speed; (3) when a read finds its work due (`catchUp`). Each time the same
 * way, `runClockJobsAcross`: what fell due is applied in the order it fell due and dated then,
 * however long ago that was. A resource that needs one adds it to the list below. At one instant,
 * holds expire before management operations are decided on their funds.
 */
import { dueFulfilment, fulfilmentInstantsThrough, fulfilPhysicalCards, lockDueFulfilment } from './cards/jobs.js';
import { programNowMs, type WallClock } from './clock.js';
import type { Db, Executor, Tx } from './db/database.js';
import { REQUEST_CLOCK_MARGIN_MS } from './db/horizons.js';
import { applyDuePrenotes, duePrenotes, lockDuePrenotes, prenoteInstantsThrough } from './external_bank_accounts/service.js';
import { lockExistingBalances } from './ledger/ledger.js';
import { applyDueOperations, dueDayStartsThrough, dueOperations, lockDueOperations } from './management_operations/service.js';
import type { ProgramScope } from './programs/scope.js';
import { listProgramClocks } from './programs/store.js';
import { challengeDeadlinesThrough, dueChallengeTimeouts, lockDueChallenges, timeOutChallenges } from './three_ds/service.js';
import { dueExpiries, expireDueAuthorizations, lockDueHolds } from './transactions/service.js';

/** `db` is passed for what needs the engine (row locks through `db.forUpdate`, the ledger). */
export type ClockJob = (db: Db, tx: Tx, scope: ProgramScope) => Promise<void>;

/**
 * In the order they run at each stop (see `runClockJobsAcross`): hold expiries first, as they fall
 * due at any instant up to the stop; then what falls due at the stop itself (a challenge's timeout
 * is a stop too). At one instant, holds expire before challenges time out and before management
 * operations are decided on their funds.
 *
 * A function, as `everyDueWork` is, not a list made as this module loads: the resource services
 * import this module too (`catchUp`, `isDueWithin`), so when one of them is the first module a
 * process imports, this one loads before that service's exports exist (module-imports.unit.test.ts).
 */
function clockJobs(): readonly ClockJob[] {
  return [expireDueAuthorizations, timeOutChallenges, applyDuePrenotes, fulfilPhysicalCards, applyDueOperations];
}

/** What each job of `clockJobs` does, as reads check it (`catchUpEverything`): one per job, in step with it. */
function everyDueWork(): readonly DueWork[] {
  return [dueExpiries, dueChallengeTimeouts, duePrenotes, dueFulfilment, dueOperations];
}

async function runClockJobs(db: Db, tx: Tx, scope: ProgramScope, jobs: readonly ClockJob[] = clockJobs()): Promise<void> {
  for (const job of jobs) await job(db, tx, scope);
}

/**
 * After the program's clock moved to `scope.nowMs`: the jobs run at each instant at which a 3-D
 * Secure challenge times out, a prenote, a fulfilment batch or a management operation falls due
 * (`dueStopsThrough`), earliest first (also one the clock had already reached before the move: the
 * real-speed clock passed it since the last sweep), then at now. The move then does what passing through those instants
 * would have done, and records it in that order (the order its events are sent in): at each stop,
 * the holds that expired since the last stop are released first, in the order they expired; then
 * what falls due at the stop itself. So a hold that expired before an operation's date is released
 * before the operation is decided on its funds (and one that expires after it is not), a card
 * shipped at midnight is announced after a hold that expired the evening before, whether the clock
 * jumps a year or steps an hour. Each job dates what it does at the instant it fell due (see
 * `applyDueOperations`). Before the first stop, what is due by now and moves money is locked (with
 * the rows of the other jobs), then its balances (`lockDueMoney`): no stop locks a due row while
 * holding a balance.
 */
export async function runClockJobsAcross(db: Db, tx: Tx, scope: ProgramScope, jobs: readonly ClockJob[] = clockJobs()): Promise<void> {
  await lockDueMoney(db, tx, scope, []);
  await runAtEachStop(db, tx, scope, jobs);
}

/** `runClockJobsAcross` once what moves money is locked (`lockDueMoney`). */
async function runAtEachStop(db: Db, tx: Tx, scope: ProgramScope, jobs: readonly ClockJob[]): Promise<void> {
  for (const stepMs of await dueStopsThrough(tx, scope.programId, scope.nowMs)) await runClockJobs(db, tx, { ...scope, nowMs: stepMs }, jobs);
  await runClockJobs(db, tx, scope, jobs);
}

/**
 * The instants through `throughMs` at which something other than a hold expiry falls due, earliest
 * first: holds need no stop of their own, as each run of their job takes them in order, before
 * what falls due at the stop. A challenge's timeout is a stop, so that a hold that expires after
 * it is announced after it, however far the clock moved.
 */
async function dueStopsThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  const stops = new Set<number>();
  for (const instantsThrough of [challengeDeadlinesThrough, prenoteInstantsThrough, fulfilmentInstantsThrough, dueDayStartsThrough]) {
    for (const instantMs of await instantsThrough(exec, programId, throughMs)) stops.add(instantMs);
  }
  return [...stops].sort((a, b) => a - b);
}

/**
 * What a due check found: work to do now, or nothing due, with (when the check can prove one) a
 * program time before which nothing can fall due (a horizon, see db/horizons.ts).
 */
export type DueCheck = { due: true } | { due: false; clearUntilMs?: number };

/**
 * The check of work that falls due a fixed `lifetimeMs` after it was created (a hold's expiry, a
 * 3-D Secure challenge's timeout), given when the oldest still pending was created: due once that
 * one's end has come. Else nothing falls due before it does, nor before one created now would: one
 * created later by a request that read the clock up to REQUEST_CLOCK_MARGIN_MS ago ends no earlier
 * than now − margin + lifetime.
 */
export function dueAfterLifetime(oldestCreatedMs: number | undefined, lifetimeMs: number, nowMs: number): DueCheck {
  if (oldestCreatedMs !== undefined && oldestCreatedMs + lifetimeMs <= nowMs) return { due: true };
  const nextCreatableEndMs = nowMs - REQUEST_CLOCK_MARGIN_MS + lifetimeMs;
  return { due: false, clearUntilMs: oldestCreatedMs === undefined ? nextCreatableEndMs : Math.min(oldestCreatedMs + lifetimeMs, nextCreatableEndMs) };
}

/** Clock-driven work that the requests touching its state catch up on first (its job is in `clockJobs`). */
export interface DueWork {
  /** The name of its horizon; without one, every check asks the database. */
  horizon?: string;
  /** An indexed read-only check. */
  check(exec: Executor, scope: ProgramScope): Promise<DueCheck>;
}

function clearByHorizon(db: Db, work: DueWork, scope: ProgramScope): boolean {
  return work.horizon !== undefined && db.horizons.isClear(work.horizon, scope.programId, scope.nowMs);
}

/** Runs the work's check; when it proves a horizon, also what `set` needs (the stamp taken before it read). */
async function checkFor(db: Db, exec: Executor, work: DueWork, scope: ProgramScope): Promise<{ due: boolean; learn(): void }> {
  const { horizon } = work;
  const stamp = horizon === undefined ? 0 : db.horizons.stamp(horizon, scope.programId);
  const found = await work.check(exec, scope);
  const untilMs = found.due ? undefined : found.clearUntilMs;
  return {
    due: found.due,
    learn: () => {
      if (horizon !== undefined && untilMs !== undefined) db.horizons.set(horizon, scope.programId, untilMs, stamp);
    },
  };
}

/**
 * For writes that depend on the work's state, at the start of their transaction: whether the work
 * is due (then the caller runs it in the same transaction). A horizon answers without a query; a
 * new horizon is remembered once this transaction commits.
 */
export async function isDueWithin(db: Db, tx: Tx, work: DueWork, scope: ProgramScope): Promise<boolean> {
  if (clearByHorizon(db, work, scope)) return false;
  const found = await checkFor(db, tx, work, scope);
  if (!found.due) db.afterCommit(tx, found.learn);
  return found.due;
}

/**
 * For a write that depends on the state of `work` and moves no money (a bank
 * account's update, or its retry once it holds the account), at the start of its transaction: when that
 * work is due, what has fallen due runs as a clock move runs it (`runClockJobsAcross`), so that it
 * is recorded, and announced, in the order it fell due: a hold that expired before a card's
 * midnight is released before the card ships, not after the write shipped it alone.
 */
export async function applyDueWork(db: Db, tx: Tx, scope: ProgramScope, work: DueWork): Promise<void> {
  if (await isDueWithin(db, tx, work, scope)) await runClockJobsAcross(db, tx, scope);
}

/**
 * For a write that moves money (a transfer, a payment, an operation, every card message), at the
 * start of its transaction, before it locks its balances: what has fallen due on the program's
 * clock and changes funds (a hold past its expiry, a management operation whose date has come; the
 * minute sweep may not have run yet) is applied first. Then every job runs as a clock move runs
 * them (`runClockJobsAcross`), so that what fell due takes effect, and is announced, in the order
 * it fell due: an operation dated before a hold expired is decided before the hold is released (on
 * the funds the hold still held), and a card shipment or prenote before an operation dated after it.
 * A message on existing card transactions names them (`transactions`): they are locked with the
 * due holds, in one sorted set, before any balance (`lockDueHolds`).
 */
export async function applyDueMoney(db: Db, tx: Tx, scope: ProgramScope, accounts: readonly string[], own: OwnRows = {}): Promise<void> {
  if (await lockDueMoney(db, tx, scope, accounts, own)) await runAtEachStop(db, tx, scope, clockJobs());
}

/** What a money write brings to `applyDueMoney` besides its accounts (each described at `lockDueMoney`). */
export interface OwnRows {
  /** The card transactions a message acts on, locked with the due holds. */
  transactions?: readonly string[];
  /** What the write's own earlier check found due (`lockDueRowsBeforeOwn`), taken as it is. */
  found?: DueMoney;
  /** Locks the management operations the write acts on, where every write locks operations. */
  lockOwnOperations?: () => Promise<unknown>;
}

/**
 * Locks, before the jobs run (a money write's or the jobs' own run), what has fallen due by now and
 * moves money: the due holds and operations, then their balances and the write's own `accounts` in
 * ONE sorted set, so the jobs, at every stop, and the write lock nothing more of them (the documented
 * order: rows, then balances). A concurrent write on any of these accounts, which locks its balances
 * in sorted order too, waits for this one whole instead of holding one balance this one needs while
 * needing another it holds; a message on a due hold, which holds it and then needs its balance, is
 * not kept waiting by jobs that posted an operation or an earlier batch of holds on that balance.
 * Before the holds, the rows every other job will take by now (`lockDueRowsOfOtherJobs`). Answers
 * whether anything was due (if not, nothing is locked, and the jobs, if they run, hold no balance).
 * `found`: what the write's own earlier check answered (`lockDueRowsBeforeOwn`), taken as it is.
 * `lockOwnOperations`: locks the management operations the write acts on (a reverse's, a reopening's
 * waiting ones), after the due ones and before any balance, whether or not anything was due: an
 * operation is both a write's own row and, on its date, a due one, so every write locks operations
 * in that one place (a reverse that locked its own first would wait there for one due before it,
 * or for a balance, that a write applying what fell due holds while it waits for the reverse's).
 */
async function lockDueMoney(db: Db, tx: Tx, scope: ProgramScope, accounts: readonly string[], { transactions = [], found, lockOwnOperations }: OwnRows = {}): Promise<boolean> {
  const due = found === undefined ? await dueMoney(db, tx, scope) : found;
  if (due === null) {
    await lockOwnOperations?.();
    return false;
  }
  await lockDueRowsOfOtherJobs(db, tx, scope);
  await lockDueMoneyRows(db, tx, scope, due, accounts, transactions, lockOwnOperations);
  return true;
}

/** `lockDueMoney` past the rows of the other jobs: the due holds (with `transactions`), the due operations (then the write's own), then the balances. */
async function lockDueMoneyRows(
  db: Db,
  tx: Tx,
  scope: ProgramScope,
  due: NonNullable<DueMoney>,
  accounts: readonly string[],
  transactions: readonly string[],
  lockOwnOperations?: () => Promise<unknown>,
): Promise<void> {
  const held = due.holds || transactions.length > 0 ? await lockDueHolds(db, tx, scope, transactions) : [];
  const operated = (await lockDueOperations(db, tx, scope)).map((operation) => operation.financial_account_token);
  await lockOwnOperations?.();
  await lockExistingBalances(tx, scope.programId, [...held, ...operated, ...accounts]);
}

/**
 * `applyDueWork` for a write on a row of a kind a clock job takes (a card's PATCH, `lockOwn` locking
 * its card): when `work` is due, the rows of the other jobs are locked first, then its own, then the
 * due holds and operations and their balances, and the jobs run (`runClockJobsAcross`); else only its
 * own. The order an authorization takes (`lockDueRowsBeforeOwn`): were the jobs run first, the write
 * would hold a due hold's balance while it waits for its own card, which a card's reissue (or an
 * authorization that found nothing due) holds while it waits for that balance. The write reads its
 * own row again once the jobs ran (they may have changed it).
 */
export async function applyDueWorkAroundOwn(db: Db, tx: Tx, scope: ProgramScope, work: DueWork, lockOwn: () => Promise<unknown>): Promise<void> {
  if (!(await isDueWithin(db, tx, work, scope))) {
    await lockOwn();
    return;
  }
  const money = await dueMoney(db, tx, scope);
  await lockDueRowsOfOtherJobs(db, tx, scope);
  await lockOwn();
  if (money !== null) await lockDueMoneyRows(db, tx, scope, money, [], []);
  await runAtEachStop(db, tx, scope, clockJobs());
}

/**
 * For the jobs that move no money, in this order, the lock of the rows each would take by now: they
 * are locked before the balances too, as a write may hold one of them before it needs a balance (a
 * retry_micro_deposits the prenotes it enabled, then its funding balance; a card's reissue or
 * authorization the card, then its account's balance). Bank accounts before cards: a micro-deposit
 * retry holds the former when its money write would lock the latter. Challenges: no write holds one
 * before anything else today; locked here too, so that every job's rows precede the balances.
 */
async function lockDueRowsOfOtherJobs(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  for (const lockDueRows of [lockDuePrenotes, lockDueFulfilment, lockDueChallenges]) await lockDueRows(db, tx, scope);
}

/** What money work has fallen due (holds past their expiry, operations whose date has come), or null when none: then `lockDueMoney` runs no job. */
export type DueMoney = { holds: boolean } | null;

async function dueMoney(db: Db, tx: Tx, scope: ProgramScope): Promise<DueMoney> {
  const holds = await isDueWithin(db, tx, dueExpiries, scope);
  return holds || (await isDueWithin(db, tx, dueOperations, scope)) ? { holds } : null;
}

/**
 * For a write that locks a row of a kind a clock job takes before it applies what fell due (an
 * authorization locks its card, after its account, then calls `applyDueMoney`): when the jobs will
 * run, the rows of the other jobs (`lockDueRowsOfOtherJobs`), locked first, in their order. Were its
 * own card locked first, it would wait in `lockDueMoney` for a due PHYSICAL card that another write
 * running the jobs (a catch-up, an authorization on that card) holds while waiting for its own.
 * Answers what it found, for the write's `applyDueMoney` to act on as it is: a second check could
 * find work that another request committed since (due when it committed) and run the jobs, locking
 * their rows after its own; that work waits for the next write, read or sweep, as it would had it
 * committed a moment later.
 */
export async function lockDueRowsBeforeOwn(db: Db, tx: Tx, scope: ProgramScope): Promise<DueMoney> {
  const due = await dueMoney(db, tx, scope);
  if (due !== null) await lockDueRowsOfOtherJobs(db, tx, scope);
  return due;
}

/**
 * For writes that create work falling due at program time `dueMs` (a pending operation, a hold that
 * will expire): once `tx` commits, this process's horizon no longer hides it (db/horizons.ts).
 */
export function fallsDueAt(db: Db, tx: Tx, work: DueWork, programId: string, dueMs: number): void {
  const { horizon } = work;
  if (horizon !== undefined) db.afterCommit(tx, () => db.horizons.lower(horizon, programId, dueMs));
}

/**
 * For reads that must show what has fallen due by the program's clock even before the next sweep
 * (e.g. a balance once a management operation's effective date has come): the check, outside any
 * transaction, and only when something is due, a write transaction that brings the program up to
 * date as a clock move does (`runClockJobsAcross`), so that what the read shows took effect in the
 * order it fell due, however long ago that was: a hold that expired after an operation's date is
 * released after the operation is decided, not before.
 */
export async function catchUp(db: Db, scope: ProgramScope, work: DueWork, jobs: readonly ClockJob[] = clockJobs()): Promise<void> {
  if (clearByHorizon(db, work, scope)) return;
  const found = await checkFor(db, db.kysely, work, scope);
  if (found.due) await db.transaction((tx) => runClockJobsAcross(db, tx, scope, jobs));
  else found.learn();
}

/**
 * For a read of everything that happened (the events): `catchUp` on the work of every job, so that
 * what has fallen due by the program's clock is recorded, and listed, before the next sweep. The
 * first work found due brings all of them up to date; the checks after it find nothing.
 */
export async function catchUpEverything(db: Db, scope: ProgramScope): Promise<void> {
  for (const work of everyDueWork()) await catchUp(db, scope, work);
}

/**
 * Brings every program up to date, each in its own transaction (as a clock move does:
 * `runClockJobsAcross`). One program whose jobs fail does not keep the others waiting: the sweep
 * goes on, then rejects with what failed.
 */
export async function sweepAllPrograms(db: Db, wall: WallClock, jobs: readonly ClockJob[] = clockJobs()): Promise<void> {
  if (jobs.length === 0) return;
  const programs = await listProgramClocks(db.kysely);
  const failures: unknown[] = [];
  for (const program of programs) {
    db.horizons.noteClockMove(program.id, Number(program.clock_moved_wall_ms), wall.nowMs());
    const scope = { programId: program.id, clockOffsetMs: program.clock_offset_ms, nowMs: programNowMs(wall, program.clock_offset_ms) };
    await db.transaction((tx) => runClockJobsAcross(db, tx, scope, jobs)).catch((error: unknown) => failures.push(error));
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `the clock jobs of ${failures.length} programs failed`);
}
