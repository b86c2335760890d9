/**
 * `GET /v1/cards` pages are ranges of an index in list order, for every filter combination and
 * page shape (first page, after and before a cursor, within begin/end), with the rows the filters
 * name, checked against the filters applied here to every card:
 *
 * - an account's cards (with a state, a memo or both) are a range of `cards_by_account`: the state
 *   is a condition on the account's cards, never the drive (on SQLite, which plans without
 *   statistics, `cards_by_state` walked every OPEN card of the program for the account's);
 *   PostgreSQL takes by cost the smaller of that and the program's cards in the state, both
 *   bounded by what its statistics say, so the walk is the account's cards at most;
 * - a state alone (with a memo or not) is a range of `cards_by_state`; PostgreSQL may walk
 *   `cards_by_created` by cost for OPEN, the state of most cards (little more than a page);
 * - no filter, or begin/end alone, a range of `cards_by_created`;
 * - the funding account and its financial account are each one primary-key seek per card on the
 *   page.
 *
 * Known to walk: `memo` alone, a case-insensitive substring, walks `cards_by_created` until it has a
 * page (every card of the program within begin/end when few match; PostgreSQL may read the table
 * whole instead, by cost); no index serves `%text%`.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { accountRow, issuingAccountRow, seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { analyzed, expectedPage, expectIndexRanges, pageShapes, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { listWithFunding, type CardRow, type ListFilters } from './store.js';

const PROGRAM = 'p-cards';
const OTHER = 'p-other';
const CARDS = 6_000;
const ACCOUNTS = 2_000;
const createdMs = seededCreatedMs;
const cardToken = (program: string, i: number) => seededToken(program, 'c', i);
/** Card `i`'s account: one in 20 cards is the busy account's, the others three or so an account. */
const accountToken = (i: number) => (i % 20 === 7 ? BUSY : `a-${i % ACCOUNTS}`);
const BUSY = 'a-busy';

/** Card `i`: two a millisecond; most OPEN, about one in 9 CLOSED, 47 PAUSED, 101 PENDING_FULFILLMENT; one in 97 a coffee memo. */
function card(program: string, i: number): CardRow {
  const state = i % 101 === 3 ? 'PENDING_FULFILLMENT' : i % 47 === 1 ? 'PAUSED' : i % 9 === 2 ? 'CLOSED' : 'OPEN';
  return {
    program_id: program, token: cardToken(program, i), account_token: accountToken(i), card_program_token: 'cp', type: 'VIRTUAL', state,
    pan_encrypted: 'x', pan_lookup_hash: `${program}-${i}`, last_four: '0000', cvv_encrypted: 'x', exp_month: '01', exp_year: '2035', pin_hash: null, pin_status: 'OK',
    pin_failed_attempts: 0, spend_limit_cents: 0, spend_limit_duration: 'TRANSACTION', memo: i % 97 === 9 ? `Coffee ${i}` : `Groceries ${i}`, comment: null, substatus: null,
    network_program_token: null, digital_card_art_token: null, product_id: null, replacement_for: null, shipping: null, hostname: '', locked_merchant_acceptor_id: null,
    first_approved_ms: null, shipped_ms: null, created_ms: createdMs(i), updated_ms: createdMs(i),
  };
}

const ACCOUNT = BUSY;
const filterCases: ListFilters[] = [
  {},
  { account_token: ACCOUNT },
  { account_token: 'a-17' },
  { account_token: 'a-17', state: 'OPEN' },
  { account_token: ACCOUNT, state: 'OPEN' },
  { account_token: ACCOUNT, state: 'PAUSED' },
  { account_token: ACCOUNT, memo: 'coffee' },
  { account_token: ACCOUNT, state: 'OPEN', memo: 'groceries' },
  { state: 'PAUSED' },
  { state: 'PENDING_FULFILLMENT' },
  { state: 'OPEN' },
  { state: 'PAUSED', memo: 'coffee' },
  { account_token: 'a-none' },
  { memo: 'coffee' },
];

const cursor = cardToken(PROGRAM, 3_001);
const shapes = pageShapes(cursor, { range: { begin: new Date(createdMs(1_000)).toISOString(), end: new Date(createdMs(5_000)).toISOString() } });

/**
 * The index each combination must range over. PostgreSQL, by cost, may walk `cards_by_created` for
 * OPEN (most cards: little more than a page), and for an account and a state the smaller of the
 * account's cards and the program's cards in that state, as its statistics say.
 */
function indexesFor(filters: ListFilters): { indexes: string[]; postgres?: string[] } {
  if (filters.account_token !== undefined) return { indexes: ['cards_by_account'], ...(filters.state !== undefined ? { postgres: ['cards_by_account', 'cards_by_state'] } : {}) };
  if (filters.state !== undefined) return { indexes: ['cards_by_state'], ...(filters.state === 'OPEN' ? { postgres: ['cards_by_state', 'cards_by_created'] } : {}) };
  return { indexes: ['cards_by_created'] };
}

describeWithDb('card list plans', () => {
  const storage = useMigratedDb();
  const cards = Array.from({ length: CARDS }, (_, i) => card(PROGRAM, i));

  beforeAll(async () => {
    const { kysely } = storage.db;
    for (const program of [PROGRAM, OTHER]) {
      const accounts = [...Array.from({ length: ACCOUNTS }, (_, i) => `a-${i}`), BUSY].map((token) => accountRow(program, token, createdMs(0)));
      const financialAccounts = accounts.map(issuingAccountRow);
      await seedRows(kysely, 'accounts', accounts);
      await seedRows(kysely, 'financial_accounts', financialAccounts);
      await seedRows(kysely, 'cards', program === PROGRAM ? cards : Array.from({ length: CARDS / 2 }, (_, i) => card(OTHER, i)));
    }
    await analyzed(kysely, ['cards', 'accounts', 'financial_accounts']);
  }, 60_000);

  function expected(filters: ListFilters, shape: (typeof shapes)[number]) {
    const keep = (row: CardRow) =>
      (filters.account_token === undefined || row.account_token === filters.account_token) &&
      (filters.state === undefined || row.state === filters.state) &&
      (filters.memo === undefined || row.memo.toLowerCase().includes(filters.memo.toLowerCase()));
    return expectedPage(cards, keep, shape.page, shape.range);
  }

  it('pages every filter combination as a range of its index, with the rows the filters name, on every page shape', async () => {
    const { kysely } = storage.db;
    for (const filters of filterCases) {
      for (const shape of shapes) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const all = { ...filters, ...shape.range };
        const listed = await listWithFunding(kysely, PROGRAM, all, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expected(filters, shape));
        expect(listed.rows.every((row) => row.funding_token === `fa-${row.account_token}`), label).toBe(true);
        const plan = await pagePlan(kysely, (watched) => listWithFunding(watched, PROGRAM, all, shape.page));
        // memo alone: known to walk (the header); PostgreSQL may rather read the table whole, by cost.
        const memoAlone = filters.memo !== undefined && filters.account_token === undefined && filters.state === undefined;
        if (engine === 'sqlite' || !memoAlone) expectIndexRanges(plan, 'cards', label, indexesFor(filters));
        if (engine === 'sqlite') {
          for (const table of ['accounts', 'financial_accounts']) {
            expect(plan.filter((step) => new RegExp(`^(SEARCH|SCAN) ${table} `).test(step)), label).toEqual([expect.stringMatching(new RegExp(`^SEARCH ${table} USING (INDEX \\w+_pk|PRIMARY KEY) \\(program_id=\\? AND token=\\?\\)$`))]);
          }
        } else {
          expect(plan.join('\n'), label).not.toMatch(/Seq Scan on (accounts|financial_accounts)\b/);
        }
      }
    }
  });
});
