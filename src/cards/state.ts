/**
 * Card state machine (spec 3.1, with the SDK's PHYSICAL states).
 *
 *   OPEN ⇄ PAUSED; OPEN or PAUSED → CLOSED; CLOSED is final: any state update is refused.
 *   A PHYSICAL card starts PENDING_FULFILLMENT (unless created PAUSED), moves to
 *   PENDING_ACTIVATION when the daily fulfilment batch has produced it (jobs.ts), and the client
 *   sets it OPEN when the cardholder has it (or PAUSED / CLOSED). The pending states are only
 *   ever set by Cardwright; clients request CLOSED, OPEN or PAUSED.
 *
 * We follow the SDK's PENDING_* states for PHYSICAL cards (the spec names only the three client
 * states but says the list of types and states is "not shown"): they are what Lithic answers, and
 * they change behaviour (card-present authorizations decline until the card is activated).
 * Setting the state a card already has is a no-op, except on a CLOSED card. Pure functions.
 */
export const CARD_STATES = ['CLOSED', 'OPEN', 'PAUSED', 'PENDING_ACTIVATION', 'PENDING_FULFILLMENT'] as const;
export type CardState = (typeof CARD_STATES)[number];

/** States a client may ask for on update, and on create. */
export const REQUESTABLE_STATES = ['CLOSED', 'OPEN', 'PAUSED'] as const;
export const INITIAL_STATES = ['OPEN', 'PAUSED'] as const;
export type RequestableState = (typeof REQUESTABLE_STATES)[number];

const ALLOWED: Readonly<Record<CardState, readonly RequestableState[]>> = {
  OPEN: ['OPEN', 'PAUSED', 'CLOSED'],
  PAUSED: ['PAUSED', 'OPEN', 'CLOSED'],
  PENDING_FULFILLMENT: ['OPEN', 'PAUSED', 'CLOSED'],
  PENDING_ACTIVATION: ['OPEN', 'PAUSED', 'CLOSED'],
  CLOSED: [],
};

export function initialCardState(type: string, requested: (typeof INITIAL_STATES)[number] | undefined): CardState {
  if (requested === 'PAUSED') return 'PAUSED';
  return type === 'PHYSICAL' ? 'PENDING_FULFILLMENT' : 'OPEN';
}

/** Why a client's `from → to` is refused, or null when it is allowed. */
export function cardStateChangeRefusal(from: CardState, to: RequestableState): string | null {
  if (ALLOWED[from].includes(to)) return null;
  return from === 'CLOSED' ? 'the card is CLOSED, which is final' : `a card cannot go from ${from} to ${to}`;
}

/** The fulfilment step Cardwright itself takes for PHYSICAL cards. */
export const FULFILMENT = { from: 'PENDING_FULFILLMENT', to: 'PENDING_ACTIVATION' } as const satisfies { from: CardState; to: CardState };

/** A PHYSICAL card not yet activated: card-not-present use only. */
export function isAwaitingActivation(state: string): boolean {
  return state === 'PENDING_FULFILLMENT' || state === 'PENDING_ACTIVATION';
}
