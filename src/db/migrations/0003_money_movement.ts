/**
 * Money movement: external bank accounts, external payments, book transfers, management operations
 * and the events the three ledger transactions carry. Balances and entries stay in the ledger
 * tables of 0001; these tables hold the resources that caused the movements.
 */
import type { Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('external_bank_accounts')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text')
    .addColumn('financial_account_token', 'text')
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('account_number_encrypted', 'text', (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('routing_number', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('verification_attempts', 'integer', (c) => c.notNull())
    .addColumn('verification_method', 'text', (c) => c.notNull())
    .addColumn('verification_state', 'text', (c) => c.notNull())
    .addColumn('verification_failed_reason', 'text')
    .addColumn('micro_deposits_encrypted', 'text')
    .addColumn('prenote_due_ms', 'bigint')
    .addColumn('address', 'text')
    .addColumn('company_id', 'text')
    .addColumn('dob', 'text')
    .addColumn('doing_business_as', 'text')
    .addColumn('name', 'text')
    .addColumn('user_defined_id', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_bank_accounts_pk', ['program_id', 'token'])
    .execute();
  await db.schema
    .createIndex('external_bank_accounts_by_created')
    .on('external_bank_accounts')
    .columns(['program_id', 'created_ms', 'token'])
    .execute();
  await db.schema
    .createIndex('external_bank_accounts_by_account')
    .on('external_bank_accounts')
    .columns(['program_id', 'account_token', 'created_ms', 'token'])
    .execute();
  await db.schema
    .createIndex('external_bank_accounts_prenote_due')
    .on('external_bank_accounts')
    .columns(['program_id', 'verification_state', 'prenote_due_ms'])
    .execute();

  await db.schema
    .createTable('money_events')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('transaction_token', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('detailed_results', 'text', (c) => c.notNull())
    .addColumn('memo', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'text')
    .addColumn('subtype', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('money_events_pk', ['program_id', 'transaction_token', 'seq'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await db.schema
    .createTable('book_transfers')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('subtype', 'text', (c) => c.notNull())
    .addColumn('from_financial_account_token', 'text', (c) => c.notNull())
    .addColumn('to_financial_account_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('pending_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('settled_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_transfers_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await createListIndexes(db, 'book_transfers', ['from_financial_account_token', 'to_financial_account_token']);

  await db.schema
    .createTable('external_payments')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('payment_type', 'text', (c) => c.notNull())
    .addColumn('financial_account_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('is_settled', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('pending_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('settled_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('user_defined_id', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_payments_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await createListIndexes(db, 'external_payments', ['financial_account_token']);

  await db.schema
    .createTable('management_operations')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('subtype', 'text')
    .addColumn('financial_account_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('pending_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('settled_amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('user_defined_id', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('management_operations_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await createListIndexes(db, 'management_operations', ['financial_account_token']);
  await db.schema
    .createIndex('management_operations_due')
    .on('management_operations')
    .columns(['program_id', 'status', 'effective_date'])
    .execute();
}

/** The newest-first list index, and one per financial-account column that lists filter on. */
async function createListIndexes(db: Kysely<unknown>, table: string, accountColumns: string[]): Promise<void> {
  await db.schema.createIndex(`${table}_by_created`).on(table).columns(['program_id', 'created_ms', 'token']).execute();
  for (const column of accountColumns) {
    await db.schema
      .createIndex(`${table}_by_${column.replace('_financial_account_token', '_fa').replace('financial_account_token', 'fa')}`)
      .on(table)
      .columns(['program_id', column, 'created_ms', 'token'])
      .execute();
  }
}
