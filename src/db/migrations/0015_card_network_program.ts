/**
 * `cards.network_program_token`: the card's network program (SDK 0.119's CardUpdateParams; Visa
 * Account Level Management); null until a PATCH sets it.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cards').addColumn('network_program_token', 'text').execute();
}
