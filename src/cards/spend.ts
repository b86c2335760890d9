/**
 * "May this card spend X now?": the seam between cards and the authorization engine. The engine
 * never reads card or account rows itself; it uses these functions and the store/service functions
 * named below. Everything here is pure and reads time only from the `nowMs` it is given (the
 * program clock, `scope.nowMs`).
 *
 * Contract, for one authorization of `amount_cents` (positive = debit) on a card:
 *  1. Find and lock: `findCardByPan(exec, secrets, programId, pan)` (cards/store.ts) names the
 *     card and its account; then, in the engine's transaction, lock the account
 *     (`lock`, accounts/store.ts) and then the card (`lockCard`, cards/store.ts), always in
 *     that order: authorizations of one account serialize, so two cannot both fit under the same
 *     card or account limit, and they cannot deadlock each other.
 *  2. Windows: `cardWindowStartMs(card, nowMs)` gives the start (inclusive, epoch ms) of the card
 *     limit's window, or null (no limit, or TRANSACTION: no window); `accountSpendWindows`
 *     (accounts/spend.ts) those of the account's limits. The engine sums approved spend from its
 *     transactions table (transactions/history.ts `cardSpent`, `accountSpent`: indexed sums, the
 *     card's own for the card window, all cards of the account for the account windows), debits
 *     net of reversals, created at or after each start. GET /v1/cards/{token}/spend_limits and
 *     GET /v1/accounts/{token}/spend_limits answer the same sums.
 *  3. Decide: the engine's one pipeline (engine/pipeline.ts) composes the checks below in its
 *     documented order: `cardUsability` (state, expiry, activation, merchant lock) and
 *     `checkCardPin`, then the account's (accounts/spend.ts), then `checkCardSpendLimit`.
 *  4. Record: after an approval, `recordApprovedAuthorization` (cards/service.ts) closes a
 *     SINGLE_USE card and locks a MERCHANT_LOCKED card to its first merchant; after a PIN check,
 *     `recordPinAttempt` counts incorrect PINs and blocks the PIN at the third (only a PIN that is
 *     set: the engine counts no attempt on a card without one, which is never blocked).
 *
 * Spend-limit windows (spec 2.7): TRANSACTION checks each authorization alone; MONTHLY starts 6 days
 * after today's date one month earlier; ANNUALLY is the trailing year; FOREVER is the card's
 * lifetime. A limit of 0 is no limit.
 *
 * Declines carry `result` and `detailed_results` as Lithic's transactions do (reference 03).
 */
import { APPROVED, decline, exceedsLimit, monthlyWindowStartMs, trailingYearStartMs, type SpendDecision } from '../accounts/spend.js';
import { expiryEndMs } from './pan.js';
import { MAX_PIN_ATTEMPTS, pinHash, type Hasher } from './pin.js';
import { isAwaitingActivation } from './state.js';
import type { CardsTable } from './tables.js';

export { type SpendDecision } from '../accounts/spend.js';

export const SPEND_LIMIT_DURATIONS = ['ANNUALLY', 'FOREVER', 'MONTHLY', 'TRANSACTION'] as const;
export type SpendLimitDuration = (typeof SPEND_LIMIT_DURATIONS)[number];

export type CardForSpend = Pick<
  CardsTable,
  | 'token'
  | 'type'
  | 'state'
  | 'exp_month'
  | 'exp_year'
  | 'spend_limit_cents'
  | 'spend_limit_duration'
  | 'created_ms'
  | 'first_approved_ms'
  | 'locked_merchant_acceptor_id'
  | 'pin_hash'
  | 'pin_status'
>;

/** What the engine knows about the authorization besides its amount. */
export interface AuthorizationContext {
  /** The card itself is at the terminal (not e-commerce / card-not-present). */
  card_present?: boolean;
  /** The merchant's acceptor id (MERCHANT_LOCKED cards are locked to the first one). */
  merchant_acceptor_id?: string;
}

/** Whether the card can be used at all now: state, expiry, activation, merchant lock. */
export function cardUsability(card: CardForSpend, nowMs: number, context: AuthorizationContext = {}): SpendDecision {
  if (card.state === 'CLOSED') {
    const spentSingleUse = card.type === 'SINGLE_USE' && card.first_approved_ms !== null;
    return spentSingleUse ? decline('SINGLE_USE_RECHARGED', 'SINGLE_USE_CARD_REATTEMPTED') : decline('CARD_CLOSED', 'CARD_CLOSED');
  }
  if (card.state === 'PAUSED') return decline('CARD_PAUSED', 'CARD_PAUSED');
  if (nowMs >= expiryEndMs(card)) return decline('DECLINED', 'CARD_EXPIRED');
  if (isAwaitingActivation(card.state) && context.card_present === true) return decline('DECLINED', 'CARD_NOT_ACTIVATED');
  const locked = card.type === 'MERCHANT_LOCKED' ? card.locked_merchant_acceptor_id : null;
  if (locked !== null && context.merchant_acceptor_id !== undefined && context.merchant_acceptor_id !== locked) {
    return decline('UNAUTHORIZED_MERCHANT', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE');
  }
  return APPROVED;
}

/** A PIN entered at the terminal, checked against the card's. */
export function checkCardPin(card: Pick<CardForSpend, 'token' | 'pin_hash' | 'pin_status'>, enteredPin: string, hasher: Hasher): SpendDecision {
  if (card.pin_status === 'BLOCKED') return decline('INCORRECT_PIN', 'PIN_BLOCKED');
  if (card.pin_hash === null || card.pin_hash !== pinHash(hasher, card.token, enteredPin)) {
    return decline('INCORRECT_PIN', 'CARD_PIN_INCORRECT');
  }
  return APPROVED;
}

/** After `failedAttempts` consecutive incorrect PINs, is the PIN blocked? */
export function pinBlockedAfter(failedAttempts: number): boolean {
  return failedAttempts >= MAX_PIN_ATTEMPTS;
}

/** Start (inclusive) of the card's spend-limit window, or null for TRANSACTION (no window). */
export function spendWindowStartMs(duration: SpendLimitDuration, nowMs: number, cardCreatedMs: number): number | null {
  switch (duration) {
    case 'TRANSACTION':
      return null;
    case 'MONTHLY':
      return monthlyWindowStartMs(nowMs);
    case 'ANNUALLY':
      return trailingYearStartMs(nowMs);
    case 'FOREVER':
      return cardCreatedMs;
  }
}

/**
 * The card's spend limit: TRANSACTION compares the amount alone (pass 0 as spent), the others
 * spent-in-window + amount.
 */
export function checkCardSpendLimit(
  card: Pick<CardForSpend, 'spend_limit_cents' | 'spend_limit_duration'>,
  amountCents: number,
  spentInWindowCents: number,
): SpendDecision {
  const spent = card.spend_limit_duration === 'TRANSACTION' ? 0 : spentInWindowCents;
  // A card's limit of 0 is no limit (spec 4.7 spend_limit).
  const limitCents = card.spend_limit_cents === 0 ? null : card.spend_limit_cents;
  return exceedsLimit(limitCents, spent, amountCents) ? decline('USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED') : APPROVED;
}

/** The card's spend-limit window now: its start, or null when the card has no limit or a TRANSACTION one. */
export function cardWindowStartMs(card: Pick<CardForSpend, 'spend_limit_cents' | 'spend_limit_duration' | 'created_ms'>, nowMs: number): number | null {
  return card.spend_limit_cents === 0 ? null : spendWindowStartMs(card.spend_limit_duration as SpendLimitDuration, nowMs, card.created_ms);
}
