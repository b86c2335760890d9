/**
 * A financial transaction begins on an account when its first journal there was written, which is
 * not always when its resource was created: a management operation dated ahead posts on its
 * effective date, a card authorization of $0 moves nothing until it clears, and a credit a closed
 * account sent to suspense never touches the account. The list finds its pages by that first
 * journal (financial_transactions.ts), so these check that `created`, the order, the cursors and
 * one read all agree on it, paged or whole.
 */
import { expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';
import type Lithic from 'lithic';

/** The account's list whole, page by page (`page_size` 1) both ways, and each item read alone: all must agree. */
async function expectListsAgree(client: Lithic, account: string): Promise<Lithic.FinancialAccounts.FinancialTransaction[]> {
  const whole = (await client.financialAccounts.financialTransactions.list(account)).data;
  const forward: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.financialAccounts.financialTransactions.list(account, { page_size: 1, ...(after === undefined ? {} : { starting_after: after }) } as never);
    forward.push(...page.data.map((item) => item.token));
    after = page.data.at(-1)?.token;
    if (!page.has_more) break;
  }
  const backward: string[] = [];
  let before = whole.at(-1)?.token;
  while (before !== undefined) {
    const page = await client.financialAccounts.financialTransactions.list(account, { page_size: 1, ending_before: before } as never);
    backward.unshift(...page.data.map((item) => item.token));
    before = page.has_more ? page.data[0]?.token : undefined;
  }
  expect(forward).toEqual(whole.map((item) => item.token));
  expect(backward).toEqual(whole.slice(0, -1).map((item) => item.token));
  for (const item of whole) expect(await client.financialAccounts.financialTransactions.retrieve(account, item.token)).toEqual(item);
  return whole;
}

describeWithDb('financial transactions begin at their first journal on the account', () => {
  const { wall, advance } = frozenWallClock('2031-05-10T12:00:00.000Z');
  const context = useTestServer({ wall });

  it('a management operation dated ahead: created when it posts, so after a transfer made while it waited', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const operation = await client.managementOperations.create({
      amount: 300,
      category: 'MANAGEMENT_DISBURSEMENT',
      direction: 'CREDIT',
      effective_date: '2031-05-12',
      event_type: 'DISBURSE',
      financial_account_token: account,
    });
    expect(operation.status).toBe('PENDING');
    advance(MS_PER_HOUR);
    const other = await newAccount(client);
    await fund(client, other, 100);
    const transfer = await bookTransfer(client, other, account, 100);
    expect((await client.financialAccounts.financialTransactions.list(account)).data.map((item) => item.token)).toEqual([transfer.token]);
    advance(3 * MS_PER_DAY);
    const whole = await expectListsAgree(client, account);
    expect(whole.map((item) => item.token)).toEqual([operation.token, transfer.token]);
    const posted = whole[0] as Lithic.FinancialAccounts.FinancialTransaction;
    expect(Date.parse(posted.created)).toBeGreaterThan(Date.parse(operation.created));
    expect(Date.parse(posted.created)).toBeGreaterThan(Date.parse(transfer.created));
    expect(posted).toMatchObject({ status: 'SETTLED', settled_amount: 300 });
    // begin/end place it by when it posted, not by when it was created.
    const beforePosting = (await client.financialAccounts.financialTransactions.list(account, { page_size: 10, end: new Date(Date.parse(posted.created)).toISOString() } as never)).data;
    expect(beforePosting.map((item) => item.token)).toEqual([transfer.token]);
  });

  it('a card authorization of $0: created at its clearing, the first journal it wrote on the account', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const account = card.funding.token;
    const authorization = await authorize(client, card, 0);
    advance(MS_PER_HOUR);
    const other = await newAccount(client);
    await fund(client, other, 1_000);
    const transfer = await bookTransfer(client, other, account, 1_000);
    advance(MS_PER_HOUR);
    await client.transactions.simulateClearing({ token: authorization, amount: 250 });
    const whole = await expectListsAgree(client, account);
    expect(whole.map((item) => item.token)).toEqual([authorization, transfer.token]);
    const card0 = await client.transactions.retrieve(authorization);
    expect(Date.parse(whole[0]?.created as string)).toBeGreaterThan(Date.parse(card0.created));
  });

  it('a credit a closed account sent to suspense never touches it, so never shows there', async () => {
    const { client } = context.program;
    const closed = await newAccount(client);
    const other = await newAccount(client);
    await fund(client, other, 100);
    const before = await bookTransfer(client, other, closed, 40);
    const back = await bookTransfer(client, closed, other, 40);
    await client.financialAccounts.updateStatus(closed, { status: 'CLOSED', substatus: 'END_USER_REQUEST' });
    advance(MS_PER_HOUR);
    const suspended = await bookTransfer(client, other, closed, 60, { on_closed_account: 'USE_SUSPENSE' });
    expect(suspended.status).toBe('SETTLED');
    expect(await expectError404(client, closed, suspended.token)).toBe(true);
    expect((await expectListsAgree(client, closed)).map((item) => item.token)).toEqual([back.token, before.token]);
  });
});

/** Whether reading `token` on the account answers 404 (it is not one of the account's). */
async function expectError404(client: Lithic, account: string, token: string): Promise<boolean> {
  try {
    await client.financialAccounts.financialTransactions.retrieve(account, token);
    return false;
  } catch (error) {
    return (error as { status?: number }).status === 404;
  }
}
