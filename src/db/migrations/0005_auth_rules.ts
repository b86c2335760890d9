/**
 * Auth Rules v2 and 3DS authentications (see auth_rules/tables.ts and three_ds/tables.ts).
 *
 * The evaluator's one query per authorization starts from `auth_rules_applying` (the program-level
 * rules of a stream and state) and `auth_rule_targets_by_target` (the rules bound to the card or
 * its account); the report reads `auth_rule_daily_stats` by its primary key (rule, day range).
 * Versions, targets and daily statistics are small rows, stored in their primary-key B-tree.
 */
import type { Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_rules')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('event_stream', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('current_version', 'integer')
    .addColumn('draft_version', 'integer')
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rules_pk', ['program_id', 'token'])
    .execute();
  await db.schema.createIndex('auth_rules_by_created').on('auth_rules').columns(['program_id', 'created_ms', 'token']).execute();
  await db.schema
    .createIndex('auth_rules_applying')
    .on('auth_rules')
    .columns(['program_id', 'event_stream', 'state', 'scope', 'created_ms', 'token'])
    .execute();

  await db.schema
    .createTable('auth_rule_versions')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('rule_token', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('draft_from_ms', 'bigint', (c) => c.notNull())
    .addColumn('draft_until_ms', 'bigint')
    .addColumn('current_from_ms', 'bigint')
    .addColumn('current_until_ms', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_versions_pk', ['program_id', 'rule_token', 'version'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await db.schema
    .createTable('auth_rule_targets')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('rule_token', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target_token', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_targets_pk', ['program_id', 'rule_token', 'kind', 'target_token'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await db.schema
    .createIndex('auth_rule_targets_by_target')
    .on('auth_rule_targets')
    .columns(['program_id', 'target_token', 'kind', 'rule_token'])
    .execute();

  await db.schema
    .createTable('auth_rule_daily_stats')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('rule_token', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('approved', 'bigint', (c) => c.notNull())
    .addColumn('challenged', 'bigint', (c) => c.notNull())
    .addColumn('declined', 'bigint', (c) => c.notNull())
    .addColumn('examples', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_daily_stats_pk', ['program_id', 'rule_token', 'day', 'role', 'version', 'shard'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await db.schema
    .createTable('three_ds_authentications')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('card_token', 'text', (c) => c.notNull())
    .addColumn('account_token', 'text', (c) => c.notNull())
    .addColumn('authentication_result', 'text', (c) => c.notNull())
    .addColumn('decision_made_by', 'text', (c) => c.notNull())
    .addColumn('card_expiry_check', 'text', (c) => c.notNull())
    .addColumn('message_category', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('merchant_country', 'text', (c) => c.notNull())
    .addColumn('merchant_mcc', 'text', (c) => c.notNull())
    .addColumn('merchant_name', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('three_ds_authentications_pk', ['program_id', 'token'])
    .execute();
}
