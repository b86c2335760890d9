/**
 * `GET /v1/cards/{card_token}/spend_limits` (SDK `cards.retrieveSpendLimits`): the card's spend
 * limit, the approved spend in its window and what is left, as the authorization engine sees them
 * (transactions/history.ts `cardSpent`, the sum the engine checks the limit against), once the
 * holds that have expired by now have given their spend back.
 *
 * A card has one limit with one duration, so the answer names that duration alone: ANNUALLY,
 * FOREVER and MONTHLY are the SDK's `annually`, `forever` and `monthly`. A card without a limit, or
 * with a TRANSACTION one (each authorization checked alone: there is no window to spend in), has
 * nothing to show: three empty objects. What is left is never below 0 (a limit lowered under what
 * was already spent). A separate module from service.ts, which the transactions service imports.
 */
import type { Db, Executor } from '../db/database.js';
import { notFound } from '../errors.js';
import type { ProgramScope } from '../programs/scope.js';
import { cardSpent } from '../transactions/history.js';
import { catchUpExpiries } from '../transactions/service.js';
import type { CardSpendLimits } from './schemas.js';
import type { SpendLimitDuration } from './spend.js';
import * as store from './store.js';

/** The SDK's name for each duration that has a window. */
const PERIODS: Readonly<Record<SpendLimitDuration, keyof CardSpendLimits['available_spend_limit'] | null>> = {
  ANNUALLY: 'annually',
  FOREVER: 'forever',
  MONTHLY: 'monthly',
  TRANSACTION: null,
};

export async function spendLimits(db: Db, scope: ProgramScope, token: string): Promise<CardSpendLimits> {
  await catchUpExpiries(db, scope);
  return db.snapshot((exec) => limitsOf(exec, scope, token));
}

/** The card's limit and its spend, read in one snapshot: a limit and the spend of one state. */
async function limitsOf(exec: Executor, scope: ProgramScope, token: string): Promise<CardSpendLimits> {
  const card = await store.find(exec, scope.programId, token);
  if (!card) throw notFound('card', token);
  const period = PERIODS[card.spend_limit_duration as SpendLimitDuration];
  if (period === null || card.spend_limit_cents === 0) return { available_spend_limit: {}, spend_limit: {}, spend_velocity: {} };
  const spent = await cardSpent(exec, scope.programId, card, scope.nowMs);
  return {
    available_spend_limit: { [period]: Math.max(0, card.spend_limit_cents - spent) },
    spend_limit: { [period]: card.spend_limit_cents },
    spend_velocity: { [period]: spent },
  };
}
