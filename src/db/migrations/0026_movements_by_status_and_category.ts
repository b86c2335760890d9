/**
 * The `status` and `category` filters of the book transfer, external payment and management
 * operation lists walked the program's `*_by_created` index and dropped the rows that did not match,
 * so a rare value (5 DECLINED transfers among 200k) read the whole program. Each table gets
 * `(program_id, status, created_ms, token)` and `(program_id, category, created_ms, token)`: the
 * filtered page is a range of its index in list order, as `card_transactions_by_status` is.
 *
 * Two indexes per table, no more: `result` needs none (result DECLINED is status DECLINED, which is
 * final: the stores filter on status), and a financial account with a status or category uses
 * either index (an account's movements are a part of the program's; no third column pair).
 */
import type { Kysely } from 'kysely';

const TABLES = ['book_transfers', 'external_payments', 'management_operations'] as const;
const FILTERS = ['status', 'category'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    for (const column of FILTERS) {
      await db.schema.createIndex(`${table}_by_${column}`).on(table).columns(['program_id', column, 'created_ms', 'token']).execute();
    }
  }
}
