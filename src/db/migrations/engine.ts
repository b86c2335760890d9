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

/** Ledger invariant 3: entries are append-only. The database enforces it, not only the code. */
export async function forbidUpdateAndDelete(db: Kysely<unknown>, table: string): Promise<void> {
  const message = `${table} is append-only`;
  if (engineOf(db) === 'postgres') {
    await sql`CREATE FUNCTION ${sql.raw(`${table}_append_only`)}() RETURNS trigger LANGUAGE plpgsql AS ${sql.lit(
      `BEGIN RAISE EXCEPTION '${message}'; END;`,
    )}`.execute(db);
    await sql`CREATE TRIGGER ${sql.raw(`${table}_append_only`)} BEFORE UPDATE OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION ${sql.raw(`${table}_append_only`)}()`.execute(db);
    return;
  }
  for (const operation of ['UPDATE', 'DELETE']) {
    await sql`CREATE TRIGGER ${sql.raw(`${table}_no_${operation.toLowerCase()}`)} BEFORE ${sql.raw(operation)} ON ${sql.table(table)}
      BEGIN SELECT RAISE(ABORT, ${sql.lit(message)}); END`.execute(db);
  }
}
