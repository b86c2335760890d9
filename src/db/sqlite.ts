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
 */
import fs from 'node:fs';
import path from 'node:path';
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

export function openSqlite(filename: string): { dialect: Dialect } {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const database = new BetterSqlite3(filename);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  return { dialect: new ImmediateTransactionDialect(withStatementCache(database)) };
}

export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export function isSqliteUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
