/**
 * Events end to end over HTTP with the SDK: what each change records (type and payload, compared
 * with the resource as the SDK reads it right after), nothing for refused requests or idempotent
 * replays, and `GET /v1/events` / `GET /v1/events/{token}` (filters, pagination, isolation, bad
 * input). Each test takes a fresh program, so its events are exactly those of its own requests.
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { enroll, kybBody, kybDelegatedBody, kycBody, US_ADDRESS } from '../testing/enrollment.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { INSERT_PARAMETERS_MAX } from '../db/prepared.js';
import { emitEvent } from './emit.js';
import { bookTransfer, expectError, fund, manualBankAccount, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount, moveClock, setRequireFunds } from '../testing/transactions.js';

type Event = Lithic.Events.Event;
type EventType = Event['event_type'];

const START = '2031-03-10T12:00:00.000Z';
const TODAY = START.slice(0, 10);
/** Leaves out what a program records when it is created (its own financial accounts, dated by the wall clock, years before START). */
const SINCE_START = { begin: new Date(Date.parse(START) - 1).toISOString() };

describeWithDb('events', () => {
  const context = useTestServer();

  async function freshClient(): Promise<Lithic> {
    const { client } = await context.server.newProgram();
    await moveClock(client, START);
    return client;
  }

  /** Every event of the program, oldest first (same-millisecond events in token order). */
  async function allEvents(client: Lithic, query: Lithic.Events.EventListParams = {}): Promise<Event[]> {
    const events: Event[] = [];
    for await (const event of client.events.list({ ...query, with_content: true, page_size: 100 })) events.push(event);
    return events.reverse();
  }

  /** The events recorded while `action` ran. */
  async function eventsOf(client: Lithic, action: () => Promise<unknown>): Promise<Event[]> {
    const before = new Set((await allEvents(client)).map((event) => event.token));
    await action();
    return (await allEvents(client)).filter((event) => !before.has(event.token));
  }

  const typesOf = (events: readonly Event[]) => events.map((event) => event.event_type).sort();
  const ofType = (events: readonly Event[], type: EventType) => events.filter((event) => event.event_type === type);
  function only(events: readonly Event[], type: EventType): Event {
    const matching = ofType(events, type);
    expect(matching, type).toHaveLength(1);
    return matching[0] as Event;
  }

  describe('account holders', () => {
    it('records the ISSUING account, the holder and its immediate verification on create', async () => {
      const client = await freshClient();
      let created: Lithic.AccountHolderCreateResponse | undefined;
      const events = await eventsOf(client, async () => (created = await enroll(client, kycBody())));
      expect(typesOf(events)).toEqual(['account_holder.created', 'account_holder.verification', 'financial_account.created']);
      const holder = await client.accountHolders.retrieve(created?.token as string);
      expect(only(events, 'account_holder.created').payload).toEqual({
        token: holder.token,
        account_token: holder.account_token,
        created: holder.created,
        status: 'ACCEPTED',
        status_reason: [],
        required_documents: [],
      });
      expect(only(events, 'account_holder.verification').payload).toEqual({
        token: holder.token,
        account_token: holder.account_token,
        created: holder.verification_application?.updated,
        status: 'ACCEPTED',
        status_reasons: [],
      });
      const [issuing] = (await client.financialAccounts.list({ account_token: holder.account_token })).data;
      expect(only(events, 'financial_account.created').payload).toEqual(issuing);
      for (const event of events) expect(event.created).toBe(holder.created);
    });

    it('records a KYB_DELEGATED holder as created and verified at once, like KYB_BYO', async () => {
      const client = await freshClient();
      let created: Lithic.AccountHolderCreateResponse | undefined;
      const events = await eventsOf(client, async () => (created = await enroll(client, kybDelegatedBody())));
      expect(typesOf(events)).toEqual(['account_holder.created', 'account_holder.verification', 'financial_account.created']);
      const holder = await client.accountHolders.retrieve(created?.token as string);
      const { token, account_token } = holder;
      expect(only(events, 'account_holder.created').payload).toEqual({ token, account_token, created: holder.created, status: 'ACCEPTED', status_reason: [], required_documents: [] });
      expect(only(events, 'account_holder.verification').payload).toEqual({ token, account_token, created: holder.verification_application?.updated, status: 'ACCEPTED', status_reasons: [] });
      const updated = await eventsOf(client, () => client.accountHolders.update(token, { website_url: 'https://delegated.example.com' }));
      expect(updated.map((event) => [event.event_type, event.payload])).toEqual([['account_holder.updated', await client.accountHolders.retrieve(token)]]);
    });

    it('records a rejected holder only as its verification (Lithic: created means not rejected)', async () => {
      const client = await freshClient();
      const body = kycBody();
      body.individual.government_id = '000000002';
      const events = await eventsOf(client, () => enroll(client, body));
      expect(typesOf(events)).toEqual(['account_holder.verification', 'financial_account.created']);
      expect(only(events, 'account_holder.verification').payload).toMatchObject({ status: 'REJECTED', status_reasons: ['NAME_VERIFICATION_FAILURE'] });
    });

    it('records a KYB holder pending review, then its review and its updates', async () => {
      const client = await freshClient();
      let token = '';
      const created = await eventsOf(client, async () => (token = (await enroll(client, kybBody())).token));
      expect(typesOf(created)).toEqual(['account_holder.created', 'financial_account.created']);
      expect(only(created, 'account_holder.created').payload).toMatchObject({ token, status: 'PENDING_REVIEW', required_documents: [] });

      await moveClock(client, '2031-03-11T08:00:00.000Z');
      const reviewed = await eventsOf(client, () => client.accountHolders.simulateEnrollmentReview({ account_holder_token: token, status: 'ACCEPTED' }));
      const holder = await client.accountHolders.retrieve(token);
      const decidedAt = holder.verification_application?.updated as string;
      expect(decidedAt.startsWith('2031-03-11T08:00:00')).toBe(true);
      expect(reviewed.map((event) => [event.event_type, event.created])).toEqual([['account_holder.verification', decidedAt]]);
      expect(only(reviewed, 'account_holder.verification').payload).toEqual({
        token,
        account_token: holder.account_token,
        created: decidedAt,
        status: 'ACCEPTED',
        status_reasons: [],
      });

      const updated = await eventsOf(client, () => client.accountHolders.update(token, { nature_of_business: 'Bakeries' }));
      expect(only(updated, 'account_holder.updated').payload).toEqual(await client.accountHolders.retrieve(token));
      expect(updated).toHaveLength(1);
      // The same value again changes nothing: nothing is recorded.
      expect(await eventsOf(client, () => client.accountHolders.update(token, { nature_of_business: 'Bakeries' }))).toEqual([]);
    });
  });

  describe('cards', () => {
    it('records card.created without the card itself, and the replaced card', async () => {
      const client = await freshClient();
      let card: Lithic.Card | undefined;
      const events = await eventsOf(client, async () => (card = await client.cards.create({ type: 'VIRTUAL' })));
      expect(events.map((event) => [event.event_type, event.payload])).toEqual([['card.created', { card_token: card?.token, replacement_for: null }]]);
      expect(JSON.stringify(events)).not.toContain(card?.pan as string);
      let replacement: Lithic.Card | undefined;
      const replaced = await eventsOf(client, async () => (replacement = await client.cards.create({ type: 'VIRTUAL', replacement_for: card?.token })));
      expect(replaced.map((event) => event.payload)).toEqual([{ card_token: replacement?.token, replacement_for: card?.token }]);
    });

    it('records card.shipped when the daily fulfilment sends a PHYSICAL card', async () => {
      const client = await freshClient();
      const shippingAddress = { ...US_ADDRESS, first_name: 'Janet', last_name: 'Yellen' };
      const standard = await client.cards.create({ type: 'PHYSICAL', shipping_address: shippingAddress });
      const express = await client.cards.create({ type: 'PHYSICAL', shipping_address: shippingAddress, shipping_method: 'EXPRESS' });
      const shipped = await eventsOf(client, () => moveClock(client, '2031-03-11T00:00:01.000Z'));
      expect(typesOf(shipped)).toEqual(['card.shipped', 'card.shipped']);
      const payloads = new Map(shipped.map((event) => [event.payload['card_token'], event.payload]));
      expect(payloads.get(standard.token)).toEqual({ card_token: standard.token, bulk_order_token: null, shipping_method: 'USPS without tracking envelope', tracking_number: null });
      expect(payloads.get(express.token)).toEqual({
        card_token: express.token,
        bulk_order_token: null,
        shipping_method: 'FedEx express',
        tracking_number: expect.stringMatching(/^1Z[0-9A-F]{16}$/),
      });
      // Dated at the batch's midnight, not at the move that passed it.
      for (const event of shipped) expect(event.created).toBe('2031-03-11T00:00:00.000Z');
      expect((await client.cards.retrieve(standard.token)).state).toBe('PENDING_ACTIVATION');
      // Shipped once: the next day's batch has nothing to send.
      expect(await eventsOf(client, () => moveClock(client, '2031-03-12T00:00:01.000Z'))).toEqual([]);
    });
  });

  describe('card transactions', () => {
    it('records every change of a transaction with the transaction as read, and the balances it moved', async () => {
      const client = await freshClient();
      const card = await cardOnOwnAccount(client);
      let token = '';
      const authorized = await eventsOf(client, async () => (token = await authorize(client, card, 1_250)));
      expect(typesOf(authorized)).toEqual(['balance.updated', 'card_transaction.updated']);
      expect(only(authorized, 'card_transaction.updated').payload).toEqual(await client.transactions.retrieve(token));
      const [balance] = (await client.financialAccounts.balances.list(card.funding.token)).data;
      expect(only(authorized, 'balance.updated').payload).toEqual({ data: [balance] });
      expect(balance).toMatchObject({ pending_amount: 1_250, available_amount: -1_250, type: 'ISSUING' });

      const cleared = await eventsOf(client, () => client.transactions.simulateClearing({ token }));
      expect(typesOf(cleared)).toEqual(['balance.updated', 'card_transaction.updated']);
      const settled = await client.transactions.retrieve(token);
      expect(settled.status).toBe('SETTLED');
      expect(only(cleared, 'card_transaction.updated').payload).toEqual(settled);
    });

    it('records a transaction’s balance.updated before its card_transaction.updated, for a new transaction as for every later message and expiry', async () => {
      const client = await freshClient();
      const card = await cardOnOwnAccount(client);
      let token = '';
      let credit = '';
      let returned = '';
      let expiring = '';
      // Oldest first, as GET /v1/events pages them newest first (same-millisecond events in token order).
      const steps: Array<[string, () => Promise<unknown>]> = [
        ['AUTHORIZATION', async () => (token = await authorize(client, card, 500))],
        ['AUTHORIZATION_ADVICE', () => client.transactions.simulateAuthorizationAdvice({ token, amount: 600 })],
        ['AUTHORIZATION_REVERSAL', () => client.transactions.simulateVoid({ token, amount: 100 })],
        ['CLEARING', () => client.transactions.simulateClearing({ token })],
        ['FINANCIAL_AUTHORIZATION', () => authorize(client, card, 100, { status: 'FINANCIAL_AUTHORIZATION' })],
        ['FINANCIAL_CREDIT_AUTHORIZATION', () => authorize(client, card, 100, { status: 'FINANCIAL_CREDIT_AUTHORIZATION' })],
        ['CREDIT_AUTHORIZATION', async () => (credit = await authorize(client, card, 200, { status: 'CREDIT_AUTHORIZATION' }))],
        ['CLEARING of a credit', () => client.transactions.simulateClearing({ token: credit })],
        ['CREDIT_AUTHORIZATION_ADVICE', () => client.transactions.simulateCreditAuthorizationAdvice({ amount: 50, descriptor: 'REFUND', pan: card.pan })],
        ['RETURN', async () => (returned = (await client.transactions.simulateReturn({ amount: 70, descriptor: 'RETURN', pan: card.pan })).token as string)],
        ['RETURN_REVERSAL', () => client.transactions.simulateReturnReversal({ token: returned })],
        ['AUTHORIZATION to expire', async () => (expiring = await authorize(client, card, 300))],
        ['AUTHORIZATION_EXPIRY', () => client.transactions.expireAuthorization(expiring)],
        ['AUTHORIZATION to expire by the clock', () => authorize(client, card, 400)],
        ['AUTHORIZATION_EXPIRY by the clock', () => moveClock(client, '2031-03-18T00:00:00.000Z')],
      ];
      for (const [step, action] of steps) {
        const recorded = await eventsOf(client, action);
        expect([step, recorded.map((event) => event.event_type)]).toEqual([step, ['balance.updated', 'card_transaction.updated']]);
      }
    });

    it('records a declined authorization, and an expiry done by the clock', async () => {
      const client = await freshClient();
      const card = await cardOnOwnAccount(client);
      await setRequireFunds(client, true);
      let declinedToken = '';
      const declined = await eventsOf(client, async () => (declinedToken = await authorize(client, card, 500)));
      expect(typesOf(declined)).toEqual(['card_transaction.updated']);
      expect(only(declined, 'card_transaction.updated').payload).toMatchObject({ token: declinedToken, status: 'DECLINED' });
      await setRequireFunds(client, false);

      const token = await authorize(client, card, 700);
      const expired = await eventsOf(client, () => moveClock(client, '2031-03-20T00:00:00.000Z'));
      expect(typesOf(expired)).toEqual(['balance.updated', 'card_transaction.updated']);
      const transaction = await client.transactions.retrieve(token);
      expect(transaction.status).toBe('EXPIRED');
      expect(only(expired, 'card_transaction.updated').payload).toEqual(transaction);
      // Dated when the hold expired, seven days after it was made, not when the clock job ran.
      expect(Date.parse(only(expired, 'card_transaction.updated').created)).toBe(Date.parse(transaction.created) + 7 * 24 * 3600 * 1000);
    });
  });

  describe('programs', () => {
    it("records the creation of the program's own ISSUING, OPERATING and RESERVE accounts, as every financial account's", async () => {
      const { client } = await context.server.newProgram();
      const events = await allEvents(client);
      const accounts = (await client.financialAccounts.list()).data;
      expect(accounts.map((account) => account.type).sort()).toEqual(['ISSUING', 'OPERATING', 'RESERVE']);
      expect(typesOf(events)).toEqual(['financial_account.created', 'financial_account.created', 'financial_account.created']);
      const payloads = new Map(events.map((event) => [event.payload['token'], event]));
      for (const account of accounts) expect(payloads.get(account.token)).toMatchObject({ created: account.created, payload: account });
    });
  });

  describe('money', () => {
    it('records financial account creation and real updates', async () => {
      const client = await freshClient();
      let token = '';
      const created = await eventsOf(client, async () => (token = await newAccount(client, 'Payroll')));
      expect(created.map((event) => [event.event_type, event.payload])).toEqual([['financial_account.created', await client.financialAccounts.retrieve(token)]]);
      const renamed = await eventsOf(client, () => client.financialAccounts.update(token, { nickname: 'Payroll 2' }));
      expect(renamed.map((event) => [event.event_type, event.payload])).toEqual([['financial_account.updated', await client.financialAccounts.retrieve(token)]]);
      // The same again changes nothing: no event, and `updated` stays (a few ms later it would move).
      const renamedAccount = await client.financialAccounts.retrieve(token);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await eventsOf(client, () => client.financialAccounts.update(token, { nickname: 'Payroll 2' }))).toEqual([]);
      expect(await client.financialAccounts.retrieve(token)).toEqual(renamedAccount);
      const suspended = await eventsOf(client, () => client.financialAccounts.updateStatus(token, { status: 'SUSPENDED', substatus: null }));
      expect(suspended.map((event) => event.payload)).toEqual([await client.financialAccounts.retrieve(token)]);
      expect(only(suspended, 'financial_account.updated').payload['status']).toBe('SUSPENDED');
      const suspendedAccount = await client.financialAccounts.retrieve(token);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await eventsOf(client, () => client.financialAccounts.updateStatus(token, { status: 'SUSPENDED', substatus: null }))).toEqual([]);
      expect(await client.financialAccounts.retrieve(token)).toEqual(suspendedAccount);
    });

    it('records book transfers (declined too) and their balances; a reversal only as balances', async () => {
      const client = await freshClient();
      const from = await newAccount(client);
      const to = await newAccount(client);
      await fund(client, from, 1_000);
      let transfer: Lithic.BookTransferResponse | undefined;
      const made = await eventsOf(client, async () => (transfer = await bookTransfer(client, from, to, 400)));
      expect(typesOf(made)).toEqual(['balance.updated', 'book_transfer_transaction.created']);
      expect(only(made, 'book_transfer_transaction.created').payload).toEqual(await client.bookTransfers.retrieve(transfer?.token as string));
      // One balance.updated for the movement, listing both accounts as their balances read now.
      const balances = only(made, 'balance.updated').payload['data'] as Lithic.FinancialAccounts.BalanceListResponse[];
      const read = async (token: string) => (await client.financialAccounts.balances.list(token)).data[0];
      expect([...balances].sort((a, b) => a.token.localeCompare(b.token))).toEqual(await Promise.all([from, to].sort().map(read)));
      expect(new Map(balances.map((balance) => [balance.token, balance.available_amount]))).toEqual(new Map([[from, 600], [to, 400]]));

      const declined = await eventsOf(client, () => bookTransfer(client, from, to, 10_000));
      expect(typesOf(declined)).toEqual(['book_transfer_transaction.created']);
      expect(only(declined, 'book_transfer_transaction.created').payload).toMatchObject({ status: 'DECLINED' });

      const reversed = await eventsOf(client, () => client.bookTransfers.reverse(transfer?.token as string, {}));
      expect(typesOf(reversed)).toEqual(['balance.updated']);
      expect((only(reversed, 'balance.updated').payload['data'] as unknown[]).length).toBe(2);
    });

    it('records management operations: create, reverse, and one the clock applies on its date', async () => {
      const client = await freshClient();
      const account = await newAccount(client);
      let token = '';
      const create = (effectiveDate: string) =>
        client.managementOperations.create({
          amount: 300,
          category: 'MANAGEMENT_ADJUSTMENT',
          direction: 'CREDIT',
          effective_date: effectiveDate,
          event_type: 'PROVISIONAL_CREDIT',
          financial_account_token: account,
        });
      const created = await eventsOf(client, async () => (token = (await create(TODAY)).token));
      expect(typesOf(created)).toEqual(['balance.updated', 'management_operation.created']);
      expect(only(created, 'management_operation.created').payload).toEqual(await client.managementOperations.retrieve(token));
      const reversed = await eventsOf(client, () => client.managementOperations.reverse(token, { effective_date: TODAY }));
      expect(typesOf(reversed)).toEqual(['balance.updated', 'management_operation.updated']);
      expect(only(reversed, 'management_operation.updated').payload).toEqual(await client.managementOperations.retrieve(token));

      const later = await eventsOf(client, async () => (token = (await create('2031-03-12')).token));
      expect(typesOf(later)).toEqual(['management_operation.created']);
      expect(only(later, 'management_operation.created').payload['status']).toBe('PENDING');
      const applied = await eventsOf(client, () => moveClock(client, '2031-03-13T00:00:00.000Z'));
      expect(typesOf(applied)).toEqual(['balance.updated', 'management_operation.updated']);
      const operation = await client.managementOperations.retrieve(token);
      expect(operation.status).toBe('SETTLED');
      expect(only(applied, 'management_operation.updated')).toMatchObject({ payload: operation, created: '2031-03-12T00:00:00.000Z' });
    });

    it('records external bank accounts: create, update, micro-deposits and a prenote the clock enables', async () => {
      const client = await freshClient();
      const funding = await newAccount(client);
      let token = '';
      const created = await eventsOf(client, async () => (token = (await client.externalBankAccounts.create(manualBankAccount(funding))).token));
      expect(created.map((event) => [event.event_type, event.payload])).toEqual([['external_bank_account.created', await client.externalBankAccounts.retrieve(token)]]);
      const updated = await eventsOf(client, () => client.externalBankAccounts.update(token, { name: 'Savings' }));
      expect(updated.map((event) => [event.event_type, event.payload])).toEqual([['external_bank_account.updated', await client.externalBankAccounts.retrieve(token)]]);
      // An update that changes nothing is no change: no event, and `updated` stays (as for financial accounts).
      const before = await client.externalBankAccounts.retrieve(token);
      const unchanged = await eventsOf(client, () => client.externalBankAccounts.update(token, { name: 'Savings', owner: before.owner }));
      expect(unchanged).toEqual([]);
      expect(await client.externalBankAccounts.retrieve(token)).toEqual(before);
      const address = { address1: '1 Main St', city: 'Austin', country: 'USA', postal_code: '78701', state: 'TX' };
      expect(typesOf(await eventsOf(client, () => client.externalBankAccounts.update(token, { address })))).toEqual(['external_bank_account.updated']);
      const reordered = Object.fromEntries(Object.entries(address).reverse()) as typeof address;
      expect(await eventsOf(client, () => client.externalBankAccounts.update(token, { address: reordered }))).toEqual([]);

      await fund(client, funding, 1_000); // the micro-deposits need it (two of at most 99 cents each)
      const micro = { ...manualBankAccount(funding), verification_method: 'MICRO_DEPOSIT' as const };
      const microCreated = await eventsOf(client, async () => (token = (await client.externalBankAccounts.create(micro)).token));
      // Three micro-deposit movements on the funding account (one balance.updated each), then the account itself.
      expect(typesOf(microCreated)).toEqual(['balance.updated', 'balance.updated', 'balance.updated', 'external_bank_account.created']);
      const wrong = await eventsOf(client, () => client.externalBankAccounts.microDeposits.create(token, { micro_deposits: [98, 99] }));
      expect(wrong.map((event) => [event.event_type, event.payload])).toEqual([['external_bank_account.updated', await client.externalBankAccounts.retrieve(token)]]);
      expect(only(wrong, 'external_bank_account.updated').payload['verification_attempts']).toBe(1);

      const prenote = { ...manualBankAccount(funding), verification_method: 'PRENOTE' as const };
      token = (await client.externalBankAccounts.create(prenote)).token;
      const enabled = await eventsOf(client, () => moveClock(client, '2031-03-20T00:00:00.000Z'));
      const account = await client.externalBankAccounts.retrieve(token);
      expect(account.verification_state).toBe('ENABLED');
      expect(enabled.map((event) => [event.event_type, event.payload])).toEqual([['external_bank_account.updated', account]]);
    });

    it('records external payments: create and each action', async () => {
      const client = await freshClient();
      const account = await newAccount(client);
      let token = '';
      const created = await eventsOf(client, async () => {
        token = (await client.externalPayments.create({ amount: 900, category: 'EXTERNAL_WIRE', effective_date: TODAY, financial_account_token: account, payment_type: 'DEPOSIT' })).token;
      });
      expect(typesOf(created)).toEqual(['balance.updated', 'external_payment.created']);
      expect(only(created, 'external_payment.created').payload).toEqual(await client.externalPayments.retrieve(token));
      const settled = await eventsOf(client, () => client.externalPayments.settle(token, { effective_date: TODAY }));
      expect(settled.map((event) => [event.event_type, event.payload])).toEqual([['external_payment.updated', await client.externalPayments.retrieve(token)]]);
      const released = await eventsOf(client, () => client.externalPayments.release(token, { effective_date: TODAY }));
      expect(typesOf(released)).toEqual(['balance.updated', 'external_payment.updated']);
      expect(only(released, 'external_payment.updated').payload).toEqual(await client.externalPayments.retrieve(token));
    });
  });

  describe('3DS', () => {
    it('records the authentication and its challenge resolution', async () => {
      const client = await freshClient();
      const card = await client.cards.create({ type: 'VIRTUAL' });
      let token = '';
      const simulated = await eventsOf(client, async () => {
        token = (await client.threeDS.authentication.simulate({
          pan: card.pan as string,
          merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'CHALLENGE GROCER' },
          transaction: { amount: 2_500, currency: 'USD' },
        })).token as string;
      });
      expect(simulated.map((event) => [event.event_type, event.payload])).toEqual([['three_ds_authentication.created', await client.threeDS.authentication.retrieve(token)]]);
      const resolved = await eventsOf(client, () => client.threeDS.authentication.simulateOtpEntry({ token, otp: '123456' }));
      const authentication = await client.threeDS.authentication.retrieve(token);
      expect(authentication.authentication_result).toBe('SUCCESS');
      expect(resolved.map((event) => [event.event_type, event.payload])).toEqual([['three_ds_authentication.updated', authentication]]);
      // Resolved once: a second answer is refused and records nothing.
      expect(await eventsOf(client, () => expectError(client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }), 422))).toEqual([]);
    });
  });

  describe('nothing for what did not change', () => {
    it('records nothing for a refused request or an idempotent replay', async () => {
      const client = await freshClient();
      const account = await newAccount(client);
      expect(await eventsOf(client, () => expectError(bookTransfer(client, account, crypto.randomUUID(), 100), 404))).toEqual([]);
      expect(await eventsOf(client, () => expectError(client.financialAccounts.create({ nickname: 'x', type: 'OPERATING', account_token: crypto.randomUUID() }), 404))).toEqual([]);
      expect(await eventsOf(client, () => expectError(client.cards.create({ type: 'NOPE' as never }), 400))).toEqual([]);
      const idempotencyKey = crypto.randomUUID();
      const create = () => client.financialAccounts.create({ nickname: 'Once', type: 'OPERATING', 'Idempotency-Key': idempotencyKey });
      const first = await eventsOf(client, create);
      expect(typesOf(first)).toEqual(['financial_account.created']);
      expect(await eventsOf(client, create)).toEqual([]);
    });
  });

  describe('GET /v1/events', () => {
    it('filters by type (repeated or comma-separated) and time, pages newest first, and includes payloads only when asked', async () => {
      const client = await freshClient();
      const first = await newAccount(client, 'first');
      await moveClock(client, '2031-03-10T13:00:00.000Z');
      for (let index = 0; index < 4; index++) await client.cards.create({ type: 'VIRTUAL' });
      await moveClock(client, '2031-03-10T14:00:00.000Z');
      await client.financialAccounts.update(first, { nickname: 'renamed' });

      const all = await allEvents(client, SINCE_START);
      expect(typesOf(all)).toEqual(['card.created', 'card.created', 'card.created', 'card.created', 'financial_account.created', 'financial_account.updated']);

      const withoutContent = await client.events.list(SINCE_START);
      expect(withoutContent.data.map((event) => event.payload)).toEqual(all.map(() => ({})));
      expect(withoutContent.data.map((event) => event.token)).toEqual([...all].reverse().map((event) => event.token));

      const cards: Event[] = [];
      for await (const event of client.events.list({ event_types: ['card.created'], page_size: 3, with_content: true })) cards.push(event);
      expect(cards).toHaveLength(4);
      expect(new Set(cards.map((event) => event.token)).size).toBe(4);
      expect(cards.every((event) => typeof event.payload['card_token'] === 'string')).toBe(true);

      const page = await client.events.list({ page_size: 2 });
      expect(page.has_more).toBe(true);
      const older = await client.events.list({ ...SINCE_START, page_size: 10, starting_after: page.data[1]?.token });
      expect(older.data).toHaveLength(4);
      const newer = await client.events.list({ page_size: 10, ending_before: older.data[0]?.token });
      expect(newer.data.map((event) => event.token)).toEqual(page.data.map((event) => event.token));

      const financial = await context.server.request('GET', `/v1/events?event_types=financial_account.created,financial_account.updated&begin=${SINCE_START.begin}`, { apiKey: client.apiKey });
      expect(((await financial.json()) as { data: Event[] }).data.map((event) => event.event_type)).toEqual(['financial_account.updated', 'financial_account.created']);
      const repeated = await context.server.request('GET', '/v1/events?event_types=financial_account.updated&event_types=card.created', { apiKey: client.apiKey });
      expect(((await repeated.json()) as { data: Event[] }).data).toHaveLength(5);

      const during = await client.events.list({ begin: '2031-03-10T12:30:00Z', end: '2031-03-10T13:30:00Z' });
      expect(typesOf(during.data)).toEqual(['card.created', 'card.created', 'card.created', 'card.created']);
    });

    it('gets one event with its whole payload; another program’s or an unknown one is a 404', async () => {
      const client = await freshClient();
      const other = await freshClient();
      const token = await newAccount(client, 'Mine');
      const [event] = await allEvents(client, SINCE_START);
      const retrieved = await client.events.retrieve(event?.token as string);
      const account = await client.financialAccounts.retrieve(token);
      expect(retrieved).toEqual({ token: event?.token, created: account.created, event_type: 'financial_account.created', payload: account });
      expect(Object.keys(retrieved.payload).length).toBeGreaterThan(10);
      await expectError(other.events.retrieve(event?.token as string), 404);
      await expectError(client.events.retrieve(crypto.randomUUID()), 404);
      expect((await other.events.list(SINCE_START)).data).toEqual([]);
      await expectError(other.events.list({ starting_after: event?.token }), 400);
    });

    it.each([
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['event_types=card.nope', 'event_types'],
      [`event_types=${Array(11).fill('card.created').join(',')}`, 'event_types'],
      ['begin=yesterday', 'begin'],
      ['with_content=maybe', 'with_content'],
      ['starting_after=nope', 'starting_after'],
      ['colour=blue', 'colour'],
    ])('refuses %s with a 400 naming the parameter', async (query, field) => {
      const client = await freshClient();
      const response = await context.server.request('GET', `/v1/events?${query}`, { apiKey: client.apiKey });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toContain(field);
    });
  });

  it('writes a transaction\'s events together at its end: all of them (more than one statement can bind), none when it rolls back', async () => {
    const program = await context.server.newProgram();
    const db = context.server.server.db;
    // More events (5 columns each) than one SQLite statement could bind (32,766 parameters).
    const count = Math.floor(32_766 / 5) + 50;
    expect(count * 5).toBeGreaterThan(INSERT_PARAMETERS_MAX);
    const tokens = await db.transaction(async (tx) => {
      const emitted = [];
      for (let index = 0; index < count; index++) emitted.push(await emitEvent(tx, program.programId, 'card.created', { card_token: `card-${index}`, replacement_for: null }, Date.parse(START) + index));
      return emitted.map((event) => event.token);
    });
    const listed = await allEvents(program.client, SINCE_START);
    expect(listed.map((event) => event.token)).toEqual(tokens);
    expect(listed[count - 1]?.payload).toEqual({ card_token: `card-${count - 1}`, replacement_for: null });
    await expect(
      db.transaction(async (tx) => {
        await emitEvent(tx, program.programId, 'card.created', { card_token: 'never' }, Date.parse(START));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await allEvents(program.client, SINCE_START)).toHaveLength(count);
  });
});

describeWithDb('events as time passes', () => {
  const clock = frozenWallClock(START);
  const context = useTestServer({ wall: clock.wall });

  it('lists what fell due on the program clock (a hold expiry, a card shipment) before any sweep or other read recorded it', async () => {
    const { client } = context.program;
    const hold = await authorize(client, await cardOnOwnAccount(client), 700);
    const physical = await client.cards.create({ type: 'PHYSICAL', shipping_address: { ...US_ADDRESS, first_name: 'Janet', last_name: 'Yellen' } });
    const nextMidnight = `${new Date(Date.parse(START) + 24 * 3600 * 1000).toISOString().slice(0, 10)}T00:00:00.000Z`;
    clock.advance(8 * 24 * 3600 * 1000); // past the shipment batch and the hold's expiry; no job has run since

    const sinceMidnight = new Date(Date.parse(nextMidnight) - 1).toISOString();
    const due = (await client.events.list({ event_types: ['card.shipped', 'card_transaction.updated'], begin: sinceMidnight, with_content: true })).data;
    expect(due.map((event) => [event.event_type, event.payload['token'] ?? event.payload['card_token'], event.created])).toEqual([
      ['card_transaction.updated', hold, new Date(Date.parse(START) + 7 * 24 * 3600 * 1000).toISOString()],
      ['card.shipped', physical.token, nextMidnight],
    ]);
  });
});
