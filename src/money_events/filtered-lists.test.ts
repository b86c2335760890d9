/**
 * Filtered lists of book transfers, external payments and management operations, paged one to
 * three at a time forwards and backwards (testing/paging.ts), return exactly the items of the whole list that match, newest first
 * (each filter ranges over its own index: db/list-plans.test.ts). And `result=DECLINED` is served
 * as status DECLINED: after every kind of step, an item is result DECLINED exactly when it is
 * status DECLINED. The same filters beside a financial account give the same answers.
 */
import Lithic from 'lithic';
import { beforeAll, expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { expectPagedBothWays } from '../testing/paging.js';

interface Item {
  token: string;
  status: string;
  result?: string;
  category?: string | undefined;
  created: string;
}
type Filters = Record<string, string>;
interface Page {
  data: Item[];
  has_more: boolean;
}
/** A list as the SDK gives it: awaited, one page; iterated, every item (testing/paging.ts). */
type Lister = (query: Record<string, unknown>) => PromiseLike<Page> & AsyncIterable<Item>;

/** The whole list, its result/status invariant, then every filter set paged both ways against it. */
async function expectFilteredPages(list: Lister, values: FilterValues): Promise<void> {
  const all = await everyItem(list);
  expectResultDeclinedIsStatusDeclined(all);
  for (const filters of filterSetsOf(all, values)) {
    const expected = all.filter((item) => Object.entries(filters).every(([field, value]) => matches(item, field, value))).map((item) => item.token);
    await expectPagedBothWays(list, filters, expected);
  }
}

/**
 * The list of one financial account's movements. Beside it a status, result or category is a
 * condition on the account's rows (the account's indexes drive: db/list-plans.test.ts).
 */
function ofFinancialAccount(list: Lister, financialAccountToken: string): Lister {
  return (query) => list({ ...query, financial_account_token: financialAccountToken });
}

function matches(item: Item, field: string, value: string): boolean {
  if (field === 'begin') return Date.parse(item.created) > Date.parse(value);
  if (field === 'end') return Date.parse(item.created) < Date.parse(value);
  return item[field as 'status' | 'result' | 'category'] === value;
}

async function everyItem(list: Lister): Promise<Item[]> {
  const page = await list({ page_size: 100 });
  expect(page.has_more).toBe(false);
  return page.data;
}

/** The filters to check: each value present (and one absent), result both ways, and a status within begin/end. */
interface FilterValues {
  status: readonly string[];
  category: readonly string[];
  result: boolean;
}

function filterSetsOf(all: Item[], values: FilterValues): Filters[] {
  const middle = all[Math.floor(all.length / 2)] as Item;
  const begin = new Date(Date.parse((all.at(-1) as Item).created) - 1).toISOString();
  const end = new Date(Date.parse(middle.created) + 1).toISOString();
  return [
    ...values.status.map((status) => ({ status })),
    ...values.category.map((category) => ({ category })),
    ...(values.result ? [{ result: 'DECLINED' }, { result: 'APPROVED' }, { result: 'DECLINED', status: 'DECLINED' }, { result: 'DECLINED', status: 'SETTLED' }] : []),
    { status: 'DECLINED', begin, end },
    { category: middle.category as string, begin, end },
  ];
}

function expectResultDeclinedIsStatusDeclined(all: Item[]): void {
  for (const item of all) expect(item.result === 'DECLINED', `${item.token}: ${item.status}/${item.result}`).toBe(item.status === 'DECLINED');
  expect(all.some((item) => item.status === 'DECLINED')).toBe(true);
}

describeWithDb('filtered lists of money movements', () => {
  const context = useTestServer();
  let program: TestProgram;
  let client: Lithic;
  let a: string;
  let b: string;
  let today: string;

  beforeAll(async () => {
    program = await context.server.newProgram('filtered-lists');
    client = program.client;
    a = await newAccount(client, 'a');
    b = await newAccount(client, 'b');
    await fund(client, a, 10_000);
    today = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now.slice(0, 10);
  });

  it('book transfers: status, result and category across pages, both ways', async () => {
    await bookTransfer(client, a, b, 100);
    await bookTransfer(client, a, b, 99_999, { category: 'FEE' });
    const reversed = await bookTransfer(client, a, b, 10, { category: 'FEE' });
    await bookTransfer(client, b, a, 20, { category: 'REWARD' });
    await client.bookTransfers.reverse(reversed.token, {});
    await bookTransfer(client, b, a, 99_999);
    await bookTransfer(client, a, b, 30, { category: 'FEE' });
    const list: Lister = (query) => client.bookTransfers.list(query as never);
    const values: FilterValues = { status: ['SETTLED', 'DECLINED', 'REVERSED'], category: ['TRANSFER', 'FEE', 'REWARD', 'DISPUTE'], result: true };
    await expectFilteredPages(list, values);
    await expectFilteredPages(ofFinancialAccount(list, a), values);
  });

  it('external payments: status, result and category across pages, both ways', async () => {
    const pay = (paymentType: 'DEPOSIT' | 'WITHDRAWAL', amount: number, category: Lithic.ExternalPaymentCreateParams['category'] = 'EXTERNAL_ACH') =>
      client.externalPayments.create({ amount, category, effective_date: today, financial_account_token: a, payment_type: paymentType });
    await pay('DEPOSIT', 10);
    await pay('WITHDRAWAL', 99_999_999, 'EXTERNAL_WIRE');
    const released = await pay('DEPOSIT', 20, 'EXTERNAL_WIRE');
    const canceled = await pay('DEPOSIT', 30);
    const reversed = await pay('DEPOSIT', 40, 'EXTERNAL_CHECK');
    await pay('WITHDRAWAL', 99_999_999);
    await client.externalPayments.release(released.token, { effective_date: today });
    await client.externalPayments.cancel(canceled.token, { effective_date: today });
    await client.externalPayments.release(reversed.token, { effective_date: today });
    await client.externalPayments.reverse(reversed.token, { effective_date: today });
    const list: Lister = (query) => client.externalPayments.list(query as never);
    const values: FilterValues = { status: ['PENDING', 'SETTLED', 'DECLINED', 'REVERSED', 'CANCELED'], category: ['EXTERNAL_ACH', 'EXTERNAL_WIRE', 'EXTERNAL_CHECK', 'EXTERNAL_TRANSFER'], result: true };
    await expectFilteredPages(list, values);
    await expectFilteredPages(ofFinancialAccount(list, a), values);
  });

  it('management operations: status and category across pages, both ways', async () => {
    const later = new Date(Date.parse(today) + 9 * MS_PER_DAY).toISOString().slice(0, 10);
    const operate = (direction: 'CREDIT' | 'DEBIT', amount: number, category: Lithic.ManagementOperationCreateParams['category'], effectiveDate = today) =>
      client.managementOperations.create({ amount, category, direction, effective_date: effectiveDate, event_type: 'CASH_BACK', financial_account_token: b });
    const reversed = await operate('CREDIT', 10, 'MANAGEMENT_REWARD');
    await operate('DEBIT', 99_999_999, 'MANAGEMENT_FEE');
    await operate('CREDIT', 20, 'MANAGEMENT_REWARD', later);
    await operate('CREDIT', 30, 'MANAGEMENT_ADJUSTMENT');
    await client.managementOperations.reverse(reversed.token, { effective_date: today });
    await operate('DEBIT', 99_999_999, 'MANAGEMENT_FEE');
    const list: Lister = (query) => client.managementOperations.list(query as never);
    const values: FilterValues = { status: ['PENDING', 'SETTLED', 'DECLINED', 'REVERSED'], category: ['MANAGEMENT_FEE', 'MANAGEMENT_REWARD', 'MANAGEMENT_ADJUSTMENT', 'MANAGEMENT_DISPUTE'], result: false };
    await expectFilteredPages(list, values);
    await expectFilteredPages(ofFinancialAccount(list, b), values);
  });
});
