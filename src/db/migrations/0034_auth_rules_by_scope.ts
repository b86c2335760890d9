/**
 * `auth_rules_by_scope` `(program_id, scope, created_ms, token)` and `auth_rules_by_stream`
 * `(program_id, event_stream, created_ms, token)`: GET /v2/auth_rules?scope=… and ?event_stream=…
 * each read one range of theirs, newest first, instead of walking every rule of the program in
 * creation order (`auth_rules_by_created`) for those of the scope or stream: listing a program's
 * few program-level (or 3-D Secure) rules read all its card-level (or authorization) ones. Rules
 * are created rarely and change scope more rarely still, so two more B-trees written then cost
 * little; the evaluator's hot path only reads rules.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('auth_rules_by_scope').on('auth_rules').columns(['program_id', 'scope', 'created_ms', 'token']).execute();
  await db.schema.createIndex('auth_rules_by_stream').on('auth_rules').columns(['program_id', 'event_stream', 'created_ms', 'token']).execute();
}
