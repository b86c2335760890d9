/**
 * 3DS challenges time out and show the phone the OTP went to.
 *
 * `three_ds_authentications.challenge_phone_number`: the phone number the challenge's SMS OTP was
 * sent to (SDK 0.119's challenge_metadata.phone_number), the card's account holder's when the
 * challenge was issued; null when there was none, and for challenges issued before this migration
 * (to which phone they went is not known).
 *
 * `three_ds_pending_challenges`: the challenges still pending, oldest first, for their clock job
 * (a pending challenge times out a TTL after it was issued). Partial, with its predicate written
 * with a literal, as the queries state it (SQLite uses a partial index only then).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('three_ds_authentications').addColumn('challenge_phone_number', 'text').execute();
  await sql`CREATE INDEX three_ds_pending_challenges ON three_ds_authentications (program_id, created_ms, token)
    WHERE authentication_result = 'PENDING_CHALLENGE'`.execute(db);
}
