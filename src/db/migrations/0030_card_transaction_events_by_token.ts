/**
 * `card_transaction_events_by_token` `(program_id, token, created_ms)`: a card transaction event
 * found by its own token, not only through its transaction. The balance right after a card event
 * that moved no money (`last_transaction_event_token` of a declined authorization, a balance
 * inquiry, an event of $0) has no ledger entry to date it: it is the event's own time, read here.
 * `created_ms` makes the index cover the read (on SQLite it also carries the primary key, so the
 * event's transaction): without it SQLite, planning without statistics, walks the program's events
 * by primary key instead.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('card_transaction_events_by_token').on('card_transaction_events').columns(['program_id', 'token', 'created_ms']).execute();
}
