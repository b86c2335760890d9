/**
 * Card numbers, CVVs and expiry dates.
 *
 * A program's cards are numbered under its card program's 6-digit test BIN (derived from the program
 * id, so it is stable and differs between programs): PAN = BIN (6) + account digits (9) + Luhn check
 * digit (1) = 16 digits. The account digits are the card program's running sequence number pushed
 * through a bijection of [0, 10^9) (`(sequence × MULTIPLIER + offset) mod 10^9`, MULTIPLIER coprime
 * with 10), so PANs look random yet two cards of a program can never get the same number.
 */
import crypto from 'node:crypto';

export const PAN_LENGTH = 16;
export const BIN_LENGTH = 6;
const ACCOUNT_DIGITS = PAN_LENGTH - BIN_LENGTH - 1;
const ACCOUNT_SPACE = 10n ** BigInt(ACCOUNT_DIGITS);
/** Numbers a card program can issue. */
export const PAN_SEQUENCE_LIMIT = Number(ACCOUNT_SPACE);
/** Odd and not a multiple of 5: multiplication by it permutes [0, 10^9). */
const MULTIPLIER = 740_123_459n;
/** Visa-like test BINs: 4 followed by five digits of the program's hash. */
const BIN_PREFIX = '4';
export const CARD_VALIDITY_YEARS = 3;

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

/** The BIN and sequence offset of a program's card program, derived from the program id. */
export function cardProgramNumbers(programId: string): { bin: string; pan_offset: number } {
  const digest = crypto.createHash('sha256').update(`card program:${programId}`).digest();
  const binDigits = String(digest.readUInt32BE(0) % 10 ** (BIN_LENGTH - 1)).padStart(BIN_LENGTH - 1, '0');
  return { bin: `${BIN_PREFIX}${binDigits}`, pan_offset: Number(digest.readBigUInt64BE(4) % ACCOUNT_SPACE) };
}

/** The PAN of a card program's `sequence`-th card (0-based). */
export function panForSequence(bin: string, panOffset: number, sequence: number): string {
  const account = (BigInt(sequence) * MULTIPLIER + BigInt(panOffset)) % ACCOUNT_SPACE;
  const payload = `${bin}${account.toString().padStart(ACCOUNT_DIGITS, '0')}`;
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
