/**
 * Events and their delivery (reference 08, "Events and webhooks"):
 *
 * - `events`: what happened to a program's resources, one immutable row per event, written in the
 *   same database transaction as the change it reports. `payload` is the JSON the event carries.
 * - `event_subscriptions`: where a program wants its events POSTed (`url`), which types
 *   (`event_types`, a JSON array, null for all), and the signing secret (encrypted at rest; the
 *   previous one stays valid until `previous_secret_until_ms` after a rotation).
 * - `event_attempts`: each try to deliver one event to one subscription (the SDK's MessageAttempt).
 *   A PENDING attempt is due at `due_wall_ms` (wall time: a delivery happens in the real world);
 *   the dispatcher leases it while it is SENDING (`lease_owner`; the lease ends at `due_wall_ms`).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pk', ['program_id', 'token'])
    .execute();
  await db.schema.createIndex('events_by_created').on('events').columns(['program_id', 'created_ms', 'token']).execute();
  await db.schema.createIndex('events_by_type').on('events').columns(['program_id', 'event_type', 'created_ms', 'token']).execute();

  await db.schema
    .createTable('event_subscriptions')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull())
    .addColumn('event_types', 'text')
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('previous_secret_encrypted', 'text')
    .addColumn('previous_secret_until_ms', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_subscriptions_pk', ['program_id', 'token'])
    .execute();
  await db.schema.createIndex('event_subscriptions_by_created').on('event_subscriptions').columns(['program_id', 'created_ms', 'token']).execute();

  await db.schema
    .createTable('event_attempts')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('event_token', 'text', (c) => c.notNull())
    .addColumn('subscription_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('response_status_code', 'integer', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('due_wall_ms', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_attempts_pk', ['program_id', 'token'])
    .execute();
  await db.schema.createIndex('event_attempts_by_event').on('event_attempts').columns(['program_id', 'event_token', 'created_ms', 'token']).execute();
  await db.schema
    .createIndex('event_attempts_by_subscription')
    .on('event_attempts')
    .columns(['program_id', 'subscription_token', 'created_ms', 'token'])
    .execute();
  await db.schema.createIndex('event_attempts_due').on('event_attempts').columns(['status', 'due_wall_ms']).execute();
}
