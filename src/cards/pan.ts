/**
 * Card numbers, CVVs and expiry dates.
 *
 * A program's cards are numbered under its card program's 6-digit test BIN (derived from the program
 * id, so it is stable and differs between programs): PAN = BIN (6) + account digits (9) + Luhn check
 * digit (1) = 16 digits. The account digits are the card program's running sequence number pushed
 * through a keyed pseudorandom permutation of [0, 10^9) (a Feistel network over 30 bits, cycle-walked
 * into range), so two cards of a program never get the same number, and the numbers follow from
 * nothing the database holds in clear: the permutation's key is derived from the encryption key.
 * (Card programs created before numbers were keyed stored a `pan_offset` of a public, linear
 * numbering; their cards' numbers can be worked out from it, and new numbers skip any they took.)
 */
import crypto from 'node:crypto';
import type { Hasher } from './pin.js';

const PAN_LENGTH = 16;
const BIN_LENGTH = 6;
const ACCOUNT_DIGITS = PAN_LENGTH - BIN_LENGTH - 1;
/** Numbers a card program can issue. */
export const PAN_SEQUENCE_LIMIT = 10 ** ACCOUNT_DIGITS;
/** The permutation runs over 2^30 ≥ 10^9 values, two halves of 15 bits, and walks back into [0, 10^9). */
const HALF_BITS = 15;
const HALF_MASK = (1 << HALF_BITS) - 1;
const FEISTEL_ROUNDS = 8;
/** Visa-like test BINs: 4 followed by five digits of the program's hash. */
const BIN_PREFIX = '4';
const CARD_VALIDITY_YEARS = 3;

/** The Luhn check digit that completes `payload`. */
export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let digit = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

export function isLuhnValid(number: string): boolean {
  return /^\d{2,}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === Number(number.slice(-1));
}

/** The 6-digit test BIN of a program's card program, derived from the program id. */
export function cardProgramBin(programId: string): string {
  const digest = crypto.createHash('sha256').update(`card program:${programId}`).digest();
  return `${BIN_PREFIX}${String(digest.readUInt32BE(0) % 10 ** (BIN_LENGTH - 1)).padStart(BIN_LENGTH - 1, '0')}`;
}

/** The key of a program's card numbering: a keyed hash, so only the holder of the encryption key can number. */
export function numberingKey(secrets: Hasher, programId: string): Buffer {
  return Buffer.from(secrets.lookupHash(`card numbering:${programId}`), 'hex');
}

/** One pass of the Feistel network; its round function is AES-256 under `key` (one block per round). */
function feistel(cipher: crypto.Cipher, value: number): number {
  let left = value >>> HALF_BITS;
  let right = value & HALF_MASK;
  const block = Buffer.alloc(16);
  for (let round = 0; round < FEISTEL_ROUNDS; round++) {
    block.writeUInt8(round, 0);
    block.writeUInt16BE(right, 1);
    [left, right] = [right, left ^ (cipher.update(block).readUInt16BE(0) & HALF_MASK)];
  }
  return left * (HALF_MASK + 1) + right;
}

/** The PAN of a card program's `sequence`-th card (0-based), numbered with `key` (`numberingKey`). */
export function panForSequence(key: Buffer, bin: string, sequence: number): string {
  const cipher = crypto.createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  let account = sequence;
  do account = feistel(cipher, account);
  while (account >= PAN_SEQUENCE_LIMIT);
  const payload = `${bin}${String(account).padStart(ACCOUNT_DIGITS, '0')}`;
  return `${payload}${luhnCheckDigit(payload)}`;
}

export function randomCvv(): string {
  return String(crypto.randomInt(0, 1000)).padStart(3, '0');
}

export interface Expiry {
  exp_month: string;
  exp_year: string;
}

/** A new card's expiry: the current month (UTC, program clock) CARD_VALIDITY_YEARS from now. */
export function generatedExpiry(nowMs: number): Expiry {
  const now = new Date(nowMs);
  return {
    exp_month: String(now.getUTCMonth() + 1).padStart(2, '0'),
    exp_year: String(now.getUTCFullYear() + CARD_VALIDITY_YEARS),
  };
}

/** A card is valid through the last day of its expiry month: this is the first instant it is not. */
export function expiryEndMs(expiry: Expiry): number {
  return Date.UTC(Number(expiry.exp_year), Number(expiry.exp_month), 1);
}
