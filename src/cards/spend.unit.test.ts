import { describe, expect, it } from 'vitest';
import { pinHash } from './pin.js';
import {
  cardUsability,
  cardWindowStartMs,
  checkCardPin,
  checkCardSpendLimit,
  pinBlockedAfter,
  spendWindowStartMs,
  type CardForSpend,
} from './spend.js';

const at = (iso: string) => Date.parse(iso);
const NOW = at('2024-03-15T10:30:00Z');
const hasher = { lookupHash: (value: string) => `h(${value})` };

const card: CardForSpend = {
  token: 'card-1',
  type: 'VIRTUAL',
  state: 'OPEN',
  exp_month: '03',
  exp_year: '2024',
  spend_limit_cents: 0,
  spend_limit_duration: 'TRANSACTION',
  created_ms: at('2023-01-10T00:00:00Z'),
  first_approved_ms: null,
  locked_merchant_acceptor_id: null,
  pin_hash: pinHash(hasher, 'card-1', '1234'),
  pin_status: 'OK',
};
const declined = (result: string, detail: string) => ({ approved: false, result, detailed_results: [detail] });

describe('card usability', () => {
  it('approves an OPEN card through the last day of its expiry month', () => {
    expect(cardUsability(card, NOW)).toEqual({ approved: true });
    expect(cardUsability(card, at('2024-03-31T23:59:59.999Z'))).toEqual({ approved: true });
    expect(cardUsability(card, at('2024-04-01T00:00:00Z'))).toEqual(declined('DECLINED', 'CARD_EXPIRED'));
  });

  it('declines PAUSED and CLOSED cards, and a spent SINGLE_USE card as a re-attempt', () => {
    expect(cardUsability({ ...card, state: 'PAUSED' }, NOW)).toEqual(declined('CARD_PAUSED', 'CARD_PAUSED'));
    expect(cardUsability({ ...card, state: 'CLOSED' }, NOW)).toEqual(declined('CARD_CLOSED', 'CARD_CLOSED'));
    const singleUse = { ...card, type: 'SINGLE_USE' };
    expect(cardUsability({ ...singleUse, state: 'CLOSED' }, NOW)).toEqual(declined('CARD_CLOSED', 'CARD_CLOSED'));
    expect(cardUsability({ ...singleUse, state: 'CLOSED', first_approved_ms: NOW }, NOW)).toEqual(
      declined('SINGLE_USE_RECHARGED', 'SINGLE_USE_CARD_REATTEMPTED'),
    );
  });

  it('lets a PHYSICAL card awaiting activation be used card-not-present only', () => {
    for (const state of ['PENDING_FULFILLMENT', 'PENDING_ACTIVATION']) {
      const pending = { ...card, type: 'PHYSICAL', state };
      expect(cardUsability(pending, NOW)).toEqual({ approved: true });
      expect(cardUsability(pending, NOW, { card_present: false })).toEqual({ approved: true });
      expect(cardUsability(pending, NOW, { card_present: true })).toEqual(declined('DECLINED', 'CARD_NOT_ACTIVATED'));
    }
    expect(cardUsability(card, NOW, { card_present: true })).toEqual({ approved: true });
  });

  it('keeps a MERCHANT_LOCKED card to its merchant', () => {
    const locked = { ...card, type: 'MERCHANT_LOCKED', locked_merchant_acceptor_id: 'M1' };
    expect(cardUsability(locked, NOW, { merchant_acceptor_id: 'M1' })).toEqual({ approved: true });
    expect(cardUsability(locked, NOW, { merchant_acceptor_id: 'M2' })).toEqual(
      declined('UNAUTHORIZED_MERCHANT', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE'),
    );
    expect(cardUsability({ ...locked, locked_merchant_acceptor_id: null }, NOW, { merchant_acceptor_id: 'M2' })).toEqual({ approved: true });
  });
});

describe('PIN checks', () => {
  it('approves the right PIN and declines a wrong, missing or blocked one', () => {
    expect(checkCardPin(card, '1234', hasher)).toEqual({ approved: true });
    expect(checkCardPin(card, '4321', hasher)).toEqual(declined('INCORRECT_PIN', 'CARD_PIN_INCORRECT'));
    expect(checkCardPin({ ...card, pin_hash: null, pin_status: 'NOT_SET' }, '1234', hasher)).toEqual(declined('INCORRECT_PIN', 'CARD_PIN_INCORRECT'));
    expect(checkCardPin({ ...card, pin_status: 'BLOCKED' }, '1234', hasher)).toEqual(declined('INCORRECT_PIN', 'PIN_BLOCKED'));
  });

  it('blocks at the third incorrect PIN', () => {
    expect([0, 1, 2, 3, 4].map(pinBlockedAfter)).toEqual([false, false, false, true, true]);
  });
});

describe('spend-limit windows (spec 2.7)', () => {
  it('has no window for TRANSACTION and the card lifetime for FOREVER', () => {
    expect(spendWindowStartMs('TRANSACTION', NOW, card.created_ms)).toBeNull();
    expect(spendWindowStartMs('FOREVER', NOW, card.created_ms)).toBe(card.created_ms);
  });

  it('starts MONTHLY 6 days after today one month earlier, and ANNUALLY a year ago', () => {
    expect(spendWindowStartMs('MONTHLY', NOW, card.created_ms)).toBe(at('2024-02-21T00:00:00Z'));
    expect(spendWindowStartMs('ANNUALLY', NOW, card.created_ms)).toBe(at('2023-03-15T10:30:00Z'));
  });

  it("gives the card limit's window; none for a card without limit or with a TRANSACTION one", () => {
    expect(cardWindowStartMs({ ...card, spend_limit_cents: 100, spend_limit_duration: 'MONTHLY' }, NOW)).toBe(at('2024-02-21T00:00:00Z'));
    expect(cardWindowStartMs({ ...card, spend_limit_cents: 100, spend_limit_duration: 'FOREVER' }, NOW)).toBe(card.created_ms);
    expect(cardWindowStartMs({ ...card, spend_limit_cents: 100, spend_limit_duration: 'TRANSACTION' }, NOW)).toBeNull();
    expect(cardWindowStartMs({ ...card, spend_limit_duration: 'MONTHLY' }, NOW)).toBeNull();
  });
});

describe('card spend limit', () => {
  const over = declined('USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');

  it('checks each transaction alone for TRANSACTION', () => {
    const perTransaction = { spend_limit_cents: 1000, spend_limit_duration: 'TRANSACTION' };
    expect(checkCardSpendLimit(perTransaction, 1000, 999_999)).toEqual({ approved: true });
    expect(checkCardSpendLimit(perTransaction, 1001, 0)).toEqual(over);
  });

  it('adds the window’s spend for the other durations', () => {
    for (const duration of ['MONTHLY', 'ANNUALLY', 'FOREVER']) {
      const limited = { spend_limit_cents: 1000, spend_limit_duration: duration };
      expect(checkCardSpendLimit(limited, 400, 600)).toEqual({ approved: true });
      expect(checkCardSpendLimit(limited, 401, 600)).toEqual(over);
    }
  });

  it('never limits with 0 and never limits credits', () => {
    expect(checkCardSpendLimit({ spend_limit_cents: 0, spend_limit_duration: 'FOREVER' }, 10 ** 12, 10 ** 12)).toEqual({ approved: true });
    expect(checkCardSpendLimit({ spend_limit_cents: 1, spend_limit_duration: 'FOREVER' }, -500, 10)).toEqual({ approved: true });
  });
});
