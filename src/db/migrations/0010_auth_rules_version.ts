/**
 * `programs.rules_version`: a new random value whenever any of the program's Auth Rules or their
 * targets change, set by triggers, so that no write path (nor another process) can forget it. An
 * authorization reads it by primary key and may reuse the rules it found applicable to the card at
 * the same value (auth_rules/evaluator.ts) instead of querying them again. Random rather than a
 * counter: two copies of one database that diverge never show the same value for different rules.
 */
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

const WATCHED_TABLES = ['auth_rules', 'auth_rule_targets'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('programs').addColumn('rules_version', 'text', (c) => c.notNull().defaultTo('')).execute();
  if (engineOf(db) === 'postgres') {
    await sql`CREATE FUNCTION programs_new_rules_version() RETURNS trigger LANGUAGE plpgsql AS ${sql.lit(`BEGIN
      UPDATE programs SET rules_version = md5(random()::text || clock_timestamp()::text)
        WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.program_id ELSE NEW.program_id END;
      RETURN NULL;
    END;`)}`.execute(db);
    for (const table of WATCHED_TABLES) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_new_rules_version`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        FOR EACH ROW EXECUTE FUNCTION programs_new_rules_version()`.execute(db);
    }
    return;
  }
  for (const table of WATCHED_TABLES) {
    for (const [operation, row] of [['INSERT', 'NEW'], ['UPDATE', 'NEW'], ['DELETE', 'OLD']] as const) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_new_rules_version_on_${operation.toLowerCase()}`)} AFTER ${sql.raw(operation)} ON ${sql.table(table)}
        BEGIN UPDATE programs SET rules_version = lower(hex(randomblob(16))) WHERE id = ${sql.raw(row)}.program_id; END`.execute(db);
    }
  }
}
