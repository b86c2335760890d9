/**
 * `event_attempts_by_subscription_status` `(program_id, subscription_token, status, created_ms,
 * token)`: GET /v1/event_subscriptions/{token}/attempts?status=… reads one range of it, newest
 * first, instead of walking every attempt the subscription ever made (`event_attempts_by_subscription`)
 * for those of the status: a subscription's few FAILED or PENDING attempts among its many
 * successes read its whole history (PostgreSQL gathered them by bitmap and sorted them). Attempts
 * are written by the dispatcher (and queued with the events a program's subscriptions take), not
 * by the authorization or transfer paths when no subscription is configured; a status change moves
 * the attempt within this index.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('event_attempts_by_subscription_status')
    .on('event_attempts')
    .columns(['program_id', 'subscription_token', 'status', 'created_ms', 'token'])
    .execute();
}
