import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidRoutingNumber, withCheckDigit } from './routing.js';

describe('isValidRoutingNumber', () => {
  it.each(['011000015', '021000021', '121000358', '026009593'])('accepts the real routing number %s', (routing) => {
    expect(isValidRoutingNumber(routing)).toBe(true);
  });

  it.each(['011000016', '123456789', '02100002', '0210000211', '02100002a', '', '000000000'])('refuses %j', (routing) => {
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

  it('completes any eight digits with the check digit that makes the checksum hold', () => {
    expect(withCheckDigit('02100002')).toBe('021000021');
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{8}$/), (eight) => {
        const routing = withCheckDigit(eight);
        expect(routing.startsWith(eight)).toBe(true);
        expect(isValidRoutingNumber(routing)).toBe(eight !== '00000000');
      }),
    );
  });
});
