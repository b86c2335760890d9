/**
 * `card_transactions_declined_by_financial_account` `(program_id, financial_account_token,
 * created_ms, token)`, of the DECLINED card transactions only: a financial account's financial
 * transactions show the card transactions declined on it (they wrote no ledger entries to find them
 * by), read as one range of this index. Partial, so that only a decline writes it (an approved
 * authorization, the hot path, writes no more B-trees than before; a decline is final, so no row
 * ever leaves it), with its predicate written with a literal, as the query states it (SQLite uses
 * a partial index only then).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX card_transactions_declined_by_financial_account ON card_transactions (program_id, financial_account_token, created_ms, token)
    WHERE status = 'DECLINED'`.execute(db);
}
