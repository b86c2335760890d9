/**
 * The storage entry point: one Kysely query layer over SQLite (default) or PostgreSQL, chosen by
 * `DATABASE_URL`. Everything above this file is engine-agnostic, except the few places that ask
 * `db.engine` for a row lock (`forUpdate`), which SQLite does not need: a SQLite write transaction
 * already holds the database's single write lock.
 *
 * Reads outside a transaction run statement by statement, each seeing what was committed when it
 * ran: a write can commit between two of them. A read of several statements that must agree (a row,
 * then its children) runs them in `snapshot`: on PostgreSQL one `REPEATABLE READ READ ONLY`
 * transaction on a pooled connection (one BEGIN and COMMIT more, no retry: a read-only snapshot
 * never fails to serialize); on SQLite a deferred `BEGIN` on the one connection, which it holds
 * (Kysely's mutex) until the reads are done, so that no write of this process (group commit waits
 * for the mutex) nor of another process (the snapshot is SQLite's) comes between them. A deferred
 * BEGIN takes no lock, and in WAL mode a reader never blocks a writer of another process.
 */
import path from 'node:path';
import { CompiledQuery, Kysely, sql, type SelectQueryBuilder, type Transaction } from 'kysely';
import { ConfigError } from '../config.js';
import { GroupCommitter } from './group-commit.js';
import { DueHorizons } from './horizons.js';
import { isPostgresRetryable, isPostgresUnavailable, isPostgresUniqueViolation, openPostgres, PG_CONNECT_TIMEOUT_MS } from './postgres.js';
import type { Database } from './schema.js';
import { isSqliteBusy, isSqliteUniqueViolation, openSqlite, type CheckpointerOptions } from './sqlite.js';

export type Engine = 'sqlite' | 'postgres';

/** Anything that runs queries: the database itself or an open transaction. */
export type Executor = Kysely<Database>;
export type Tx = Transaction<Database>;

export interface Db {
  readonly engine: Engine;
  readonly kysely: Kysely<Database>;
  /**
   * Runs `work` in one database transaction: all of its writes commit together or none do, and
   * the promise settles once they have. On PostgreSQL a serialization failure or deadlock re-runs
   * `work` from the start, so `work` must have no side effects outside the transaction. On SQLite
   * works arriving together run one after another in one SQLite transaction, each in a savepoint
   * of its own, and share its COMMIT (group-commit.ts).
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `reads` in one snapshot of the database (see the header): each of its statements sees the
   * same committed state. Reads only, through the executor it is given. Never call it from inside
   * `transaction` (on SQLite it would wait for the connection the transaction holds), nor wait in
   * `reads` for a transaction or for `kysely` (they would wait for the snapshot's connection).
   */
  snapshot<T>(reads: (exec: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs `effect` once `tx` (a transaction `transaction` opened) has committed, and never if it
   * rolls back or is retried: for in-process memory of committed facts (`horizons`).
   */
  afterCommit(tx: Tx, effect: () => void): void;
  /** What this process knows cannot fall due before a given program time (see horizons.ts). */
  readonly horizons: DueHorizons;
  /** Adds `FOR UPDATE` on PostgreSQL; a no-op on SQLite (see above). */
  forUpdate<QB extends SelectQueryBuilder<Database, keyof Database, unknown>>(query: QB): QB;
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}

const MAX_TRANSACTION_ATTEMPTS = 8;

/** The effects waiting for each open transaction of any Db (see `afterCommit`). */
const commitEffects = new WeakMap<Tx, Array<() => void>>();
/** The last writes waiting for each open transaction of any Db (see `beforeCommitOf`). */
const commitSteps = new WeakMap<Tx, Array<() => Promise<void>>>();

/**
 * Runs `step` in `tx` once its work is done, just before it commits (a write gathered during the
 * work and made in one statement, e.g. the events of a request: events/emit.ts; or a row lock that
 * must come after all the work's, e.g. an Auth Rules outcome's day counter: auth_rules/evaluator.ts).
 * Returns false, and never runs it, when `tx` is not a transaction `Db.transaction` opened.
 */
export function beforeCommitOf(tx: Tx, step: () => Promise<void>): boolean {
  const steps = commitSteps.get(tx);
  if (steps === undefined) return false;
  steps.push(step);
  return true;
}

/** Runs `work`, then the steps it left for before the commit (see `beforeCommitOf`), in `tx`. */
async function workThenSteps<T>(tx: Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  const steps: Array<() => Promise<void>> = [];
  commitSteps.set(tx, steps);
  const result = await work(tx);
  // A step may leave another (index, not iterator: the list can grow while it runs).
  for (let index = 0; index < steps.length; index++) await (steps[index] as () => Promise<void>)();
  return result;
}

/**
 * `Db.afterCommit` for code that holds a transaction but not its Db (e.g. `emitEvent`): runs
 * `effect` once `tx` committed. Returns false, and never runs it, when `tx` is not a transaction
 * `Db.transaction` opened.
 */
export function afterCommitOf(tx: Tx, effect: () => void): boolean {
  const effects = commitEffects.get(tx);
  if (effects === undefined) return false;
  effects.push(effect);
  return true;
}

export interface DatabaseOptions {
  /** Folder for the default SQLite file. */
  dataDir: string;
  pgPoolSize?: number;
  /** SQLite's background checkpointer: off for auxiliary connections, errors to a logger, shorter intervals in tests. */
  sqliteCheckpoints?: CheckpointerOptions;
}

function describeDatabaseUrl(url: string | undefined, dataDir: string): { engine: Engine; target: string } {
  if (url === undefined) return { engine: 'sqlite', target: path.join(dataDir, 'cardwright.db') };
  if (url.startsWith('sqlite:')) {
    const target = url.slice('sqlite:'.length);
    if (target === '') throw new ConfigError('DATABASE_URL: "sqlite:" needs a path, e.g. sqlite:./data/cardwright.db');
    return { engine: 'sqlite', target };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { engine: 'postgres', target: url };
  throw new ConfigError('DATABASE_URL must start with sqlite: or postgres:// (got an unsupported scheme)');
}

/**
 * Opens the database and checks that it answers (on PostgreSQL: that it can be reached, the
 * credentials and database are right, and its search_path names a schema to work in). Whatever
 * stops it is a ConfigError naming DATABASE_URL (or CARDWRIGHT_DATA_DIR for the default file).
 */
export async function connectDatabase(url: string | undefined, options: DatabaseOptions): Promise<Db> {
  const db = openDatabase(url, options);
  try {
    const { rows } = await sql<{ schema: string | null }>`select ${db.engine === 'postgres' ? sql`current_schema()` : sql`'main'`} as schema`.execute(db.kysely);
    if (!rows[0]?.schema) throw new Error('its search_path names no schema that exists; create the schema or correct search_path');
    return db;
  } catch (error) {
    await db.close().catch(() => undefined);
    const { target } = describeDatabaseUrl(url, options.dataDir);
    const what = db.engine === 'postgres' ? `PostgreSQL at ${describePostgres(target)}` : `the SQLite database ${path.resolve(target)}`;
    throw databaseConfigError(url, `cannot use ${what}`, reasonOf(error));
  }
}

/** A database that cannot be used, named by the variable that chose it: DATABASE_URL, or the data folder of the default file. */
function databaseConfigError(url: string | undefined, what: string, reason: string): ConfigError {
  return new ConfigError(`${url === undefined ? 'CARDWRIGHT_DATA_DIR (DATABASE_URL is unset)' : 'DATABASE_URL'}: ${what}: ${reason}`);
}

/** host:port/database of a PostgreSQL URL, without its user or password. */
function describePostgres(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${decodeURIComponent(parsed.pathname) || '/'}`;
  } catch {
    return 'the configured address';
  }
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/^(timeout expired|timeout exceeded)/.test(message)) return `no answer within ${PG_CONNECT_TIMEOUT_MS / 1000} s`;
  if (/^Connection terminated/.test(message)) {
    return `the connection closed before PostgreSQL answered (no answer within ${PG_CONNECT_TIMEOUT_MS / 1000} s, a server that is not PostgreSQL, or one that refuses this client)`;
  }
  return message || String((error as { code?: unknown }).code);
}

/** The database cannot serve the request now (unreachable, shutting down, busy past every retry): a 503, not a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isPostgresUnavailable(error) || isSqliteBusy(error);
}

export function openDatabase(url: string | undefined, options: DatabaseOptions): Db {
  const { engine, target } = describeDatabaseUrl(url, options.dataDir);
  const sqlite = engine === 'sqlite' ? openSqliteOrExplain(url, target, options.sqliteCheckpoints) : undefined;
  const dialect = sqlite?.dialect ?? openPostgres(target, options.pgPoolSize ?? 10).dialect;
  const kysely = new Kysely<Database>({ dialect });
  const groups = sqlite
    ? new GroupCommitter(kysely, { connection: sqlite.connection, bindEffects: (tx, effects) => commitEffects.set(tx, effects) })
    : undefined;

  return {
    engine,
    kysely,
    horizons: new DueHorizons(),
    async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      // SQLite: one writer; transactions arriving together share a COMMIT (group-commit.ts).
      if (groups) return groups.run((tx) => workThenSteps(tx, work));
      for (let attempt = 1; ; attempt++) {
        const effects: Array<() => void> = [];
        try {
          const result = await kysely.transaction().execute((tx) => {
            commitEffects.set(tx, effects);
            return workThenSteps(tx, work);
          });
          for (const effect of effects) effect();
          return result;
        } catch (error) {
          if (!isPostgresRetryable(error) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    },
    snapshot(reads) {
      if (engine === 'sqlite') return sqliteSnapshot(kysely, reads);
      return kysely.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(reads);
    },
    afterCommit(tx, effect) {
      if (!afterCommitOf(tx, effect)) throw new Error('afterCommit: not a transaction opened by Db.transaction');
    },
    forUpdate(query) {
      return engine === 'postgres' ? (query.forUpdate() as typeof query) : query;
    },
    isUniqueViolation: engine === 'sqlite' ? isSqliteUniqueViolation : isPostgresUniqueViolation,
    async close() {
      await sqlite?.checkpointer?.stop();
      await kysely.destroy();
    },
  };
}

/** Compiled once: a snapshot's statements cost SQLite calls only (sqlite-connection.ts caches their prepared form). */
const BEGIN_READ = CompiledQuery.raw('begin deferred');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/**
 * `Db.snapshot` on SQLite: a deferred read transaction on the one connection, held until `reads`
 * are done. Its COMMIT (or ROLLBACK after a failed read) ends it before the connection is let go.
 */
function sqliteSnapshot<T>(kysely: Kysely<Database>, reads: (exec: Executor) => Promise<T>): Promise<T> {
  return kysely.connection().execute(async (connection) => {
    await connection.executeQuery(BEGIN_READ);
    let result: T;
    try {
      result = await reads(connection);
    } catch (error) {
      await connection.executeQuery(ROLLBACK).catch(() => undefined); // the read's error is the one to tell
      throw error;
    }
    await connection.executeQuery(COMMIT);
    return result;
  });
}

/** openSqlite, with a failure to create its folder or open its file as a ConfigError naming the variable. */
function openSqliteOrExplain(url: string | undefined, target: string, checkpoints: CheckpointerOptions | undefined): ReturnType<typeof openSqlite> {
  try {
    return openSqlite(target, checkpoints);
  } catch (error) {
    throw databaseConfigError(url, `cannot open the SQLite database ${path.resolve(target)}`, error instanceof Error ? error.message : String(error));
  }
}

function backoff(attempt: number): Promise<void> {
  const delayMs = Math.random() * 5 * 2 ** attempt;
  return new Promise((resolve) => setTimeout(resolve, delayMs));
}
