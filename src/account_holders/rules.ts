/**
 * Content rules of enrollment data that a JSON schema cannot say well (spec 2.3): US addresses
 * (alpha-3 `USA`, 5- or 9-digit ZIP, a real two-letter state code, no PO boxes or UPS/FedEx drops),
 * E.164 phone numbers, nine-digit SSN/ITIN and EIN with or without hyphens, dates of birth.
 * Each check throws a 400 whose message names the field path, e.g.
 * `business_entity.address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 …`.
 * Pure functions, shared with card shipping addresses.
 */
import { isoDate } from '../clock.js';
import { InvalidRequestError } from '../errors.js';

/** The 50 states, DC, the territories, and the military "states" used by APO/FPO addresses. */
export const US_STATE_CODES: ReadonlySet<string> = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK ' +
    'OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI UM AA AE AP'
  ).split(' '),
);

const ZIP = /^\d{5}(?:-?\d{4})?$/;
const E164 = /^\+[1-9]\d{1,14}$/;
const SSN_OR_ITIN = /^(?:\d{3}-\d{2}-\d{4}|\d{9})$/;
const EIN = /^(?:\d{2}-\d{7}|\d{9})$/;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/;
/** "PO Box", "P.O. Box", "P O Box", "POBox", "Post Office Box". APO/FPO ("PSC 1, Box 2, APO AE") do not match. */
const PO_BOX = /\bp(?:ost)?\.?\s*o(?:ffice)?\.?\s*box\b/i;
const PARCEL_DROP = /\b(?:the\s+)?ups\s+store\b|\bfedex\s+(?:office|ship\s+center|drop)/i;
const OLDEST_BIRTH_YEAR = 1900;

function fail(path: string, message: string): never {
  throw new InvalidRequestError(`${path}: ${message}`);
}

export interface UsAddressFields {
  address1: string;
  address2?: string | undefined;
  postal_code: string;
  state: string;
}

/** ZIP and state code of a US address (country is checked by the schema); absent ones are not checked. */
export function checkUsPostalFields(path: string, address: Partial<Pick<UsAddressFields, 'postal_code' | 'state'>>): void {
  if (address.postal_code !== undefined && !ZIP.test(address.postal_code)) {
    fail(`${path}.postal_code`, 'must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)');
  }
  if (address.state !== undefined && !US_STATE_CODES.has(address.state)) {
    fail(`${path}.state`, 'must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)');
  }
}

/**
 * A deliverable US street address: postal fields plus no PO box or parcel drop. Each field given is
 * checked, so a partial update of a stored (valid) address is valid once every field it gives is.
 */
export function checkUsAddress(path: string, address: Partial<UsAddressFields>): void {
  for (const line of ['address1', 'address2'] as const) {
    const text = address[line];
    if (text === undefined) continue;
    if (PO_BOX.test(text)) fail(`${path}.${line}`, 'PO boxes are not accepted; give a street address (APO/FPO are accepted)');
    if (PARCEL_DROP.test(text)) fail(`${path}.${line}`, 'UPS and FedEx drop locations are not accepted; give a street address');
  }
  checkUsPostalFields(path, address);
}

export function checkPhoneNumber(path: string, phone: string): void {
  if (!E164.test(phone)) fail(path, 'must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555');
}

/** An SSN or ITIN, returned as its nine digits. */
export function normalizePersonalId(path: string, id: string): string {
  if (!SSN_OR_ITIN.test(id)) fail(path, 'must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)');
  return id.replace(/-/g, '');
}

/** An EIN, returned as its nine digits. */
export function normalizeBusinessId(path: string, id: string): string {
  if (!EIN.test(id)) fail(path, 'must be a nine-digit EIN, with or without hyphen (12-3456789)');
  return id.replace(/-/g, '');
}

/**
 * The calendar day (YYYY-MM-DD) a date of birth names, as written: an RFC 3339 date is itself, a
 * date-time its date part (whatever its offset). '' when it names none. What is stored and shown,
 * since the SDK's `dob` is "an RFC 3339 date".
 */
export function birthDay(dob: string): string {
  const match = DATE_PREFIX.exec(dob);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : '';
}

/** A date of birth: an RFC 3339 date (or date-time), a real calendar day, not after today. Returns its `birthDay`. */
export function checkDateOfBirth(path: string, dob: string, nowMs: number): string {
  const day = birthDay(dob);
  const validDay = day !== '' && isoDate(Date.parse(`${day}T00:00:00Z`) || 0) === day;
  const validTime = dob.length === 10 || !Number.isNaN(Date.parse(dob));
  if (!validDay || !validTime) fail(path, 'must be an RFC 3339 date such as 1990-04-12');
  if (Number(day.slice(0, 4)) < OLDEST_BIRTH_YEAR) fail(path, `must not be before ${OLDEST_BIRTH_YEAR}`);
  if (day > isoDate(nowMs)) fail(path, 'must not be in the future');
  return day;
}

/** The last four digits of an id, the rest masked: what a response may show of a government id. */
export function maskId(digits: string): string {
  return `${'*'.repeat(Math.max(0, digits.length - 4))}${digits.slice(-4)}`;
}
