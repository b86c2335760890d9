import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import {
  checkDateOfBirth,
  checkPhoneNumber,
  checkUsAddress,
  maskId,
  normalizeBusinessId,
  normalizePersonalId,
  US_STATE_CODES,
} from './rules.js';

const address = { address1: '5 Broad Street', postal_code: '10001', state: 'NY' };
const NOW_MS = Date.parse('2025-06-15T12:00:00Z');

function messageOf(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as Error).message;
  }
  throw new Error('expected the check to throw');
}

describe('US addresses', () => {
  it.each(['10001', '10001-1234', '100011234'])('accepts the ZIP %s', (zip) => {
    expect(() => checkUsAddress('a', { ...address, postal_code: zip })).not.toThrow();
  });

  it.each(['1000', '100011', '10001-123', 'ABCDE', '10001 1234', ''])('refuses the ZIP %j naming the field', (zip) => {
    expect(messageOf(() => checkUsAddress('x.address', { ...address, postal_code: zip }))).toMatch(/^x\.address\.postal_code: /);
  });

  it('knows the states, DC, territories and military codes, uppercase only', () => {
    for (const code of ['NY', 'CA', 'DC', 'PR', 'GU', 'AE', 'AP', 'AA']) expect(US_STATE_CODES.has(code)).toBe(true);
    expect(US_STATE_CODES.size).toBe(60);
    for (const code of ['ny', 'ZZ', 'NYC', '']) {
      expect(messageOf(() => checkUsAddress('a', { ...address, state: code }))).toMatch(/^a\.state: /);
    }
  });

  it.each(['PO Box 12', 'P.O. Box 12', 'p o box 12', 'POBox 12', 'Post Office Box 7', '12 Main St, P.O. BOX 3'])('refuses the PO box %j', (line) => {
    expect(messageOf(() => checkUsAddress('a', { ...address, address1: line }))).toMatch(/^a\.address1: PO boxes are not accepted/);
    expect(messageOf(() => checkUsAddress('a', { ...address, address2: line }))).toMatch(/^a\.address2: PO boxes/);
  });

  it.each(['The UPS Store #1234', 'FedEx Office Print & Ship Center', 'FedEx Ship Center'])('refuses the parcel drop %j', (line) => {
    expect(messageOf(() => checkUsAddress('a', { ...address, address1: line }))).toMatch(/^a\.address1: UPS and FedEx/);
  });

  it.each(['PSC 1234, Box 5678', 'Unit 2050 Box 4190', '1 Upsilon Road', '10 Poboxer Lane', 'Apollo Boxing Club'])('accepts %j', (line) => {
    expect(() => checkUsAddress('a', { ...address, address1: line })).not.toThrow();
  });
});

describe('identity numbers and phones', () => {
  it('normalises SSN/ITIN and EIN to nine digits, with or without hyphens', () => {
    expect(normalizePersonalId('id', '123-45-6789')).toBe('123456789');
    expect(normalizePersonalId('id', '123456789')).toBe('123456789');
    expect(normalizeBusinessId('id', '12-3456789')).toBe('123456789');
    expect(normalizeBusinessId('id', '123456789')).toBe('123456789');
  });

  it.each(['12-3456789', '123-456-789', '12345678', '1234567890', '123 45 6789', 'abc-de-fghi'])('refuses the SSN %j', (id) => {
    expect(messageOf(() => normalizePersonalId('p.government_id', id))).toMatch(/^p\.government_id: must be a nine-digit SSN or ITIN/);
  });

  it.each(['123-45-6789', '1-23456789', '12345678'])('refuses the EIN %j', (id) => {
    expect(messageOf(() => normalizeBusinessId('b.government_id', id))).toMatch(/^b\.government_id: must be a nine-digit EIN/);
  });

  it('accepts E.164 and refuses the rest', () => {
    for (const phone of ['+15555555555', '+442071838750', '+12']) expect(() => checkPhoneNumber('p', phone)).not.toThrow();
    for (const phone of ['15555555555', '+0155555555', '+1 555 555 5555', '+1234567890123456', '+', '']) {
      expect(messageOf(() => checkPhoneNumber('p', phone))).toMatch(/^p: must be an E.164 phone number/);
    }
  });

  it('masks all but the last four digits', () => {
    expect(maskId('123456789')).toBe('*****6789');
    expect(maskId('12')).toBe('12');
  });
});

describe('dates of birth', () => {
  it.each([
    ['1990-04-12', '1990-04-12'],
    ['2025-06-15', '2025-06-15'],
    ['1991-03-08T08:00:00Z', '1991-03-08'],
    ['1991-03-08T23:30:00-05:00', '1991-03-08'],
    ['2000-02-29', '2000-02-29'],
  ])('accepts %j as the day %j', (dob, day) => {
    expect(checkDateOfBirth('dob', dob, NOW_MS)).toBe(day);
  });

  it.each([
    ['1990-02-30', 'must be an RFC 3339 date'],
    ['1999-02-29', 'must be an RFC 3339 date'],
    ['1990-13-01', 'must be an RFC 3339 date'],
    ['12/04/1990', 'must be an RFC 3339 date'],
    ['1990-04-12T25:00:00Z', 'must be an RFC 3339 date'],
    ['1990-04-12Tnoon', 'must be an RFC 3339 date'],
    ['1899-12-31', 'must not be before 1900'],
    ['2025-06-16', 'must not be in the future'],
  ])('refuses %j', (dob, message) => {
    expect(messageOf(() => checkDateOfBirth('individual.dob', dob, NOW_MS))).toBe(`individual.dob: ${message}${message.startsWith('must be an') ? ' such as 1990-04-12' : ''}`);
  });
});

describe('address updates: only the given fields are checked, each by the whole-address rules', () => {
  it('accepts any subset of valid fields, including none', () => {
    for (const given of [{}, { state: 'CA' }, { postal_code: '94105-1234' }, { address2: 'Apt 4' }, { address1: 'PSC 1, Box 2' }]) {
      expect(() => checkUsAddress('a', given)).not.toThrow();
    }
  });

  it.each([
    [{ postal_code: '123' }, 'a.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
    [{ state: 'ZZ' }, 'a.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
    [{ address1: 'P.O. Box 9' }, 'a.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
    [{ address2: 'The UPS Store' }, 'a.address2: UPS and FedEx drop locations are not accepted; give a street address'],
  ])('refuses %j', (given, message) => {
    expect(messageOf(() => checkUsAddress('a', given))).toBe(message);
  });
});
