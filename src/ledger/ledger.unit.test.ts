import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../errors.js';
import { assertBalanced, isSystemAccount, SystemAccount, totalCents, type Movement } from './ledger.js';

const movement = (amounts: number[]): Movement => ({
  kind: 'TEST',
  transaction_token: 't',
  event_token: 'e',
  postings: amounts.map((amount_cents, index) => ({ account: `fa-${index}`, bucket: 'available', amount_cents })),
});

describe('ledger invariants', () => {
  it('accepts movements whose postings sum to zero', () => {
    expect(() => assertBalanced(movement([-500, 500]))).not.toThrow();
    expect(() => assertBalanced(movement([-500, 200, 300]))).not.toThrow();
  });

  it('refuses unbalanced movements, zero, fractional and unsafe amounts, and single postings', () => {
    expect(() => assertBalanced(movement([-500, 499]))).toThrow(InvariantViolation);
    expect(() => assertBalanced(movement([0, 0]))).toThrow(/non-zero safe integers/);
    expect(() => assertBalanced(movement([-0.5, 0.5]))).toThrow(/non-zero safe integers/);
    expect(() => assertBalanced(movement([-(2 ** 53), 2 ** 53]))).toThrow(/non-zero safe integers/);
    expect(() => assertBalanced(movement([100]))).toThrow(/at least two postings/);
  });

  it('any list of integer postings balances exactly when its sum is zero', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((n) => n !== 0), { minLength: 2, maxLength: 8 }), (amounts) => {
        const sum = amounts.reduce((a, b) => a + b, 0);
        if (sum === 0) expect(() => assertBalanced(movement(amounts))).not.toThrow();
        else expect(() => assertBalanced(movement(amounts))).toThrow(InvariantViolation);
      }),
    );
  });

  it('derives total from available and pending', () => {
    expect(totalCents({ available_cents: 700, pending_cents: -200 })).toBe(500);
  });

  it('tells system accounts from financial accounts', () => {
    expect(isSystemAccount(SystemAccount.CARD_NETWORK)).toBe(true);
    expect(isSystemAccount('5b3c0f9e-2f0a-4c43-9f0e-0d0f4d9b8a11')).toBe(false);
  });
});
