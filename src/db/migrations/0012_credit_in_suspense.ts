/**
 * `credit_in_suspense` on book transfers and management operations: 1 when the request said
 * `on_closed_account: USE_SUSPENSE` and the account to credit was CLOSED, so the credit is held in
 * the program's suspense ledger account instead (ledger.ts `SystemAccount.SUSPENSE`). Settling a
 * pending operation and reversing either read it, to move the money where the credit really went.
 * Rows written before it never used suspense: 0.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['book_transfers', 'management_operations']) {
    await db.schema.alterTable(table).addColumn('credit_in_suspense', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
}
