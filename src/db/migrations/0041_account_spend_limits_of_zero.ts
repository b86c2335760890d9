/**
 * Account spend limits of 0. A daily or monthly limit of 0 used to be no limit, stored as null; it is
 * now a limit of 0 that declines every debit (SDK 0.119 AccountUpdateParams: only the lifetime limit
 * treats 0 as "effectively no limit", which "differs from the daily spend limit and the monthly spend
 * limit"), so a daily or monthly "no limit" can no longer be expressed. Accounts without one get the
 * default of a new account (accounts/spend.ts `DEFAULT_ACCOUNT_SPEND_LIMITS`): $5,000, as an account
 * made today starts with; the value is written here, not imported, so that this migration keeps
 * doing what it did whatever the default becomes. A lifetime limit of null stays no limit.
 *
 * Why not 0 (what the API showed for them) or the largest amount: 0 would decline every card of every
 * such account at once, and the largest amount would keep a "no limit" the API can no longer set nor
 * show truthfully; the default is what these accounts would have had were they created now.
 */
import { sql, type Kysely } from 'kysely';

const DEFAULT_LIMIT_CENTS = 500_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE accounts SET daily_spend_limit_cents = ${sql.lit(DEFAULT_LIMIT_CENTS)} WHERE daily_spend_limit_cents IS NULL`.execute(db);
  await sql`UPDATE accounts SET monthly_spend_limit_cents = ${sql.lit(DEFAULT_LIMIT_CENTS)} WHERE monthly_spend_limit_cents IS NULL`.execute(db);
}
