/**
 * A financial account's financial transactions, paged with `page_size` (Cardwright's; SDK 0.119
 * reads this list as one page, and Lithic answers it whole), hold exactly the items of the whole
 * list, newest first, with each filter (category, result, status, begin/end) and without, read
 * forwards by auto-pagination and backwards with ending_before, over an account with many
 * transactions of every kind: transfers out and in, declined transfers, deposits and withdrawals
 * (pending, some released), a management operation, and its card's authorizations, approved and
 * declined (the account is the card's ISSUING account).
 */
import type Lithic from 'lithic';
import { CursorPage } from 'lithic/pagination';
import { beforeAll, expect, it } from 'vitest';
import { exclusiveEndMs } from '../clock.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { expectPagedBothWays, type PagedList } from '../testing/paging.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';

type Item = Lithic.FinancialAccounts.FinancialTransaction;
type Filters = Lithic.FinancialAccounts.FinancialTransactionListParams;

const TODAY = new Date().toISOString().slice(0, 10);

const matches = (item: Item, filters: Filters) =>
  (filters.category === undefined || item.category === filters.category) &&
  (filters.result === undefined || item.result === filters.result) &&
  (filters.status === undefined || item.status === filters.status) &&
  (filters.begin === undefined || Date.parse(item.created) > Date.parse(filters.begin)) &&
  (filters.end === undefined || Date.parse(item.created) < exclusiveEndMs(filters.end));

describeWithDb('financial transactions paged', () => {
  const context = useTestServer();
  let program: TestProgram;
  let account: string;
  let all: Item[];

  beforeAll(async () => {
    program = await context.server.newProgram('financial transaction pages');
    const { client } = program;
    const card = await cardOnOwnAccount(client, { spend_limit: 500, spend_limit_duration: 'TRANSACTION' });
    account = card.funding.token;
    const other = await newAccount(client);
    await fund(client, account, 10_000);
    await fund(client, other, 10_000);
    const payment = (payment_type: 'DEPOSIT' | 'WITHDRAWAL', amount: number) =>
      client.externalPayments.create({ amount, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type });
    for (let round = 0; round < 6; round++) {
      await bookTransfer(client, account, other, 10 + round);
      await bookTransfer(client, other, account, 20 + round);
      await bookTransfer(client, account, other, 1_000_000);
      await authorize(client, card, 50 + round, { descriptor: `SHOP ${round}` });
      await authorize(client, card, 1_000 + round, { descriptor: 'OVER THE LIMIT' });
      const deposit = await payment('DEPOSIT', 30 + round);
      const withdrawal = await payment('WITHDRAWAL', 40 + round);
      if (round % 2 === 0) {
        await client.externalPayments.release(deposit.token, { effective_date: TODAY });
        await client.externalPayments.release(withdrawal.token, { effective_date: TODAY });
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await client.managementOperations.create({ amount: 5, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: TODAY, event_type: 'CASH_BACK', financial_account_token: account });
    const whole = await client.financialAccounts.financialTransactions.list(account);
    all = whole.data;
    expect(whole.has_more).toBe(false);
  });

  it('every filter, and none, across pages both ways', async () => {
    expect(all).toHaveLength(1 + 6 * 7 + 1);
    expect(new Set(all.map((item) => item.status))).toEqual(new Set(['SETTLED', 'PENDING', 'DECLINED']));
    expect(new Set(all.map((item) => item.category))).toEqual(new Set(['TRANSFER', 'ACH', 'INTERNAL', 'CARD']));
    const list: PagedList = (query) =>
      program.client.getAPIList<Item, CursorPage<Item>>(`/v1/financial_accounts/${account}/financial_transactions`, CursorPage, { query });
    const middle = (all[Math.floor(all.length / 3)] as Item).created;
    const later = (all[Math.floor((2 * all.length) / 3)] as Item).created;
    const filterSets: Filters[] = [
      {},
      { category: 'TRANSFER' },
      { category: 'ACH', status: 'PENDING' },
      { result: 'DECLINED' },
      { category: 'CARD' },
      { category: 'CARD', status: 'DECLINED' },
      { status: 'DECLINED', begin: later },
      { status: 'SETTLED' },
      { begin: later, end: middle },
    ];
    for (const filters of filterSets) {
      const expected = all.filter((item) => matches(item, filters)).map((item) => item.token);
      expect(expected.length, JSON.stringify(filters)).toBeGreaterThan(3);
      await expectPagedBothWays(list, filters, expected);
      expect((await program.client.financialAccounts.financialTransactions.list(account, filters)).data.map((item) => item.token), JSON.stringify(filters)).toEqual(expected);
    }
  });
});
