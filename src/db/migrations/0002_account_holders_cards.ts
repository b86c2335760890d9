/**
 * Account holders, card programs and cards. Like every table, each leads its primary key and
 * indexes with `program_id`; list indexes end in `(created_ms, token)` for keyset pagination.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_holders')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text', (c) => c.notNull())
    .addColumn('workflow', 'text', (c) => c.notNull())
    .addColumn('user_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reasons', 'text', (c) => c.notNull())
    .addColumn('verification_created_ms', 'bigint', (c) => c.notNull())
    .addColumn('verification_updated_ms', 'bigint', (c) => c.notNull())
    .addColumn('exemption_type', 'text')
    .addColumn('business_account_token', 'text')
    .addColumn('external_id', 'text')
    .addColumn('email', 'text')
    .addColumn('email_lower', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('legal_business_name', 'text')
    .addColumn('nature_of_business', 'text')
    .addColumn('website_url', 'text')
    .addColumn('tos_timestamp', 'text')
    .addColumn('passed_timestamp', 'text')
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('government_ids_encrypted', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_holders_pk', ['program_id', 'token'])
    .execute();
  const holderIndexes: Array<[string, string[]]> = [
    ['account_holders_by_created', ['program_id', 'created_ms', 'token']],
    ['account_holders_by_external_id', ['program_id', 'external_id', 'created_ms', 'token']],
    ['account_holders_by_email', ['program_id', 'email_lower', 'created_ms', 'token']],
    ['account_holders_by_phone', ['program_id', 'phone_number', 'created_ms', 'token']],
  ];
  for (const [name, columns] of holderIndexes) {
    await db.schema.createIndex(name).on('account_holders').columns(columns).execute();
  }

  await db.schema
    .createTable('card_programs')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('bin', 'text', (c) => c.notNull())
    .addColumn('pan_offset', 'bigint', (c) => c.notNull())
    .addColumn('next_pan_sequence', 'bigint', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_programs_pk', ['program_id', 'token'])
    .execute();
  // One card program per program (its default); created with the program's first card.
  await db.schema.createIndex('card_programs_one_per_program').on('card_programs').column('program_id').unique().execute();

  await db.schema
    .createTable('cards')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text', (c) => c.notNull())
    .addColumn('card_program_token', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('pan_encrypted', 'text', (c) => c.notNull())
    .addColumn('pan_lookup_hash', 'text', (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('cvv_encrypted', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'text', (c) => c.notNull())
    .addColumn('exp_year', 'text', (c) => c.notNull())
    .addColumn('pin_hash', 'text')
    .addColumn('pin_status', 'text', (c) => c.notNull())
    .addColumn('pin_failed_attempts', 'integer', (c) => c.notNull())
    .addColumn('spend_limit_cents', 'bigint', (c) => c.notNull())
    .addColumn('spend_limit_duration', 'text', (c) => c.notNull())
    .addColumn('memo', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('substatus', 'text')
    .addColumn('digital_card_art_token', 'text')
    .addColumn('product_id', 'text')
    .addColumn('replacement_for', 'text')
    .addColumn('shipping', 'text')
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('locked_merchant_acceptor_id', 'text')
    .addColumn('first_approved_ms', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cards_pk', ['program_id', 'token'])
    .execute();
  const cardIndexes: Array<[string, string[]]> = [
    ['cards_by_created', ['program_id', 'created_ms', 'token']],
    ['cards_by_account', ['program_id', 'account_token', 'created_ms', 'token']],
    ['cards_by_state', ['program_id', 'state', 'created_ms', 'token']],
  ];
  for (const [name, columns] of cardIndexes) {
    await db.schema.createIndex(name).on('cards').columns(columns).execute();
  }
  // The authorization engine finds a card by its PAN within a program (keyed hash, never the PAN).
  await db.schema.createIndex('cards_by_pan').on('cards').columns(['program_id', 'pan_lookup_hash']).unique().execute();
}
