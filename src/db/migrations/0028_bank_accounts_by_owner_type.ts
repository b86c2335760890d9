/**
 * `owner_types` alone on the external bank account list walked the program's
 * `external_bank_accounts_by_created` index and dropped the rows of other owner types: one BUSINESS
 * account among 100k INDIVIDUAL ones read them all. It gets `(program_id, owner_type, created_ms,
 * token)`, as the other array filters did in 0027: its page is a range of the index in list order,
 * one range per value asked for (`anyOf`).
 */
import type { Kysely } from 'kysely';

const INDEXES = [['external_bank_accounts', 'owner_type']] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of INDEXES) {
    await db.schema.createIndex(`${table}_by_${column}`).on(table).columns(['program_id', column, 'created_ms', 'token']).execute();
  }
}
