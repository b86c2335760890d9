import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { checkPinAllowed, parsePinBlock, pinHash } from './pin.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const hasher = { lookupHash: (value: string) => `h(${value})` };

describe('PIN blocks', () => {
  it('reads the digits or a JSON block', () => {
    expect(parsePinBlock('pin', base64('1234'))).toBe('1234');
    expect(parsePinBlock('pin', base64('123456789012'))).toBe('123456789012');
    expect(parsePinBlock('pin', base64('{"nonce": 99, "pin": "0000"}'))).toBe('0000');
  });

  it.each(['', '@@@@', 'MTIzNA', base64('123'), base64('1234567890123'), base64('12 34'), base64('{"pin": 1234}'), base64('null'), base64('[]')])(
    'refuses %j naming the field',
    (block) => {
      expect(() => parsePinBlock('pin', block)).toThrow(InvalidRequestError);
      expect(() => parsePinBlock('pin', block)).toThrow(/^pin: must be a base64 PIN block/);
    },
  );

  it('applies to PHYSICAL and VIRTUAL cards only', () => {
    expect(() => checkPinAllowed('pin', 'PHYSICAL')).not.toThrow();
    expect(() => checkPinAllowed('pin', 'VIRTUAL')).not.toThrow();
    for (const type of ['SINGLE_USE', 'MERCHANT_LOCKED', 'UNLOCKED', 'DIGITAL_WALLET']) expect(() => checkPinAllowed('pin', type)).toThrow(/^pin: /);
  });

  it('hashes the PIN with the card token', () => {
    expect(pinHash(hasher, 'card-1', '1234')).toBe('h(pin:card-1:1234)');
    expect(pinHash(hasher, 'card-2', '1234')).not.toBe(pinHash(hasher, 'card-1', '1234'));
  });
});
