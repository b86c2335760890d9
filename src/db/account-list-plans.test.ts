/**
 * The type filter of financial accounts (their list, and `GET /v1/balances`, which reads them all)
 * and the array filters of external bank accounts are ranges of their indexes in list order
 * (migrations 0027 and 0028), one per value asked for, on every page shape; without them, a walk of
 * the program's rows. Where filters combine, one drives the page and the others are conditions: an
 * account's rows are found by account, never by a filter index that would walk the program's rows
 * of that value. SQLite plans without statistics; PostgreSQL by cost, so its tables hold enough
 * rows (1 in 100 of each rare value, four financial and bank accounts an account) and are ANALYZEd.
 */
import { beforeAll, expect, it } from 'vitest';
import * as externalBankAccounts from '../external_bank_accounts/store.js';
import * as financialAccounts from '../financial_accounts/store.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, seedRows } from '../testing/list-plans.js';
import { seededCreatedMs } from '../testing/list-rows.js';
import { pagePlan } from '../testing/plans.js';
import type { Executor } from './database.js';
import type { PageParams } from './pagination.js';

const PROGRAM = 'p-plans';
const ROWS = 20_000;
/** Row `i`: two rows a millisecond; each filter's rare value on its own 1 in 100 rows. */
const createdMs = seededCreatedMs;
const rare = (i: number, offset: number) => i % 100 === offset;
const tokenOf = (i: number) => `t-${String(i).padStart(6, '0')}`;
const accountOf = (i: number) => `a-${i % 5_000}`;

const financialAccount = (i: number) => ({
  program_id: PROGRAM,
  token: tokenOf(i),
  account_token: accountOf(i),
  type: rare(i, 7) ? 'RESERVE' : 'ISSUING',
  nickname: null,
  status: 'OPEN',
  substatus: null,
  is_for_benefit_of: 0,
  account_number: 'x',
  routing_number: 'x',
  credit_configuration: null,
  created_ms: createdMs(i),
  updated_ms: createdMs(i),
});

const bankAccount = (i: number) => ({
  program_id: PROGRAM,
  token: tokenOf(i),
  account_token: accountOf(i),
  financial_account_token: null,
  type: rare(i, 7) ? 'SAVINGS' : 'CHECKING',
  country: rare(i, 17) ? 'CAN' : 'USA',
  state: rare(i, 27) ? 'CLOSED' : 'ENABLED',
  verification_state: rare(i, 37) ? 'PENDING' : 'ENABLED',
  prenote_due_ms: rare(i, 37) ? createdMs(i) : null,
  currency: 'USD',
  account_number_encrypted: 'x',
  last_four: '0000',
  owner: 'o',
  owner_type: rare(i, 47) ? 'BUSINESS' : 'INDIVIDUAL',
  routing_number: '021000021',
  verification_attempts: 0,
  verification_method: 'PRENOTE',
  verification_failed_reason: null,
  micro_deposits_encrypted: null,
  address: null,
  company_id: null,
  dob: null,
  doing_business_as: null,
  name: null,
  user_defined_id: null,
  created_ms: createdMs(i),
  updated_ms: createdMs(i),
});

const tables = { financial_accounts: financialAccount, external_bank_accounts: bankAccount };

const cursor = tokenOf(10_007);
const pages: Array<{ name: string; page: PageParams }> = [
  { name: 'first page', page: {} },
  { name: 'after a cursor', page: { starting_after: cursor } },
  { name: 'before a cursor', page: { ending_before: cursor } },
];

/** The reads of `table` in a SQLite plan. */
const readsOf = (plan: string[], table: string) => plan.filter((detail) => new RegExp(`^(SEARCH|SCAN) ${table}\\b`).test(detail));

/** Each read (`count`: one per value) a seek on `index` by program and `column`, in list order. */
function expectSeeks(plan: string[], table: string, index: string, column: string, count: number, label: string): void {
  const text = plan.join('\n');
  if (engine === 'sqlite') {
    const reads = readsOf(plan, table);
    expect(reads, label).toHaveLength(count);
    for (const read of reads) expect(read, label).toMatch(new RegExp(`^SEARCH ${table} USING INDEX ${index} \\(program_id=\\? AND ${column}=\\?`));
    // No read is sorted (a merge sorts the pages it merges, each a page long).
    expect(text, label).not.toMatch(new RegExp(`^SEARCH ${table} .*\\n.*TEMP B-TREE`, 'm'));
  } else {
    expect(text, label).toMatch(new RegExp(`Index Scan (Backward )?using ${index} on ${table}`));
    expect(text, label).not.toMatch(/Seq Scan/);
    // One page (a Limit) per value, and only their merge is sorted.
    if (count > 1) expect(text.match(/->\s+Limit\s+\(/g), label).toHaveLength(count);
    else expect(text, label).not.toMatch(/Sort/);
  }
}

describeWithDb('financial and bank account list plans', () => {
  const storage = useMigratedDb();
  const kysely = () => storage.db.kysely;

  beforeAll(async () => {
    for (const [table, rowOf] of Object.entries(tables)) await seedRows(kysely(), table as 'financial_accounts', Array.from({ length: ROWS }, (_, i) => rowOf(i)) as never);
    await analyzed(kysely(), Object.keys(tables));
  }, 60_000);

  it('financial accounts of a type: a range of financial_accounts_by_type, on every page shape', async () => {
    for (const { name, page } of pages) {
      const plan = await pagePlan(kysely(), (watched) => financialAccounts.list(watched, PROGRAM, { type: 'RESERVE' }, page));
      expectSeeks(plan, 'financial_accounts', 'financial_accounts_by_type', 'type', 1, name);
    }
  });

  it('every financial account of a type (the unpaged list; GET /v1/balances, also as of a date): a range of financial_accounts_by_type', async () => {
    for (const filters of [{ type: 'RESERVE' }, { type: 'RESERVE', created_through_ms: createdMs(ROWS / 2) }]) {
      const plan = await pagePlan(kysely(), (watched) => financialAccounts.listAll(watched, PROGRAM, filters));
      expectSeeks(plan, 'financial_accounts', 'financial_accounts_by_type', 'type', 1, JSON.stringify(filters));
    }
  });

  it('an account’s financial accounts of a type: found by account, the type a condition', async () => {
    const reads: Array<(exec: Executor) => Promise<unknown>> = [
      ...pages.map(({ page }) => (exec: Executor) => financialAccounts.list(exec, PROGRAM, { account_token: accountOf(7), type: 'ISSUING' }, page)),
      (exec) => financialAccounts.listAll(exec, PROGRAM, { business_account_token: accountOf(7), type: 'ISSUING', created_through_ms: createdMs(ROWS / 2) }),
    ];
    for (const [index, read] of reads.entries()) {
      expectSeeks(await pagePlan(kysely(), read), 'financial_accounts', 'financial_accounts_by_account', 'account_token', 1, `read ${index}`);
    }
  });

  /** Each array filter alone, with one value and with two (one that no row has). */
  const filters: Array<{ column: string; filters: externalBankAccounts.ListFilters }> = [
    { column: 'verification_state', filters: { verification_states: ['PENDING'] } },
    { column: 'verification_state', filters: { verification_states: ['PENDING', 'FAILED_VERIFICATION'] } },
    { column: 'type', filters: { account_types: ['SAVINGS'] } },
    { column: 'state', filters: { states: ['CLOSED'] } },
    { column: 'state', filters: { states: ['CLOSED', 'PAUSED'] } },
    { column: 'country', filters: { countries: ['CAN'] } },
    { column: 'country', filters: { countries: ['CAN', 'MEX'] } },
    { column: 'owner_type', filters: { owner_types: ['BUSINESS'] } },
    { column: 'owner_type', filters: { owner_types: ['BUSINESS', 'INDIVIDUAL'] } },
  ];
  for (const { column, filters: given } of filters) {
    it(`external bank accounts with ${JSON.stringify(given)}: a range of external_bank_accounts_by_${column} per value, on every page shape`, async () => {
      const values = Object.values(given)[0] as string[];
      for (const { name, page } of pages) {
        const plan = await pagePlan(kysely(), (watched) => externalBankAccounts.list(watched, PROGRAM, given, page));
        expectSeeks(plan, 'external_bank_accounts', `external_bank_accounts_by_${column}`, column, values.length, name);
      }
    });
  }

  it('external bank accounts with several array filters: the first in ARRAY_FILTERS order drives, the others are conditions', async () => {
    const cases: Array<{ column: string; filters: externalBankAccounts.ListFilters }> = [
      { column: 'verification_state', filters: { states: ['ENABLED'], account_types: ['CHECKING'], owner_types: ['INDIVIDUAL'], countries: ['USA'], verification_states: ['PENDING'] } },
      { column: 'type', filters: { states: ['ENABLED'], account_types: ['SAVINGS'], countries: ['USA'] } },
      { column: 'state', filters: { countries: ['USA'], states: ['CLOSED'] } },
      { column: 'owner_type', filters: { states: ['ENABLED'], countries: ['USA'], owner_types: ['BUSINESS'] } },
    ];
    for (const { column, filters: given } of cases) {
      for (const { name, page } of pages) {
        const plan = await pagePlan(kysely(), (watched) => externalBankAccounts.list(watched, PROGRAM, given, page));
        expectSeeks(plan, 'external_bank_accounts', `external_bank_accounts_by_${column}`, column, 1, `${JSON.stringify(given)} ${name}`);
      }
    }
  });

  it('an account’s external bank accounts with array filters: found by account, the filters conditions', async () => {
    for (const given of [{ states: ['ENABLED'] }, { verification_states: ['ENABLED'], countries: ['USA'] }, { account_types: ['CHECKING', 'SAVINGS'] }]) {
      for (const { name, page } of pages) {
        const plan = await pagePlan(kysely(), (watched) => externalBankAccounts.list(watched, PROGRAM, { account_token: accountOf(7), ...given }, page));
        expectSeeks(plan, 'external_bank_accounts', 'external_bank_accounts_by_account', 'account_token', 1, `${JSON.stringify(given)} ${name}`);
      }
    }
  });

  it('due prenotes still seek external_bank_accounts_prenote_due, not the new verification state index', async () => {
    const plan = await pagePlan(kysely(), (watched) => externalBankAccounts.duePrenotes(watched, PROGRAM, createdMs(ROWS), 1));
    if (engine === 'sqlite') {
      expect(readsOf(plan, 'external_bank_accounts')).toEqual([expect.stringMatching(/^SEARCH external_bank_accounts USING INDEX external_bank_accounts_prenote_due \(program_id=\? AND verification_state=\? AND prenote_due_ms<\?\)$/)]);
    } else {
      expect(plan.join('\n')).toMatch(/using external_bank_accounts_prenote_due/);
    }
  });
});
