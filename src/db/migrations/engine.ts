import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** The engine a migration runs on, for the rare statement that differs between them. */
export function engineOf(db: Kysely<unknown>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Ends a CREATE TABLE for a table with a (composite) text primary key and small rows: on SQLite it
 * is stored in its primary-key B-tree (`WITHOUT ROWID`) instead of a rowid B-tree plus a separate
 * primary-key index, one B-tree fewer to write per insert. PostgreSQL is unaffected.
 */
export function clusteredOnPrimaryKey(db: Kysely<unknown>) {
  return engineOf(db) === 'sqlite' ? sql`without rowid` : sql``;
}
