/**
 * An account's ledger entries in time order. `ledger_entries_by_account` was (program_id,
 * ledger_account, bucket): a balance as of a time, or right after an event, read every entry the
 * account ever had, and fetched each from the table. It becomes (program_id, ledger_account,
 * created_ms, bucket, amount_cents, event_token): the sums until a time are a range of the index
 * alone, the last journal until a time a seek backwards from it, and the journal of an event a
 * backward walk of the index alone from the newest entry. Still one secondary index per entry.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_entries_by_account').execute();
  await db.schema
    .createIndex('ledger_entries_by_account_time')
    .on('ledger_entries')
    .columns(['program_id', 'ledger_account', 'created_ms', 'bucket', 'amount_cents', 'event_token'])
    .execute();
}
