/**
 * `programs.clock_moved_wall_ms`: the wall time (ms) at which the program's clock was last moved
 * (0: never). Every server reads it with the program's clock, so that one that did not make the
 * move also knows it happened just now and, for a few seconds, trusts none of the program's
 * horizons (db/horizons.ts `noteClockMove`).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('programs').addColumn('clock_moved_wall_ms', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}
