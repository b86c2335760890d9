/**
 * `GET /v1/account_holders` pages are ranges of an index in list order, for every filter
 * combination and page shape (first page, after and before a cursor, within begin/end), with the
 * rows the filters name, checked against the filters applied here to every holder:
 *
 * - the exact-match filters each have their index, `(program_id, column, created_ms, token)`
 *   (migration 0002): `external_id`, `email` (its lowercase, `email_lower`), `phone_number`. Given
 *   together, one drives in that order, the most selective first, and the others are conditions
 *   on its rows: on SQLite, which plans without statistics, a shared phone number (one in three
 *   holders here) walked every holder of that number for one email. PostgreSQL picks by cost the
 *   smaller range its statistics see;
 * - the partial-match names (`first_name`, `last_name`, `legal_business_name`) are conditions on
 *   the rows an exact filter finds;
 * - no filter, or begin/end alone, a range of `account_holders_by_created`.
 *
 * Known to walk: the names without an exact filter, case-insensitive substrings, walk
 * `account_holders_by_created` until they have a page (every holder within begin/end when few
 * match; PostgreSQL may read the table whole instead, by cost); no index serves `%text%`. With an
 * exact filter many holders share (a phone number a third of them have here), the names walk that
 * filter's holders, and PostgreSQL, which can only guess how many rows a substring keeps, may read
 * the table whole instead when they are a large share of it.
 */
import { expect, it } from 'vitest';
import { describeWithDb, engine } from '../testing/harness.js';
import { holderRow, seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { expectedPage, expectIndexRanges, pageShapes, useSeededList } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { list, type AccountHolderRow, type ListFilters } from './store.js';

const PROGRAM = 'p-holders';
const HOLDERS = 6_000;
const createdMs = seededCreatedMs;
const holderToken = (program: string, i: number) => seededToken(program, 'h', i);
const SHARED_PHONE = '+15555550100';
const SHARED_EMAIL = 'Family@Example.com';

/**
 * Holder `i`, two a millisecond: one in 5 a business (a legal name, no person's names); half with
 * an external id of their own; an email of their own but one in 100 the shared family email (in
 * either case); a phone of their own but one in 3 the shared number; one in 50 named Ann.
 */
function holder(program: string, i: number): AccountHolderRow {
  const business = i % 5 === 4;
  const email = i % 100 === 11 ? (i % 200 === 11 ? SHARED_EMAIL : SHARED_EMAIL.toLowerCase()) : `holder${i}@example.com`;
  return holderRow(program, holderToken(program, i), `a-${i}`, createdMs(i), {
    user_type: business ? 'BUSINESS' : 'INDIVIDUAL',
    external_id: i % 2 === 0 ? `ext-${i}` : null,
    email,
    email_lower: email.toLowerCase(),
    phone_number: i % 3 === 1 ? SHARED_PHONE : `+1555${String(i).padStart(7, '0')}`,
    first_name: business ? null : i % 50 === 7 ? 'Ann' : `First${i}`,
    last_name: business ? null : `Last${i % 700}`,
    legal_business_name: business ? `Widgets ${i % 300} LLC` : null,
  });
}

const filterCases: ListFilters[] = [
  {},
  { external_id: 'ext-3000' },
  { email: SHARED_EMAIL },
  { email: 'holder2999@EXAMPLE.com' },
  { phone_number: SHARED_PHONE },
  { phone_number: '+15550003001' },
  { email: SHARED_EMAIL, phone_number: SHARED_PHONE },
  { external_id: 'ext-1234', phone_number: SHARED_PHONE },
  { external_id: 'ext-1234', email: 'holder1234@example.com', phone_number: '+15550001234' },
  { external_id: 'ext-none' },
  { email: SHARED_EMAIL, first_name: 'ann' },
  { phone_number: SHARED_PHONE, last_name: 'last1' },
  { phone_number: SHARED_PHONE, legal_business_name: 'widgets 1' },
  { first_name: 'ann' },
  { last_name: 'LAST69' },
  { legal_business_name: 'widgets 29' },
];

/** The exact filters in the order in which the first given drives the page, with their indexes. */
const EXACT: Array<[keyof ListFilters, string]> = [
  ['external_id', 'account_holders_by_external_id'],
  ['email', 'account_holders_by_email'],
  ['phone_number', 'account_holders_by_phone'],
];

describeWithDb('account holder list plans', () => {
  const storage = useSeededList('account_holders', PROGRAM, HOLDERS, holder);
  const holders = storage.rows;

  const contains = (value: string | null, text: string | undefined) => text === undefined || (value ?? '').toLowerCase().includes(text.toLowerCase());
  const matches = (row: AccountHolderRow, filters: ListFilters) =>
    (filters.external_id === undefined || row.external_id === filters.external_id) &&
    (filters.email === undefined || row.email_lower === filters.email.toLowerCase()) &&
    (filters.phone_number === undefined || row.phone_number === filters.phone_number) &&
    contains(row.first_name, filters.first_name) &&
    contains(row.last_name, filters.last_name) &&
    contains(row.legal_business_name, filters.legal_business_name);

  it('pages every filter combination as a range of its index, with the rows the filters name, on every page shape', async () => {
    const { kysely } = storage.db;
    const cursor = holderToken(PROGRAM, 3_001);
    const shapes = pageShapes(cursor, { range: { begin: new Date(createdMs(1_000)).toISOString(), end: new Date(createdMs(5_000)).toISOString() } });
    for (const filters of filterCases) {
      const exact = EXACT.filter(([name]) => filters[name] !== undefined).map(([, index]) => index);
      for (const shape of shapes) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const all = { ...filters, ...shape.range };
        const listed = await list(kysely, PROGRAM, all, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(
          expectedPage(holders, (row) => matches(row, filters), shape.page, shape.range),
        );
        const plan = await pagePlan(kysely, (watched) => list(watched, PROGRAM, all, shape.page));
        // Names alone, or with the shared phone number (a third of the holders): known to walk (the header); PostgreSQL may rather read the table whole, by cost.
        const names = filters.first_name !== undefined || filters.last_name !== undefined || filters.legal_business_name !== undefined;
        if (engine === 'postgres' && names && (exact.length === 0 || filters.phone_number === SHARED_PHONE)) continue;
        expectIndexRanges(plan, 'account_holders', label, { indexes: exact.length === 0 ? ['account_holders_by_created'] : exact.slice(0, 1), postgres: exact.length === 0 ? ['account_holders_by_created'] : exact });
      }
    }
  });
});
