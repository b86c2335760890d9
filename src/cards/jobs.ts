/**
 * The daily fulfilment batch of PHYSICAL cards (Lithic: "at regular intervals, cards of type
 * PHYSICAL in state PENDING_FULFILLMENT are sent to the card production warehouse and updated to
 * PENDING_ACTIVATION"; the sandbox runs the same daily batch). Here the batch runs at 00:00 UTC of
 * the program clock: a card created on one day is PENDING_ACTIVATION from the next day on. It is a
 * clock job (clock-jobs.ts): moving the clock past midnight fulfils the cards at once, and card
 * reads catch it up (`dueFulfilment`) rather than show PENDING_FULFILLMENT until the next sweep.
 */
import type { ClockJob, DueWork } from '../clock-jobs.js';
import { isoDate, MS_PER_DAY, utcDayStartMs } from '../clock.js';
import * as store from './store.js';
import { FULFILMENT } from './state.js';

export const fulfilPhysicalCards: ClockJob = async (_db, tx, scope) => {
  const todayStartMs = utcDayStartMs(isoDate(scope.nowMs));
  await store.fulfilPhysicalCards(tx, scope.programId, FULFILMENT, todayStartMs, scope.nowMs);
};

/**
 * Fulfilment as work card reads catch up on. Nothing waiting from before today means nothing can
 * fall due before the next midnight: a card created from now on is fulfilled at a midnight after it.
 */
export const dueFulfilment: DueWork = {
  horizon: 'card_fulfilment',
  async check(exec, scope) {
    const todayStartMs = utcDayStartMs(isoDate(scope.nowMs));
    if (await store.awaitsFulfilment(exec, scope.programId, FULFILMENT.from, todayStartMs)) return { due: true };
    return { due: false, clearUntilMs: todayStartMs + MS_PER_DAY };
  },
  job: fulfilPhysicalCards,
};
