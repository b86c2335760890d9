import crypto from 'node:crypto';
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { changedLastAt, describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, bookTransfer, expectError, fund, newAccount } from '../testing/money.js';
import { conditionalBlock, enforcedRule } from '../testing/auth_rules.js';
import { authorize, cardOnOwnAccount, moveClock, setRequireFunds, type Card } from '../testing/transactions.js';
import { NOT_VISIBLE_TEXTS, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

const TODAY = new Date().toISOString().slice(0, 10);

describeWithDb('financial accounts: updates, status, balances, financial transactions', () => {
  const context = useTestServer();

  const transfer = (from: string, to: string, amount: number) =>
    context.program.client.bookTransfers.create({ amount, category: 'TRANSFER', type: 'TRANSFER', subtype: 's', from_financial_account_token: from, to_financial_account_token: to });

  describe('PATCH', () => {
    it('renames an account and stamps updated', async () => {
      const { client } = context.program;
      const created = await client.financialAccounts.create({ nickname: 'Old', type: 'OPERATING' });
      const updated = await client.financialAccounts.update(created.token, { nickname: 'New' });
      expect(updated).toMatchObject({ token: created.token, nickname: 'New', created: created.created });
      expect(Date.parse(updated.updated)).toBeGreaterThanOrEqual(Date.parse(created.updated));
      expect(await client.financialAccounts.retrieve(created.token)).toEqual(updated);
      expect(await client.financialAccounts.update(created.token, {})).toMatchObject({ nickname: 'New' });
      expect(await client.financialAccounts.update(created.token, { nickname: VISIBLE_TEXT })).toMatchObject({ nickname: VISIBLE_TEXT });
    });

    it.each([
      [{ nickname: '' }, 'nickname: must NOT have fewer than 1 characters'],
      ...NOT_VISIBLE_TEXTS.map((nickname): [object, string] => [{ nickname }, notVisibleMessage('nickname')]),
      [{ nickname: 'x'.repeat(257) }, 'nickname: must NOT have more than 256 characters'],
      [{ type: 'ISSUING' }, 'type: is not a recognised field'],
    ])('refuses %j with 400', async (body, message) => {
      const { client } = context.program;
      const created = await client.financialAccounts.create({ nickname: 'Keep', type: 'OPERATING' });
      expect(await expectError(client.financialAccounts.update(created.token, body as never), 400)).toContain(message);
      expect((await client.financialAccounts.retrieve(created.token)).nickname).toBe('Keep');
    });

    it('never stamps a change before the account’s last one (a change stamped by a request that saw a moved clock)', async () => {
      const { client, programId } = context.program;
      const account = await newAccount(client);
      const changes = [
        () => client.financialAccounts.update(account, { nickname: 'Renamed' }),
        () => client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' }),
      ];
      for (const change of changes) {
        const laterMs = Date.parse((await client.financialAccounts.retrieve(account)).updated) + 3_600_000;
        // As if the account had last changed at a clock moved an hour ahead by a request that committed first.
        await changedLastAt(context.server.server.db, 'financial_accounts', programId, account, laterMs);
        const changed = await change();
        expect(Date.parse(changed.updated)).toBe(laterMs);
        const [event] = (await client.events.list({ event_types: ['financial_account.updated'], page_size: 1, with_content: true })).data;
        expect(event?.payload).toEqual(changed);
        expect(Date.parse(event?.created as string)).toBe(laterMs);
      }
    });

    it('answers 404 for another program’s account', async () => {
      const { client } = context.program;
      const other = await context.server.newProgram('other');
      const created = await client.financialAccounts.create({ nickname: 'Mine', type: 'OPERATING' });
      await expectError(other.client.financialAccounts.update(created.token, { nickname: 'Theirs' }), 404);
      await expectError(other.client.financialAccounts.updateStatus(created.token, { status: 'SUSPENDED', substatus: null }), 404);
      await expectError(other.client.financialAccounts.balances.list(created.token), 404);
      await expectError(other.client.financialAccounts.financialTransactions.list(created.token), 404);
    });
  });

  describe('update_status', () => {
    const cases: [string, ('OPEN' | 'SUSPENDED' | 'CLOSED')[], 'OPEN' | 'SUSPENDED' | 'CLOSED' | 'PENDING', string | 422][] = [
      ['OPEN → SUSPENDED', [], 'SUSPENDED', 'SUSPENDED'],
      ['SUSPENDED → OPEN', ['SUSPENDED'], 'OPEN', 'OPEN'],
      ['OPEN → CLOSED (empty)', [], 'CLOSED', 'CLOSED'],
      ['SUSPENDED → CLOSED (empty)', ['SUSPENDED'], 'CLOSED', 'CLOSED'],
      ['SUSPENDED → SUSPENDED (substatus only)', ['SUSPENDED'], 'SUSPENDED', 'SUSPENDED'],
      ['CLOSED → OPEN', ['CLOSED'], 'OPEN', 422],
      ['CLOSED → CLOSED', ['CLOSED'], 'CLOSED', 422],
      ['OPEN → PENDING', [], 'PENDING', 422],
    ];
    it.each(cases)('%s', async (_name, setup, target, expected) => {
      const { client } = context.program;
      const account = await newAccount(client);
      for (const status of setup) await client.financialAccounts.updateStatus(account, { status, substatus: 'END_USER_REQUEST' });
      const substatus = target === 'OPEN' || target === 'PENDING' ? null : 'BANK_REQUEST';
      const call = client.financialAccounts.updateStatus(account, { status: target, substatus });
      if (expected === 422) {
        await expectError(call, 422);
        expect((await client.financialAccounts.retrieve(account)).substatus).toBe(setup.length > 0 ? 'END_USER_REQUEST' : null);
      } else {
        expect(await call).toMatchObject({ status: expected, substatus });
      }
    });

    it('keeps a CLOSED account closed when other status changes race the close', async () => {
      const { client } = context.program;
      for (let round = 0; round < 3; round++) {
        const account = await newAccount(client);
        const changes = Array.from({ length: 12 }, (_, index) =>
          index === 5
            ? ({ status: 'CLOSED', substatus: 'END_USER_REQUEST' } as const)
            : index % 2 === 0
              ? ({ status: 'SUSPENDED', substatus: 'BANK_REQUEST' } as const)
              : ({ status: 'OPEN', substatus: null } as const),
        );
        const outcomes = await Promise.allSettled(changes.map((change) => client.financialAccounts.updateStatus(account, change)));
        const closed = outcomes[5]?.status === 'fulfilled';
        const final = await client.financialAccounts.retrieve(account);
        expect(final.status === 'CLOSED').toBe(closed);
        for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as { status: number }).status).toBe(422);
      }
    });

    it('refuses to close an ISSUING account while cards that are not CLOSED draw on it', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      expect(await expectError(client.financialAccounts.updateStatus(card.funding.token, { status: 'CLOSED', substatus: 'END_USER_REQUEST' }), 422)).toContain('cards');
      expect((await client.financialAccounts.retrieve(card.funding.token)).status).toBe('OPEN');
      await client.cards.update(card.token, { state: 'CLOSED' });
      expect((await client.financialAccounts.updateStatus(card.funding.token, { status: 'CLOSED', substatus: 'END_USER_REQUEST' })).status).toBe('CLOSED');
    });

    it('lets a SUSPENDED ISSUING account take the network’s other messages (the clearing, reversal and advice of what it approved before, a return) while it declines new authorizations', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const cleared = await authorize(client, card, 1_000);
      const voided = await authorize(client, card, 500);
      const advised = await authorize(client, card, 300);
      await client.financialAccounts.updateStatus(card.funding.token, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      expect((await client.transactions.retrieve(await authorize(client, card, 100))).result).toBe('ACCOUNT_STATE_TRANSACTION_FAIL');
      await client.transactions.simulateClearing({ token: cleared });
      await client.transactions.simulateVoid({ token: voided });
      await client.transactions.simulateAuthorizationAdvice({ token: advised, amount: 350 });
      await client.transactions.simulateReturn({ amount: 200, descriptor: 'COFFEE SHOP', pan: card.pan });
      const statuses = await Promise.all([cleared, voided, advised].map(async (token) => (await client.transactions.retrieve(token)).status));
      expect(statuses).toEqual(['SETTLED', 'VOIDED', 'PENDING']);
      // Cleared 1,000 and pending 350 out, 200 returned.
      expect(await balanceOf(client, card.funding.token)).toMatchObject({ available: -1_150, pending: 350 });
      expect((await client.financialAccounts.retrieve(card.funding.token)).status).toBe('SUSPENDED');
      await client.financialAccounts.updateStatus(card.funding.token, { status: 'OPEN', substatus: null });
      expect((await client.transactions.retrieve(await authorize(client, card, 100))).result).toBe('APPROVED');
    });

    it('refuses to close an account that still holds money, pending included', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      await fund(client, account, 10);
      expect(await expectError(client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: null }), 422)).toContain('available 10');
      const other = await newAccount(client);
      await transfer(account, other, 10);
      const deposit = await client.externalPayments.create({ amount: 5, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      expect(await expectError(client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: null }), 422)).toContain('pending 5');
      await client.externalPayments.cancel(deposit.token, { effective_date: TODAY });
      expect((await client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: null })).status).toBe('CLOSED');
      expect(await expectError(transfer(other, account, 1), 422)).toContain('CLOSED');
    });

    it.each([
      [{ status: 'GONE', substatus: null }, 'status: must be one of OPEN, CLOSED, SUSPENDED, PENDING'],
      [{ status: 'OPEN', substatus: 'DELINQUENT' }, 'substatus: must be one of CHARGED_OFF_FRAUD, END_USER_REQUEST, BANK_REQUEST, CHARGED_OFF_DELINQUENT, null'],
      [{ status: 'OPEN' }, 'substatus: is required'],
      [{ status: 'OPEN', substatus: 'END_USER_REQUEST' }, 'substatus: must be null when status is OPEN'],
      [{ status: 'PENDING', substatus: 'CHARGED_OFF_FRAUD' }, 'substatus: must be null when status is PENDING'],
    ])('refuses %j with 400, changing nothing', async (body, message) => {
      const { client } = context.program;
      const account = await newAccount(client);
      await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      const before = await client.financialAccounts.retrieve(account);
      expect(await expectError(client.financialAccounts.updateStatus(account, body as never), 400)).toBe(message);
      expect(await client.financialAccounts.retrieve(account)).toEqual(before);
    });
  });

  describe('balances', () => {
    it('reports available, pending and total for one account, now or at an earlier time', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const fresh = (await client.financialAccounts.balances.list(account)).data;
      expect(fresh).toEqual([
        expect.objectContaining({ token: account, type: 'OPERATING', currency: 'USD', available_amount: 0, pending_amount: 0, total_amount: 0, last_transaction_token: '', last_transaction_event_token: '' }),
      ]);
      await fund(client, account, 1_000);
      const deposit = await client.externalPayments.create({ amount: 300, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      const [now] = (await client.financialAccounts.balances.list(account)).data;
      expect(now).toMatchObject({ available_amount: 1_000, pending_amount: 300, total_amount: 1_300, last_transaction_token: deposit.token });
      expect(now?.last_transaction_event_token).toBe(deposit.events?.[0]?.token);

      const before = new Date(Date.parse(deposit.created) - 1).toISOString();
      const [then] = (await client.financialAccounts.balances.list(account, { balance_date: before })).data;
      expect(then).toMatchObject({ available_amount: 1_000, pending_amount: 0, total_amount: 1_000 });
    });

    it('refuses (422, naming balance_date) a balance from before the account existed; an account not yet touched then reads zero', async () => {
      const lister = await context.server.newProgram('balances-before');
      const { client } = lister;
      const created = await client.financialAccounts.create({ nickname: 'young', type: 'OPERATING' });
      const account = created.token;
      const atCreation = (await client.financialAccounts.balances.list(account, { balance_date: created.created })).data;
      const untouched = { available_amount: 0, pending_amount: 0, total_amount: 0, last_transaction_token: '', last_transaction_event_token: '', created: created.created, updated: created.created };
      expect(atCreation).toEqual([expect.objectContaining({ token: account, ...untouched })]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const between = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
      await fund(client, account, 80);

      for (const balance_date of ['2000-01-01T00:00:00Z', new Date(Date.parse(created.created) - 1).toISOString()]) {
        expect(await expectError(client.financialAccounts.balances.list(account, { balance_date }), 422)).toBe(
          `balance_date: financial account '${account}' did not exist yet at ${new Date(balance_date).toISOString()}; it was created at ${created.created}`,
        );
      }
      expect((await client.financialAccounts.balances.list(account, { balance_date: between })).data).toEqual([expect.objectContaining(untouched)]);
      // The program's list answers the accounts that existed then, so one created later is left out, not zeroed.
      const listed = async (balance_date: string) => (await client.balances.list({ balance_date })).data.map((balance) => balance.financial_account_token);
      expect(await listed(new Date(Date.parse(created.created) - 1).toISOString())).not.toContain(account);
      expect((await client.balances.list({ balance_date: between })).data.find((balance) => balance.financial_account_token === account)).toMatchObject(untouched);
      expect((await client.balances.list({ balance_date: '2000-01-01T00:00:00Z' })).data).toEqual([]);
      expect(await balanceOf(client, account)).toEqual({ available: 80, pending: 0, total: 80 });
    });

    it('reports the balance right after a given event', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const other = await newAccount(client);
      await fund(client, account, 500);
      const first = await transfer(account, other, 100);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await transfer(account, other, 50);
      const [after] = (await client.financialAccounts.balances.list(account, { last_transaction_event_token: first.events[0]?.token })).data;
      expect(after).toMatchObject({ available_amount: 400, last_transaction_token: first.token });
      expect(await expectError(client.financialAccounts.balances.list(account, { last_transaction_event_token: crypto.randomUUID() }), 404)).toContain(
        'last_transaction_event_token',
      );
      expect(await expectError(client.financialAccounts.balances.list(account, { balance_date: 'yesterday' }), 400)).toContain('balance_date');
    });

    it('reports the balance right after a card event that moved no money: a decline, a balance inquiry, an authorization of $0', async () => {
      const { client } = await context.server.newProgram('balance after a card event without money');
      const card = await cardOnOwnAccount(client);
      const funding = card.funding.token;
      const firstEvent = async (token: string) => (await client.transactions.retrieve(token)).events?.[0]?.token as string;
      const after = async (eventToken: string) => (await client.financialAccounts.balances.list(funding, { last_transaction_event_token: eventToken })).data;
      const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
      const held = await authorize(client, card, 500);
      await pause();
      await client.cards.update(card.token, { state: 'PAUSED' });
      const declined = await authorize(client, card, 300);
      expect((await client.transactions.retrieve(declined)).status).toBe('DECLINED');
      await client.cards.update(card.token, { state: 'OPEN' });
      await pause();
      const inquiry = await authorize(client, card, 0, { status: 'BALANCE_INQUIRY' });
      await pause();
      const zero = await authorize(client, card, 0);
      const whileHeld = (await client.financialAccounts.balances.list(funding)).data;
      expect(whileHeld).toEqual([expect.objectContaining({ last_transaction_event_token: await firstEvent(held) })]);
      await pause();
      await authorize(client, card, 200);
      await client.transactions.simulateClearing({ token: held });
      for (const token of [declined, inquiry, zero]) expect(await after(await firstEvent(token)), token).toEqual(whileHeld);
      // An event of a card on another financial account, or of another program, is not one of this account's.
      const otherCard = await cardOnOwnAccount(client);
      const elsewhere = await firstEvent(await authorize(client, otherCard, 0, { status: 'BALANCE_INQUIRY' }));
      const stranger = await context.server.newProgram('another program');
      const strangerCard = await cardOnOwnAccount(stranger.client);
      const foreign = (await stranger.client.transactions.retrieve(await authorize(stranger.client, strangerCard, 0, { status: 'BALANCE_INQUIRY' }))).events?.[0]?.token as string;
      for (const eventToken of [elsewhere, foreign]) {
        expect(await expectError(client.financialAccounts.balances.list(funding, { last_transaction_event_token: eventToken }), 404)).toContain('last_transaction_event_token');
      }
    });

    it('lists every account’s balance with GET /v1/balances and its filters', async () => {
      const lister = await context.server.newProgram('balances');
      const account = await newAccount(lister.client);
      await fund(lister.client, account, 42);
      const all = (await lister.client.balances.list()).data;
      expect(all.map((balance) => balance.financial_account_type).sort()).toEqual(['ISSUING', 'OPERATING', 'OPERATING', 'RESERVE']);
      expect(all.find((balance) => balance.financial_account_token === account)).toMatchObject({ available_amount: 42, total_amount: 42, currency: 'USD' });
      expect((await lister.client.balances.list({ financial_account_type: 'RESERVE' })).data).toHaveLength(1);
      const accountToken = (await context.server.server.db.kysely.selectFrom('accounts').select('token').where('program_id', '=', lister.programId).executeTakeFirstOrThrow()).token;
      expect((await lister.client.balances.list({ account_token: accountToken })).data).toEqual([]);
      const owned = await lister.client.financialAccounts.create({ nickname: 'owned', type: 'OPERATING', account_token: accountToken });
      expect((await lister.client.balances.list({ business_account_token: accountToken })).data.map((balance) => balance.financial_account_token)).toEqual([owned.token]);
      expect((await lister.client.balances.list({ balance_date: '2000-01-01T00:00:00Z' })).data).toEqual([]);
      expect((await context.server.request('GET', '/v1/balances?financial_account_type=CARD', { apiKey: lister.apiKey })).status).toBe(400);
    });
    it('lists, as of balance_date, the accounts that existed then with their balances then', async () => {
      const lister = await context.server.newProgram('balances-as-of');
      const first = await newAccount(lister.client);
      const second = await newAccount(lister.client);
      await fund(lister.client, first, 700);
      await fund(lister.client, second, 300);
      const [secondThen] = (await lister.client.financialAccounts.balances.list(second)).data;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const then = (await lister.client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await lister.client.bookTransfers.create({
        amount: 200, category: 'TRANSFER', from_financial_account_token: first, to_financial_account_token: second, subtype: 'INTERNAL', type: 'TRANSFER',
      });
      const later = await newAccount(lister.client);
      const asOf = (await lister.client.balances.list({ balance_date: then })).data;
      expect(asOf.map((balance) => balance.financial_account_token)).not.toContain(later);
      expect(asOf.find((balance) => balance.financial_account_token === first)).toMatchObject({ available_amount: 700, pending_amount: 0, total_amount: 700 });
      expect(asOf.find((balance) => balance.financial_account_token === second)).toMatchObject({
        available_amount: 300,
        total_amount: 300,
        last_transaction_token: secondThen?.last_transaction_token,
        last_transaction_event_token: secondThen?.last_transaction_event_token,
        updated: secondThen?.updated,
      });
      const nowBalances = (await lister.client.balances.list()).data;
      expect(nowBalances.find((balance) => balance.financial_account_token === second)?.available_amount).toBe(500);
      expect(nowBalances.map((balance) => balance.financial_account_token)).toContain(later);
    });
  });

  describe('financial transactions', () => {
    it('reads every movement of an account from the ledger, newest first, with filters', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const other = await newAccount(client);
      await fund(client, account, 1_000);
      const sent = await transfer(account, other, 200);
      const deposit = await client.externalPayments.create({ amount: 70, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      const wire = await client.externalPayments.create({ amount: 30, category: 'EXTERNAL_WIRE', effective_date: TODAY, financial_account_token: account, payment_type: 'WITHDRAWAL', progress_to: 'RELEASED' });
      const undone = await transfer(account, other, 5);
      await client.bookTransfers.reverse(undone.token, {});
      await transfer(account, other, 1_000_000);

      const list = (await client.financialAccounts.financialTransactions.list(account)).data;
      expect(list.map((transaction) => transaction.token).slice(1, 5)).toEqual([undone.token, wire.token, deposit.token, sent.token]);
      expect(list).toHaveLength(6);
      const byToken = new Map(list.map((transaction) => [transaction.token, transaction]));
      expect(byToken.get(sent.token)).toMatchObject({ category: 'TRANSFER', status: 'SETTLED', settled_amount: -200, pending_amount: 0, result: 'APPROVED', currency: 'USD' });
      expect(byToken.get(deposit.token)).toMatchObject({ category: 'ACH', status: 'PENDING', pending_amount: 70, settled_amount: 0 });
      expect(byToken.get(deposit.token)?.events).toEqual([expect.objectContaining({ type: 'EXTERNAL_ACH_INITIATED', amount: 70, result: 'APPROVED' })]);
      expect(byToken.get(wire.token)).toMatchObject({ category: 'TRANSFER', status: 'SETTLED', settled_amount: -30, pending_amount: 0 });
      expect(byToken.get(wire.token)?.events.map((event) => [event.type, event.amount])).toEqual([
        ['EXTERNAL_WIRE_INITIATED', -30],
        ['EXTERNAL_WIRE_SETTLED', -30],
        ['EXTERNAL_WIRE_RELEASED', -30],
      ]);
      expect(byToken.get(undone.token)).toMatchObject({ status: 'RETURNED', settled_amount: 0 });
      const received = (await client.financialAccounts.financialTransactions.list(other)).data.find((transaction) => transaction.token === sent.token);
      expect(received).toMatchObject({ settled_amount: 200 });

      const tokens = async (query: Lithic.FinancialAccounts.FinancialTransactionListParams) =>
        (await client.financialAccounts.financialTransactions.list(account, query)).data.map((transaction) => transaction.token);
      expect(await tokens({ category: 'ACH' })).toEqual([deposit.token]);
      expect(await tokens({ status: 'PENDING' })).toEqual([deposit.token]);
      expect(await tokens({ status: 'RETURNED' })).toEqual([undone.token]);
      const [declined] = list.filter((transaction) => transaction.status === 'DECLINED');
      expect(declined).toMatchObject({ category: 'TRANSFER', result: 'DECLINED', settled_amount: 0, pending_amount: 0 });
      expect(declined?.events.map((event) => [event.amount, event.result, event.type])).toEqual([[-1_000_000, 'DECLINED', 'TRANSFER_INSUFFICIENT_FUNDS']]);
      expect(await tokens({ result: 'DECLINED' })).toEqual([declined?.token]);
      expect(await tokens({ status: 'DECLINED' })).toEqual([declined?.token]);
      expect(await tokens({ begin: sent.created, end: new Date(Date.parse(undone.created) + 1).toISOString() })).not.toContain(sent.token);
      expect(await tokens({ starting_after: wire.token })).toEqual([deposit.token, sent.token, (list[5] as { token: string }).token]);
      expect(await tokens({ ending_before: deposit.token })).toEqual([(list[0] as { token: string }).token, undone.token, wire.token]);
      // One read derives one transaction from its own journals: the same as the whole list says of it.
      for (const listed of list) expect(await client.financialAccounts.financialTransactions.retrieve(account, listed.token)).toEqual(listed);
      await expectError(client.financialAccounts.financialTransactions.retrieve(account, crypto.randomUUID()), 404);
      for (const query of ['category=WIRE', 'status=OK', `starting_after=${crypto.randomUUID()}`]) {
        expect((await context.server.request('GET', `/v1/financial_accounts/${account}/financial_transactions?${query}`, { apiKey: context.program.apiKey })).status, query).toBe(400);
      }
      expect(await balanceOf(client, account)).toEqual({ available: 770, pending: 70, total: 840 });
    });

    it('shows every event of a payment, its SETTLED step (which moves no money) included, in order, in the list and in one read', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      await fund(client, account, 500);
      const deposit = await client.externalPayments.create({ amount: 70, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      const withdrawal = await client.externalPayments.create({ amount: 30, category: 'EXTERNAL_CHECK', effective_date: TODAY, financial_account_token: account, payment_type: 'WITHDRAWAL' });
      const canceled = await client.externalPayments.create({ amount: 9, category: 'EXTERNAL_TRANSFER', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      const settled = await client.externalPayments.settle(deposit.token, { effective_date: TODAY });
      const withdrawn = await client.externalPayments.settle(withdrawal.token, { effective_date: TODAY, progress_to: 'RELEASED' });
      await client.externalPayments.settle(canceled.token, { effective_date: TODAY });
      const undone = await client.externalPayments.cancel(canceled.token, { effective_date: TODAY });

      const read = async (token: string) => {
        const listed = (await client.financialAccounts.financialTransactions.list(account)).data.find((transaction) => transaction.token === token);
        expect(await client.financialAccounts.financialTransactions.retrieve(account, token)).toEqual(listed);
        return listed;
      };
      const events = (transaction: Lithic.FinancialAccounts.FinancialTransaction | undefined) => transaction?.events.map((event) => [event.type, event.amount, event.token]);
      const sameEvents = (payment: Lithic.ExternalPayment, sign: number) => payment.events?.map((event) => [event.type, sign * event.amount, event.token]);

      const pendingDeposit = await read(deposit.token);
      expect(pendingDeposit).toMatchObject({ status: 'PENDING', pending_amount: 70, settled_amount: 0, updated: settled.updated });
      expect(events(pendingDeposit)).toEqual(sameEvents(settled, 1));
      expect(events(pendingDeposit)?.map(([type]) => type)).toEqual(['EXTERNAL_ACH_INITIATED', 'EXTERNAL_ACH_SETTLED']);

      const outgoing = await read(withdrawal.token);
      expect(outgoing).toMatchObject({ status: 'SETTLED', pending_amount: 0, settled_amount: -30 });
      expect(events(outgoing)).toEqual(sameEvents(withdrawn, -1));
      expect(events(outgoing)?.map(([type]) => type)).toEqual(['EXTERNAL_CHECK_INITIATED', 'EXTERNAL_CHECK_SETTLED', 'EXTERNAL_CHECK_RELEASED']);

      const back = await read(canceled.token);
      expect(back).toMatchObject({ status: 'VOIDED', pending_amount: 0, settled_amount: 0 });
      expect(events(back)).toEqual([
        ['EXTERNAL_TRANSFER_INITIATED', 9, undone.events?.[0]?.token],
        ['EXTERNAL_TRANSFER_SETTLED', 9, undone.events?.[1]?.token],
        ['EXTERNAL_TRANSFER_CANCELED', -9, undone.events?.[2]?.token],
      ]);

      const released = await client.externalPayments.release(deposit.token, { effective_date: TODAY });
      const done = await read(deposit.token);
      expect(done).toMatchObject({ status: 'SETTLED', pending_amount: 0, settled_amount: 70, updated: released.updated });
      expect(events(done)).toEqual(sameEvents(released, 1));
      // The balance right after the SETTLED event is the balance the event found: it moved nothing.
      expect(await balanceOf(client, account)).toEqual({ available: 540, pending: 0, total: 540 });
      const [afterSettled] = (await client.financialAccounts.balances.list(account, { last_transaction_event_token: settled.events?.[1]?.token })).data;
      expect(afterSettled).toMatchObject({ available_amount: 470, pending_amount: 109 });
    });

    it('reports the balance right after an event that moved nothing: a declined movement’s', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const other = await newAccount(client);
      await fund(client, account, 500);
      const declined = await transfer(account, other, 10_000);
      expect(declined.status).toBe('DECLINED');
      await transfer(account, other, 100);
      const [after] = (await client.financialAccounts.balances.list(account, { last_transaction_event_token: declined.events[0]?.token })).data;
      expect(after).toMatchObject({ available_amount: 500, pending_amount: 0 });
      // Only on the account it was declined on.
      await expectError(client.financialAccounts.balances.list(other, { last_transaction_event_token: declined.events[0]?.token }), 404);
    });

    it('answers whole without page_size (as Lithic), and pages with it: has_more, both cursors, 1 to 100', async () => {
      const { client, apiKey } = context.program;
      const account = await newAccount(client);
      const other = await newAccount(client);
      await fund(client, account, 1_000);
      for (let made = 0; made < 4; made++) await transfer(account, other, 1 + made);
      const whole = (await client.financialAccounts.financialTransactions.list(account)).data.map((transaction) => transaction.token);
      expect(whole).toHaveLength(5);
      const page = async (query: string) => {
        const response = await context.server.request('GET', `/v1/financial_accounts/${account}/financial_transactions?${query}`, { apiKey });
        const body = (await response.json()) as { data: { token: string }[]; has_more: boolean; message?: string };
        return { status: response.status, tokens: body.data?.map((transaction) => transaction.token), has_more: body.has_more, message: body.message };
      };
      expect(await page('page_size=2')).toMatchObject({ status: 200, tokens: whole.slice(0, 2), has_more: true });
      expect(await page(`page_size=2&starting_after=${whole[1]}`)).toMatchObject({ tokens: whole.slice(2, 4), has_more: true });
      expect(await page(`page_size=2&starting_after=${whole[3]}`)).toMatchObject({ tokens: whole.slice(4), has_more: false });
      expect(await page(`page_size=2&ending_before=${whole[4]}`)).toMatchObject({ tokens: whole.slice(2, 4), has_more: true });
      expect(await page(`page_size=2&ending_before=${whole[2]}`)).toMatchObject({ tokens: whole.slice(0, 2), has_more: false });
      expect(await page('page_size=5')).toMatchObject({ tokens: whole, has_more: false });
      for (const size of ['0', '101', '1.5']) expect(await page(`page_size=${size}`), size).toMatchObject({ status: 400, message: expect.stringMatching(/^page_size: /) });
    });

    it('reads a cursor that the filters leave out by where it stands, as the paged lists do', async () => {
      const { client } = context.program;
      const account = await newAccount(client);
      const other = await newAccount(client);
      await fund(client, account, 1_000);
      const older = await transfer(account, other, 1);
      const deposit = await client.externalPayments.create({ amount: 7, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });
      const newer = await transfer(account, other, 2);
      const tokens = async (query: Lithic.FinancialAccounts.FinancialTransactionListParams) =>
        (await client.financialAccounts.financialTransactions.list(account, query)).data.map((transaction) => transaction.token);
      expect(await tokens({ category: 'TRANSFER', starting_after: deposit.token })).toEqual([older.token]);
      expect(await tokens({ category: 'TRANSFER', ending_before: deposit.token })).toEqual([newer.token]);
      expect(await tokens({ status: 'SETTLED', ending_before: deposit.token })).toEqual([newer.token]);
    });

    it('shows held money as pending (negative, going out) and nothing settled until it leaves; a hold let go never settled', async () => {
      const { client } = await context.server.newProgram('held money');
      const account = await newAccount(client);
      await fund(client, account, 1_000);
      const withdrawal = (progress_to?: 'RELEASED') =>
        client.externalPayments.create({ amount: 30, category: 'EXTERNAL_WIRE', effective_date: TODAY, financial_account_token: account, payment_type: 'WITHDRAWAL', progress_to });
      const held = await withdrawal();
      const canceled = await withdrawal();
      await client.externalPayments.cancel(canceled.token, { effective_date: TODAY });
      const released = await withdrawal('RELEASED');
      const reversed = await withdrawal('RELEASED');
      await client.externalPayments.reverse(reversed.token, { effective_date: TODAY });
      const deposit = await client.externalPayments.create({ amount: 70, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' });

      const card = await cardOnOwnAccount(client);
      const authorization = await authorize(client, card, 500, { descriptor: 'BOOK SHOP' });

      const amounts = async (financialAccountToken: string) =>
        new Map(
          (await client.financialAccounts.financialTransactions.list(financialAccountToken)).data.map((transaction) => [
            transaction.token,
            [transaction.status, transaction.pending_amount, transaction.settled_amount],
          ]),
        );
      const byToken = await amounts(account);
      expect(byToken.get(held.token)).toEqual(['PENDING', -30, 0]);
      expect(byToken.get(canceled.token)).toEqual(['VOIDED', 0, 0]);
      expect(byToken.get(released.token)).toEqual(['SETTLED', 0, -30]);
      expect(byToken.get(reversed.token)).toEqual(['RETURNED', 0, 0]);
      expect(byToken.get(deposit.token)).toEqual(['PENDING', 70, 0]);
      expect((await amounts(card.funding.token)).get(authorization)).toEqual(['PENDING', -500, 0]);
      expect(await balanceOf(client, account)).toEqual({ available: 940, pending: 100, total: 1_040 });
    });

    it('gives each event of held money the amount it moved: the hold, then what the clearing took', async () => {
      const { client } = await context.server.newProgram('held money events');
      const card = await cardOnOwnAccount(client);
      const partly = await authorize(client, card, 500);
      await client.transactions.simulateClearing({ token: partly, amount: 300 });
      const more = await authorize(client, card, 500);
      await client.transactions.simulateClearing({ token: more, amount: 600 });
      const events = async (token: string) =>
        (await client.financialAccounts.financialTransactions.retrieve(card.funding.token, token)).events.map((event) => [event.type, event.amount]);
      expect(await events(partly)).toEqual([['AUTHORIZATION', -500], ['CLEARING', -300]]);
      expect(await events(more)).toEqual([['AUTHORIZATION', -500], ['CLEARING', -600]]);
      expect(await balanceOf(client, card.funding.token)).toEqual({ available: -900, pending: 0, total: -900 });
    });

    it('describes card transactions by their own record: event types, merchant descriptor, VOIDED and EXPIRED', async () => {
      const { client } = await context.server.newProgram('card financial transactions');
      const card = await cardOnOwnAccount(client);
      const voided = await authorize(client, card, 500, { descriptor: 'BOOK SHOP' });
      await client.transactions.simulateVoid({ token: voided, amount: 500 });
      const cleared = await authorize(client, card, 300, { descriptor: 'GROCER' });
      await client.transactions.simulateClearing({ token: cleared });
      const expired = await authorize(client, card, 200, { descriptor: 'HOTEL' });
      const now = Date.parse(((await client.get('/v1/simulate/clock')) as { now: string }).now);
      await moveClock(client, new Date(now + 8 * 86_400_000).toISOString());

      const list = (await client.financialAccounts.financialTransactions.list(card.funding.token)).data;
      const summary = list.map((transaction) => ({
        token: transaction.token,
        category: transaction.category,
        descriptor: transaction.descriptor,
        status: transaction.status,
        settled_amount: transaction.settled_amount,
        pending_amount: transaction.pending_amount,
        types: transaction.events.map((event) => event.type),
      }));
      expect(summary).toEqual([
        { token: expired, category: 'CARD', descriptor: 'HOTEL', status: 'EXPIRED', settled_amount: 0, pending_amount: 0, types: ['AUTHORIZATION', 'AUTHORIZATION_EXPIRY'] },
        { token: cleared, category: 'CARD', descriptor: 'GROCER', status: 'SETTLED', settled_amount: -300, pending_amount: 0, types: ['AUTHORIZATION', 'CLEARING'] },
        { token: voided, category: 'CARD', descriptor: 'BOOK SHOP', status: 'VOIDED', settled_amount: 0, pending_amount: 0, types: ['AUTHORIZATION', 'AUTHORIZATION_REVERSAL'] },
      ]);
      const statuses = async (status: Lithic.FinancialAccounts.FinancialTransactionListParams['status']) =>
        (await client.financialAccounts.financialTransactions.list(card.funding.token, { status })).data.map((transaction) => transaction.token);
      expect([await statuses('VOIDED'), await statuses('EXPIRED'), await statuses('RETURNED')]).toEqual([[voided], [expired], []]);
      for (const listed of list) expect(await client.financialAccounts.financialTransactions.retrieve(card.funding.token, listed.token)).toEqual(listed);
    });

    it('shows a declined card transaction on its card’s ISSUING account: DECLINED, the merchant’s descriptor, each event declined with the amount it would have moved', async () => {
      const { client } = await context.server.newProgram('declined card financial transactions');
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'TRANSACTION' });
      const funding = card.funding.token;
      const pause = () => new Promise((resolve) => setTimeout(resolve, 2));
      const approved = await authorize(client, card, 100, { descriptor: 'BAKERY' });
      await enforcedRule(client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }]));
      const declines: Array<[token: string, descriptor: string, type: string, amount: number]> = [];
      const decline = async (amount: number, descriptor: string, type: Lithic.TransactionSimulateAuthorizationParams['status'] & string, sign: 1 | -1, extra = {}) => {
        await pause();
        declines.unshift([await authorize(client, card, amount, { descriptor, status: type, ...extra }), descriptor, type, sign * amount]);
      };
      await decline(1_500, 'JEWELLER', 'AUTHORIZATION', -1);
      await decline(200, 'CASINO', 'AUTHORIZATION', -1, { mcc: '7995' });
      await setRequireFunds(client, true);
      await decline(300, 'GROCER', 'FINANCIAL_AUTHORIZATION', -1);
      await setRequireFunds(client, false);
      await client.cards.update(card.token, { state: 'PAUSED' });
      await decline(400, 'REFUND', 'CREDIT_AUTHORIZATION', 1);
      await decline(0, 'ATM', 'BALANCE_INQUIRY', 1);
      const results = await Promise.all(declines.map(async ([token]) => (await client.transactions.retrieve(token)).result));
      expect(results).toEqual(['CARD_PAUSED', 'CARD_PAUSED', 'INSUFFICIENT_FUNDS', 'DECLINED', 'USER_TRANSACTION_LIMIT']);

      const list = (await client.financialAccounts.financialTransactions.list(funding)).data;
      expect(list.map((transaction) => transaction.token)).toEqual([...declines.map(([token]) => token), approved]);
      for (const [token, descriptor, type, amount] of declines) {
        const own = await client.transactions.retrieve(token);
        const event = own.events?.[0] as Lithic.Transaction.Event;
        const shown = { token, category: 'CARD', created: own.created, updated: own.created, currency: 'USD', descriptor, pending_amount: 0, settled_amount: 0, result: 'DECLINED', status: 'DECLINED' };
        expect(list.find((transaction) => transaction.token === token), descriptor).toEqual({ ...shown, events: [{ token: event.token, amount, created: event.created, result: 'DECLINED', type }] });
        expect(await client.financialAccounts.financialTransactions.retrieve(funding, token)).toEqual(list.find((transaction) => transaction.token === token));
      }
      const tokens = async (query: Lithic.FinancialAccounts.FinancialTransactionListParams) =>
        (await client.financialAccounts.financialTransactions.list(funding, query)).data.map((transaction) => transaction.token);
      const declined = declines.map(([token]) => token);
      expect(await tokens({ status: 'DECLINED' })).toEqual(declined);
      expect(await tokens({ result: 'DECLINED' })).toEqual(declined);
      expect(await tokens({ category: 'CARD', result: 'APPROVED' })).toEqual([approved]);
      expect(await tokens({ status: 'DECLINED', starting_after: declined[1] })).toEqual(declined.slice(2));
      expect(await tokens({ begin: list[3]?.created, end: list[0]?.created })).toEqual(declined.slice(1, 3));
      // Only on the account the card drew on, not another card's.
      const otherCard = await cardOnOwnAccount(client);
      expect((await client.financialAccounts.financialTransactions.list(otherCard.funding.token)).data).toEqual([]);
      await expectError(client.financialAccounts.financialTransactions.retrieve(otherCard.funding.token, declined[0] as string), 404);
      expect(await balanceOf(client, funding)).toEqual({ available: -100, pending: 100, total: 0 });
    });

    it('shows an authorization advised down to 0 PENDING, as the card transaction is, until it clears', async () => {
      const { client } = await context.server.newProgram('card advised to zero');
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 500, { descriptor: 'TAXI' });
      await client.transactions.simulateAuthorizationAdvice({ token, amount: 0 });
      expect((await client.transactions.retrieve(token)).status).toBe('PENDING');
      const shown = async () => {
        const one = await client.financialAccounts.financialTransactions.retrieve(card.funding.token, token);
        const listed = (await client.financialAccounts.financialTransactions.list(card.funding.token, { status: one.status })).data.map((transaction) => transaction.token);
        return { status: one.status, pending_amount: one.pending_amount, settled_amount: one.settled_amount, listed_under_its_status: listed.includes(token) };
      };
      expect(await shown()).toEqual({ status: 'PENDING', pending_amount: 0, settled_amount: 0, listed_under_its_status: true });
      await client.transactions.simulateClearing({ token, amount: 300 });
      expect(await shown()).toEqual({ status: 'SETTLED', pending_amount: 0, settled_amount: -300, listed_under_its_status: true });
      expect(await balanceOf(client, card.funding.token)).toEqual({ available: -300, pending: 0, total: -300 });
    });

    it('shows a card transaction that settled SETTLED, as the card transaction is, even for 0; RETURNED once a return reversal took it back', async () => {
      const { client } = await context.server.newProgram('card settled for zero');
      const card = await cardOnOwnAccount(client);
      const cleared = async (amount: number, clearedCents: number, extra: Partial<Lithic.TransactionSimulateAuthorizationParams> = {}) => {
        const token = await authorize(client, card, amount, extra);
        await client.transactions.simulateClearing({ token, amount: clearedCents });
        return token;
      };
      const debitForZero = await cleared(500, 0, { descriptor: 'NO SHOW' });
      const creditForZero = await cleared(300, 0, { descriptor: 'REFUND', status: 'CREDIT_AUTHORIZATION' });
      const expiredForZero = await authorize(client, card, 200, { descriptor: 'HOTEL' });
      await client.transactions.expireAuthorization(expiredForZero);
      await client.transactions.simulateClearing({ token: expiredForZero, amount: 0 });
      const partly = await cleared(500, 300);
      const over = await cleared(500, 600);
      const single = await authorize(client, card, 100, { status: 'FINANCIAL_AUTHORIZATION' });
      const kept = (await client.transactions.simulateReturn({ amount: 400, descriptor: 'RETURN', pan: card.pan })).token as string;
      const takenBack = (await client.transactions.simulateReturn({ amount: 70, descriptor: 'RETURN', pan: card.pan })).token as string;
      await client.transactions.simulateReturnReversal({ token: takenBack });
      const creditTakenBack = await cleared(250, 250, { status: 'CREDIT_AUTHORIZATION' });
      await client.transactions.simulateReturnReversal({ token: creditTakenBack });

      const shown = async (token: string) => {
        const one = await client.financialAccounts.financialTransactions.retrieve(card.funding.token, token);
        const listed = (await client.financialAccounts.financialTransactions.list(card.funding.token, { status: one.status })).data.map((transaction) => transaction.token);
        return [(await client.transactions.retrieve(token)).status, one.status, one.pending_amount, one.settled_amount, listed.includes(token)];
      };
      const expected: Array<[string, unknown[]]> = [
        [debitForZero, ['SETTLED', 'SETTLED', 0, 0, true]],
        [creditForZero, ['SETTLED', 'SETTLED', 0, 0, true]],
        [expiredForZero, ['SETTLED', 'SETTLED', 0, 0, true]],
        [partly, ['SETTLED', 'SETTLED', 0, -300, true]],
        [over, ['SETTLED', 'SETTLED', 0, -600, true]],
        [single, ['SETTLED', 'SETTLED', 0, -100, true]],
        [kept, ['SETTLED', 'SETTLED', 0, 400, true]],
        [takenBack, ['SETTLED', 'RETURNED', 0, 0, true]],
        [creditTakenBack, ['SETTLED', 'RETURNED', 0, 0, true]],
      ];
      for (const [token, status] of expected) expect(await shown(token), token).toEqual(status);
      expect(await balanceOf(client, card.funding.token)).toEqual({ available: -600, pending: 0, total: -600 });
    });
  });
});

describeWithDb('balances and financial transactions as the real clock passes', () => {
  const { wall, advance } = frozenWallClock('2031-03-10T12:00:00.000Z');
  const context = useTestServer({ wall });

  it('show a hold released once it has expired, before any sweep or read of the transaction', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const hold = await authorize(client, card, 500);
    expect(await balanceOf(client, card.funding.token)).toEqual({ available: -500, pending: 500, total: 0 });
    advance(7 * MS_PER_DAY);
    expect(await balanceOf(client, card.funding.token)).toEqual({ available: 0, pending: 0, total: 0 });
    const [listed] = (await client.financialAccounts.financialTransactions.list(card.funding.token)).data;
    expect(listed).toMatchObject({ token: hold, status: 'EXPIRED', pending_amount: 0 });
  });

  it('release a hold that has expired before a transfer, a withdrawal or a debit decides on funds, before any sweep or read', async () => {
    const { client } = context.program;
    // One hold per write, an hour apart: each write is the first thing after its own hold's expiry.
    const cards = [await cardOnOwnAccount(client), await cardOnOwnAccount(client), await cardOnOwnAccount(client)];
    for (const card of cards) {
      await fund(client, card.funding.token, 500);
      await authorize(client, card, 500);
      advance(MS_PER_HOUR);
    }
    const other = await newAccount(client);
    const [transferCard, withdrawalCard, debitCard] = cards as [Card, Card, Card];
    // Nothing reads the cards' balances or transactions in between: each write finds its hold due itself.
    advance(7 * MS_PER_DAY - 3 * MS_PER_HOUR);
    expect((await bookTransfer(client, transferCard.funding.token, other, 500)).status).toBe('SETTLED');
    advance(MS_PER_HOUR);
    const withdrawal = await client.externalPayments.create({
      amount: 500,
      category: 'EXTERNAL_WIRE',
      effective_date: '2031-03-17',
      financial_account_token: withdrawalCard.funding.token,
      payment_type: 'WITHDRAWAL',
    });
    expect(withdrawal.result).toBe('APPROVED');
    advance(MS_PER_HOUR);
    const debit = await client.managementOperations.create({
      amount: 500,
      category: 'MANAGEMENT_FEE',
      direction: 'DEBIT',
      effective_date: '2031-03-17',
      event_type: 'LATE_PAYMENT',
      financial_account_token: debitCard.funding.token,
    });
    expect(debit.status).toBe('SETTLED');
    expect(await balanceOf(client, transferCard.funding.token)).toEqual({ available: 0, pending: 0, total: 0 });
    expect(await balanceOf(client, other)).toEqual({ available: 500, pending: 0, total: 500 });
  });
});
