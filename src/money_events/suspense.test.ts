/**
 * `on_closed_account` on book transfers and management operations. FAIL (the default): a movement
 * to or from a CLOSED financial account is refused (422). USE_SUSPENSE: a credit that would land on
 * a CLOSED account is held in the program's suspense ledger account instead; a debit is still
 * refused, and so is any movement on a SUSPENDED or PENDING account.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { SystemAccount, verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, bookTransfer, expectError, fund, newAccount } from '../testing/money.js';

describeWithDb('on_closed_account', () => {
  const context = useTestServer();
  const EMPTY = { available: 0, pending: 0, total: 0 };

  async function closedAccount(): Promise<string> {
    const account = await newAccount(context.program.client, 'closed');
    await context.program.client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: 'END_USER_REQUEST' });
    return account;
  }

  async function today(): Promise<string> {
    return (await context.program.client.get<unknown, { now: string }>('/v1/simulate/clock')).now.slice(0, 10);
  }

  /** What the program's suspense account holds (the sum of its ledger entries). */
  async function suspenseCents(): Promise<number> {
    const row = await context.server.server.db.kysely
      .selectFrom('ledger_entries')
      .select(sql<number>`coalesce(sum(amount_cents), 0)`.as('cents'))
      .where('program_id', '=', context.program.programId)
      .where('ledger_account', '=', SystemAccount.SUSPENSE)
      .executeTakeFirstOrThrow();
    return Number(row.cents);
  }

  async function expectLedgerConsistent() {
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  describe('book transfers', () => {
    const transfer = (from: string, to: string, amount: number, onClosed?: 'FAIL' | 'USE_SUSPENSE') =>
      bookTransfer(context.program.client, from, to, amount, onClosed === undefined ? {} : { on_closed_account: onClosed });

    it('FAIL (the default) refuses a transfer to a CLOSED account with 422, changing nothing', async () => {
      const { client } = context.program;
      const from = await newAccount(client, 'from');
      await fund(client, from, 500);
      const to = await closedAccount();
      for (const onClosed of [undefined, 'FAIL'] as const) {
        expect(await expectError(transfer(from, to, 100, onClosed), 422)).toMatch(/^to_financial_account_token: .*CLOSED/);
      }
      expect(await balanceOf(client, from)).toEqual({ available: 500, pending: 0, total: 500 });
      expect((await client.bookTransfers.list({ financial_account_token: from })).data).toHaveLength(0);
    });

    it('USE_SUSPENSE holds a credit to a CLOSED account in suspense; its reversal returns it', async () => {
      const { client } = context.program;
      const from = await newAccount(client, 'from');
      await fund(client, from, 500);
      const to = await closedAccount();
      const before = await suspenseCents();
      const created = await transfer(from, to, 200, 'USE_SUSPENSE');
      expect(created).toMatchObject({ status: 'SETTLED', result: 'APPROVED', settled_amount: 200, to_financial_account_token: to });
      expect(await balanceOf(client, from)).toEqual({ available: 300, pending: 0, total: 300 });
      expect(await balanceOf(client, to)).toEqual(EMPTY);
      expect(await suspenseCents()).toBe(before + 200);
      expect(await client.bookTransfers.retrieve(created.token)).toEqual(created);

      const reversed = await client.bookTransfers.reverse(created.token, {});
      expect(reversed.status).toBe('REVERSED');
      expect(await balanceOf(client, from)).toEqual({ available: 500, pending: 0, total: 500 });
      expect(await balanceOf(client, to)).toEqual(EMPTY);
      expect(await suspenseCents()).toBe(before);
      await expectLedgerConsistent();
    });

    it('USE_SUSPENSE declines for want of funds as usual, moving nothing', async () => {
      const { client } = context.program;
      const from = await newAccount(client, 'poor');
      const before = await suspenseCents();
      const declined = await transfer(from, await closedAccount(), 100, 'USE_SUSPENSE');
      expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED' });
      expect(await suspenseCents()).toBe(before);
    });

    it('USE_SUSPENSE changes nothing for an OPEN account, and never debits a CLOSED one or moves money on a SUSPENDED one', async () => {
      const { client } = context.program;
      const from = await newAccount(client, 'from');
      const to = await newAccount(client, 'to');
      await fund(client, from, 500);
      await transfer(from, to, 100, 'USE_SUSPENSE');
      expect(await balanceOf(client, to)).toEqual({ available: 100, pending: 0, total: 100 });

      expect(await expectError(transfer(await closedAccount(), to, 1, 'USE_SUSPENSE'), 422)).toMatch(/^from_financial_account_token: .*CLOSED/);
      await client.financialAccounts.updateStatus(to, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      expect(await expectError(transfer(from, to, 1, 'USE_SUSPENSE'), 422)).toMatch(/^to_financial_account_token: .*SUSPENDED/);
      expect(await balanceOf(client, from)).toEqual({ available: 400, pending: 0, total: 400 });
    });

    it('refuses an unknown on_closed_account with 400 naming the field', async () => {
      const message = await expectError(transfer(crypto.randomUUID(), crypto.randomUUID(), 1, 'LATER' as never), 400);
      expect(message).toBe('on_closed_account: must be one of FAIL, USE_SUSPENSE');
    });
  });

  describe('management operations', () => {
    const operate = async (account: string, amount: number, extra: { direction?: 'CREDIT' | 'DEBIT'; effective_date?: string; on_closed_account?: 'FAIL' | 'USE_SUSPENSE' } = {}) =>
      context.program.client.managementOperations.create({
        amount,
        category: 'MANAGEMENT_ADJUSTMENT',
        direction: 'CREDIT',
        effective_date: await today(),
        event_type: 'PROVISIONAL_CREDIT',
        financial_account_token: account,
        ...extra,
      });

    it('FAIL (the default) refuses an operation on a CLOSED account with 422', async () => {
      const account = await closedAccount();
      for (const onClosed of [undefined, 'FAIL'] as const) {
        expect(await expectError(operate(account, 5, onClosed === undefined ? {} : { on_closed_account: onClosed }), 422)).toMatch(/^financial_account_token: .*CLOSED/);
      }
      expect((await context.program.client.managementOperations.list({ financial_account_token: account })).data).toHaveLength(0);
    });

    it('USE_SUSPENSE holds a credit to a CLOSED account in suspense; its reversal takes it back', async () => {
      const { client } = context.program;
      const account = await closedAccount();
      const before = await suspenseCents();
      const credit = await operate(account, 250, { on_closed_account: 'USE_SUSPENSE' });
      expect(credit).toMatchObject({ status: 'SETTLED', result: 'APPROVED', settled_amount: 250, financial_account_token: account });
      expect(await balanceOf(client, account)).toEqual(EMPTY);
      expect(await suspenseCents()).toBe(before + 250);

      const reversed = await client.managementOperations.reverse(credit.token, { effective_date: await today() });
      expect(reversed.status).toBe('REVERSED');
      expect(await suspenseCents()).toBe(before);
      await expectLedgerConsistent();
    });

    it('USE_SUSPENSE holds a future-dated credit to a CLOSED account in suspense when it takes effect', async () => {
      const { client } = context.program;
      const account = await closedAccount();
      const before = await suspenseCents();
      const now = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
      const tomorrow = new Date(Date.parse(now) + MS_PER_DAY).toISOString().slice(0, 10);
      const pending = await operate(account, 75, { on_closed_account: 'USE_SUSPENSE', effective_date: tomorrow });
      expect(pending.status).toBe('PENDING');
      expect(await suspenseCents()).toBe(before);

      await client.post('/v1/simulate/clock', { body: { now: `${tomorrow}T12:00:00.000Z` } });
      expect((await client.managementOperations.retrieve(pending.token)).status).toBe('SETTLED');
      expect(await balanceOf(client, account)).toEqual(EMPTY);
      expect(await suspenseCents()).toBe(before + 75);
      await expectLedgerConsistent();
    });

    it('USE_SUSPENSE never debits a CLOSED account (422) and leaves an OPEN one as it is', async () => {
      const { client } = context.program;
      const closed = await closedAccount();
      expect(await expectError(operate(closed, 5, { direction: 'DEBIT', on_closed_account: 'USE_SUSPENSE' }), 422)).toMatch(/^financial_account_token: .*CLOSED/);
      const open = await newAccount(client, 'open');
      await operate(open, 40, { on_closed_account: 'USE_SUSPENSE' });
      expect(await balanceOf(client, open)).toEqual({ available: 40, pending: 0, total: 40 });
    });
  });
});
