import { describe, expect, it } from 'vitest';
import { CARD_STATES, cardStateChangeRefusal, initialCardState, isAwaitingActivation, REQUESTABLE_STATES } from './state.js';

describe('card state machine (spec 3.1)', () => {
  it('starts OPEN, PAUSED when asked, and PHYSICAL cards PENDING_FULFILLMENT', () => {
    expect(initialCardState('VIRTUAL', undefined)).toBe('OPEN');
    expect(initialCardState('SINGLE_USE', 'OPEN')).toBe('OPEN');
    expect(initialCardState('VIRTUAL', 'PAUSED')).toBe('PAUSED');
    expect(initialCardState('PHYSICAL', undefined)).toBe('PENDING_FULFILLMENT');
    expect(initialCardState('PHYSICAL', 'OPEN')).toBe('PENDING_FULFILLMENT');
    expect(initialCardState('PHYSICAL', 'PAUSED')).toBe('PAUSED');
  });

  it('allows OPEN ⇄ PAUSED, either → CLOSED, activation of pending cards, and staying put', () => {
    const allowed: Array<[(typeof CARD_STATES)[number], (typeof REQUESTABLE_STATES)[number]]> = [
      ['OPEN', 'PAUSED'],
      ['PAUSED', 'OPEN'],
      ['OPEN', 'CLOSED'],
      ['PAUSED', 'CLOSED'],
      ['OPEN', 'OPEN'],
      ['PAUSED', 'PAUSED'],
      ['PENDING_FULFILLMENT', 'OPEN'],
      ['PENDING_ACTIVATION', 'OPEN'],
      ['PENDING_ACTIVATION', 'PAUSED'],
      ['PENDING_FULFILLMENT', 'CLOSED'],
    ];
    for (const [from, to] of allowed) expect(cardStateChangeRefusal(from, to), `${from} → ${to}`).toBeNull();
  });

  it('refuses every state update of a CLOSED card: CLOSED is final', () => {
    for (const to of REQUESTABLE_STATES) expect(cardStateChangeRefusal('CLOSED', to)).toBe('the card is CLOSED, which is final');
  });

  it('knows which states await activation', () => {
    expect(CARD_STATES.filter(isAwaitingActivation)).toEqual(['PENDING_ACTIVATION', 'PENDING_FULFILLMENT']);
  });
});
