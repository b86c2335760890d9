/**
 * The card transaction list (GET /v1/transactions) is a range of one list index in list order,
 * newest first, on every filter combination and page shape, never a walk of the program's
 * transactions for those a filter keeps, nor a sort of every transaction the filters keep; its rows
 * are those the filters name, checked against the filters applied here to every transaction:
 *
 * - a card's transactions are a range of `card_transactions_by_card`, an account's (without a card)
 *   of `card_transactions_by_account`; a status, result or account beside them is a condition on
 *   that range (`anyOfUnindexed`). Such a page reads the card's (account's) transactions until it
 *   is full, a bound of that card's or account's own history, never the program's: judged
 *   acceptable against another index on card_transactions, written by every authorization;
 * - a status alone, or result=DECLINED (status DECLINED), is a range of `card_transactions_by_status`,
 *   result=APPROVED one range per approved status (PENDING, SETTLED, VOIDED, EXPIRED), their pages
 *   merged (`anyOf`); PostgreSQL, by cost, may walk `card_transactions_by_created` for the status of
 *   most transactions (SETTLED), reading little more than a page;
 * - no filter, or begin/end alone, is a range of `card_transactions_by_created`.
 */
import { expect, it } from 'vitest';
import { describeWithDb } from '../testing/harness.js';
import { expectedPage, expectIndexRanges, pageShapes, useSeededList } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { statusesFor } from './service.js';
import { list } from './store.js';
import type { CardTransactionsTable, TransactionStatus } from './tables.js';

const PROGRAM = 'p-list';
const TRANSACTIONS = 6_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const token = (program: string, i: number) => `${program}-t-${String(i).padStart(5, '0')}`;

/**
 * Transaction `i` of `program`, two a millisecond: one in 100 on card `c-1` and one in 100 on `c-2`
 * (both of account `a-1`), the others on one of 500 cards of 250 accounts. Most SETTLED; one in 10
 * PENDING, one in 20 DECLINED (for one of two reasons), one in 50 VOIDED, one in 100 EXPIRED.
 */
function transaction(program: string, i: number): CardTransactionsTable {
  const status: TransactionStatus = i % 20 === 7 ? 'DECLINED' : i % 10 === 3 ? 'PENDING' : i % 50 === 9 ? 'VOIDED' : i % 100 === 11 ? 'EXPIRED' : 'SETTLED';
  const card = i % 100 === 1 ? 'c-1' : i % 100 === 2 ? 'c-2' : `card-${i % 500}`;
  const account = card === 'c-1' || card === 'c-2' ? 'a-1' : `acct-${i % 250}`;
  return {
    program_id: program, token: token(program, i), account_token: account, card_token: card, financial_account_token: `fa-${account}`, kind: 'AUTHORIZATION', status,
    result: status === 'DECLINED' ? (i % 40 === 7 ? 'INSUFFICIENT_FUNDS' : 'CARD_PAUSED') : 'APPROVED',
    authorization_amount_cents: 100, hold_cents: status === 'PENDING' ? 100 : 0, settled_cents: status === 'SETTLED' ? 100 : 0, merchant_authorization_amount_cents: 100, merchant_currency: 'USD',
    spend_cents: 100, counts_as_spend: 1, return_reversed: 0, merchant_acceptor_id: 'm', merchant_descriptor: 'SHOP', merchant_mcc: '5812', merchant_city: 'X', merchant_country: 'USA',
    merchant_state: 'NY', card_present: 0, partial_approval_capable: 0, expires_ms: null, created_ms: BASE_MS + Math.floor(i / 2), updated_ms: BASE_MS,
  };
}

interface Filters {
  card_token?: string;
  account_token?: string;
  status?: TransactionStatus;
  result?: 'APPROVED' | 'DECLINED';
  begin?: string;
  end?: string;
}

const at = (i: number) => new Date(BASE_MS + i).toISOString();
const ranges: Filters[] = [{}, { begin: at(500), end: at(2_500) }, { end: at(1_200) }];
const selections: Filters[] = [
  {},
  { card_token: 'c-1' },
  { account_token: 'a-1' },
  { card_token: 'c-1', account_token: 'a-1' },
  ...(['PENDING', 'SETTLED', 'DECLINED', 'VOIDED', 'EXPIRED'] as const).map((status) => ({ status })),
  { result: 'APPROVED' },
  { result: 'DECLINED' },
  { result: 'APPROVED', status: 'PENDING' },
  { card_token: 'c-1', status: 'DECLINED' },
  { card_token: 'c-1', status: 'SETTLED' },
  { card_token: 'c-1', result: 'APPROVED' },
  { account_token: 'a-1', result: 'DECLINED' },
  { account_token: 'a-1', status: 'PENDING' },
  { card_token: 'c-2', account_token: 'a-1', result: 'DECLINED' },
];
const cases: Filters[] = ranges.flatMap((range) => selections.map((selection) => ({ ...selection, ...range })));

describeWithDb('card transaction list plans', () => {
  const storage = useSeededList('card_transactions', PROGRAM, TRANSACTIONS, transaction);
  const rows = storage.rows;

  /** The filters but begin/end (`expectedPage`'s), applied here. */
  function keeps(filters: Filters) {
    return (row: CardTransactionsTable) =>
      (filters.card_token === undefined || row.card_token === filters.card_token) &&
      (filters.account_token === undefined || row.account_token === filters.account_token) &&
      (filters.status === undefined || row.status === filters.status) &&
      (filters.result === undefined || (filters.result === 'APPROVED') === (row.result === 'APPROVED'));
  }

  /** The index the page must range over: the card's, else the account's, else the status's, else the program's. */
  function indexFor(filters: Filters): string {
    if (filters.card_token !== undefined) return 'card_transactions_by_card';
    if (filters.account_token !== undefined) return 'card_transactions_by_account';
    if (filters.status !== undefined || filters.result !== undefined) return 'card_transactions_by_status';
    return 'card_transactions_by_created';
  }

  it('ranges over one list index in list order, with the rows the filters name, on every filter combination and page shape', async () => {
    const { kysely } = storage.db;
    for (const filters of cases) {
      const { card_token, account_token, begin, end } = filters;
      const storeFilters = { card_token, account_token, begin, end, statuses: statusesFor(filters) };
      for (const shape of pageShapes(token(PROGRAM, 1_501))) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const listed = await list(kysely, PROGRAM, storeFilters, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(rows, keeps(filters), shape.page, filters));
        const plan = await pagePlan(kysely, (watched) => list(watched, PROGRAM, storeFilters, shape.page));
        expectIndexRanges(plan, 'card_transactions', label, { indexes: [indexFor(filters)], reads: 'some', postgres: null, limited: true });
      }
    }
  });
});
