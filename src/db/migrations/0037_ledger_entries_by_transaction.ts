/**
 * `ledger_entries_by_transaction` `(program_id, transaction_token, ledger_account, created_ms)`: a
 * transaction's entries on an account. A financial account's financial transactions read every
 * journal the account ever had to show one page; with this index a page finds its transactions
 * walking `ledger_entries_by_account_time` newest first, keeping an entry only where no older entry
 * of its transaction touched the account (a seek here), then reads just those transactions'
 * journals on the account (a seek here each). The transaction leads, so that a read of an account's
 * entries still ranges over `ledger_entries_by_account_time` in time order: led by the account,
 * this index would cover such a read and SQLite, planning without statistics, took it and sorted
 * the account's whole history.
 *
 * Write cost: one more B-tree insert per ledger entry (a book transfer writes two entries, so two
 * inserts more; a card authorization's hold, two); no other statement of a money movement changes.
 * A side table of each transaction's first touch of an account would cost a row (and its index) per
 * transaction and account plus a check on every movement, and the resources' own list indexes
 * cannot say when a transaction first touched the account (a future-dated operation posts on its
 * effective date, a card transaction may first post at a later clearing) nor reach its later
 * journals (a clearing, a reversal). Existing entries are indexed as it is created.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('ledger_entries_by_transaction')
    .on('ledger_entries')
    .columns(['program_id', 'transaction_token', 'ledger_account', 'created_ms'])
    .execute();
}
