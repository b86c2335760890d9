/**
 * Group commit for SQLite: the write transactions that arrive together share one SQLite
 * transaction, and so one COMMIT.
 *
 * Why. SQLite has one writer, and a COMMIT writes every page the transaction changed to the WAL,
 * one write per page. A book transfer or an authorization changes a dozen B-tree pages (its rows,
 * their indexes, the ledger entries, the balances, the events), and most of them are the right
 * edge of append-only indexes: consecutive transactions change the same pages. Committed one by
 * one, each transaction writes them all again; committed together, they are written once. Under
 * load this is most of a write's cost (see `npm run bench`).
 *
 * How. `run(work)` queues the work. One runner at a time takes up to MAX_GROUP_SIZE queued works
 * opens one SQLite transaction (BEGIN IMMEDIATE, through the driver), and runs each work in turn
 * inside a SAVEPOINT of its own:
 *  - a work that throws is rolled back to its savepoint, alone, and its caller gets its error;
 *  - a work that succeeds is released into the group; its caller gets its result only after the
 *    group's COMMIT, and its after-commit effects run then (`Db.afterCommit`);
 *  - if the COMMIT fails, nothing of the group was written, and every caller whose work had
 *    succeeded gets the COMMIT's error.
 * Works run one after another, as they did when each had its own transaction (SQLite serializes
 * them anyway): a work sees what earlier works of its group wrote, and they commit or fail
 * together. Nobody else sees a group's writes before its COMMIT: every other use of the connection
 * (reads outside transactions included) waits for Kysely's connection mutex, which the group
 * holds from BEGIN to COMMIT. A group stops taking works after MAX_GROUP_MS, so that it holds
 * that mutex for a bounded time.
 *
 * A work must not wait for another transaction or a read outside its own (`db.kysely`): that
 * would wait for the group it is in. (It already could not: the connection mutex was held by its
 * own transaction before groups existed.)
 */
import { CompiledQuery, type ControlledTransaction, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.js';
import type { Executor, Tx } from './database.js';

/** Works per group: enough to share the pages of a burst of writes, few enough to keep waits short. */
export const MAX_GROUP_SIZE = 64;
/** A group stops taking works once it has run for this long (ms, measured with performance.now). */
const MAX_GROUP_MS = 5;

interface QueuedWork {
  work: (tx: Tx) => Promise<unknown>;
  effects: Array<() => void>;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /** The one connection Kysely's driver hands out (sqlite.ts `openSqlite`); see `executeCompiled`. */
  connection: DatabaseConnection;
  /** Registers the after-commit effects list of a work's transaction (Db.afterCommit reads it). */
  bindEffects(tx: Tx, effects: Array<() => void>): void;
}

/** The connection of each work's transaction, while its work runs (see `executeCompiled`). */
const runningWorks = new WeakMap<Executor, DatabaseConnection>();

/**
 * Runs a compiled query in `exec`. In the transaction of a group's work that is running, it runs
 * straight on the connection: the group holds Kysely's connection mutex from BEGIN to COMMIT and
 * runs one work at a time, and SQLite answers synchronously, so nothing else can use the
 * connection meanwhile, and Kysely's path adds nothing but cost (its transaction executor builds a
 * new executor and chains six promises per statement: 1.9 µs against 0.8 µs for `select 1`,
 * about 10 µs of a book transfer's 12 statements). Anywhere else, and in a work's transaction
 * once its work is over, through Kysely as before (its checks apply).
 */
export async function executeCompiled<R>(exec: Executor, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const connection = runningWorks.get(exec);
  return connection === undefined ? exec.executeQuery(query) : connection.executeQuery<R>(query);
}

export class GroupCommitter {
  readonly #kysely: Kysely<Database>;
  readonly #options: GroupCommitOptions;
  readonly #queue: QueuedWork[] = [];
  #running = false;

  constructor(kysely: Kysely<Database>, options: GroupCommitOptions) {
    this.#kysely = kysely;
    this.#options = options;
  }

  /** Runs `work` in a transaction shared with the works queued beside it; resolves once it committed. */
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, effects: [], resolve: resolve as (result: unknown) => void, reject });
      if (!this.#running) this.#schedule();
    });
  }

  #schedule(): void {
    this.#running = true;
    setImmediate(() => void this.#drain());
  }

  /**
   * Runs groups until the queue is empty. A group runs to its end without yielding to I/O (SQLite
   * answers synchronously): the works of a group are the ones queued before it starts, so each
   * group starts from `setImmediate`, after the event loop has read the requests that are ready.
   */
  async #drain(): Promise<void> {
    try {
      for (;;) {
        await this.#runGroup();
        if (this.#queue.length === 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      // Whatever happened, queued works are never left without a runner.
      this.#running = false;
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  /**
   * Opens the group's transaction; undefined when it could not (the waiting works told). BEGIN
   * itself keeps trying while another process holds the write lock (sqlite.ts).
   */
  async #begin(waiting: readonly QueuedWork[]) {
    try {
      return await this.#kysely.startTransaction().execute();
    } catch (error) {
      for (const queued of waiting) queued.reject(error);
      return undefined;
    }
  }

  async #runGroup(): Promise<void> {
    // The first work waits for BEGIN; the others are taken as the group runs.
    const first = this.#queue.splice(0, 1);
    const group = await this.#begin(first);
    if (group === undefined) return;
    const committed: Array<{ queued: QueuedWork; result: unknown }> = [];
    const startedMs = performance.now();
    let taken = 0;
    try {
      for (let next = first[0]; next !== undefined; next = this.#takeNext(taken, startedMs)) {
        taken++;
        const result = await this.#runInSavepoint(group, next);
        if (result !== FAILED) committed.push({ queued: next, result: result.value });
      }
      await group.commit().execute();
    } catch (error) {
      // The group's own statements failed (COMMIT, or a savepoint): nothing of it was written.
      await group.rollback().execute().catch(() => undefined);
      for (const { queued } of committed) queued.reject(error);
      return;
    }
    for (const { queued, result } of committed) {
      for (const effect of queued.effects) effect();
      queued.resolve(result);
    }
  }

  /** The next queued work, unless the group already ran `taken` works or MAX_GROUP_MS. */
  #takeNext(taken: number, startedMs: number): QueuedWork | undefined {
    if (taken >= MAX_GROUP_SIZE || performance.now() - startedMs >= MAX_GROUP_MS) return undefined;
    return this.#queue.shift();
  }

  /**
   * Runs one work in a savepoint: its result, or FAILED once it was rolled back and its caller
   * told. Throws (its caller told) when a savepoint statement itself fails: the group is then lost.
   */
  async #runInSavepoint(group: ControlledTransaction<Database>, queued: QueuedWork): Promise<{ value: unknown } | typeof FAILED> {
    const { connection } = this.#options;
    await tellOnFailure(queued, () => connection.executeQuery(SAVEPOINT));
    const tx = group.withoutPlugins();
    this.#options.bindEffects(tx, queued.effects);
    let value: unknown;
    try {
      value = await runWork(queued, tx, connection);
    } catch (error) {
      queued.reject(error);
      await connection.executeQuery(ROLLBACK_TO_SAVEPOINT);
      await connection.executeQuery(RELEASE_SAVEPOINT);
      return FAILED;
    }
    await tellOnFailure(queued, () => connection.executeQuery(RELEASE_SAVEPOINT));
    return { value };
  }
}

const FAILED = Symbol('failed');

/** Runs a work; its transaction's statements run straight on the connection meanwhile (`executeCompiled`). */
async function runWork(queued: QueuedWork, tx: Tx, connection: DatabaseConnection): Promise<unknown> {
  runningWorks.set(tx, connection);
  try {
    return await queued.work(tx);
  } finally {
    runningWorks.delete(tx);
  }
}

/**
 * A work's savepoint statements, the SQL Kysely's `savepoint('work')`, `rollbackToSavepoint` and
 * `releaseSavepoint` send, compiled once: those build two ControlledTransactions and compile the
 * command on every call (~7 µs a work, a few per cent of a book transfer). They run on the
 * connection the group's transaction holds (see `executeCompiled`).
 */
const SAVEPOINT = CompiledQuery.raw('savepoint "work"');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('rollback to "work"');
const RELEASE_SAVEPOINT = CompiledQuery.raw('release "work"');

/** Runs `step`; if it throws, the work's caller gets the error too (the group then fails as a whole). */
async function tellOnFailure<T>(queued: QueuedWork, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    queued.reject(error);
    throw error;
  }
}
