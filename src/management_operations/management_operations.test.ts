import crypto from 'node:crypto';
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { movableWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, expectError, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount, setRequireFunds } from '../testing/transactions.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';
import { MANAGEMENT_OPERATION_CATEGORIES, MANAGEMENT_OPERATION_EVENT_TYPES } from './schemas.js';
import * as service from './service.js';

type Operation = Lithic.ManagementOperationTransaction;
type CreateParams = Lithic.ManagementOperationCreateParams;

const { wall, advance } = movableWallClock('2031-03-10T12:00:00.000Z');
const day = (offsetDays: number) => new Date(wall.nowMs() + offsetDays * MS_PER_DAY).toISOString().slice(0, 10);

describeWithDb('management operations', () => {
  const context = useTestServer({ wall });

  function operate(account: string, amount: number, extra: Partial<CreateParams> = {}) {
    return context.program.client.managementOperations.create({
      amount,
      category: 'MANAGEMENT_ADJUSTMENT',
      direction: 'CREDIT',
      effective_date: day(0),
      event_type: 'PROVISIONAL_CREDIT',
      financial_account_token: account,
      ...extra,
    });
  }

  async function expectLedgerConsistent() {
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  it('credits and debits an account at once when the effective date is today or earlier', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const credit = await operate(account, 1_000, { memo: 'goodwill', subtype: 'GW', user_defined_id: 'ref-1' });
    expect(credit).toMatchObject({
      status: 'SETTLED',
      result: 'APPROVED',
      family: 'MANAGEMENT_OPERATION',
      direction: 'CREDIT',
      category: 'MANAGEMENT_ADJUSTMENT',
      pending_amount: 0,
      settled_amount: 1_000,
      currency: 'USD',
      transaction_series: null,
      user_defined_id: 'ref-1',
      financial_account_token: account,
    });
    expect(credit.events).toEqual([
      expect.objectContaining({ type: 'PROVISIONAL_CREDIT', amount: 1_000, memo: 'goodwill', subtype: 'GW', effective_date: day(0), detailed_results: ['APPROVED'] }),
    ]);
    const debit = await operate(account, 300, { direction: 'DEBIT', category: 'MANAGEMENT_FEE', event_type: 'LATE_PAYMENT', effective_date: day(-3) });
    expect(debit.status).toBe('SETTLED');
    expect(await balanceOf(client, account)).toEqual({ available: 700, pending: 0, total: 700 });
    expect(await client.managementOperations.retrieve(debit.token)).toEqual(debit);
    await expectLedgerConsistent();
  });

  it('declines a debit beyond the available funds (200, INSUFFICIENT_FUNDS, nothing moves)', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    await operate(account, 50);
    const declined = await operate(account, 51, { direction: 'DEBIT' });
    expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED', settled_amount: 0, pending_amount: 0 });
    expect(declined.events?.[0]).toMatchObject({ result: 'DECLINED', detailed_results: ['INSUFFICIENT_FUNDS'] });
    expect(await balanceOf(client, account)).toEqual({ available: 50, pending: 0, total: 50 });
    expect(await expectError(client.managementOperations.reverse(declined.token, { effective_date: day(0) }), 422)).toContain('DECLINED');
  });

  it('leaves subtype out of events when there is none (the SDK types it as an optional string), wherever they are read', async () => {
    const { apiKey } = context.program;
    const account = await newAccount(context.program.client);
    const get = async (method: string, path: string, body?: object) => (await context.server.request(method, path, { apiKey, ...(body ? { body } : {}) })).json();
    const created = (await get('POST', '/v1/management_operations', {
      amount: 5, category: 'MANAGEMENT_FEE', direction: 'CREDIT', effective_date: day(0), event_type: 'INTEREST', financial_account_token: account,
    })) as Operation;
    const reversed = (await get('POST', `/v1/management_operations/${created.token}/reverse`, { effective_date: day(0) })) as Operation;
    const listed = (await get('GET', `/v1/management_operations?financial_account_token=${account}`)) as { data: Operation[] };
    const retrieved = (await get('GET', `/v1/management_operations/${created.token}`)) as Operation;
    const events = [created, reversed, ...listed.data, retrieved].flatMap((operation) => operation.events ?? []);
    expect(events).toHaveLength(7);
    for (const event of events) expect(event).not.toHaveProperty('subtype');
  });

  it.each(MANAGEMENT_OPERATION_CATEGORIES)('accepts category %s', async (category) => {
    const { client } = context.program;
    const account = await newAccount(client);
    expect((await operate(account, 5, { category })).category).toBe(category);
  });

  it.each(MANAGEMENT_OPERATION_EVENT_TYPES)('accepts event type %s and reverses it with its partner', async (eventType) => {
    const { client } = context.program;
    const account = await newAccount(client);
    const created = await operate(account, 5, { event_type: eventType });
    const reversed = await client.managementOperations.reverse(created.token, { effective_date: day(0) });
    const partner = eventType === 'LOSS_WRITE_OFF' ? eventType : eventType.endsWith('_REVERSAL') ? eventType.replace(/_REVERSAL$/, '') : `${eventType}_REVERSAL`;
    expect(reversed.events?.map((event) => event.type)).toEqual([eventType, partner]);
  });

  describe('effective dates in the future (seed 4.10)', () => {
    it('stays PENDING with no ledger effect until the program clock reaches the date', async () => {
      const clocked = await context.server.newProgram('clocked');
      const client = clocked.client;
      const account = await newAccount(client);
      const pending = await client.managementOperations.create({
        amount: 800,
        category: 'MANAGEMENT_DISBURSEMENT',
        direction: 'CREDIT',
        effective_date: day(2),
        event_type: 'DISBURSE',
        financial_account_token: account,
      });
      expect(pending).toMatchObject({ status: 'PENDING', result: 'APPROVED', pending_amount: 800, settled_amount: 0 });
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });

      const start = wall.nowMs();
      await client.post('/v1/simulate/clock', { body: { now: new Date(start + 1 * MS_PER_DAY).toISOString() } });
      expect((await client.managementOperations.retrieve(pending.token)).status).toBe('PENDING');
      const moved = await client.post<unknown, { now: string }>('/v1/simulate/clock', { body: { now: new Date(start + 2 * MS_PER_DAY).toISOString() } });
      expect(moved.now.slice(0, 10)).toBe(new Date(start + 2 * MS_PER_DAY).toISOString().slice(0, 10));
      // The clock job ran in the clock move's own transaction, before any read could catch up.
      const stored = await context.server.server.db.kysely.selectFrom('management_operations').select('status').where('token', '=', pending.token).executeTakeFirstOrThrow();
      expect(stored.status).toBe('SETTLED');
      const settled = await client.managementOperations.retrieve(pending.token);
      expect(settled).toMatchObject({ status: 'SETTLED', pending_amount: 0, settled_amount: 800 });
      expect(settled.events).toHaveLength(1);
      expect(await balanceOf(client, account)).toEqual({ available: 800, pending: 0, total: 800 });
      expect(await verifyProgramLedger(context.server.server.db.kysely, clocked.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it('is settled by reads once the real clock reaches the date, before any sweep', async () => {
      const reader = await context.server.newProgram('reader');
      const account = await newAccount(reader.client);
      const pending = await reader.client.managementOperations.create({
        amount: 90,
        category: 'MANAGEMENT_REWARD',
        direction: 'CREDIT',
        effective_date: day(1),
        event_type: 'CASH_BACK',
        financial_account_token: account,
      });
      advance(MS_PER_DAY);
      expect(await balanceOf(reader.client, account)).toEqual({ available: 90, pending: 0, total: 90 });
      expect((await reader.client.managementOperations.list({ status: 'SETTLED' })).data.map((operation) => operation.token)).toEqual([pending.token]);
    });

    it('takes effect on its date even when earlier requests found nothing pending (the in-memory horizon)', async () => {
      const early = await context.server.newProgram('early reader');
      const account = await newAccount(early.client);
      // Reads and a write before the operation exists: each finds nothing due, and the server
      // remembers that nothing can fall due before tomorrow.
      expect(await balanceOf(early.client, account)).toEqual({ available: 0, pending: 0, total: 0 });
      await early.client.managementOperations.create({
        amount: 40,
        category: 'MANAGEMENT_REWARD',
        direction: 'CREDIT',
        effective_date: day(0),
        event_type: 'CASH_BACK',
        financial_account_token: account,
      });
      const pending = await early.client.managementOperations.create({
        amount: 60,
        category: 'MANAGEMENT_REWARD',
        direction: 'CREDIT',
        effective_date: day(1),
        event_type: 'CASH_BACK',
        financial_account_token: account,
      });
      expect(await balanceOf(early.client, account)).toEqual({ available: 40, pending: 0, total: 40 });
      advance(MS_PER_DAY);
      expect(await balanceOf(early.client, account)).toEqual({ available: 100, pending: 0, total: 100 });
      expect((await early.client.managementOperations.retrieve(pending.token)).status).toBe('SETTLED');
    });

    it('applies an operation that a request which read the clock before a move commits after it', async () => {
      const straggler = await context.server.newProgram('straggler');
      const account = await newAccount(straggler.client);
      const { db } = context.server.server;
      const before = { programId: straggler.programId, clockOffsetMs: 0, nowMs: wall.nowMs() };
      const moved = new Date(wall.nowMs() + 30 * MS_PER_DAY).toISOString();
      await straggler.client.post('/v1/simulate/clock', { body: { now: moved } });
      // The move's jobs found nothing due and the server remembers it (a horizon a month ahead).
      expect(await balanceOf(straggler.client, account)).toEqual({ available: 0, pending: 0, total: 0 });
      // The straggler: its clock is the one from before the move; tomorrow by it is long past now.
      const late = await db.transaction((tx) =>
        service.create(db, tx, before, { amount: 25, category: 'MANAGEMENT_REWARD', direction: 'CREDIT', effective_date: day(1), event_type: 'CASH_BACK', financial_account_token: account }),
      );
      expect(late.status).toBe('PENDING');
      expect(await balanceOf(straggler.client, account)).toEqual({ available: 25, pending: 0, total: 25 });
      expect((await straggler.client.managementOperations.retrieve(late.token)).status).toBe('SETTLED');
    });

    it('waits, PENDING, while its account is SUSPENDED on its date, and takes effect once the account is OPEN', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const credit = await operate(account, 70, { effective_date: day(1) });
      await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      advance(MS_PER_DAY);
      expect((await client.managementOperations.retrieve(credit.token)).status).toBe('PENDING');
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
      const suspendedDay = `${day(0)}T12:00:00.000Z`;
      const balanceOn = async (date: string) => (await client.financialAccounts.balances.list(account, { balance_date: date })).data[0]?.available_amount;
      expect(await balanceOn(suspendedDay)).toBe(0);
      advance(60_000);
      const reopened = await client.financialAccounts.updateStatus(account, { status: 'OPEN', substatus: null });
      // It takes effect when the account is OPEN again, not on its date inside the suspension: the
      // balance of a day of the suspension stays what it was, and its event follows the reopening.
      const settled = await client.managementOperations.retrieve(credit.token);
      expect(settled.status).toBe('SETTLED');
      expect(settled.updated).toBe(reopened.updated);
      expect(await balanceOf(client, account)).toEqual({ available: 70, pending: 0, total: 70 });
      expect(await balanceOn(suspendedDay)).toBe(0);
      const events = await client.events.list({ event_types: ['financial_account.updated', 'management_operation.updated'], page_size: 2 });
      expect(events.data.map((event) => [event.event_type, event.created]).reverse()).toEqual([
        ['financial_account.updated', reopened.updated],
        ['management_operation.updated', reopened.updated],
      ]);
      await expectLedgerConsistent();
    });

    it('takes effect on its date when that passed while its account was OPEN, though the account is suspended since', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const credit = await operate(account, 40, { effective_date: day(1) });
      advance(MS_PER_DAY);
      // Nothing read the operation since its date: the suspension applies it first, dated its day.
      await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      expect(await client.managementOperations.retrieve(credit.token)).toMatchObject({ status: 'SETTLED', updated: `${day(0)}T00:00:00.000Z` });
      expect(await balanceOf(client, account)).toEqual({ available: 40, pending: 0, total: 40 });
      await expectLedgerConsistent();
    });

    it('declines a due debit the account cannot cover, appending a declined event', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const debit = await operate(account, 100, { direction: 'DEBIT', effective_date: day(1) });
      expect(debit.status).toBe('PENDING');
      advance(MS_PER_DAY);
      const declined = await client.managementOperations.retrieve(debit.token);
      expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED', pending_amount: 0 });
      expect(declined.events?.map((event) => [event.result, event.detailed_results])).toEqual([
        ['APPROVED', ['APPROVED']],
        ['DECLINED', ['INSUFFICIENT_FUNDS']],
      ]);
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
    });

    it('applies the operations a clock move passes in the order of their dates, whatever order they were made in', async () => {
      const { client } = await context.server.newProgram('jumper');
      const account = await newAccount(client);
      const operation = { amount: 100, category: 'MANAGEMENT_ADJUSTMENT', event_type: 'CASH_BACK', financial_account_token: account } as const;
      // The debit is made first (its token sorts first), but its date is the later one.
      const debit = await client.managementOperations.create({ ...operation, direction: 'DEBIT', effective_date: day(3) });
      const credit = await client.managementOperations.create({ ...operation, direction: 'CREDIT', effective_date: day(2) });
      await client.post('/v1/simulate/clock', { body: { now: new Date(wall.nowMs() + 10 * MS_PER_DAY).toISOString() } });
      expect((await client.managementOperations.retrieve(credit.token)).status).toBe('SETTLED');
      expect(await client.managementOperations.retrieve(debit.token)).toMatchObject({ status: 'SETTLED', result: 'APPROVED' });
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
    });

    it('takes effect on its date in a clock move that also passes a hold’s expiry: the earlier of the two comes first', async () => {
      const { client, programId } = await context.server.newProgram('hold and debit');
      await setRequireFunds(client, true);
      const card = await cardOnOwnAccount(client);
      const account = card.funding.token;
      const operation = { amount: 100, category: 'MANAGEMENT_FEE', event_type: 'LATE_PAYMENT', financial_account_token: account } as const;
      await client.managementOperations.create({ ...operation, direction: 'CREDIT', effective_date: day(0) });
      await authorize(client, card, 100); // holds all the funds for 7 days
      const debit = await client.managementOperations.create({ ...operation, direction: 'DEBIT', effective_date: day(8) });
      await client.post('/v1/simulate/clock', { body: { now: new Date(wall.nowMs() + 10 * MS_PER_DAY).toISOString() } });
      expect(await client.managementOperations.retrieve(debit.token)).toMatchObject({ status: 'SETTLED', updated: `${day(8)}T00:00:00.000Z` });
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
      // And the other way round: a debit dated while a hold still has the funds is declined.
      await client.managementOperations.create({ ...operation, direction: 'CREDIT', effective_date: day(10) });
      await authorize(client, card, 100); // expires on day 17
      const early = await client.managementOperations.create({ ...operation, direction: 'DEBIT', effective_date: day(12) });
      await client.post('/v1/simulate/clock', { body: { now: new Date(wall.nowMs() + 20 * MS_PER_DAY).toISOString() } });
      expect(await client.managementOperations.retrieve(early.token)).toMatchObject({ status: 'DECLINED', updated: `${day(12)}T00:00:00.000Z` });
      expect(await balanceOf(client, account)).toEqual({ available: 100, pending: 0, total: 100 });
      expect(await verifyProgramLedger(context.server.server.db.kysely, programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it('counts a due credit before deciding on a transfer’s funds', async () => {
      const { client } = context.program;
      const from = await newAccount(client);
      const to = await newAccount(client);
      await operate(from, 500, { effective_date: day(1) });
      advance(MS_PER_DAY);
      const transfer = await client.bookTransfers.create({
        amount: 500,
        category: 'TRANSFER',
        type: 'TRANSFER',
        subtype: 's',
        from_financial_account_token: from,
        to_financial_account_token: to,
      });
      expect(transfer.status).toBe('SETTLED');
    });

    it('withdraws a PENDING operation on reverse: it never takes effect', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const pending = await operate(account, 60, { effective_date: day(1) });
      const reversed = await client.managementOperations.reverse(pending.token, { effective_date: day(0), memo: 'cancelled' });
      expect(reversed).toMatchObject({ status: 'REVERSED', pending_amount: 0, settled_amount: 0 });
      expect(reversed.events?.[1]).toMatchObject({ type: 'PROVISIONAL_CREDIT_REVERSAL', memo: 'cancelled', effective_date: day(0) });
      advance(2 * MS_PER_DAY);
      expect((await client.managementOperations.retrieve(pending.token)).status).toBe('REVERSED');
      expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
    });

    it('keeps an account with a waiting operation from being closed', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      await operate(account, 60, { effective_date: day(5) });
      expect(await expectError(client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: null }), 422)).toContain('waiting');
    });
  });

  it('refuses (422, naming effective_date) to reverse a SETTLED operation as of a day before it took effect, and changes nothing', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const credit = await operate(account, 300, { effective_date: day(-2) });
    expect(credit.status).toBe('SETTLED');
    expect(await expectError(client.managementOperations.reverse(credit.token, { effective_date: day(-3) }), 422)).toBe(
      `effective_date: must be on or after ${day(-2)}, the effective_date of the operation; got ${day(-3)}`,
    );
    expect(await client.managementOperations.retrieve(credit.token)).toEqual(credit);
    expect(await balanceOf(client, account)).toEqual({ available: 300, pending: 0, total: 300 });
    const reversed = await client.managementOperations.reverse(credit.token, { effective_date: day(-2) });
    expect(reversed.events?.map((event) => event.effective_date)).toEqual([day(-2), day(-2)]);
    // A PENDING one is withdrawn before its date comes: any date will do.
    const pending = await operate(account, 20, { effective_date: day(3) });
    expect((await client.managementOperations.reverse(pending.token, { effective_date: day(0) })).status).toBe('REVERSED');
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
    await expectLedgerConsistent();
  });

  it('reverses a SETTLED operation once: the balance moves back; again is 422', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    await operate(account, 1_000);
    const fee = await operate(account, 250, { direction: 'DEBIT', category: 'MANAGEMENT_FEE', event_type: 'LATE_PAYMENT' });
    const reversed = await client.managementOperations.reverse(fee.token, { effective_date: day(0), memo: 'waived' });
    expect(reversed).toMatchObject({ status: 'REVERSED', settled_amount: 0 });
    expect(reversed.events?.map((event) => event.type)).toEqual(['LATE_PAYMENT', 'LATE_PAYMENT_REVERSAL']);
    expect(await balanceOf(client, account)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
    expect(await expectError(client.managementOperations.reverse(fee.token, { effective_date: day(0) }), 422)).toContain('REVERSED');
    expect(await expectError(client.managementOperations.reverse(fee.token, {} as never), 400)).toContain('effective_date');
    expect(await expectError(client.managementOperations.reverse(crypto.randomUUID(), { effective_date: day(0) }), 404)).toContain('management operation');
    await expectLedgerConsistent();
  });

  it.each([
    ['SETTLED', 0],
    ['PENDING', 2],
  ] as const)('lets exactly one of 10 concurrent reverses of a %s operation win; the others get 422 and nothing moves twice', async (status, offsetDays) => {
    const { client } = context.program;
    const account = await newAccount(client);
    await operate(account, 1_000);
    const operation = await operate(account, 1_000, { effective_date: day(offsetDays) });
    expect(operation.status).toBe(status);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => client.managementOperations.reverse(operation.token, { effective_date: day(offsetDays) })));
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(lost.map((outcome) => (outcome.reason as InstanceType<typeof Lithic.APIError>).status)).toEqual(Array(9).fill(422));
    const reversed = await client.managementOperations.retrieve(operation.token);
    expect(reversed.status).toBe('REVERSED');
    expect(reversed.events?.map((event) => event.type)).toEqual(['PROVISIONAL_CREDIT', 'PROVISIONAL_CREDIT_REVERSAL']);
    expect(await balanceOf(client, account)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
    await expectLedgerConsistent();
  });

  it('uses the client token as the operation token; reusing it returns the original', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    const token = crypto.randomUUID();
    const first = await operate(account, 10, { token });
    expect(first.token).toBe(token);
    expect(await operate(account, 10, { token })).toEqual(first);
    expect(await expectError(operate(account, 11, { token }), 400)).toContain('token');
    expect(await balanceOf(client, account)).toEqual({ available: 10, pending: 0, total: 10 });
  });

  it.each([
    [{ amount: 0 }, 'amount: must be >= 1'],
    [{ amount: 10.5 }, 'amount: must be integer'],
    [{ category: 'MANAGEMENT_GIFT' }, 'category: must be one of'],
    [{ direction: 'UP' }, 'direction: must be one of CREDIT, DEBIT'],
    [{ event_type: 'GIFT' }, 'event_type: must be one of'],
    [{ effective_date: '10/03/2031' }, 'effective_date: must be a valid date'],
    [{ effective_date: undefined }, 'effective_date: is required'],
    [{ financial_account_token: undefined }, 'financial_account_token: is required'],
    [{ token: 'x' }, 'token: must be a valid uuid'],
    [{ memo: 'm'.repeat(513) }, 'memo'],
    ...NOT_VISIBLE_TEXTS.map((memo): [object, string] => [{ memo }, notEmptyOrVisibleMessage('memo')]),
    ...(['subtype', 'user_defined_id'] as const).flatMap((field) => [
      [{ [field]: '' }, `${field}: must NOT have fewer than 1 characters`] as [object, string],
      [{ [field]: 'x'.repeat(257) }, `${field}: must NOT have more than 256 characters`] as [object, string],
      ...NOT_VISIBLE_TEXTS.map((value): [object, string] => [{ [field]: value }, notVisibleMessage(field)]),
    ]),
    [{ extra: 1 }, 'extra: is not a recognised field'],
  ])('refuses %j with 400 naming the field', async (override, message) => {
    const { client } = context.program;
    const account = await newAccount(client);
    const body = { amount: 10, category: 'MANAGEMENT_FEE', direction: 'CREDIT', effective_date: day(0), event_type: 'INTEREST', financial_account_token: account, ...override };
    expect(await expectError(client.managementOperations.create(body as never), 400)).toContain(message);
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
  });

  it('takes an empty memo (none) and one with spaces and letters beyond ASCII on create and reverse; refuses a blank one or one with a control character on reverse (400), changing nothing', async () => {
    const { client } = context.program;
    const account = await newAccount(client);
    expect((await operate(account, 10, { memo: '' })).events?.[0]?.memo).toBe('');
    const credit = await operate(account, 10, { memo: VISIBLE_TEXT });
    expect(credit.events?.[0]?.memo).toBe(VISIBLE_TEXT);
    for (const memo of NOT_VISIBLE_TEXTS) {
      expect(await expectError(client.managementOperations.reverse(credit.token, { effective_date: day(0), memo }), 400)).toBe(notEmptyOrVisibleMessage('memo'));
    }
    expect(await client.managementOperations.retrieve(credit.token)).toEqual(credit);
    expect((await client.managementOperations.reverse(credit.token, { effective_date: day(0), memo: VISIBLE_TEXT })).events?.[1]?.memo).toBe(VISIBLE_TEXT);
  });

  it('refuses an unknown account (404) and one that is not OPEN (422)', async () => {
    const { client } = context.program;
    expect(await expectError(operate(crypto.randomUUID(), 1), 404)).toContain('financial_account_token');
    const account = await newAccount(client);
    await client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: 'END_USER_REQUEST' });
    expect(await expectError(operate(account, 1), 422)).toContain('CLOSED');
  });

  it('lists with every filter and keeps programs apart', async () => {
    const { client } = context.program;
    const lister = await context.server.newProgram('lister');
    const a = await newAccount(lister.client);
    const b = await newAccount(lister.client);
    const make = (account: string, category: CreateParams['category'], effectiveDate: string) =>
      lister.client.managementOperations.create({ amount: 5, category, direction: 'CREDIT', effective_date: effectiveDate, event_type: 'INTEREST', financial_account_token: account });
    const o0 = await make(a, 'MANAGEMENT_FEE', day(0));
    const o1 = await make(b, 'MANAGEMENT_REWARD', day(9));
    const o2 = await make(a, 'MANAGEMENT_REWARD', day(0));
    const tokens = (page: { data: Operation[] }) => page.data.map((operation) => operation.token);
    expect(tokens(await lister.client.managementOperations.list())).toEqual([o2.token, o1.token, o0.token]);
    expect(tokens(await lister.client.managementOperations.list({ financial_account_token: a }))).toEqual([o2.token, o0.token]);
    expect(tokens(await lister.client.managementOperations.list({ category: 'MANAGEMENT_REWARD' }))).toEqual([o2.token, o1.token]);
    expect(tokens(await lister.client.managementOperations.list({ status: 'PENDING' }))).toEqual([o1.token]);
    expect(tokens(await lister.client.managementOperations.list({ page_size: 2 }))).toEqual([o2.token, o1.token]);
    expect(tokens(await lister.client.managementOperations.list({ ending_before: o0.token }))).toEqual([o2.token, o1.token]);
    expect(tokens(await lister.client.managementOperations.list({ end: new Date(Date.parse(o0.created) + 1).toISOString() }))).toContain(o0.token);
    const accountToken = (await context.server.server.db.kysely.selectFrom('accounts').select('token').where('program_id', '=', lister.programId).executeTakeFirstOrThrow()).token;
    expect(tokens(await lister.client.managementOperations.list({ business_account_token: accountToken }))).toEqual([]);
    for (const query of ['status=WAITING', 'category=FEE', 'page_size=0', 'begin=today']) {
      expect((await context.server.request('GET', `/v1/management_operations?${query}`, { apiKey: lister.apiKey })).status, query).toBe(400);
    }
    expect(tokens(await client.managementOperations.list({ financial_account_token: a }))).toEqual([]);
    await expectError(client.managementOperations.retrieve(o0.token), 404);
    await expectError(client.managementOperations.reverse(o0.token, { effective_date: day(0) }), 404);
  });
});
