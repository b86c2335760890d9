/**
 * Auth Rule statistics by outcome. 0005 kept one aggregate row per rule, version and day, so an
 * authorization wrote one row per applicable rule: its cost grew with the number of rules. Now an
 * authorization's whole set of verdicts (which rule versions ran and how each decided) is one
 * *outcome*, stored once; each event adds one to its outcome's per-day counter (one row). The report
 * expands, for one rule, the outcomes it took part in. `auth_rule_daily_stats` had no readers left.
 */
import type { Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('auth_rule_daily_stats').execute();

  await db.schema
    .createTable('auth_rule_outcomes')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('verdicts', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_outcomes_pk', ['program_id', 'hash'])
    .execute();

  await db.schema
    .createTable('auth_rule_outcome_rules')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('rule_token', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_outcome_rules_pk', ['program_id', 'rule_token', 'hash'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();

  await db.schema
    .createTable('auth_rule_outcome_days')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('examples', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_rule_outcome_days_pk', ['program_id', 'hash', 'day', 'shard'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
}
