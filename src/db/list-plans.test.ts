/**
 * A list filtered on a rare status, result or category is a range of that filter's index in list
 * order (migration 0026; card transactions: 0004), on every page shape: the first page, after and
 * before a cursor, within begin/end, and both. Walking `*_by_created` and dropping rows read the
 * whole program. SQLite plans without statistics; PostgreSQL by cost, so its tables hold enough
 * rows (1 in 100 matching) and are ANALYZEd.
 */
import { beforeAll, expect, it } from 'vitest';
import * as bookTransfers from '../book_transfers/store.js';
import * as externalPayments from '../external_payments/store.js';
import * as managementOperations from '../management_operations/store.js';
import * as moneyEvents from '../money_events/store.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, seedRows } from '../testing/list-plans.js';
import { seededCreatedMs } from '../testing/list-rows.js';
import { pagePlan } from '../testing/plans.js';
import * as transactions from '../transactions/store.js';
import type { Executor } from './database.js';
import type { CreatedRange, PageParams } from './pagination.js';

const PROGRAM = 'p-plans';
const ROWS = 20_000;
/** Row `i`: two rows a millisecond, one in 100 the rare value. */
const createdMs = seededCreatedMs;
const isRare = (i: number) => i % 100 === 7;
const tokenOf = (i: number) => `t-${String(i).padStart(6, '0')}`;

function rowBase(i: number) {
  return {
    program_id: PROGRAM,
    token: tokenOf(i),
    status: isRare(i) ? 'DECLINED' : 'SETTLED',
    result: isRare(i) ? 'DECLINED' : 'APPROVED',
    created_ms: createdMs(i),
    updated_ms: createdMs(i),
  } as const;
}

const movement = (i: number) => ({ ...rowBase(i), amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: isRare(i) ? 0 : 100 });

const tables = {
  book_transfers: (i: number) => ({
    ...movement(i),
    category: isRare(i) ? 'FEE' : 'TRANSFER',
    type: 'TRANSFER',
    subtype: 'P2P',
    from_financial_account_token: 'fa-1',
    to_financial_account_token: 'fa-2',
    external_id: null,
    credit_in_suspense: 0,
  }),
  external_payments: (i: number) => ({
    ...movement(i),
    category: isRare(i) ? 'EXTERNAL_WIRE' : 'EXTERNAL_ACH',
    payment_type: 'DEPOSIT' as const,
    financial_account_token: 'fa-1',
    is_settled: 1,
    user_defined_id: null,
  }),
  management_operations: (i: number) => ({
    ...movement(i),
    category: isRare(i) ? 'MANAGEMENT_FEE' : 'MANAGEMENT_ADJUSTMENT',
    direction: 'CREDIT' as const,
    event_type: 'CASH_BACK',
    subtype: null,
    financial_account_token: 'fa-1',
    effective_date: '2030-01-01',
    user_defined_id: null,
    credit_in_suspense: 0,
  }),
  card_transactions: (i: number) => ({
    ...rowBase(i),
    result: isRare(i) ? 'CARD_PAUSED' : 'APPROVED',
    account_token: 'a-1',
    card_token: 'c-1',
    financial_account_token: 'fa-1',
    kind: 'AUTHORIZATION',
    authorization_amount_cents: 100,
    hold_cents: 0,
    settled_cents: 100,
    merchant_authorization_amount_cents: 100,
    merchant_currency: 'USD',
    spend_cents: 100,
    counts_as_spend: 1,
    return_reversed: 0,
    merchant_acceptor_id: 'm',
    merchant_descriptor: 'M',
    merchant_mcc: '5812',
    merchant_city: 'X',
    merchant_country: 'USA',
    merchant_state: 'NY',
    card_present: 0,
    partial_approval_capable: 0,
    expires_ms: null,
  }),
};
type Table = keyof typeof tables;

/** A financial account of `accountToken`, for the lists filtered by account. */
function financialAccount(token: string, accountToken: string) {
  return {
    program_id: PROGRAM, token, account_token: accountToken, type: 'OPERATING', nickname: null, status: 'OPEN', substatus: null, is_for_benefit_of: 0,
    account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: createdMs(0), updated_ms: createdMs(0),
  };
}

type List = (exec: Executor, page: PageParams, range: CreatedRange) => Promise<unknown>;

/** Each filtered list with the index it must range over (a category: one range per status, each resource's list-plans.test.ts). */
const lists: Array<{ name: string; table: Table; index: string; column: string; list: List }> = [
  { name: 'book transfers by status', table: 'book_transfers', index: 'book_transfers_by_status', column: 'status', list: (exec, page, range) => bookTransfers.list(exec, PROGRAM, { status: 'DECLINED', ...range }, page) },
  { name: 'book transfers by result', table: 'book_transfers', index: 'book_transfers_by_status', column: 'status', list: (exec, page, range) => bookTransfers.list(exec, PROGRAM, { result: 'DECLINED', ...range }, page) },
  { name: 'external payments by status', table: 'external_payments', index: 'external_payments_by_status', column: 'status', list: (exec, page, range) => externalPayments.list(exec, PROGRAM, { status: 'DECLINED', ...range }, page) },
  { name: 'external payments by result', table: 'external_payments', index: 'external_payments_by_status', column: 'status', list: (exec, page, range) => externalPayments.list(exec, PROGRAM, { result: 'DECLINED', ...range }, page) },
  { name: 'management operations by status', table: 'management_operations', index: 'management_operations_by_status', column: 'status', list: (exec, page, range) => managementOperations.list(exec, PROGRAM, { status: 'DECLINED', ...range }, page) },
  { name: 'card transactions by result', table: 'card_transactions', index: 'card_transactions_by_status', column: 'status', list: (exec, page, range) => transactions.list(exec, PROGRAM, { statuses: ['DECLINED'], ...range }, page) },
];

const cursor = tokenOf(10_007);
const range = { begin: new Date(createdMs(2_000)).toISOString(), end: new Date(createdMs(18_000)).toISOString() };
const pageShapes: Array<{ name: string; page: PageParams; range: CreatedRange }> = [
  { name: 'first page', page: {}, range: {} },
  { name: 'after a cursor', page: { starting_after: cursor }, range: {} },
  { name: 'before a cursor', page: { ending_before: cursor }, range: {} },
  { name: 'begin/end', page: {}, range },
  { name: 'begin/end after a cursor', page: { starting_after: cursor }, range },
  { name: 'end before a cursor', page: { ending_before: cursor }, range: { end: range.end } },
];

describeWithDb('filtered list plans', () => {
  const storage = useMigratedDb();

  beforeAll(async () => {
    const { kysely } = storage.db;
    for (const [table, rowOf] of Object.entries(tables)) await seedRows(kysely, table as 'book_transfers', Array.from({ length: ROWS }, (_, i) => rowOf(i)) as never);
    await analyzed(kysely, Object.keys(tables));
  }, 60_000);

  for (const { name, table, index, column, list } of lists) {
    it(`${name}: a range of ${index} in list order, on every page shape`, async () => {
      for (const shape of pageShapes) {
        const plan = await pagePlan(storage.db.kysely, (watched) => list(watched, shape.page, shape.range));
        const text = plan.join('\n');
        if (engine === 'sqlite') {
          expect(plan.filter((detail) => detail.includes(table)), shape.name).toEqual([expect.stringMatching(new RegExp(`^SEARCH ${table} USING INDEX ${index} \\(program_id=\\? AND ${column}=\\?`))]);
          expect(text, shape.name).not.toMatch(/TEMP B-TREE/);
        } else {
          expect(text, shape.name).toMatch(new RegExp(`Index Scan (Backward )?using ${index} on ${table}`));
          expect(text, shape.name).not.toMatch(/Sort/);
        }
      }
    });
  }

  /** A financial account's declined movements (its financial transactions) and waiting operations (its close). */
  const FIRST_CHUNK = { direction: 'desc', after: null, limit: 51 } as const;
  const lookups: Array<{ name: string; table: Table; index: string; read: (exec: Executor) => Promise<unknown> }> = [
    // The declines: one range of the partial index of the account's (migration 0038).
    { name: 'declined transfers out of an account', table: 'book_transfers', index: 'book_transfers_declined_by_from_financial_account \\(program_id=\\? AND from_financial_account_token=\\?\\)', read: (exec) => bookTransfers.declinedFrom(exec, PROGRAM, 'fa-1', FIRST_CHUNK) },
    { name: 'declined payments of an account', table: 'external_payments', index: 'external_payments_declined_by_financial_account \\(program_id=\\? AND financial_account_token=\\?\\)', read: (exec) => externalPayments.declinedOn(exec, PROGRAM, 'fa-1', FIRST_CHUNK) },
    { name: 'declined operations on an account', table: 'management_operations', index: 'management_operations_declined_by_financial_account \\(program_id=\\? AND financial_account_token=\\?\\)', read: (exec) => managementOperations.declinedOn(exec, PROGRAM, 'fa-1', FIRST_CHUNK) },
    { name: 'an account’s waiting operation', table: 'management_operations', index: 'management_operations_by_status \\(program_id=\\? AND status=\\?\\)', read: (exec) => managementOperations.hasPendingFor(exec, PROGRAM, 'fa-1') },
  ];
  for (const { name, table, index, read } of lookups) {
    it(`${name}: a range of an index, never the whole program`, async () => {
      const plan = await pagePlan(storage.db.kysely, read);
      if (engine === 'sqlite') {
        expect(plan.filter((detail) => detail.includes(table))).toEqual([expect.stringMatching(new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX ${index}$`))]);
      } else {
        expect(plan.join('\n')).not.toMatch(/Seq Scan/);
      }
    });
  }

  it('book transfers of one financial account: a page of each side on its own index, on every page shape', async () => {
    for (const shape of pageShapes) {
      const plan = await pagePlan(storage.db.kysely, (watched) => bookTransfers.list(watched, PROGRAM, { financial_account_token: 'fa-1', ...shape.range }, shape.page));
      const text = plan.join('\n');
      if (engine === 'sqlite') {
        const reads = plan.filter((detail) => / book_transfers /.test(detail));
        expect(reads, shape.name).toEqual([
          expect.stringMatching(/^SEARCH book_transfers USING INDEX book_transfers_by_from_fa \(program_id=\? AND from_financial_account_token=\?/),
          expect.stringMatching(/^SEARCH book_transfers USING INDEX book_transfers_by_to_fa \(program_id=\? AND to_financial_account_token=\?/),
        ]);
      } else {
        // By cost: here every transfer is out of fa-1, so that side may walk the program's index.
        // Each side is a page of its own (a Limit); only the two pages are merged and sorted.
        expect(text, shape.name).toMatch(/Index Scan (Backward )?using book_transfers_by_to_fa/);
        expect(text, shape.name).not.toMatch(/Seq Scan/);
        expect(text.match(/->\s+Limit\s+\(/g), shape.name).toHaveLength(2);
      }
    }
  });

  it('a financial account’s movements with a status, result or category: the account’s indexes, the filter a condition on its rows', async () => {
    const cases = [
      { table: 'book_transfers', indexes: ['book_transfers_by_from_fa', 'book_transfers_by_to_fa'], list: (exec: Executor, page: PageParams, filters: object) => bookTransfers.list(exec, PROGRAM, { financial_account_token: 'fa-1', ...filters }, page) },
      { table: 'external_payments', indexes: ['external_payments_by_fa'], list: (exec: Executor, page: PageParams, filters: object) => externalPayments.list(exec, PROGRAM, { financial_account_token: 'fa-1', ...filters }, page) },
      { table: 'management_operations', indexes: ['management_operations_by_fa'], list: (exec: Executor, page: PageParams, filters: object) => managementOperations.list(exec, PROGRAM, { financial_account_token: 'fa-1', ...filters }, page) },
    ];
    for (const { table, indexes, list } of cases) {
      for (const filters of [{ status: 'SETTLED' }, { result: 'DECLINED' }, { category: 'FEE', status: 'SETTLED' }]) {
        for (const shape of pageShapes) {
          const plan = await pagePlan(storage.db.kysely, (watched) => list(watched, shape.page, { ...filters, ...shape.range }));
          const label = `${table} ${JSON.stringify(filters)} ${shape.name}`;
          if (engine === 'sqlite') {
            // SQLite plans without statistics: the newer status or category index would walk every SETTLED row of the program.
            const reads = plan.filter((detail) => new RegExp(` ${table} `).test(detail));
            expect(reads, label).toHaveLength(indexes.length);
            for (const read of reads) expect(read, label).toMatch(new RegExp(`^SEARCH ${table} USING INDEX (${indexes.join('|')}) \\(program_id=\\? AND \\w+=\\?`));
          } else {
            // By cost: every row here is fa-1's, so PostgreSQL may rightly take the filter's index; never a scan of the table.
            expect(plan.join('\n'), label).not.toMatch(/Seq Scan/);
          }
        }
      }
    }
  });

  it('movements of an account’s financial accounts: a page of each account (and side) on its own index', async () => {
    const { kysely } = storage.db;
    await kysely.insertInto('financial_accounts').values([financialAccount('fa-1', 'acct-1'), financialAccount('fa-3', 'acct-1')]).onConflict((oc) => oc.doNothing()).execute();
    const cases = [
      { table: 'book_transfers', indexes: ['book_transfers_by_from_fa', 'book_transfers_by_to_fa'], list: (exec: Executor, page: PageParams) => bookTransfers.list(exec, PROGRAM, { account_token: 'acct-1' }, page) },
      { table: 'external_payments', indexes: ['external_payments_by_fa'], list: (exec: Executor, page: PageParams) => externalPayments.list(exec, PROGRAM, { business_account_token: 'acct-1' }, page) },
      { table: 'management_operations', indexes: ['management_operations_by_fa'], list: (exec: Executor, page: PageParams) => managementOperations.list(exec, PROGRAM, { business_account_token: 'acct-1' }, page) },
    ];
    for (const { table, indexes, list } of cases) {
      for (const page of [{}, { starting_after: cursor }, { ending_before: cursor }]) {
        const plan = await pagePlan(kysely, (watched) => list(watched, page));
        const label = `${table} ${JSON.stringify(page)}`;
        if (engine === 'sqlite') {
          const reads = plan.filter((detail) => new RegExp(` ${table} `).test(detail));
          // Two financial accounts: one read per account and column, each a seek on that column's index.
          expect(reads, label).toHaveLength(2 * indexes.length);
          for (const read of reads) expect(read, label).toMatch(new RegExp(`^SEARCH ${table} USING INDEX (${indexes.join('|')}) \\(program_id=\\? AND \\w+=\\?`));
        } else {
          const text = plan.join('\n');
          expect(text, label).not.toMatch(/Seq Scan/);
          expect(text.match(/->\s+Limit\s+\(/g), label).toHaveLength(2 * indexes.length);
        }
      }
    }
  });

  it('an account with more financial accounts than alternatives pages them in one query, with the same rows', async () => {
    const { kysely } = storage.db;
    const many = Array.from({ length: 40 }, (_, index) => (index === 0 ? 'fa-2' : `fa-many-${index}`));
    await kysely.insertInto('financial_accounts').values(many.map((token) => financialAccount(token, 'acct-2'))).execute();
    for (const page of [{ page_size: 5 }, { page_size: 5, starting_after: cursor }, { page_size: 5, ending_before: cursor }]) {
      const byAccount = await bookTransfers.list(kysely, PROGRAM, { account_token: 'acct-2', begin: range.begin }, page);
      const byFinancialAccount = await bookTransfers.list(kysely, PROGRAM, { financial_account_token: 'fa-2', begin: range.begin }, page);
      expect(byAccount.rows.map((row) => row.token)).toEqual(byFinancialAccount.rows.map((row) => row.token));
      expect(byAccount.has_more).toBe(byFinancialAccount.has_more);
      expect(byAccount.rows).toHaveLength(5);
    }
    expect(await bookTransfers.list(kysely, PROGRAM, { account_token: 'acct-none' }, {})).toEqual({ rows: [], has_more: false });
  });

  it.skipIf(engine !== 'sqlite')('an event without a journal on an account: its movements on the account from their indexes, each one’s events by key', async () => {
    const plan = await pagePlan(storage.db.kysely, (watched) => moneyEvents.eventWithoutJournalMs(watched, PROGRAM, 'fa-1', 'e-1'));
    const reads = plan.filter((detail) => /^(SEARCH|SCAN) /.test(detail));
    expect(reads).toHaveLength(6);
    for (const read of reads) expect(read).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX \w+ \(program_id=\? AND \w+=\?\)$|^SEARCH money_events USING PRIMARY KEY \(program_id=\? AND transaction_token=\?\)$/);
  });
});
