import crypto from 'node:crypto';
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, expectError, fund, newAccount } from '../testing/money.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

type Payment = Lithic.ExternalPayment;
type Action = 'settle' | 'release' | 'cancel' | 'reverse';
const TODAY = new Date().toISOString().slice(0, 10);

describeWithDb('external payments', () => {
  const context = useTestServer();

  function pay(account: string, paymentType: 'DEPOSIT' | 'WITHDRAWAL', amount: number, extra: Partial<Lithic.ExternalPaymentCreateParams> = {}) {
    return context.program.client.externalPayments.create({
      amount,
      category: 'EXTERNAL_WIRE',
      effective_date: TODAY,
      financial_account_token: account,
      payment_type: paymentType,
      ...extra,
    });
  }

  function act(payment: Payment, action: Action, body: { memo?: string; progress_to?: 'SETTLED' | 'RELEASED' } = {}) {
    const params = { effective_date: TODAY, ...body };
    return context.program.client.externalPayments[action](payment.token, params as never);
  }

  async function expectLedgerConsistent() {
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  const types = (payment: Payment) => (payment.events ?? []).map((event) => event.type);

  it('concurrent settle and release of one payment append SETTLED once, in order', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const payments = await Promise.all(Array.from({ length: 8 }, () => pay(account, 'DEPOSIT', 100)));
    await Promise.allSettled(payments.flatMap((payment) => [act(payment, 'settle'), act(payment, 'release'), act(payment, 'settle', { progress_to: 'RELEASED' })]));
    for (const payment of payments) {
      const after = await client.externalPayments.retrieve(payment.token);
      expect([after.status, types(after)]).toEqual(['SETTLED', ['EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_SETTLED', 'EXTERNAL_WIRE_RELEASED']]);
    }
    expect(await balanceOf(client, account)).toEqual({ available: 800, pending: 0, total: 800 });
    await expectLedgerConsistent();
  });

  it('a deposit waits in pending until released (seed 4.8), then is available', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const created = await pay(account, 'DEPOSIT', 5_000, { memo: 'wire in', user_defined_id: 'u-1' });
    expect(created).toMatchObject({
      status: 'PENDING',
      result: 'APPROVED',
      family: 'EXTERNAL_PAYMENT',
      category: 'EXTERNAL_WIRE',
      payment_type: 'DEPOSIT',
      pending_amount: 5_000,
      settled_amount: 0,
      currency: 'USD',
      user_defined_id: 'u-1',
      financial_account_token: account,
    });
    expect(created.events?.[0]).toMatchObject({ type: 'EXTERNAL_WIRE_INITIATED', amount: 5_000, memo: 'wire in', effective_date: TODAY, result: 'APPROVED', detailed_results: ['APPROVED'] });
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 5_000, total: 5_000 });

    const released = await client.externalPayments.release(created.token, { effective_date: '2030-01-02', memo: 'cleared' });
    expect(released).toMatchObject({ status: 'SETTLED', pending_amount: 0, settled_amount: 5_000 });
    expect(types(released)).toEqual(['EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_SETTLED', 'EXTERNAL_WIRE_RELEASED']);
    expect(released.events?.[2]).toMatchObject({ memo: 'cleared', effective_date: '2030-01-02', amount: 5_000 });
    expect(await balanceOf(client, account)).toEqual({ available: 5_000, pending: 0, total: 5_000 });
    expect(await client.externalPayments.retrieve(created.token)).toEqual(released);

    expect(await expectError(client.externalPayments.release(created.token, { effective_date: TODAY }), 422)).toContain('PENDING');
    await expectLedgerConsistent();
  });

  it('a withdrawal holds the funds, then releases them out of the account', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    await fund(client, account, 3_000);
    const created = await pay(account, 'WITHDRAWAL', 1_000, { category: 'EXTERNAL_ACH' });
    expect(await balanceOf(client, account)).toEqual({ available: 2_000, pending: 1_000, total: 3_000 });
    const settled = await act(created, 'settle');
    expect(settled).toMatchObject({ status: 'PENDING', pending_amount: 1_000 });
    expect(types(settled)).toEqual(['EXTERNAL_ACH_INITIATED', 'EXTERNAL_ACH_SETTLED']);
    expect(await expectError(act(settled, 'settle'), 422)).toContain('already settled');
    const released = await act(settled, 'release');
    expect(types(released)).toEqual(['EXTERNAL_ACH_INITIATED', 'EXTERNAL_ACH_SETTLED', 'EXTERNAL_ACH_RELEASED']);
    expect(await balanceOf(client, account)).toEqual({ available: 2_000, pending: 0, total: 2_000 });
    const reversed = await act(released, 'reverse', { memo: 'returned R01' });
    expect(reversed).toMatchObject({ status: 'REVERSED', settled_amount: 0, pending_amount: 0 });
    expect(await balanceOf(client, account)).toEqual({ available: 3_000, pending: 0, total: 3_000 });
    await expectLedgerConsistent();
  });

  it('declines a withdrawal without the funds (200, INSUFFICIENT_FUNDS) and moves nothing', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    await fund(client, account, 100);
    const declined = await pay(account, 'WITHDRAWAL', 101, { progress_to: 'RELEASED' });
    expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED', pending_amount: 0, settled_amount: 0 });
    expect(declined.events).toHaveLength(1);
    expect(declined.events?.[0]).toMatchObject({ result: 'DECLINED', detailed_results: ['INSUFFICIENT_FUNDS'] });
    expect(await balanceOf(client, account)).toEqual({ available: 100, pending: 0, total: 100 });
    for (const action of ['settle', 'release', 'cancel', 'reverse'] as const) await expectError(act(declined, action), 422);
  });

  it.each(['EXTERNAL_WIRE', 'EXTERNAL_ACH', 'EXTERNAL_CHECK', 'EXTERNAL_TRANSFER'] as const)('runs %s to RELEASED in one call with progress_to', async (category) => {
    const { client } = context.program;
    const account = await newAccount(client);
    const deposit = await pay(account, 'DEPOSIT', 700, { category, progress_to: 'RELEASED' });
    expect(deposit.status).toBe('SETTLED');
    expect(types(deposit)).toEqual([`${category}_INITIATED`, `${category}_SETTLED`, `${category}_RELEASED`]);
    const withdrawal = await pay(account, 'WITHDRAWAL', 200, { category, progress_to: 'SETTLED' });
    expect(withdrawal).toMatchObject({ status: 'PENDING' });
    expect(types(withdrawal)).toEqual([`${category}_INITIATED`, `${category}_SETTLED`]);
    const released = await act(withdrawal, 'settle', {}).catch(() => act(withdrawal, 'release'));
    expect(released.status).toBe('SETTLED');
    expect(await balanceOf(client, account)).toEqual({ available: 500, pending: 0, total: 500 });
  });

  it('settle with progress_to RELEASED releases too', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const created = await pay(account, 'DEPOSIT', 40);
    const done = await act(created, 'settle', { progress_to: 'RELEASED' });
    expect(done.status).toBe('SETTLED');
    expect(types(done)).toEqual(['EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_SETTLED', 'EXTERNAL_WIRE_RELEASED']);
  });

  describe('transitions', () => {
    // [payment type, steps to get there, action, expected status or 422]
    const cases: [string, 'DEPOSIT' | 'WITHDRAWAL', Action[], Action, string | 422][] = [
      ['cancel a pending deposit', 'DEPOSIT', [], 'cancel', 'CANCELED'],
      ['cancel a settled-not-released withdrawal', 'WITHDRAWAL', ['settle'], 'cancel', 'CANCELED'],
      ['cancel a released payment', 'DEPOSIT', ['release'], 'cancel', 422],
      ['reverse a pending payment', 'DEPOSIT', [], 'reverse', 422],
      ['reverse a released deposit', 'DEPOSIT', ['release'], 'reverse', 'REVERSED'],
      ['reverse twice', 'DEPOSIT', ['release', 'reverse'], 'reverse', 422],
      ['release a canceled payment', 'WITHDRAWAL', ['cancel'], 'release', 422],
      ['settle a released payment', 'DEPOSIT', ['release'], 'settle', 422],
      ['settle a canceled payment', 'DEPOSIT', ['cancel'], 'settle', 422],
      ['release a reversed payment', 'WITHDRAWAL', ['release', 'reverse'], 'release', 422],
    ];
    it.each(cases)('%s', async (_name, paymentType, setup, action, expected) => {
      const { client } = context.program;
      const account = await newAccount(client);
      await fund(client, account, 1_000);
      let payment = await pay(account, paymentType, 250);
      for (const step of setup) payment = await act(payment, step);
      const before = await balanceOf(client, account);
      if (expected === 422) {
        await expectError(act(payment, action), 422);
        expect(await balanceOf(client, account)).toEqual(before);
        expect((await client.externalPayments.retrieve(payment.token)).events).toHaveLength(payment.events?.length ?? 0);
      } else {
        expect((await act(payment, action)).status).toBe(expected);
      }
      // Every undo brings the account back to where it started.
      if (expected === 'CANCELED' || expected === 'REVERSED') expect(await balanceOf(client, account)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
    });
  });

  it.each([
    [{ amount: 0 }, 'amount: must be >= 1'],
    [{ amount: -5 }, 'amount: must be >= 1'],
    [{ category: 'EXTERNAL_CASH' }, 'category: must be one of'],
    [{ payment_type: 'REFUND' }, 'payment_type: must be one of'],
    [{ effective_date: '2024-02-30' }, 'effective_date: must be a valid date'],
    [{ effective_date: undefined }, 'effective_date: is required'],
    [{ progress_to: 'DONE' }, 'progress_to: must be one of'],
    [{ memo: 'x'.repeat(513) }, 'memo'],
    [{ token: '123' }, 'token: must be a valid uuid'],
    ...NOT_VISIBLE_TEXTS.map((memo): [object, string] => [{ memo }, notEmptyOrVisibleMessage('memo')]),
    [{ user_defined_id: '' }, 'user_defined_id: must NOT have fewer than 1 characters'],
    [{ user_defined_id: 'x'.repeat(257) }, 'user_defined_id: must NOT have more than 256 characters'],
    ...NOT_VISIBLE_TEXTS.map((user_defined_id): [object, string] => [{ user_defined_id }, notVisibleMessage('user_defined_id')]),
  ])('refuses %j with 400 naming the field', async (override, message) => {
    const { client } = context.program;
    const account = await newAccount(client);
    const body = { amount: 10, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT', ...override };
    expect(await expectError(client.externalPayments.create(body as never), 400)).toContain(message);
    expect((await client.externalPayments.list({ financial_account_token: account })).data).toEqual([]);
  });

  it.each([
    [{ effective_date: '2024-02-30' }, 'effective_date: must be a valid date'],
    [{ effective_date: '2024-02-03T00:00:00Z' }, 'effective_date: must be a valid date'],
    [{ effective_date: null }, 'effective_date: must be string'],
    [{ memo: 'x'.repeat(513) }, 'memo: must NOT have more than 512 characters'],
    [{ memo: 5 }, 'memo: must be string'],
    [{ progress_to: 'RELEASED' }, 'progress_to: is not a recognised field'],
  ])('refuses release %j with 400 (seed 4.8) and leaves the payment pending', async (override, message) => {
    const { client } = context.program;
    const account = await newAccount(client);
    const created = await pay(account, 'DEPOSIT', 10);
    expect(await expectError(client.externalPayments.release(created.token, { effective_date: TODAY, ...override } as never), 400)).toBe(message);
    expect(await client.externalPayments.retrieve(created.token)).toEqual(created);
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 10, total: 10 });
  });

  it('takes an empty memo (none) and one with spaces and letters beyond ASCII; every action refuses a blank one or one with a control character (400), changing nothing', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    expect((await pay(account, 'DEPOSIT', 10, { memo: '' })).events?.[0]?.memo).toBe('');
    const created = await pay(account, 'DEPOSIT', 10, { memo: VISIBLE_TEXT });
    expect(created.events?.[0]?.memo).toBe(VISIBLE_TEXT);
    for (const action of ['settle', 'release', 'cancel', 'reverse'] as const) {
      for (const memo of NOT_VISIBLE_TEXTS) expect(await expectError(act(created, action, { memo }), 400)).toBe(notEmptyOrVisibleMessage('memo'));
    }
    expect(await client.externalPayments.retrieve(created.token)).toEqual(created);
    expect((await act(created, 'settle', { memo: VISIBLE_TEXT })).events?.[1]?.memo).toBe(VISIBLE_TEXT);
  });

  it('refuses (422, naming effective_date) an action dated before the payment’s last event, and changes nothing', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    await fund(client, account, 1_000);
    const deposit = await pay(account, 'DEPOSIT', 60, { effective_date: '2030-01-10' });
    const withdrawal = await pay(account, 'WITHDRAWAL', 40, { effective_date: '2030-01-10' });
    const unchanged = async () => {
      expect(await client.externalPayments.retrieve(deposit.token)).toEqual(deposit);
      expect(await client.externalPayments.retrieve(withdrawal.token)).toEqual(withdrawal);
      expect(await balanceOf(client, account)).toEqual({ available: 960, pending: 100, total: 1_060 });
    };
    for (const action of ['release', 'settle', 'cancel'] as const) {
      for (const payment of [deposit, withdrawal]) {
        const message = await expectError(client.externalPayments[action](payment.token, { effective_date: '2030-01-09' }), 422);
        expect(message).toBe(`effective_date: must be on or after 2030-01-10, the effective_date of the payment’s last event (EXTERNAL_WIRE_INITIATED); got 2030-01-09`);
      }
    }
    expect(await expectError(client.externalPayments.settle(deposit.token, { effective_date: '2030-01-09', progress_to: 'RELEASED' }), 422)).toContain('effective_date');
    await unchanged();

    // The same day is fine; each later step is measured against the one before it.
    const settled = await client.externalPayments.settle(deposit.token, { effective_date: '2030-01-12' });
    expect(await expectError(client.externalPayments.release(deposit.token, { effective_date: '2030-01-11' }), 422)).toContain('2030-01-12');
    expect(await client.externalPayments.retrieve(deposit.token)).toEqual(settled);
    const released = await client.externalPayments.release(deposit.token, { effective_date: '2030-01-12' });
    expect(released.events?.map((event) => event.effective_date)).toEqual(['2030-01-10', '2030-01-12', '2030-01-12']);
    expect(await expectError(client.externalPayments.reverse(deposit.token, { effective_date: '2030-01-10' }), 422)).toContain('effective_date');
    expect(await client.externalPayments.retrieve(deposit.token)).toEqual(released);
    // A refused action's state comes first: a payment that cannot be released says so, whatever the date.
    expect(await expectError(client.externalPayments.release(deposit.token, { effective_date: '2030-01-01' }), 422)).toContain('only a PENDING');
    expect((await client.externalPayments.cancel(withdrawal.token, { effective_date: '2030-01-10' })).status).toBe('CANCELED');
    expect(await balanceOf(client, account)).toEqual({ available: 1_060, pending: 0, total: 1_060 });
    await expectLedgerConsistent();
  });

  it('refuses actions without effective_date (400) and unknown payments (404)', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const created = await pay(account, 'DEPOSIT', 10);
    expect(await expectError(client.externalPayments.release(created.token, {} as never), 400)).toContain('effective_date');
    expect(await expectError(client.externalPayments.release(crypto.randomUUID(), { effective_date: TODAY }), 404)).toContain('external payment');
    expect(await expectError(client.externalPayments.release('not-a-payment', { effective_date: TODAY }), 400)).toBe('external_payment_token: must be a valid uuid');
    expect(await expectError(pay(crypto.randomUUID(), 'DEPOSIT', 1), 404)).toContain('financial_account_token');
  });

  it('is idempotent on the body token', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const token = crypto.randomUUID();
    const first = await pay(account, 'DEPOSIT', 10, { token });
    expect(first.token).toBe(token);
    expect(await pay(account, 'DEPOSIT', 10, { token })).toEqual(first);
    expect(await expectError(pay(account, 'DEPOSIT', 11, { token }), 400)).toContain('token');
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 10, total: 10 });
  });

  it('lists with every filter, newest first, and keeps programs apart', async () => {
    const { client } = context.program;
    const lister = await context.server.newProgram('lister');
    const a = await newAccount(lister.client);
    const b = await newAccount(lister.client);
    const make = (account: string, category: Lithic.ExternalPaymentCreateParams['category'], paymentType: 'DEPOSIT' | 'WITHDRAWAL') =>
      lister.client.externalPayments.create({ amount: 5, category, effective_date: TODAY, financial_account_token: account, payment_type: paymentType });
    const p0 = await make(a, 'EXTERNAL_ACH', 'DEPOSIT');
    const p1 = await make(b, 'EXTERNAL_WIRE', 'DEPOSIT');
    const p2 = await make(a, 'EXTERNAL_WIRE', 'WITHDRAWAL');
    const p3 = await lister.client.externalPayments.release(p1.token, { effective_date: TODAY });
    const tokens = (page: { data: Payment[] }) => page.data.map((payment) => payment.token);
    expect(tokens(await lister.client.externalPayments.list())).toEqual([p2.token, p1.token, p0.token]);
    expect(tokens(await lister.client.externalPayments.list({ financial_account_token: a }))).toEqual([p2.token, p0.token]);
    expect(tokens(await lister.client.externalPayments.list({ category: 'EXTERNAL_WIRE' }))).toEqual([p2.token, p1.token]);
    expect(tokens(await lister.client.externalPayments.list({ result: 'DECLINED' }))).toEqual([p2.token]);
    expect(tokens(await lister.client.externalPayments.list({ status: 'SETTLED' }))).toEqual([p3.token]);
    expect(tokens(await lister.client.externalPayments.list({ status: 'PENDING' }))).toEqual([p0.token]);
    expect(tokens(await lister.client.externalPayments.list({ end: p0.created }))).toEqual([]);
    expect(tokens(await lister.client.externalPayments.list({ begin: p0.created, page_size: 1 }))).toHaveLength(1);
    expect(tokens(await lister.client.externalPayments.list({ starting_after: p2.token }))).toEqual([p1.token, p0.token]);
    const accountToken = (await context.server.server.db.kysely.selectFrom('accounts').select('token').where('program_id', '=', lister.programId).executeTakeFirstOrThrow()).token;
    expect(tokens(await lister.client.externalPayments.list({ business_account_token: accountToken }))).toEqual([]);
    for (const query of ['status=OPEN', 'category=CASH', 'result=MAYBE', 'page_size=500', 'financial_account_token=x']) {
      expect((await context.server.request('GET', `/v1/external_payments?${query}`, { apiKey: lister.apiKey })).status, query).toBe(400);
    }
    expect(tokens(await client.externalPayments.list({ financial_account_token: a }))).toEqual([]);
    await expectError(client.externalPayments.retrieve(p0.token), 404);
    await expectError(client.externalPayments.release(p0.token, { effective_date: TODAY }), 404);
  });
});
