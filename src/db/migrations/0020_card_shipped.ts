/**
 * `cards.shipped_ms`: when the daily fulfilment batch sent a PHYSICAL card (null until then, and
 * for other types). Shipping used to be read from the state alone (PENDING_FULFILLMENT until
 * sent), so a card a client opened or paused before the batch was never sent. Now the batch sends
 * every unsent PHYSICAL card that is not CLOSED, and moves only a PENDING_FULFILLMENT one on to
 * PENDING_ACTIVATION. Cards that had already left PENDING_FULFILLMENT count as sent (when, this
 * database cannot tell: their last change), so that upgrading ships nothing twice.
 *
 * The partial index holds just the cards still to send; its predicate is the batch's WHERE, with
 * literals (SQLite uses a partial index only when the query states its terms as written).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cards').addColumn('shipped_ms', 'bigint').execute();
  await sql`UPDATE cards SET shipped_ms = updated_ms WHERE type = 'PHYSICAL' AND state <> 'PENDING_FULFILLMENT'`.execute(db);
  await sql`CREATE INDEX cards_to_ship ON cards (program_id, created_ms, token)
    WHERE type = 'PHYSICAL' AND shipped_ms IS NULL AND state <> 'CLOSED'`.execute(db);
}
