/**
 * Whether an account lets its cards spend, and its spend limits: the account half of the seam the
 * authorization engine calls (the card half is in cards/spend.ts; engine/pipeline.ts composes them).
 *
 * Contract with the engine. For an authorization of `amount_cents` on a card of this account:
 *  1. `accountUsability(account)`: a PAUSED or CLOSED account declines everything; so does
 *     `fundingUsability(status)` when the account's ISSUING financial account (which every card of
 *     the account draws on) cannot move money: CLOSED like a CLOSED account, SUSPENDED or PENDING
 *     like a PAUSED one.
 *  2. `accountSpendWindows(account, nowMs)` gives the start (inclusive, epoch ms, program clock) of
 *     each window; the engine sums the account's approved spend (all its cards, debits net of
 *     reversals, from its transactions table) created at or after each start and up to now.
 *  3. `checkAccountSpendLimits(account, amount_cents, spent)` declines when spent + amount would
 *     exceed a limit, checking daily, then monthly, then lifetime (the first exceeded names the
 *     decline). Credits and zero amounts are never limited.
 *
 * Limits (cents) and windows, all read from the program clock:
 *  - daily: the trailing 24 hours (Lithic: "spent $600 in the last 24 hours");
 *  - monthly: the spec's monthly window (spec 2.7, `monthlyWindowStartMs`);
 *  - lifetime: since the account was created.
 * A daily or monthly limit of 0 is a limit of 0: every debit exceeds it. A lifetime limit of 0 is
 * no limit, stored as null and shown as 0. SDK 0.119 AccountUpdateParams.lifetime_spend_limit: "a
 * spend limit of 0 is effectively no limit ... Only a limit of 1 or above will result in declined
 * transactions due to checks against the account limit. This behavior differs from the daily spend
 * limit and the monthly spend limit." (A card's limit of 0 is no limit, spec 4.7: cards/spend.ts.)
 *
 * A new account's limits (`DEFAULT_ACCOUNT_SPEND_LIMITS`): $5,000 a day, $5,000 a month, no lifetime
 * limit. Monthly: the SDK ("By default the monthly spend limit is set to $5,000"). Daily: reference 02
 * ("Lithic sandbox defaults non-ASA programs to a $5,000 daily limit"), kept on purpose although the
 * SDK's doc comment says "By default the daily spend limit is set to $1,250": the two disagree, and the
 * reference's summary of the sandbox was chosen deliberately.
 *
 * Declines name `result` and `detailed_results` as Lithic's transactions do (reference 03).
 */
import { MS_PER_DAY } from '../clock.js';
import type { AccountsTable } from './tables.js';

export type DeclineResult =
  | 'ACCOUNT_STATE_TRANSACTION_FAIL'
  | 'CARD_CLOSED'
  | 'CARD_PAUSED'
  | 'DECLINED'
  | 'INACTIVE_ACCOUNT'
  | 'INCORRECT_PIN'
  | 'SINGLE_USE_RECHARGED'
  | 'UNAUTHORIZED_MERCHANT'
  | 'USER_TRANSACTION_LIMIT';

export type DeclineDetail =
  | 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED'
  | 'ACCOUNT_INACTIVE'
  | 'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED'
  | 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED'
  | 'ACCOUNT_PAUSED'
  | 'CARD_CLOSED'
  | 'CARD_EXPIRED'
  | 'CARD_NOT_ACTIVATED'
  | 'CARD_PAUSED'
  | 'CARD_PIN_INCORRECT'
  | 'CARD_SPEND_LIMIT_EXCEEDED'
  | 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE'
  | 'PIN_BLOCKED'
  | 'SINGLE_USE_CARD_REATTEMPTED';

export type SpendDecision = { approved: true } | { approved: false; result: DeclineResult; detailed_results: [DeclineDetail] };

export const APPROVED: SpendDecision = { approved: true };

export function decline(result: DeclineResult, detail: DeclineDetail): SpendDecision {
  return { approved: false, result, detailed_results: [detail] };
}

/** Days after "the same date one month earlier" at which the monthly window starts (spec 2.7). */
const MONTHLY_WINDOW_GRACE_DAYS = 6;

function daysInUtcMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * Spec 2.7: "the window starts 6 days after the current calendar date one month earlier".
 * Today (UTC) one month back, clamped to that month's last day (Mar 31 → Feb 29), plus 6 days, at
 * 00:00 UTC. E.g. on 2024-03-15 the window is [2024-02-21T00:00Z, now].
 */
export function monthlyWindowStartMs(nowMs: number): number {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = Math.min(now.getUTCDate(), daysInUtcMonth(year, month - 1));
  return Date.UTC(year, month - 1, day + MONTHLY_WINDOW_GRACE_DAYS);
}

/** The same instant one year earlier (Feb 29 → Feb 28): the trailing year. */
export function trailingYearStartMs(nowMs: number): number {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear() - 1;
  const month = now.getUTCMonth();
  const day = Math.min(now.getUTCDate(), daysInUtcMonth(year, month));
  return Date.UTC(year, month, day, now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds());
}

/**
 * Would `spent + amount` go over `limit`? A null limit is no limit; a limit of 0 is exceeded by any
 * debit. Credits and zero amounts never are limited (spent + 0 never needs the check: a $0 balance
 * inquiry passes even a limit of 0).
 */
export function exceedsLimit(limitCents: number | null, spentCents: number, amountCents: number): boolean {
  if (limitCents === null || amountCents <= 0) return false;
  return spentCents + amountCents > limitCents;
}

export type AccountLimitPeriod = 'daily' | 'monthly' | 'lifetime';

/** A lifetime limit as stored: 0 is no limit (null). Daily and monthly limits are stored as given, 0 too. */
export function storedLifetimeSpendLimit(cents: number): number | null {
  return cents === 0 ? null : cents;
}

/** The limits every new account starts with (see the header): the one default, for every way an account is made. */
export const DEFAULT_ACCOUNT_SPEND_LIMITS: Pick<AccountsTable, 'daily_spend_limit_cents' | 'monthly_spend_limit_cents' | 'lifetime_spend_limit_cents'> = {
  daily_spend_limit_cents: 500_000,
  monthly_spend_limit_cents: 500_000,
  lifetime_spend_limit_cents: null,
};

export type AccountForSpend = Pick<
  AccountsTable,
  'state' | 'daily_spend_limit_cents' | 'monthly_spend_limit_cents' | 'lifetime_spend_limit_cents' | 'created_ms'
>;

export function accountUsability(account: Pick<AccountsTable, 'state'>): SpendDecision {
  if (account.state === 'CLOSED') return decline('INACTIVE_ACCOUNT', 'ACCOUNT_INACTIVE');
  if (account.state === 'PAUSED') return decline('ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED');
  return APPROVED;
}

/** The account's ISSUING financial account by its status: only an OPEN one moves money (step 1 above). */
export function fundingUsability(issuingFinancialAccountStatus: string): SpendDecision {
  if (issuingFinancialAccountStatus === 'OPEN') return APPROVED;
  return issuingFinancialAccountStatus === 'CLOSED' ? decline('INACTIVE_ACCOUNT', 'ACCOUNT_INACTIVE') : decline('ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED');
}

export interface AccountSpendWindows {
  daily_start_ms: number;
  monthly_start_ms: number;
  lifetime_start_ms: number;
}

export function accountSpendWindows(account: Pick<AccountsTable, 'created_ms'>, nowMs: number): AccountSpendWindows {
  return {
    daily_start_ms: nowMs - MS_PER_DAY,
    monthly_start_ms: monthlyWindowStartMs(nowMs),
    lifetime_start_ms: account.created_ms,
  };
}

/** Approved spend (cents) of the account in each of its windows. */
export interface AccountSpent {
  daily_cents: number;
  monthly_cents: number;
  lifetime_cents: number;
}

export function checkAccountSpendLimits(account: AccountForSpend, amountCents: number, spent: AccountSpent): SpendDecision {
  if (exceedsLimit(account.daily_spend_limit_cents, spent.daily_cents, amountCents)) {
    return decline('USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED');
  }
  if (exceedsLimit(account.monthly_spend_limit_cents, spent.monthly_cents, amountCents)) {
    return decline('USER_TRANSACTION_LIMIT', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED');
  }
  if (exceedsLimit(account.lifetime_spend_limit_cents, spent.lifetime_cents, amountCents)) {
    return decline('USER_TRANSACTION_LIMIT', 'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED');
  }
  return APPROVED;
}
