/**
 * Foundation tables: programs and keys, idempotency records, accounts, financial accounts and the
 * ledger. Every resource table carries `program_id` and leads its primary key and indexes with it,
 * so that every query is scoped to one program and served by an index.
 */
import { sql, type Kysely } from 'kysely';
import { clusteredOnPrimaryKey, forbidUpdateAndDelete } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('programs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('clock_offset_ms', 'bigint', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('revoked_ms', 'bigint')
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('lease_expires_ms', 'bigint', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['program_id', 'idempotency_key'])
    .execute();

  await db.schema
    .createTable('accounts')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('account_holder_token', 'text')
    .addColumn('issuing_financial_account_token', 'text', (c) => c.notNull())
    .addColumn('daily_spend_limit_cents', 'bigint')
    .addColumn('monthly_spend_limit_cents', 'bigint')
    .addColumn('lifetime_spend_limit_cents', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('accounts_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await db.schema.createIndex('accounts_by_created').on('accounts').columns(['program_id', 'created_ms', 'token']).execute();

  await db.schema
    .createTable('financial_accounts')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('nickname', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('substatus', 'text')
    .addColumn('is_for_benefit_of', 'integer', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('routing_number', 'text', (c) => c.notNull())
    .addColumn('credit_configuration', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('financial_accounts_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await db.schema
    .createIndex('financial_accounts_by_created')
    .on('financial_accounts')
    .columns(['program_id', 'created_ms', 'token'])
    .execute();
  // Partial: the program's own accounts (no account_token) never need this index.
  await db.schema
    .createIndex('financial_accounts_by_account')
    .on('financial_accounts')
    .columns(['program_id', 'account_token', 'created_ms', 'token'])
    .where(sql.ref('account_token'), 'is not', null)
    .execute();

  await db.schema
    .createTable('journals')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_token', 'text', (c) => c.notNull())
    .addColumn('event_token', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('journals_pk', ['program_id', 'token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await db.schema
    .createIndex('journals_by_transaction')
    .on('journals')
    .columns(['program_id', 'transaction_token'])
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('journal_token', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('ledger_account', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_entries_pk', ['program_id', 'journal_token', 'seq'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await db.schema
    .createIndex('ledger_entries_by_account')
    .on('ledger_entries')
    .columns(['program_id', 'ledger_account', 'bucket'])
    .execute();

  await db.schema
    .createTable('balances')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('financial_account_token', 'text', (c) => c.notNull())
    .addColumn('available_cents', 'bigint', (c) => c.notNull())
    .addColumn('pending_cents', 'bigint', (c) => c.notNull())
    .addColumn('last_transaction_token', 'text')
    .addColumn('last_transaction_event_token', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('balances_pk', ['program_id', 'financial_account_token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await forbidUpdateAndDelete(db, 'ledger_entries');
  await forbidUpdateAndDelete(db, 'journals');
}
