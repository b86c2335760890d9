/**
 * The daily fulfilment batch of PHYSICAL cards (Lithic: "at regular intervals, cards of type
 * PHYSICAL in state PENDING_FULFILLMENT are sent to the card production warehouse and updated to
 * PENDING_ACTIVATION"; the sandbox runs the same daily batch). Here the batch runs at 00:00 UTC of
 * the program clock: a card created on one day is PENDING_ACTIVATION from the next day on. It is a
 * clock job (clock-jobs.ts): moving the clock past midnight fulfils the cards at once, and card
 * reads catch it up (`dueFulfilment`) rather than show PENDING_FULFILLMENT until the next sweep.
 *
 * A card is sent at the first midnight after its creation, and dated then (its `updated` and its
 * event), however late the batch runs: a clock moved a year ahead sent it on its second day, before
 * whatever else fell due later. Never before the card's last change, though. Every PHYSICAL card
 * that is not CLOSED is sent once (`shipped_ms`): one still PENDING_FULFILLMENT becomes
 * PENDING_ACTIVATION; one the client opened or paused before (Lithic asks clients to open a card
 * only once its holder has it, but does not refuse it) keeps its state and is sent all the same.
 *
 * Each card sent records `card.shipped` with Lithic's payload (`card_token`, `shipping_method` in
 * Lithic's carrier wording, `tracking_number`, `bulk_order_token`): the sandbox has no bulk orders,
 * and a tracked method gets a sandbox tracking number made from the card token.
 */
import { fallsDueAt, type ClockJob, type DueWork } from '../clock-jobs.js';
import { isoDate, MS_PER_DAY, utcDayStartMs } from '../clock.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { REQUEST_CLOCK_MARGIN_MS } from '../db/horizons.js';
import { emitEvent } from '../events/emit.js';
import type { ProgramScope } from '../programs/scope.js';
import type { SHIPPING_METHODS } from './schemas.js';
import * as store from './store.js';
import { FULFILMENT } from './state.js';

/** The carrier service of each shipping method (the `shipping_method` values of Lithic's card.shipped). */
const SHIPPED_BY: Record<(typeof SHIPPING_METHODS)[number], { carrier: string; tracked: boolean }> = {
  STANDARD: { carrier: 'USPS without tracking envelope', tracked: false },
  STANDARD_WITH_TRACKING: { carrier: 'USPS with tracking', tracked: true },
  PRIORITY: { carrier: 'USPS priority', tracked: true },
  EXPRESS: { carrier: 'FedEx express', tracked: true },
  '2_DAY': { carrier: 'FedEx 2 days', tracked: true },
  EXPEDITED: { carrier: 'FedEx overnight', tracked: true },
};

export function shippedPayload(card: Pick<store.CardRow, 'token' | 'shipping'>) {
  const method = (JSON.parse(card.shipping ?? '{}') as { shipping_method?: keyof typeof SHIPPED_BY }).shipping_method ?? 'STANDARD';
  const { carrier, tracked } = SHIPPED_BY[method];
  const trackingNumber = tracked ? `1Z${card.token.replace(/-/g, '').slice(0, 16).toUpperCase()}` : null;
  return { card_token: card.token, bulk_order_token: null, shipping_method: carrier, tracking_number: trackingNumber };
}

/** The midnight (00:00 UTC) of the batch that sends a card created at `createdMs`. */
function fulfilmentMs(createdMs: number): number {
  return utcDayStartMs(isoDate(createdMs)) + MS_PER_DAY;
}

/** The batches through program time `throughMs` that have cards to send (their midnights), earliest first. */
export async function fulfilmentInstantsThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  const creationDays = await store.creationDaysToShip(exec, programId, utcDayStartMs(isoDate(throughMs)));
  return creationDays.map((dayStartMs) => dayStartMs + MS_PER_DAY);
}

export const fulfilPhysicalCards: ClockJob = async (_db, tx, scope) => {
  const todayStartMs = utcDayStartMs(isoDate(scope.nowMs));
  for (const card of await store.awaitingFulfilment(tx, scope.programId, todayStartMs)) {
    const shippedMs = Math.max(fulfilmentMs(card.created_ms), card.updated_ms);
    if ((await store.fulfil(tx, scope.programId, card.token, FULFILMENT, shippedMs)) === 1) {
      await emitEvent(tx, scope.programId, 'card.shipped', shippedPayload(card), shippedMs);
    }
  }
};

/** Locks the cards `fulfilPhysicalCards` would send now, before a write locks balances (clock-jobs.ts `lockDueMoney`). */
export async function lockDueFulfilment(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  await store.lockAwaitingFulfilment(db, tx, scope.programId, utcDayStartMs(isoDate(scope.nowMs)));
}

/**
 * Fulfilment as work card reads catch up on. Nothing waiting from before today means nothing can
 * fall due before the next midnight, nor before the batch of a card created later by a request
 * that read the clock up to REQUEST_CLOCK_MARGIN_MS ago (just before this midnight, it ships at it).
 */
export const dueFulfilment: DueWork = {
  horizon: 'card_fulfilment',
  async check(exec, scope) {
    const todayStartMs = utcDayStartMs(isoDate(scope.nowMs));
    if (await store.awaitsFulfilment(exec, scope.programId, todayStartMs)) return { due: true };
    return { due: false, clearUntilMs: fulfilmentMs(scope.nowMs - REQUEST_CLOCK_MARGIN_MS) };
  },
};

/**
 * For a PHYSICAL card's create: once it commits, this process's horizon no longer hides its batch
 * (a request that read the clock before a move creates a card already due by the moved clock).
 */
export function fulfilmentFallsDue(db: Db, tx: Tx, programId: string, createdMs: number): void {
  fallsDueAt(db, tx, dueFulfilment, programId, fulfilmentMs(createdMs));
}
