/**
 * `encryption_key_check`: one row holding a check value of the encryption key the database's
 * secrets are written with (an HMAC of a constant under a sub-key, never the key itself), so that a
 * server started with another key refuses to start (crypto/key-check.ts) instead of answering 500
 * on every read of a secret. The row is written at the first start after this migration.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('encryption_key_check')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('check_value', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .execute();
}
