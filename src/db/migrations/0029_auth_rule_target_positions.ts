/**
 * `auth_rule_targets.position`: the place of a token in the list the client gave (`card_tokens`,
 * `account_tokens`, `business_account_tokens`, `excluded_card_tokens`, from 0 per list), so that a
 * rule answers its lists in the client's order, as Lithic does, instead of sorted by token. Rows
 * written before it hold 0 and keep their old order (by token).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('auth_rule_targets').addColumn('position', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
