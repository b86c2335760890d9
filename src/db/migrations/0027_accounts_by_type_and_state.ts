/**
 * The `type` filter of financial accounts (their list and `GET /v1/balances`) and the array filters
 * of external bank accounts (`account_types`, `countries`, `states`, `verification_states`) walked
 * the program's `*_by_created` index (or primary key) and dropped the rows that did not match: one
 * RESERVE account among 100k ISSUING ones read them all, and so did `states=CLOSED`, which nothing
 * matches. Each filter gets `(program_id, column, created_ms, token)`: its page is a range of the
 * index in list order, one range per value asked for (`anyOf`).
 *
 * No index for `owner_types` (not asked for: a condition on the rows another filter finds), nor
 * for `type` beside an account (an account's few financial accounts are found by
 * `financial_accounts_by_account`, the type checked on them).
 */
import type { Kysely } from 'kysely';

const INDEXES = [
  ['financial_accounts', 'type'],
  ['external_bank_accounts', 'type'],
  ['external_bank_accounts', 'country'],
  ['external_bank_accounts', 'state'],
  ['external_bank_accounts', 'verification_state'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of INDEXES) {
    await db.schema.createIndex(`${table}_by_${column}`).on(table).columns(['program_id', column, 'created_ms', 'token']).execute();
  }
}
