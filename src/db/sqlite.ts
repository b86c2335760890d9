/**
 * SQLite adapter (better-sqlite3), the embedded default.
 *
 * - WAL journal with `synchronous = NORMAL`: a committed transaction survives a crash or `kill -9`
 *   of the process (the WAL is in the OS before commit returns); only an OS crash or power loss can
 *   lose the last transactions. Use PostgreSQL when that matters.
 * - One connection, so transactions in this process are serialized (Kysely holds a mutex for the
 *   length of a transaction). Transactions start with `BEGIN IMMEDIATE`, taking the write lock up
 *   front so that another process (the CLI, a second server) can never make a transaction fail
 *   half-way on lock upgrade. While another process holds the write lock, BEGIN is tried again
 *   and again for up to WRITE_LOCK_WAIT_MS, each try waiting at most BUSY_WAIT_MS inside SQLite:
 *   that wait blocks the event loop, so it is kept short, and the waits between tries do not.
 *   (With SQLite's own 5 s busy wait, every request, timer and signal of the process waited
 *   seconds at a time behind another process's transaction.) Past WRITE_LOCK_WAIT_MS the
 *   transaction fails busy, a 503.
 * - Statements are prepared once and rows built cheaply (sqlite-connection.ts).
 * - Write transactions that arrive together share one SQLite transaction and its COMMIT
 *   (group-commit.ts), each in a savepoint (`temp_store = MEMORY` keeps their rollback pages in memory).
 * - Checkpoints (copying the WAL into the database file, with its fsync) run in a worker thread
 *   with its own connection, every CHECKPOINT_INTERVAL_MS, in PASSIVE mode (they never block a
 *   writer). Left to SQLite, a checkpoint runs inside whichever COMMIT crosses the WAL threshold,
 *   on the one thread that serves every request: each one stalled all requests for its length.
 * - The WAL is restarted (written again from its start) only by a write transaction that begins
 *   when every frame has been checkpointed. Under a steady write load a checkpoint running beside
 *   the writer never catches up, so the WAL would grow without end (about 1 GB a minute under
 *   book-transfer load), and every COMMIT would extend the file, which costs ~3× an overwrite.
 *   So once the worker reports a WAL of WAL_RESTART_FRAMES or more, the next transaction to
 *   begin first waits (a few milliseconds, mostly the fsync of what was written since the last
 *   checkpoint) while the worker checkpoints the frames left, with no writer running: that
 *   transaction's first write restarts the WAL. Under steady load that is about twice a second.
 * - One process owns the checkpoints: the server. Other connections (CLI commands, the benchmark's
 *   seeding) open without a worker (`enabled: false`): two workers checkpointing one file make each
 *   other's catch-up fail (retried for CATCH_UP_BUDGET_MS), and the WAL would grow again.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect } from 'kysely';
import { SqliteConnection } from './sqlite-connection.js';

class ImmediateTransactionDriver extends SqliteDriver {
  readonly #checkpointer: Checkpointer | undefined;
  readonly #connection: SqliteConnection;
  constructor(connection: SqliteConnection, database: BetterSqlite3.Database, checkpointer: Checkpointer | undefined) {
    super({ database });
    this.#checkpointer = checkpointer;
    this.#connection = connection;
  }
  override async acquireConnection(): Promise<DatabaseConnection> {
    await super.acquireConnection(); // Kysely's mutex: one user of the connection at a time
    return this.#connection;
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Kysely holds this connection's mutex here: no statement of this process runs meanwhile.
    const catchUp = this.#checkpointer?.catchUpIfDue();
    if (catchUp) await catchUp;
    const startedMs = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
        return;
      } catch (error) {
        if (!isSqliteBusy(error) || performance.now() - startedMs >= WRITE_LOCK_WAIT_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(WRITE_LOCK_RETRY_MAX_MS, 2 ** attempt)));
      }
    }
  }
}

/** How long one try at the write lock may wait inside SQLite (`busy_timeout`), blocking the event loop. */
const BUSY_WAIT_MS = 20;
/** How long a transaction keeps trying to take the write lock that another process holds, before it fails busy. */
export const WRITE_LOCK_WAIT_MS = 30_000;
/** The longest pause between two tries (they start 2 ms apart and double). */
const WRITE_LOCK_RETRY_MAX_MS = 100;

/**
 * SQLite's DDL is transactional, though Kysely's adapter says not: told so, the migrator runs all
 * pending migrations in one transaction. A migration that fails, or a process killed during one,
 * then leaves nothing half-applied (it left tables no later start could create again), and the
 * transaction's BEGIN IMMEDIATE is the migration lock across processes (Kysely takes none on
 * SQLite): of two servers starting on a fresh file, the second waits, then finds nothing to do.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateTransactionDialect extends SqliteDialect {
  readonly #connection: SqliteConnection;
  readonly #database: BetterSqlite3.Database;
  readonly #checkpointer: Checkpointer | undefined;
  constructor(connection: SqliteConnection, database: BetterSqlite3.Database, checkpointer: Checkpointer | undefined) {
    super({ database });
    this.#connection = connection;
    this.#database = database;
    this.#checkpointer = checkpointer;
  }
  override createDriver() {
    return new ImmediateTransactionDriver(this.#connection, this.#database, this.#checkpointer);
  }
  override createAdapter() {
    return new TransactionalDdlAdapter();
  }
}

const CHECKPOINT_INTERVAL_MS = 200;
/** 16,384 frames: 64 MiB of 4 KiB pages. */
const WAL_RESTART_FRAMES = 16_384;
/** How long the worker keeps retrying a catch-up that another connection's checkpoint or reader holds up. */
const CATCH_UP_BUDGET_MS = 50;
/** A catch-up that takes longer than this (a worker gone wrong) no longer holds writers back. */
const CATCH_UP_TIMEOUT_MS = 1_000;

/** Worker → main thread. */
type CheckpointerMessage = { kind: 'wal-long' } | { kind: 'caught-up' } | { kind: 'error'; message: string };

/**
 * The worker's code (CommonJS, evaluated): it loads better-sqlite3 from the path the main thread
 * resolved. `wal_checkpoint` answers [{ busy, log, checkpointed }], in frames; a checkpoint that
 * another connection's checkpoint holds up answers busy, one held up by a reader checkpoints less
 * than the log.
 */
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.filename);
db.pragma('busy_timeout = 5000');
function checkpoint() {
  try {
    return db.pragma('wal_checkpoint(PASSIVE)')[0];
  } catch (error) {
    parentPort.postMessage({ kind: 'error', message: String(error) });
    return { busy: 0, log: 0, checkpointed: 0 };
  }
}
const timer = setInterval(() => {
  const { log } = checkpoint();
  if (log >= workerData.restartFrames) parentPort.postMessage({ kind: 'wal-long' });
}, workerData.intervalMs);
// Another connection's checkpoint (another process's worker) makes ours return at once: retry.
const pause = new Int32Array(new SharedArrayBuffer(4));
function catchUp() {
  const deadline = performance.now() + workerData.catchUpBudgetMs; // monotonic: a budget, not a time of day
  for (;;) {
    const result = checkpoint();
    if ((result.busy === 0 && result.checkpointed === result.log) || performance.now() >= deadline) return result;
    Atomics.wait(pause, 0, 0, 1);
  }
}
parentPort.on('message', (message) => {
  if (message === 'catch-up') {
    catchUp();
    parentPort.postMessage({ kind: 'caught-up' });
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /**
   * When the worker has reported a long WAL: a promise that resolves once it has checkpointed
   * every frame (call it with no write transaction open). Otherwise undefined, at no cost.
   */
  catchUpIfDue(): Promise<void> | undefined;
  /** Stops the worker and closes its connection (before the main connection closes). */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /**
   * false: no worker; SQLite checkpoints inside a COMMIT now and then, as it does by default. For
   * short-lived or auxiliary connections (the CLI, the benchmark's seeding): the server's own
   * worker does the checkpoints, and a second one would keep getting in its way.
   */
  enabled?: boolean;
  intervalMs?: number;
  restartFrames?: number;
  /** Where the worker's errors go (by default, a process warning). */
  onError?: (message: string) => void;
}

/** Where a checkpointer's errors go until the server's logger exists: a process warning. */
export function warnOfCheckpointerError(message: string): void {
  process.emitWarning(`SQLite checkpointer: ${message}`);
}

function startCheckpointer(filename: string, options: CheckpointerOptions, onError: (message: string) => void): Checkpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = {
    filename,
    modulePath,
    intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
    restartFrames: options.restartFrames ?? WAL_RESTART_FRAMES,
    catchUpBudgetMs: CATCH_UP_BUDGET_MS,
  };
  const worker = new Worker(CHECKPOINTER_SOURCE, { eval: true, workerData });
  let walLong = false;
  let running = true;
  let caughtUp: (() => void) | undefined;
  worker.on('message', (message: CheckpointerMessage) => {
    if (message.kind === 'error') onError(message.message);
    else if (message.kind === 'wal-long') walLong = true;
    else caughtUp?.();
  });
  worker.on('error', (error) => onError(String(error)));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(() => {
    running = false;
    caughtUp?.();
  });
  return {
    catchUpIfDue() {
      if (!walLong || !running) return undefined;
      walLong = false;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, CATCH_UP_TIMEOUT_MS);
        function done() {
          clearTimeout(timer);
          caughtUp = undefined;
          resolve();
        }
        caughtUp = done;
        worker.postMessage('catch-up');
      });
    },
    async stop() {
      worker.ref(); // keep the process alive until the worker has closed its connection
      worker.postMessage('stop');
      await exited;
    },
  };
}

/**
 * SQLite's own `lower()` folds ASCII letters only (`lower('CAFÉ')` is `cafÉ`), where PostgreSQL's
 * folds every letter; `containsIgnoringCase` (db/text-search.ts) relies on it matching JavaScript's
 * `toLowerCase`, so the connection's `lower()` is JavaScript's. Like the built-in, it answers text
 * (NULL stays NULL).
 */
function useUnicodeLower(database: BetterSqlite3.Database): void {
  database.function('lower', { deterministic: true }, (value: unknown) => (value === null ? null : String(value).toLowerCase()));
}

/**
 * Opens the database. `connection` is the one connection the dialect's driver hands out (under
 * Kysely's mutex): group commit runs its works' statements on it directly while its transaction
 * holds that mutex (group-commit.ts).
 */
export function openSqlite(
  filename: string,
  checkpoints: CheckpointerOptions = {},
): { dialect: Dialect; connection: DatabaseConnection; checkpointer: Checkpointer | undefined } {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const database = new BetterSqlite3(filename);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
  database.pragma('foreign_keys = ON');
  // Each write runs in a savepoint of a shared transaction (group-commit.ts); the pages a savepoint
  // would need to roll back are kept in memory, not in a temporary file.
  database.pragma('temp_store = MEMORY');
  useUnicodeLower(database);
  let checkpointer: Checkpointer | undefined;
  if (filename !== ':memory:' && checkpoints.enabled !== false) {
    database.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer(path.resolve(filename), checkpoints, checkpoints.onError ?? warnOfCheckpointerError);
  }
  const connection = new SqliteConnection(database);
  return { dialect: new ImmediateTransactionDialect(connection, database, checkpointer), connection, checkpointer };
}

export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export function isSqliteUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
