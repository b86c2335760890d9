/**
 * Card PINs. Lithic takes a PIN as an "encrypted PIN block, base64". Cardwright holds no PIN
 * encryption key, so its sandbox PIN block is the base64 of the clear block: either the digits
 * themselves (`btoa("1234")`) or Lithic's JSON block `{"nonce": …, "pin": "1234"}`. A PIN has 4 to 12
 * digits. It is stored only as a keyed hash of (card token, PIN) and never returned.
 *
 * PIN status: NOT_SET until a PIN is set; OK once set; BLOCKED after MAX_PIN_ATTEMPTS consecutive
 * incorrect entries (the authorization engine reports them; a PIN entered on a card without one is
 * declined but not counted, so a NOT_SET card is never blocked); a client unblocks with pin_status OK
 * or by setting a new PIN (spec 3.2).
 */
import { InvalidRequestError } from '../errors.js';

export const MAX_PIN_ATTEMPTS = 3;
const PIN_CARD_TYPES: readonly string[] = ['PHYSICAL', 'VIRTUAL'];
const PIN_DIGITS = /^\d{4,12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What computes keyed hashes (the app's Secrets). */
export interface Hasher {
  lookupHash(value: string): string;
}

function pinOfBlock(block: string): string | undefined {
  if (PIN_DIGITS.test(block)) return block;
  try {
    const parsed: unknown = JSON.parse(block);
    const pin = (parsed as { pin?: unknown } | null)?.pin;
    return typeof pin === 'string' && PIN_DIGITS.test(pin) ? pin : undefined;
  } catch {
    return undefined;
  }
}

/** The PIN in a base64 PIN block; a 400 naming `field` when it holds none. */
export function parsePinBlock(field: string, base64: string): string {
  const pin = base64 !== '' && BASE64.test(base64) ? pinOfBlock(Buffer.from(base64, 'base64').toString('utf8')) : undefined;
  if (pin === undefined) {
    throw new InvalidRequestError(`${field}: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})`);
  }
  return pin;
}

/** A PIN is only for PHYSICAL and VIRTUAL cards (spec 4.7). */
export function checkPinAllowed(field: string, cardType: string): void {
  if (!PIN_CARD_TYPES.includes(cardType)) {
    throw new InvalidRequestError(`${field}: only cards of type PHYSICAL or VIRTUAL take a PIN (this card is ${cardType})`);
  }
}

export function pinHash(hasher: Hasher, cardToken: string, pin: string): string {
  return hasher.lookupHash(`pin:${cardToken}:${pin}`);
}
