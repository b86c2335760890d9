/**
 * The beneficial-owner reasons of an enrollment review are simulation input only (spec 2.3): a
 * review takes them but a holder does not carry them (account_holders/verification.ts). Holders
 * reviewed before that was so carry them as given; this removes them from their `status_reasons`.
 * Events already sent keep what they said.
 */
import { sql, type Kysely } from 'kysely';

const INPUT_ONLY_PREFIX = 'BENEFICIAL_OWNER_INDIVIDUAL_';

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ program_id: string; token: string; status_reasons: string }>`
    SELECT program_id, token, status_reasons FROM account_holders WHERE status_reasons LIKE ${`%${INPUT_ONLY_PREFIX}%`}`.execute(db);
  for (const row of rows) {
    const reasons = (JSON.parse(row.status_reasons) as string[]).filter((reason) => !reason.startsWith(INPUT_ONLY_PREFIX));
    await sql`UPDATE account_holders SET status_reasons = ${JSON.stringify(reasons)}
      WHERE program_id = ${row.program_id} AND token = ${row.token}`.execute(db);
  }
}
