/**
 * `example_events`: the example events `POST /v1/simulate/event_subscriptions/{token}/send_example`
 * sends. They are not events of the program (nothing happened), so they stay out of `events` and
 * of `GET /v1/events`; they are kept, with the same columns, because their delivery attempts are
 * real attempts: listed, retried and resent like any other, so the dispatcher needs their body.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('example_events')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('example_events_pk', ['program_id', 'token'])
    .execute();
}
