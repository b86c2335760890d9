/**
 * The DECLINED book transfers, management operations and external payments of a financial account,
 * each one range of a partial index `(program_id, <account>, created_ms, token) WHERE status =
 * 'DECLINED'`, as migration 0033 gave the declined card transactions: a financial account's financial
 * transactions merge them into its pages (financial_accounts/financial_transactions.ts). Before, a
 * chunk of them was a walk: of the account's transfers or operations or payments of every status
 * (its list index, all approved but a few), or of the program's declines from every account (the
 * status index), whichever the planner took; a LIMIT over either read until it had found enough
 * declines or run out.
 *
 * Partial, so that only a decline writes them: an approved movement, the hot path, writes no more
 * B-trees than before, and a decline is final (no row ever leaves them). Their predicate is written
 * with a literal, as the queries state it (SQLite uses a partial index only then). A book transfer
 * is declined on the account it would have taken money from.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX book_transfers_declined_by_from_financial_account ON book_transfers (program_id, from_financial_account_token, created_ms, token)
    WHERE status = 'DECLINED'`.execute(db);
  await sql`CREATE INDEX management_operations_declined_by_financial_account ON management_operations (program_id, financial_account_token, created_ms, token)
    WHERE status = 'DECLINED'`.execute(db);
  await sql`CREATE INDEX external_payments_declined_by_financial_account ON external_payments (program_id, financial_account_token, created_ms, token)
    WHERE status = 'DECLINED'`.execute(db);
}
