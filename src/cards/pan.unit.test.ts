import { describe, expect, it } from 'vitest';
import { Secrets } from '../crypto/secrets.js';
import { cardProgramBin, expiryEndMs, generatedExpiry, isLuhnValid, luhnCheckDigit, numberingKey, panForSequence, randomCvv } from './pan.js';

describe('Luhn', () => {
  it('computes check digits of known numbers', () => {
    expect(luhnCheckDigit('411111111111111')).toBe(1);
    expect(luhnCheckDigit('7992739871')).toBe(3);
    expect(isLuhnValid('4111111111111111')).toBe(true);
    expect(isLuhnValid('4111111111111112')).toBe(false);
    expect(isLuhnValid('79927398713')).toBe(true);
    expect(isLuhnValid('12a4')).toBe(false);
  });
});

describe('card numbers', () => {
  const programId = '5b0a2c3e-9d7f-4a1b-8c6d-1e2f3a4b5c6d';

  const secrets = new Secrets(Buffer.alloc(32, 7));
  const key = numberingKey(secrets, programId);

  it('derives a stable 6-digit test BIN per program', () => {
    expect(cardProgramBin(programId)).toBe(cardProgramBin(programId));
    expect(cardProgramBin(programId)).toMatch(/^4\d{5}$/);
    expect(cardProgramBin('another program')).not.toBe(cardProgramBin(programId));
  });

  it('gives distinct, Luhn-valid 16-digit PANs under the BIN for distinct sequence numbers', () => {
    const bin = cardProgramBin(programId);
    const pans = new Set<string>();
    for (let sequence = 0; sequence < 20_000; sequence++) {
      const pan = panForSequence(key, bin, sequence);
      expect(pan).toHaveLength(16);
      expect(pan.startsWith(bin)).toBe(true);
      if (sequence % 997 === 0) expect(isLuhnValid(pan)).toBe(true);
      pans.add(pan);
    }
    expect(pans.size).toBe(20_000);
    expect(panForSequence(key, bin, 999_999_999)).toMatch(/^\d{16}$/);
  });

  it('numbers with a key: another encryption key or another program numbers differently', () => {
    const bin = cardProgramBin(programId);
    const sequences = [0, 1, 2, 3];
    const pans = sequences.map((sequence) => panForSequence(key, bin, sequence));
    expect(sequences.map((sequence) => panForSequence(numberingKey(new Secrets(Buffer.alloc(32, 8)), programId), bin, sequence))).not.toEqual(pans);
    expect(sequences.map((sequence) => panForSequence(numberingKey(secrets, 'another program'), bin, sequence))).not.toEqual(pans);
    expect(sequences.map((sequence) => panForSequence(key, bin, sequence))).toEqual(pans);
  });

  it('makes three-digit CVVs', () => {
    for (let i = 0; i < 100; i++) expect(randomCvv()).toMatch(/^\d{3}$/);
  });
});

describe('expiry', () => {
  it('generates the current month three years ahead, valid through the month’s end', () => {
    const now = Date.parse('2025-12-31T23:00:00Z');
    const expiry = generatedExpiry(now);
    expect(expiry).toEqual({ exp_month: '12', exp_year: '2028' });
    expect(new Date(expiryEndMs(expiry)).toISOString()).toBe('2029-01-01T00:00:00.000Z');
    expect(new Date(expiryEndMs({ exp_month: '02', exp_year: '2024' })).toISOString()).toBe('2024-03-01T00:00:00.000Z');
  });
});
