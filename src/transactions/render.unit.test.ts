import { describe, expect, it } from 'vitest';
import { newToken } from '../ids.js';
import { conversionRate, digitsOf, merchantCents } from './render.js';

describe('sandbox network identifiers and rates', () => {
  it('derives stable digit strings of the asked length, different per purpose and per token', () => {
    const token = newToken();
    const sibling = newToken();
    for (const [purpose, length] of [['authorization code', 6], ['rrn', 12], ['visa', 15], ['arn', 23]] as const) {
      expect(digitsOf(token, length, purpose)).toMatch(new RegExp(`^\\d{${length}}$`));
      expect(digitsOf(token, length, purpose)).toBe(digitsOf(token, length, purpose));
      expect(digitsOf(sibling, length, purpose)).not.toBe(digitsOf(token, length, purpose));
    }
    expect(digitsOf(token, 12, 'rrn').slice(0, 6)).not.toBe(digitsOf(token, 6, 'authorization code'));
  });

  it('gives the merchant → cardholder rate with six decimals', () => {
    expect(conversionRate({ cardholder_cents: 1_000, merchant_cents: 800 })).toBe('1.250000');
    expect(conversionRate({ cardholder_cents: -300, merchant_cents: -300 })).toBe('1.000000');
    expect(conversionRate({ cardholder_cents: 0, merchant_cents: 0 })).toBe('1.000000');
  });

  it('converts settlement amounts to the merchant currency at the opening rate', () => {
    expect(merchantCents({ cardholder_cents: 1_000, merchant_cents: 900 }, 2_000)).toBe(1_800);
    expect(merchantCents({ cardholder_cents: 1_000, merchant_cents: 1_000 }, 1_500)).toBe(1_500);
    expect(merchantCents({ cardholder_cents: -300, merchant_cents: -270 }, -300)).toBe(-270);
    expect(merchantCents({ cardholder_cents: 0, merchant_cents: 0 }, 42)).toBe(42);
  });

  it('rounds a half away from 0, exactly even where floating point cannot hold the product', () => {
    for (const rate of [{ cardholder_cents: 1_000, merchant_cents: 333 }, { cardholder_cents: -1_000, merchant_cents: -333 }]) {
      expect([merchantCents(rate, 500), merchantCents(rate, -500), merchantCents(rate, 1)]).toEqual([167, -167, 0]);
    }
    // 1,259,586,690 × 1,236,986,214 ÷ 523,126,654 is 2,978,420,921.4999999981: in floating point, …922.
    expect(merchantCents({ cardholder_cents: 523_126_654, merchant_cents: 1_236_986_214 }, 1_259_586_690)).toBe(2_978_420_921);
  });
});
