import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidRoutingNumber } from './routing.js';

describe('isValidRoutingNumber', () => {
  it.each(['011000015', '021000021', '121000358', '026009593'])('accepts the real routing number %s', (routing) => {
    expect(isValidRoutingNumber(routing)).toBe(true);
  });

  it.each(['011000016', '123456789', '02100002', '0210000211', '02100002a', ''])('refuses %j', (routing) => {
    expect(isValidRoutingNumber(routing)).toBe(false);
  });

  it('catches every single-digit error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (position, delta) => {
        const digits = '021000021'.split('').map(Number);
        digits[position] = ((digits[position] as number) + delta) % 10;
        expect(isValidRoutingNumber(digits.join(''))).toBe(false);
      }),
    );
  });
});
