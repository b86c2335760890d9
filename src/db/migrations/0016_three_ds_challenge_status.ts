/**
 * `three_ds_authentications.challenge_status`: the state of the challenge an authentication
 * triggered (SDK 0.119's challenge_metadata.status), null when none was. A challenge stays shown
 * once resolved (POST /v1/three_ds_decisioning/challenge_response, …/simulate/enter_otp), so it can
 * no longer be read from `authentication_result`; the ones pending so far are PENDING.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('three_ds_authentications').addColumn('challenge_status', 'text').execute();
  await sql`update three_ds_authentications set challenge_status = 'PENDING' where authentication_result = 'PENDING_CHALLENGE'`.execute(db);
}
