/**
 * `card_spend_hours`: approved spend per card or account and UTC hour of the transactions'
 * creation, beside the day buckets of `card_spend_days`. A window that a day bucket cannot start
 * or end (the trailing 24 hours of an account's daily limit, a velocity rule's trailing period)
 * then reads hour buckets up to the next day instead of every transaction of the day it cuts:
 * only the part of an hour the window cuts is summed row by row, however busy the card or account.
 *
 * Filled from the transactions already stored, by the same rule as the day buckets: each
 * transaction's `spend_cents` and `counts_as_spend`, by card and by account.
 */
import { sql, type Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

const MS_PER_HOUR = 3_600_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('card_spend_hours')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('scope_token', 'text', (c) => c.notNull())
    .addColumn('hour_start_ms', 'bigint', (c) => c.notNull())
    .addColumn('spent_cents', 'bigint', (c) => c.notNull())
    .addColumn('approved_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_spend_hours_pk', ['program_id', 'scope_token', 'hour_start_ms'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  for (const scopeColumn of ['card_token', 'account_token']) {
    const hourStart = sql`(created_ms - (created_ms % ${sql.lit(MS_PER_HOUR)}))`;
    await sql`INSERT INTO card_spend_hours (program_id, scope_token, hour_start_ms, spent_cents, approved_count)
      SELECT program_id, ${sql.ref(scopeColumn)}, ${hourStart}, sum(spend_cents), sum(counts_as_spend)
      FROM card_transactions
      GROUP BY program_id, ${sql.ref(scopeColumn)}, ${hourStart}`.execute(db);
  }
}
