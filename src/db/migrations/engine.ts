import { PostgresAdapter, type Kysely } from 'kysely';
import type { Engine } from '../database.js';

/** The engine a migration runs on, for the rare statement that differs between them. */
export function engineOf(db: Kysely<unknown>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
