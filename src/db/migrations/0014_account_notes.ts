/**
 * `accounts.substatus`, `comment`, `verification_address` (JSON): what PATCH /v1/accounts sets
 * (SDK 0.119's AccountUpdateParams); null until set.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['substatus', 'comment', 'verification_address']) {
    await db.schema.alterTable('accounts').addColumn(column, 'text').execute();
  }
}
