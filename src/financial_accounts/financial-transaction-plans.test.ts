/**
 * GET /v1/financial_accounts/{token}/financial_transactions with every filter (result, status,
 * category, begin/end, cursors) on every page shape, over an account with thousands of
 * transactions of every source (book transfers in and out, some reversed later; card holds, some
 * cleared later; management operations; payments; micro-deposits; movements of each kind declined)
 * beside another account of the program and the same account in another program:
 *  - each page lists what the whole history says it must (`expectedPage` over the seeded facts), and
 *    each item as the whole list (no `page_size`) shows it;
 *  - each statement of a page is bounded: a range under a LIMIT (the walk over the account's
 *    transactions, each at its first entry on the account; each source of declined movements), or
 *    seeks by the tokens of the page (their journals, events, card facts; a cursor's place). Never a
 *    read of the account's whole history: SQLite SEARCHes only, no SCAN of a table, and a temp
 *    B-tree only to order one millisecond's entries by token or to order a page's own rows;
 *    PostgreSQL no Seq Scan, and a sort only of the same.
 * The known walk (docs/architecture.md): a status, or a payment's category (ACH or TRANSFER is told
 * by its event), is a condition on the candidates, so such a page reads the account's transactions
 * until it is full, in rounds of candidates that double up to 500, each round bounded as above.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Executor } from '../db/database.js';
import type { CreatedRange } from '../db/pagination.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, expectedPage, pageShapes, seedRows } from '../testing/list-plans.js';
import { planOf, statementsOf } from '../testing/plans.js';
import { getIn, listIn } from './financial_transactions.js';
import type { FinancialTransactionsQuery } from './schemas.js';

const PROGRAM = 'p-ft-plans';
const OTHER_PROGRAM = 'p-ft-other';
const ACCOUNT = 'fa-1';
const NEIGHBOUR = 'fa-2';
const TRANSACTIONS = 6_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
/** Two transactions a millisecond, so that ties are broken by token. */
const createdMs = (i: number) => BASE_MS + Math.floor(i / 2);
const tokenOf = (i: number) => `ft-${String(i).padStart(6, '0')}`;
/** A later journal (a clearing, a reversal) comes this much later, among newer transactions' first journals. */
const LATER_MS = 700;

type Category = 'CARD' | 'TRANSFER' | 'ACH' | 'INTERNAL';
type Status = 'PENDING' | 'SETTLED' | 'RETURNED' | 'VOIDED' | 'DECLINED';

/** What the whole history says of a seeded transaction of the account. */
interface Fact {
  token: string;
  created_ms: number;
  category: Category;
  status: Status;
  result: 'APPROVED' | 'DECLINED';
}

interface Entry {
  journal: string;
  account: string;
  bucket: 'available' | 'pending';
  amount_cents: number;
  kind: string;
  ms: number;
}

/** Each transaction's journals (as entries) and the declined movements, by `i % 10`. */
function seeded(i: number): { fact: Fact; entries: Entry[]; declined?: 'book_transfers' | 'management_operations' | 'external_payments' | 'card_transactions' } {
  const ms = createdMs(i);
  const token = tokenOf(i);
  const fact = (category: Category, status: Status): Fact => ({ token, created_ms: ms, category, status, result: status === 'DECLINED' ? 'DECLINED' : 'APPROVED' });
  const pair = (journal: string, kind: string, at: number, account: string, bucket: Entry['bucket'], amount: number, other: string, otherBucket: Entry['bucket'] = 'available'): Entry[] => [
    { journal, account, bucket, amount_cents: amount, kind, ms: at },
    { journal, account: other, bucket: otherBucket, amount_cents: -amount, kind, ms: at },
  ];
  switch (i % 10) {
    case 0:
    case 1:
      return { fact: fact('TRANSFER', 'SETTLED'), entries: pair(`j-${token}`, 'BOOK_TRANSFER', ms, ACCOUNT, 'available', 100, NEIGHBOUR) };
    case 2:
      return {
        fact: fact('TRANSFER', 'RETURNED'),
        entries: [...pair(`j-${token}`, 'BOOK_TRANSFER', ms, ACCOUNT, 'available', -100, NEIGHBOUR), ...pair(`r-${token}`, 'BOOK_TRANSFER_REVERSAL', ms + LATER_MS, ACCOUNT, 'available', 100, NEIGHBOUR)],
      };
    case 3: {
      const hold = pair(`j-${token}`, 'CARD_AUTHORIZATION_HOLD', ms, ACCOUNT, 'available', -100, ACCOUNT, 'pending');
      if (i % 20 === 3) return { fact: fact('CARD', 'PENDING'), entries: hold };
      return { fact: fact('CARD', 'SETTLED'), entries: [...hold, ...pair(`c-${token}`, 'CARD_CLEARING', ms + LATER_MS, ACCOUNT, 'pending', -100, 'system:CARD_NETWORK')] };
    }
    case 4:
      return { fact: fact('INTERNAL', 'SETTLED'), entries: pair(`j-${token}`, 'MANAGEMENT_OPERATION', ms, ACCOUNT, 'available', 100, 'system:PROGRAM') };
    case 5:
      return { fact: fact('TRANSFER', 'PENDING'), entries: pair(`j-${token}`, 'EXTERNAL_PAYMENT_INITIATED', ms, ACCOUNT, 'pending', 100, 'system:EXTERNAL_BANKS') };
    case 6:
      return { fact: fact('ACH', 'SETTLED'), entries: pair(`j-${token}`, 'MICRO_DEPOSIT', ms, ACCOUNT, 'available', 1, 'system:EXTERNAL_BANKS') };
    case 7: {
      const sources = ['book_transfers', 'management_operations', 'external_payments', 'card_transactions'] as const;
      const source = sources[Math.floor(i / 10) % sources.length] ?? 'book_transfers';
      const category: Category = source === 'card_transactions' ? 'CARD' : source === 'management_operations' ? 'INTERNAL' : 'TRANSFER';
      return { fact: fact(category, 'DECLINED'), entries: [], declined: source };
    }
    default:
      // A transfer into the neighbour: never the account's.
      return { fact: { ...fact('TRANSFER', 'SETTLED'), token: `nb-${token}` }, entries: pair(`j-${token}`, 'BOOK_TRANSFER', ms, NEIGHBOUR, 'available', 100, 'system:PROGRAM') };
  }
}

const SEEDED = Array.from({ length: TRANSACTIONS }, (_, i) => ({ i, ...seeded(i) }));
const FACTS = SEEDED.filter(({ i }) => i % 10 < 8).map(({ fact }) => fact);

function entryRows(programId: string) {
  return SEEDED.flatMap(({ i, entries }) =>
    entries.map((entry, seq) => ({
      program_id: programId, journal_token: entry.journal, seq, ledger_account: entry.account, bucket: entry.bucket, amount_cents: entry.amount_cents,
      created_ms: entry.ms, kind: entry.kind, transaction_token: i % 10 < 8 ? tokenOf(i) : `nb-${tokenOf(i)}`, event_token: `e-${entry.journal}`,
    })),
  );
}

/**
 * Rows beside the account's declined ones in each resource's table, as its approved movements have
 * them (their journals are not seeded: the list finds them by their journals): the account's and its
 * neighbour's, half each, which no page shows as declined.
 */
const APPROVED_ROWS = 4_000;

/** The rows of `source`: the account's declined movements, then approved ones of the account and its neighbour. */
function declinedRows(source: string) {
  const declined = SEEDED.filter((row) => row.declined === source).map(({ fact }) => ({ token: fact.token, ms: fact.created_ms, account: ACCOUNT, status: 'DECLINED' as const, result: 'DECLINED' as const }));
  const approved = Array.from({ length: APPROVED_ROWS }, (_, i) => ({ token: `ok-${source}-${i}`, ms: createdMs(i), account: i % 2 === 0 ? ACCOUNT : NEIGHBOUR, status: 'SETTLED' as const, result: 'APPROVED' as const }));
  return [...declined, ...approved];
}

async function seed(kysely: Executor, programId: string) {
  await seedRows(kysely as never, 'ledger_entries', entryRows(programId));
  await seedRows(kysely as never, 'financial_accounts', [ACCOUNT, NEIGHBOUR].map((token) => ({
    program_id: programId, token, account_token: 'acct-1', type: 'OPERATING', nickname: null, status: 'OPEN', substatus: null, is_for_benefit_of: 0,
    account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: BASE_MS, updated_ms: BASE_MS,
  })));
  await seedRows(kysely as never, 'book_transfers', declinedRows('book_transfers').map(({ token, ms, account, status, result }) => ({
    program_id: programId, token, category: 'TRANSFER', type: 'TRANSFER', subtype: 'P2P', from_financial_account_token: account, to_financial_account_token: 'fa-3',
    status, result, amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: 0, external_id: null, credit_in_suspense: 0, created_ms: ms, updated_ms: ms,
  })));
  await seedRows(kysely as never, 'management_operations', declinedRows('management_operations').map(({ token, ms, account, status, result }) => ({
    program_id: programId, token, category: 'MANAGEMENT_FEE', direction: 'DEBIT', event_type: 'LOSS_WRITE_OFF', subtype: null, financial_account_token: account, status, result,
    amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: 0, effective_date: '2030-01-01', user_defined_id: null, credit_in_suspense: 0, created_ms: ms, updated_ms: ms,
  })));
  await seedRows(kysely as never, 'external_payments', declinedRows('external_payments').map(({ token, ms, account, status, result }) => ({
    program_id: programId, token, category: 'EXTERNAL_TRANSFER', payment_type: 'WITHDRAWAL', financial_account_token: account, status, result, is_settled: status === 'SETTLED' ? 1 : 0,
    amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: 0, user_defined_id: null, created_ms: ms, updated_ms: ms,
  })));
  await seedRows(kysely as never, 'card_transactions', declinedRows('card_transactions').map(({ token, ms, account, status, result }) => ({
    program_id: programId, token, account_token: 'acct-1', card_token: 'c-1', financial_account_token: account, kind: 'AUTHORIZATION', status, result: result === 'DECLINED' ? 'CARD_PAUSED' : result,
    authorization_amount_cents: 100, hold_cents: 0, settled_cents: 0, merchant_authorization_amount_cents: 100, merchant_currency: 'USD', spend_cents: 0, counts_as_spend: 0, return_reversed: 0,
    merchant_acceptor_id: 'm', merchant_descriptor: 'M', merchant_mcc: '5812', merchant_city: 'X', merchant_country: 'USA', merchant_state: 'NY', card_present: 0, partial_approval_capable: 0,
    expires_ms: null, created_ms: ms, updated_ms: ms,
  })));
}

const CURSOR = tokenOf(3_001);
const SHAPES = pageShapes(CURSOR, { range: { begin: new Date(createdMs(400)).toISOString(), end: new Date(createdMs(5_000)).toISOString() } });

type Filters = Pick<FinancialTransactionsQuery, 'result' | 'status' | 'category'>;

const FILTERS: Filters[] = [
  {},
  { result: 'APPROVED' },
  { result: 'DECLINED' },
  ...(['PENDING', 'SETTLED', 'RETURNED', 'DECLINED'] as const).map((status) => ({ status })),
  ...(['CARD', 'TRANSFER', 'ACH', 'INTERNAL'] as const).map((category) => ({ category })),
  { status: 'SETTLED', category: 'CARD' },
  { result: 'DECLINED', category: 'CARD' },
  { result: 'APPROVED', category: 'INTERNAL' },
  { result: 'DECLINED', category: 'INTERNAL' },
];

const keeps = (filters: Filters) => (fact: Fact) =>
  (filters.result === undefined || fact.result === filters.result) && (filters.status === undefined || fact.status === filters.status) && (filters.category === undefined || fact.category === filters.category);

/** Whether a statement is bounded by the page: a range under a LIMIT, or seeks by the page's tokens. */
const isBounded = (text: string) => /\blimit\b/i.test(text) || /"(transaction_)?token" (=|in) /.test(text);

const SEEDED_TABLES = ['ledger_entries', 'book_transfers', 'management_operations', 'external_payments', 'card_transactions'];

/** What a statement of a page may read (the header says why). */
function expectBoundedPlan(statement: string, plan: string[], label: string) {
  const said = `${label}\n${statement}\n${plan.join('\n')}`;
  expect(isBounded(statement), `a statement neither under a LIMIT nor by tokens: ${said}`).toBe(true);
  const byTokens = / in \(/.test(statement);
  if (engine === 'sqlite') {
    for (const step of plan) {
      expect(step, said).not.toMatch(/^SCAN (?!page_)/);
      if (/TEMP B-TREE/.test(step) && !byTokens) expect(step, said).toMatch(/(RIGHT PART|LAST TERM) OF ORDER BY/);
    }
    return;
  }
  const text = plan.join('\n');
  for (const table of SEEDED_TABLES) expect(text, said).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
  if (!byTokens) expect(text, said).not.toMatch(/(?<!Incremental )Sort {2}\(/);
}

describeWithDb('financial transactions list plans', () => {
  const storage = useMigratedDb();

  beforeAll(async () => {
    const { kysely } = storage.db;
    await seed(kysely, PROGRAM);
    await seed(kysely, OTHER_PROGRAM);
    await analyzed(kysely, [...SEEDED_TABLES, 'financial_accounts']);
  }, 120_000);

  it('every filter, on every page shape: the page the whole history names, each statement bounded by the page', async () => {
    const { kysely } = storage.db;
    const whole = await listIn(kysely, PROGRAM, ACCOUNT, {});
    expect(whole.data.map((item) => item.token)).toEqual(expectedPage(FACTS, () => true, { page_size: FACTS.length }).tokens);
    const shown = new Map(whole.data.map((item) => [item.token, item]));
    for (const filters of FILTERS) {
      for (const shape of SHAPES) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const query: FinancialTransactionsQuery = { ...filters, ...(shape.range as CreatedRange), ...shape.page };
        const page = await listIn(kysely, PROGRAM, ACCOUNT, query);
        expect({ tokens: page.data.map((item) => item.token), has_more: page.has_more }, label).toEqual(expectedPage(FACTS, keeps(filters), shape.page, shape.range));
        for (const item of page.data) expect(item, label).toEqual(shown.get(item.token));
        const statements = await statementsOf(kysely, (watched) => listIn(watched, PROGRAM, ACCOUNT, query));
        for (const statement of statements) expectBoundedPlan(statement.sql, await planOf(kysely, statement), label);
      }
    }
  }, 600_000);

  it('one read of a transaction of each kind: as the whole list shows it, each statement a seek by its token', async () => {
    const { kysely } = storage.db;
    const whole = await listIn(kysely, PROGRAM, ACCOUNT, {});
    for (const i of [3_000, 3_002, 3_003, 3_013, 3_004, 3_005, 3_006, 3_007, 3_017, 3_027, 3_037]) {
      const token = tokenOf(i);
      expect(await getIn(kysely, PROGRAM, ACCOUNT, token), token).toEqual(whole.data.find((item) => item.token === token));
      const statements = await statementsOf(kysely, (watched) => getIn(watched, PROGRAM, ACCOUNT, token));
      for (const statement of statements) expectBoundedPlan(statement.sql, await planOf(kysely, statement), token);
    }
    expect(await getIn(kysely, PROGRAM, ACCOUNT, `nb-${tokenOf(3_008)}`)).toBeUndefined();
  });

  it('a page without a status or a payment category is one round: a fixed number of statements', async () => {
    const { kysely } = storage.db;
    for (const shape of SHAPES) {
      const statements = await statementsOf(kysely, (watched) => listIn(watched, PROGRAM, ACCOUNT, { ...(shape.range as CreatedRange), ...shape.page }));
      // The cursor's place (a seek per source), one chunk per source (the walk over the account's entries may need a
      // second: a hold's two entries count as two), then the page's journals, events, card facts and card events.
      expect(statements.length, shape.name).toBeLessThanOrEqual(5 + 5 + 1 + 4);
    }
  });

  it('a status no transaction has walks the whole account in rounds that grow, not page-sized ones', async () => {
    const { kysely } = storage.db;
    // No seeded transaction is VOIDED: the page of one reads all 4,800 of the account's. In rounds of two candidates
    // (the page size and one) that would be about 2,400 rounds of nine statements; rounds that double up to
    // WHOLE_LIST_CHUNK (500) take about 17.
    const query: FinancialTransactionsQuery = { status: 'VOIDED', page_size: 1 };
    expect(await listIn(kysely, PROGRAM, ACCOUNT, query)).toEqual({ data: [], has_more: false });
    const statements = await statementsOf(kysely, (watched) => listIn(watched, PROGRAM, ACCOUNT, query));
    expect(statements.length).toBeLessThanOrEqual(250);
  });
});
