/**
 * `auth_rules_by_scope` `(program_id, scope, created_ms, token)`: GET /v2/auth_rules?scope=… reads
 * one range of it, newest first, instead of walking every rule of the program in creation order
 * (`auth_rules_by_created`) for those of the scope: listing a program's few program-level rules
 * read all its card-level ones. Rules are created rarely and change scope more rarely still, so one
 * more B-tree written then costs little; the evaluator's hot path only reads rules.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('auth_rules_by_scope').on('auth_rules').columns(['program_id', 'scope', 'created_ms', 'token']).execute();
}
