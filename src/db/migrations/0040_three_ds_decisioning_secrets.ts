/**
 * `three_ds_decisioning_secrets`: each program's 3DS Decisioning HMAC secret (SDK 0.119's
 * `threeDS.decisioning.retrieveSecret` / `rotateSecret`), encrypted at rest. One row per program,
 * made by the first retrieval or rotation and replaced by each rotation.
 */
import type { Kysely } from 'kysely';
import { clusteredOnPrimaryKey } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('three_ds_decisioning_secrets')
    .addColumn('program_id', 'text', (c) => c.primaryKey())
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
}
