/**
 * SQLite adapter (better-sqlite3), the embedded default.
 *
 * - WAL journal with `synchronous = NORMAL`: a committed transaction survives a crash or `kill -9`
 *   of the process (the WAL is in the OS before commit returns); only an OS crash or power loss can
 *   lose the last transactions. Use PostgreSQL when that matters.
 * - One connection, so transactions in this process are serialized (Kysely holds a mutex for the
 *   length of a transaction). Transactions start with `BEGIN IMMEDIATE`, taking the write lock up
 *   front so that another process (the CLI) can never make a transaction fail half-way on lock
 *   upgrade; `busy_timeout` makes such a writer wait instead of failing.
 * - Prepared statements are cached by SQL text: Kysely prepares on every query otherwise.
 * - Checkpoints (copying the WAL into the database file, with its fsync) run in a worker thread
 *   with its own connection, every CHECKPOINT_INTERVAL_MS, in PASSIVE mode (they never block a
 *   writer). Left to SQLite, a checkpoint runs inside whichever COMMIT crosses the WAL threshold,
 *   on the one thread that serves every request: each one stalled all requests for its length.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect } from 'kysely';

const STATEMENT_CACHE_LIMIT = 2000;

class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateTransactionDialect extends SqliteDialect {
  readonly #database: BetterSqlite3.Database;
  constructor(database: BetterSqlite3.Database) {
    super({ database });
    this.#database = database;
  }
  override createDriver() {
    return new ImmediateTransactionDriver({ database: this.#database });
  }
}

/** A better-sqlite3 database whose `prepare` returns cached statements. */
function withStatementCache(database: BetterSqlite3.Database): BetterSqlite3.Database {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepare = database.prepare.bind(database);
  database.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (cache.size < STATEMENT_CACHE_LIMIT) cache.set(sql, statement);
    }
    return statement;
  }) as typeof database.prepare;
  return database;
}

const CHECKPOINT_INTERVAL_MS = 200;

/** The worker's code (CommonJS, evaluated): it loads better-sqlite3 from the path the main thread resolved. */
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.filename);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage(String(error)); }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /** Stops the worker and closes its connection (before the main connection closes). */
  stop(): Promise<void>;
}

function startCheckpointer(filename: string, onError: (message: string) => void): Checkpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINTER_SOURCE, { eval: true, workerData: { filename, modulePath, intervalMs: CHECKPOINT_INTERVAL_MS } });
  worker.on('message', (message: string) => onError(message));
  worker.on('error', (error) => onError(String(error)));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.ref(); // keep the process alive until the worker has closed its connection
      worker.postMessage('stop');
      await exited;
    },
  };
}

export function openSqlite(filename: string): { dialect: Dialect; checkpointer: Checkpointer | undefined } {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const database = new BetterSqlite3(filename);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  let checkpointer: Checkpointer | undefined;
  if (filename !== ':memory:') {
    database.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer(path.resolve(filename), (message) => process.emitWarning(`SQLite checkpointer: ${message}`));
  }
  return { dialect: new ImmediateTransactionDialect(withStatementCache(database)), checkpointer };
}

export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export function isSqliteUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
