/**
 * Approved spend in a time window, for spend limits and for Auth Rules (`AuthorizationHistory`),
 * read from indexed sums: nothing here loads past transactions.
 *
 * What counts: approved debit authorizations (AUTHORIZATION, FINANCIAL_AUTHORIZATION), by the time
 * they were authorized, for their amount net of what happened since (an advice sets it, a reversal
 * or expiry lowers it, a clearing sets it to the cleared amount). Credits, balance inquiries and
 * declines count nothing. Each transaction carries that amount (`spend_cents`, `counts_as_spend`),
 * and the service keeps `card_spend_days` in step: per card and per account, per UTC day of
 * creation, the sum of those amounts and the number of approved authorizations.
 *
 * A window [since, until) is then: the raw sum over the list index (card or account, created_ms)
 * for the part of a day at each end that a window cuts, plus the day buckets in between. A window
 * that reaches now (the usual case) has no cut at its end: no transaction is created after now, so
 * today's bucket is whole. The cost is a few index seeks plus at most one day of the card's or
 * account's transactions, however long the window (a year is ≤ 366 bucket rows) or large the
 * table. A window that begins at the card's or account's creation has no cut day at all (see
 * `spentSince`). A trailing window (an account's daily limit: the last 24 hours) still scans the
 * part of the day it cuts, so its cost grows with that day's transactions of the account: finer
 * buckets (hours) would bound it, at the price of more rows written per authorization. Velocity
 * sums with merchant filters (MCC, country) cannot use the buckets and scan the card's or
 * account's index over the window; counts of attempts (any result) likewise.
 */
import { MS_PER_DAY } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { AuthorizationHistory, VelocityFilters } from '../engine/rules-seam.js';
import * as store from './store.js';

export type SpendScope = store.SpendScope;
export type SpendSum = store.SpendSum;

/** 00:00 UTC of the day that holds `ms`. */
export function utcDayStartOf(ms: number): number {
  return Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
}

/** How a window [since, until) splits into raw ranges and whole days (pure, unit-tested). */
export interface WindowPlan {
  raw: Array<{ since_ms: number; until_ms: number }>;
  days: { from_day_ms: number; until_day_ms: number } | null;
}

/** Open upper bound for bucket ranges. */
const END_OF_TIME_MS = Number.MAX_SAFE_INTEGER;

export function planWindow(sinceMs: number, untilMs: number, nowMs: number): WindowPlan {
  const open = untilMs > nowMs;
  const firstWholeDay = sinceMs === utcDayStartOf(sinceMs) ? sinceMs : utcDayStartOf(sinceMs) + MS_PER_DAY;
  const lastCut = open ? END_OF_TIME_MS : utcDayStartOf(untilMs);
  if (firstWholeDay >= lastCut) {
    return { raw: sinceMs < untilMs ? [{ since_ms: sinceMs, until_ms: open ? END_OF_TIME_MS : untilMs }] : [], days: null };
  }
  const raw: WindowPlan['raw'] = [];
  if (sinceMs < firstWholeDay) raw.push({ since_ms: sinceMs, until_ms: firstWholeDay });
  if (!open && lastCut < untilMs) raw.push({ since_ms: lastCut, until_ms: untilMs });
  return { raw, days: { from_day_ms: firstWholeDay, until_day_ms: lastCut } };
}

/** Approved spend (amount and count) of a card or account in [sinceMs, untilMs). */
export async function windowSpend(
  exec: Executor,
  programId: string,
  scope: SpendScope,
  token: string,
  window: { since_ms: number; until_ms: number; now_ms: number },
): Promise<SpendSum> {
  const plan = planWindow(window.since_ms, window.until_ms, window.now_ms);
  const parts: SpendSum[] = [];
  for (const range of plan.raw) parts.push(await store.rawSpendSum(exec, programId, scope, token, range.since_ms, range.until_ms));
  if (plan.days) parts.push(await store.spendDaysSum(exec, programId, token, plan.days.from_day_ms, plan.days.until_day_ms));
  return parts.reduce((total, part) => ({ amount_cents: total.amount_cents + part.amount_cents, count: total.count + part.count }), { amount_cents: 0, count: 0 });
}

/**
 * Approved spend from `sinceMs` up to now, of a card or account created at `scopeCreatedMs`.
 * A window that begins at or before the creation (a FOREVER card limit, an account's lifetime
 * limit) begins instead at the start of that day: the card or account has no transactions before
 * it was created (the program clock only moves forward), so the sum is the same, but it comes from
 * day buckets alone, not from a scan of every transaction of the creation day, which for a card
 * used heavily on its first day would grow with each authorization.
 */
export async function spentSince(exec: Executor, programId: string, scope: SpendScope, token: string, window: SinceWindow): Promise<number> {
  return (await windowSpend(exec, programId, scope, token, sinceWindowBounds(window))).amount_cents;
}

export interface SinceWindow {
  since_ms: number;
  scope_created_ms: number;
  now_ms: number;
}

/** The [since, until) that `spentSince` sums (pure, unit-tested with `planWindow`). */
export function sinceWindowBounds(window: SinceWindow): { since_ms: number; until_ms: number; now_ms: number } {
  const sinceMs = window.since_ms <= window.scope_created_ms ? utcDayStartOf(window.since_ms) : window.since_ms;
  return { since_ms: sinceMs, until_ms: window.now_ms + 1, now_ms: window.now_ms };
}

function hasFilters(filters: VelocityFilters | undefined): filters is VelocityFilters {
  return (
    filters !== undefined &&
    [filters.include_mccs, filters.exclude_mccs, filters.include_countries, filters.exclude_countries].some((list) => list !== undefined && list !== null)
  );
}

/** The history Auth Rules read (engine/rules-seam.ts), over this program's transactions. */
export function authorizationHistory(exec: Executor, programId: string, nowMs: number): AuthorizationHistory {
  return {
    async approvedSpend(query) {
      const range = { since_ms: query.since_ms, until_ms: query.until_ms };
      if (hasFilters(query.filters)) return store.filteredSpendSum(exec, programId, query.scope, query.token, range, query.filters);
      return windowSpend(exec, programId, query.scope, query.token, { ...range, now_ms: nowMs });
    },
    cardTransactionCount(cardToken, sinceMs, untilMs) {
      return store.cardAttempts(exec, programId, cardToken, sinceMs, untilMs);
    },
  };
}
