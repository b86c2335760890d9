/**
 * A status (or result) with a category walked one of the two indexes of migration 0026 and dropped
 * the rows the other filter refused: `status=DECLINED&category=TRANSFER` read every DECLINED
 * transfer of the program (or every TRANSFER one) for the few that are both. Each table's
 * `*_by_category` becomes `(program_id, category, status, created_ms, token)`: a category with a
 * status is one range of it in list order, a category with a result (or alone) one range per
 * status it allows, merged (`anyOf`). A swap, not an index more: every write costs what it did.
 */
import type { Kysely } from 'kysely';

const TABLES = ['book_transfers', 'external_payments', 'management_operations'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.dropIndex(`${table}_by_category`).execute();
    await db.schema.createIndex(`${table}_by_category_status`).on(table).columns(['program_id', 'category', 'status', 'created_ms', 'token']).execute();
  }
}
