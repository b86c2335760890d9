/** Idempotency records expire after 24 hours (http/idempotency.ts): the sweep finds them by lease end. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('idempotency_keys_by_lease').on('idempotency_keys').columns(['lease_expires_ms']).execute();
}
