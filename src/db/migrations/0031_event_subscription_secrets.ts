/**
 * `event_subscription_secrets`: the secrets a subscription's rotations retired, each still signing
 * until its own `until_ms` (wall time: 24 hours after the rotation that retired it). Before this
 * migration a subscription held one previous secret (`previous_secret_encrypted`, until
 * `previous_secret_until_ms`), so a second rotation within 24 hours dropped the older one at once.
 * The key cannot collide: two rotations in one millisecond retire two different secrets (each
 * encrypted with its own random nonce). A previous secret held in the old columns is copied here,
 * whether it still signs or not (one that no longer does is deleted by the next rotation, and
 * never signs), and the two columns are dropped.
 */
import { sql, type Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_subscription_secrets')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('subscription_token', 'text', (c) => c.notNull())
    .addColumn('until_ms', 'bigint', (c) => c.notNull())
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_subscription_secrets_pk', ['program_id', 'subscription_token', 'until_ms', 'secret_encrypted'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await sql`insert into event_subscription_secrets (program_id, subscription_token, until_ms, secret_encrypted)
    select program_id, token, previous_secret_until_ms, previous_secret_encrypted from event_subscriptions
    where previous_secret_encrypted is not null and previous_secret_until_ms is not null`.execute(db);
  await db.schema.alterTable('event_subscriptions').dropColumn('previous_secret_encrypted').execute();
  await db.schema.alterTable('event_subscriptions').dropColumn('previous_secret_until_ms').execute();
}
