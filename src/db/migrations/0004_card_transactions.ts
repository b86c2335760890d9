/**
 * Card transactions (the authorization engine's record), their events, the per-day spend buckets
 * that spend limits and velocity sums read, and the program's funds switch.
 *
 * Indexes, all led by `program_id`:
 *  - list indexes ending in `(created_ms, token)` for keyset pages: all, by card, by account, by
 *    status (the `result` filter maps onto status: DECLINED ⟺ result is not APPROVED). A list by
 *    card or account is one range scan of its index whatever the table holds;
 *    The status index also finds the PENDING authorizations old enough to expire (clock job);
 *  - `card_spend_days` is its own index (clustered on its key): one row per card or account and
 *    UTC day of the transactions' creation, so a spend window is a handful of rows.
 */
import type { Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('programs').addColumn('require_funds', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('card_transactions')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text', (c) => c.notNull())
    .addColumn('card_token', 'text', (c) => c.notNull())
    .addColumn('financial_account_token', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('authorization_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('hold_cents', 'bigint', (c) => c.notNull())
    .addColumn('settled_cents', 'bigint', (c) => c.notNull())
    .addColumn('merchant_authorization_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('merchant_currency', 'text', (c) => c.notNull())
    .addColumn('spend_cents', 'bigint', (c) => c.notNull())
    .addColumn('counts_as_spend', 'integer', (c) => c.notNull())
    .addColumn('return_reversed', 'integer', (c) => c.notNull())
    .addColumn('merchant_acceptor_id', 'text', (c) => c.notNull())
    .addColumn('merchant_descriptor', 'text', (c) => c.notNull())
    .addColumn('merchant_mcc', 'text', (c) => c.notNull())
    .addColumn('merchant_city', 'text', (c) => c.notNull())
    .addColumn('merchant_country', 'text', (c) => c.notNull())
    .addColumn('merchant_state', 'text', (c) => c.notNull())
    .addColumn('card_present', 'integer', (c) => c.notNull())
    .addColumn('partial_approval_capable', 'integer', (c) => c.notNull())
    .addColumn('expires_ms', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_transactions_pk', ['program_id', 'token'])
    .execute();
  const listIndexes: Array<[string, string[]]> = [
    ['card_transactions_by_created', ['program_id', 'created_ms', 'token']],
    ['card_transactions_by_card', ['program_id', 'card_token', 'created_ms', 'token']],
    ['card_transactions_by_account', ['program_id', 'account_token', 'created_ms', 'token']],
    ['card_transactions_by_status', ['program_id', 'status', 'created_ms', 'token']],
  ];
  for (const [name, columns] of listIndexes) {
    await db.schema.createIndex(name).on('card_transactions').columns(columns).execute();
  }

  await db.schema
    .createTable('card_transaction_events')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('transaction_token', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('settlement_cents', 'bigint')
    .addColumn('effective_polarity', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('detailed_results', 'text', (c) => c.notNull())
    .addColumn('rule_results', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_transaction_events_pk', ['program_id', 'transaction_token', 'seq'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await db.schema
    .createTable('card_spend_days')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('scope_token', 'text', (c) => c.notNull())
    .addColumn('day_start_ms', 'bigint', (c) => c.notNull())
    .addColumn('spent_cents', 'bigint', (c) => c.notNull())
    .addColumn('approved_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_spend_days_pk', ['program_id', 'scope_token', 'day_start_ms'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
}
