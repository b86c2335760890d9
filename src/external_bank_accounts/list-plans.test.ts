/**
 * `GET /v1/external_bank_accounts` pages are ranges of an index in list order, for every filter
 * combination and page shape (first page, after and before a cursor; the list has no begin/end),
 * with the rows the filters name, checked against the filters applied here to every bank account:
 *
 * - an account's bank accounts (with any array filters) are a range of
 *   `external_bank_accounts_by_account`, the array filters conditions on its few rows;
 * - otherwise one array filter drives, a range of its index per value asked for (migrations 0027,
 *   0028; `anyOf`), the others conditions on its rows; no filter, a range of `_by_created`.
 *
 * Which filter drives (ARRAY_FILTERS, external_bank_accounts/store.ts): the first given in
 * the order verification_states, account_types, owner_types, states, countries that asks for no
 * usual value (ENABLED verification or state, CHECKING, INDIVIDUAL, USA: most bank accounts), else
 * the first given. So `verification_states=ENABLED&owner_types=BUSINESS` drives by owner type,
 * not by walking every verified bank account for the businesses'.
 *
 * Walks kept, with their bound: filters that all ask for a usual value walk rows of that value
 * (most rows, so most are kept: little more than a page); several rare values that rarely meet
 * (`states=CLOSED&countries=CAN`) walk the driver's rows of its rare value, a small share of the
 * table (these are low-cardinality filters over a program's bank accounts, not its movements).
 * PostgreSQL picks by cost within each value's page.
 */
import { expect, it } from 'vitest';
import { describeWithDb } from '../testing/harness.js';
import { bankAccountRow, seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { expectedPage, expectIndexRanges, pageShapes, useSeededList } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { list, type ListFilters } from './store.js';
import type { ExternalBankAccountsTable } from './tables.js';

const PROGRAM = 'p-banks';
const ROWS = 6_000;
const createdMs = seededCreatedMs;
const token = (program: string, i: number) => seededToken(program, 'b', i);
const BUSY = 'a-busy';

/**
 * Bank account `i`, two a millisecond: one in 20 the busy account's, one in 10 of no account, the
 * others two an account; one in 40 PENDING verification, one in 200 FAILED_VERIFICATION; one in 5
 * SAVINGS; one in 10 a BUSINESS's; one in 300 CLOSED; one in 150 Canadian.
 */
function bankAccount(program: string, i: number): ExternalBankAccountsTable {
  const verification_state = i % 40 === 3 ? 'PENDING' : i % 200 === 5 ? 'FAILED_VERIFICATION' : 'ENABLED';
  return bankAccountRow(program, token(program, i), i % 20 === 7 ? BUSY : i % 10 === 4 ? null : `a-${i % 3_000}`, createdMs(i), {
    verification_state,
    prenote_due_ms: verification_state === 'PENDING' ? createdMs(i) + 1e12 : null,
    type: i % 5 === 1 ? 'SAVINGS' : 'CHECKING',
    owner_type: i % 10 === 6 ? 'BUSINESS' : 'INDIVIDUAL',
    state: i % 300 === 8 ? 'CLOSED' : 'ENABLED',
    country: i % 150 === 9 ? 'CAN' : 'USA',
  });
}

/** Each combination with the index that drives it, and as many ranges as it has values. */
const cases: Array<{ filters: ListFilters; index: string; values?: number }> = [
  { filters: {}, index: 'external_bank_accounts_by_created' },
  { filters: { account_token: BUSY }, index: 'external_bank_accounts_by_account' },
  { filters: { account_token: BUSY, states: ['ENABLED'] }, index: 'external_bank_accounts_by_account' },
  { filters: { account_token: BUSY, verification_states: ['PENDING'], account_types: ['CHECKING', 'SAVINGS'] }, index: 'external_bank_accounts_by_account' },
  { filters: { account_token: 'a-17', owner_types: ['INDIVIDUAL'], countries: ['USA'] }, index: 'external_bank_accounts_by_account' },
  { filters: { verification_states: ['PENDING'] }, index: 'external_bank_accounts_by_verification_state' },
  { filters: { verification_states: ['PENDING', 'FAILED_VERIFICATION'] }, index: 'external_bank_accounts_by_verification_state', values: 2 },
  { filters: { verification_states: ['ENABLED'] }, index: 'external_bank_accounts_by_verification_state' },
  { filters: { account_types: ['SAVINGS'] }, index: 'external_bank_accounts_by_type' },
  { filters: { owner_types: ['BUSINESS'] }, index: 'external_bank_accounts_by_owner_type' },
  { filters: { states: ['CLOSED', 'PAUSED'] }, index: 'external_bank_accounts_by_state', values: 2 },
  { filters: { countries: ['CAN'] }, index: 'external_bank_accounts_by_country' },
  { filters: { verification_states: ['ENABLED'], owner_types: ['BUSINESS'] }, index: 'external_bank_accounts_by_owner_type' },
  { filters: { account_types: ['CHECKING'], owner_types: ['BUSINESS'] }, index: 'external_bank_accounts_by_owner_type' },
  { filters: { states: ['ENABLED'], countries: ['CAN'] }, index: 'external_bank_accounts_by_country' },
  { filters: { verification_states: ['ENABLED', 'PENDING'], account_types: ['SAVINGS'], countries: ['CAN'] }, index: 'external_bank_accounts_by_type' },
  { filters: { verification_states: ['PENDING'], states: ['ENABLED'], countries: ['USA'] }, index: 'external_bank_accounts_by_verification_state' },
  { filters: { states: ['CLOSED'], countries: ['CAN'] }, index: 'external_bank_accounts_by_state' },
  { filters: { verification_states: ['ENABLED'], states: ['ENABLED'], owner_types: ['INDIVIDUAL'] }, index: 'external_bank_accounts_by_verification_state' },
];

const FILTER_COLUMNS = [
  ['verification_states', 'verification_state'],
  ['account_types', 'type'],
  ['owner_types', 'owner_type'],
  ['states', 'state'],
  ['countries', 'country'],
] as const;

describeWithDb('external bank account list plans', () => {
  const storage = useSeededList('external_bank_accounts', PROGRAM, ROWS, bankAccount);
  const { rows } = storage;

  const matches = (row: ExternalBankAccountsTable, filters: ListFilters) =>
    (filters.account_token === undefined || row.account_token === filters.account_token) &&
    FILTER_COLUMNS.every(([name, column]) => filters[name] === undefined || filters[name].includes(row[column]));

  it('pages every filter combination as ranges of its driving index, with the rows the filters name, on every page shape', async () => {
    const { kysely } = storage.db;
    const cursor = token(PROGRAM, 3_001);
    const shapes = pageShapes(cursor);
    for (const { filters, index, values = 1 } of cases) {
      for (const shape of shapes) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const listed = await list(kysely, PROGRAM, filters, shape.page);
        const expected = expectedPage(rows, (row) => matches(row, filters), shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expected);
        const plan = await pagePlan(kysely, (watched) => list(watched, PROGRAM, filters, shape.page));
        // PostgreSQL: by cost, within each value's page, any index of the filters given (prenote_due leads with the verification state).
        const given = FILTER_COLUMNS.filter(([name]) => filters[name] !== undefined).map(([, column]) => `external_bank_accounts_by_${column}`);
        expectIndexRanges(plan, 'external_bank_accounts', label, { indexes: [index], reads: values, postgres: [index, ...given, 'external_bank_accounts_prenote_due', 'external_bank_accounts_by_created'] });
      }
    }
  });
});
