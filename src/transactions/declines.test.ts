/**
 * Every decline reason of the engine, through the API: a decline is a stored DECLINED transaction
 * answered 200 with its token, naming the reason in `result` and the event's `detailed_results`,
 * holding nothing and moving no money. Spend windows are read from the program clock, which each
 * test moves in a program of its own.
 */
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { fund } from '../testing/money.js';
import { US_ADDRESS } from '../testing/enrollment.js';
import { authorized, cardOnOwnAccount, decisionOf, issuingBalance, moveClock, setRequireFunds, type Card } from '../testing/transactions.js';

const pinBlock = (pin: string) => Buffer.from(pin).toString('base64');

describeWithDb('authorization declines', () => {
  const context = useTestServer();
  /** A program of its own whose clock starts at `iso` (noon, far from a date change). */
  async function programAt(iso: string): Promise<TestProgram> {
    const program = await context.server.newProgram();
    await moveClock(program.client, iso);
    return program;
  }

  async function expectDeclined(client: Lithic, card: Card, amount: number, result: string, detail: string, extra: Partial<Lithic.TransactionSimulateAuthorizationParams> = {}) {
    const before = await issuingBalance(client, card);
    const response = await client.transactions.simulateAuthorization({ amount, descriptor: 'SHOP', pan: card.pan, ...extra });
    const transaction = await client.transactions.retrieve(response.token as string);
    expect(decisionOf(transaction), `${result}/${detail}`).toEqual({ status: 'DECLINED', result, detailed_results: [detail], event_result: result });
    expect(transaction).toMatchObject({ authorization_code: null, settled_amount: 0, amounts: { hold: { amount: 0 }, settlement: { amount: 0 }, cardholder: { amount: 0 } } });
    expect(transaction.events?.[0]).toMatchObject({ amount: extra.status?.includes('CREDIT') ? -amount : amount, rule_results: [], amounts: { settlement: null } });
    expect(await issuingBalance(client, card)).toEqual(before);
    return transaction;
  }

  const expectApproved = async (client: Lithic, card: Card, amount: number, extra: Partial<Lithic.TransactionSimulateAuthorizationParams> = {}) => {
    const transaction = await authorized(client, card, amount, extra);
    expect(decisionOf(transaction)).toMatchObject({ result: 'APPROVED', detailed_results: ['APPROVED'] });
    return transaction;
  };

  describe('the card', () => {
    it('declines a PAUSED card, approves it again once OPEN, and declines a CLOSED one (credits too)', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.cards.update(card.token, { state: 'PAUSED' });
      await expectDeclined(client, card, 100, 'CARD_PAUSED', 'CARD_PAUSED');
      await client.cards.update(card.token, { state: 'OPEN' });
      await expectApproved(client, card, 100);
      await client.cards.update(card.token, { state: 'CLOSED' });
      await expectDeclined(client, card, 100, 'CARD_CLOSED', 'CARD_CLOSED');
      await expectDeclined(client, card, 100, 'CARD_CLOSED', 'CARD_CLOSED', { status: 'CREDIT_AUTHORIZATION' });
    });

    it('declines an expired card once the clock passes the end of its expiry month', async () => {
      const program = await programAt('2031-05-10T12:00:00.000Z');
      const card = await cardOnOwnAccount(program.client, { exp_month: '06', exp_year: '2031' });
      await moveClock(program.client, '2031-06-30T23:59:00.000Z');
      await expectApproved(program.client, card, 100);
      await moveClock(program.client, '2031-07-01T00:00:01.000Z');
      await expectDeclined(program.client, card, 100, 'DECLINED', 'CARD_EXPIRED');
    });

    it('checks an entered PIN: correct approves, wrong declines, the third wrong blocks it until unblocked', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { pin: pinBlock('4321') });
      await expectApproved(client, card, 100, { pin: '4321' });
      await expectDeclined(client, card, 100, 'INCORRECT_PIN', 'CARD_PIN_INCORRECT', { pin: '0000' });
      await expectApproved(client, card, 100, { pin: '4321' });
      for (let attempt = 0; attempt < 3; attempt++) await expectDeclined(client, card, 100, 'INCORRECT_PIN', 'CARD_PIN_INCORRECT', { pin: '1111' });
      expect((await client.cards.retrieve(card.token)).pin_status).toBe('BLOCKED');
      await expectDeclined(client, card, 100, 'INCORRECT_PIN', 'PIN_BLOCKED', { pin: '4321' });
      await expectApproved(client, card, 100);
      await client.cards.update(card.token, { pin_status: 'OK' });
      await expectApproved(client, card, 100, { pin: '4321' });
      const noPin = await cardOnOwnAccount(client);
      await expectDeclined(client, noPin, 100, 'INCORRECT_PIN', 'CARD_PIN_INCORRECT', { pin: '1234' });
    });

    it('never blocks a card without a PIN: PINs entered on it are declined but not counted (Lithic blocks only PINs that are set)', async () => {
      const { client } = context.program;
      const noPin = await cardOnOwnAccount(client);
      for (let attempt = 0; attempt < 4; attempt++) await expectDeclined(client, noPin, 100, 'INCORRECT_PIN', 'CARD_PIN_INCORRECT', { pin: '1234' });
      expect((await client.cards.retrieve(noPin.token)).pin_status).toBe('NOT_SET');
      // Once a PIN is set, its count starts from nothing: two wrong ones do not block it.
      await client.cards.update(noPin.token, { pin: pinBlock('4321') });
      for (let attempt = 0; attempt < 2; attempt++) await expectDeclined(client, noPin, 100, 'INCORRECT_PIN', 'CARD_PIN_INCORRECT', { pin: '1111' });
      expect((await client.cards.retrieve(noPin.token)).pin_status).toBe('OK');
      await expectApproved(client, noPin, 100, { pin: '4321' });
    });

    it('declines a PHYSICAL card not yet activated at a terminal (PIN entered), not online', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: { ...US_ADDRESS, first_name: 'Ann', last_name: 'Lee' }, pin: pinBlock('2580') });
      expect(card.state).toBe('PENDING_FULFILLMENT');
      await expectDeclined(client, card, 100, 'DECLINED', 'CARD_NOT_ACTIVATED', { pin: '2580' });
      await expectApproved(client, card, 100);
    });

    it('closes a SINGLE_USE card after its first approval; a second use is SINGLE_USE_RECHARGED', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { type: 'SINGLE_USE' });
      await expectApproved(client, card, 100, { status: 'BALANCE_INQUIRY', amount: 0 });
      await expectApproved(client, card, 100);
      expect((await client.cards.retrieve(card.token)).state).toBe('CLOSED');
      await expectDeclined(client, card, 100, 'SINGLE_USE_RECHARGED', 'SINGLE_USE_CARD_REATTEMPTED');
    });

    it('locks a MERCHANT_LOCKED card to its first merchant', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { type: 'MERCHANT_LOCKED' });
      await expectApproved(client, card, 100, { merchant_acceptor_id: 'STREAMING-1', descriptor: 'STREAMFLIX' });
      expect((await client.cards.retrieve(card.token)).hostname).toBe('STREAMFLIX');
      await expectDeclined(client, card, 100, 'UNAUTHORIZED_MERCHANT', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE', { merchant_acceptor_id: 'OTHER-2' });
      await expectDeclined(client, card, 100, 'UNAUTHORIZED_MERCHANT', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE', { descriptor: 'NO ACCEPTOR ID' });
      await expectApproved(client, card, 100, { merchant_acceptor_id: 'STREAMING-1', descriptor: 'STREAMFLIX' });
    });
  });

  describe('the account', () => {
    it('declines on a PAUSED account and on a CLOSED one', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.accounts.update(card.account_token, { state: 'PAUSED' });
      await expectDeclined(client, card, 100, 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED');
      await client.accounts.update(card.account_token, { state: 'ACTIVE' });
      await expectApproved(client, card, 100);
      await client.accounts.update(card.account_token, { state: 'CLOSED' });
      await expectDeclined(client, card, 100, 'INACTIVE_ACCOUNT', 'ACCOUNT_INACTIVE');
    });

    it('declines while the card’s ISSUING financial account is SUSPENDED, and makes no card on a CLOSED one', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.financialAccounts.updateStatus(card.funding.token, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      await expectDeclined(client, card, 100, 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED');
      await expectDeclined(client, card, 100, 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED', { status: 'CREDIT_AUTHORIZATION' });
      await expectDeclined(client, card, 100, 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED', { status: 'FINANCIAL_AUTHORIZATION' });
      await client.financialAccounts.updateStatus(card.funding.token, { status: 'OPEN', substatus: null });
      await expectApproved(client, card, 100);

      const closing = await cardOnOwnAccount(client);
      await client.cards.update(closing.token, { state: 'CLOSED' });
      await client.financialAccounts.updateStatus(closing.funding.token, { status: 'CLOSED', substatus: null });
      const cardsBefore = await client.cards.list({ account_token: closing.account_token });
      await expect(client.cards.create({ type: 'VIRTUAL', account_token: closing.account_token })).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining(`the ISSUING financial account '${closing.funding.token}'`),
      });
      expect((await client.cards.list({ account_token: closing.account_token })).data).toEqual(cardsBefore.data);
    });

    it('applies the daily limit to the trailing 24 hours of all its cards', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client);
      const sibling = (await client.cards.create({ type: 'VIRTUAL', account_token: card.account_token })) as Card;
      await client.accounts.update(card.account_token, { daily_spend_limit: 1_000 });
      await expectApproved(client, card, 600);
      await moveClock(client, '2031-03-16T06:00:00.000Z');
      await expectApproved(client, sibling, 400);
      await expectDeclined(client, sibling, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED');
      await moveClock(client, '2031-03-16T12:00:01.000Z');
      await expectApproved(client, sibling, 600);
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED');
    });

    it('applies the monthly and lifetime limits, counting approvals net of reversals', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.accounts.update(card.account_token, { monthly_spend_limit: 1_000 });
      const first = await expectApproved(client, card, 800);
      await expectDeclined(client, card, 201, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED');
      await client.transactions.simulateVoid({ token: first.token, amount: 300 });
      await expectApproved(client, card, 500);
      await client.accounts.update(card.account_token, { monthly_spend_limit: 500_000, lifetime_spend_limit: 1_000 });
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 50, { status: 'CREDIT_AUTHORIZATION' });
      await expectApproved(client, card, 0, { status: 'BALANCE_INQUIRY' });
      await client.transactions.simulateVoid({ token: first.token });
      await expectApproved(client, card, 500, { status: 'FINANCIAL_AUTHORIZATION' });
      await expectDeclined(client, card, 201, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED', { status: 'FINANCIAL_AUTHORIZATION' });
    });

    it('declines every spend under a daily or a monthly limit of 0; a lifetime limit of 0 is no limit (SDK AccountUpdateParams)', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.accounts.update(card.account_token, { daily_spend_limit: 0 });
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED');
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED', { status: 'FINANCIAL_AUTHORIZATION' });
      // Spent + amount > limit: $0 does not exceed a limit of 0, and credits are never limited.
      await expectApproved(client, card, 0, { status: 'BALANCE_INQUIRY' });
      await expectApproved(client, card, 50, { status: 'CREDIT_AUTHORIZATION' });

      await client.accounts.update(card.account_token, { daily_spend_limit: 500_000, monthly_spend_limit: 0 });
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 0, { status: 'BALANCE_INQUIRY' });

      await client.accounts.update(card.account_token, { monthly_spend_limit: 500_000, lifetime_spend_limit: 0 });
      await expectApproved(client, card, 100);
      expect((await client.accounts.retrieve(card.account_token)).spend_limit).toEqual({ daily: 500_000, monthly: 500_000, lifetime: 0 });
    });

    it('gives a new account $5,000 a day and $5,000 a month: the daily limit is checked first, then the monthly one', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client);
      // Over both: the daily limit names the decline (daily, monthly, lifetime is the engine's order).
      await expectDeclined(client, card, 500_001, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 500_000);
      await moveClock(client, '2031-03-16T12:00:01.000Z');
      // The day has passed; the month has not.
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED');
    });
  });

  describe('the card spend limit in its window', () => {
    it('TRANSACTION: each authorization alone', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'TRANSACTION' });
      await expectApproved(client, card, 1_000);
      await expectApproved(client, card, 1_000);
      await expectDeclined(client, card, 1_001, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
    });

    it('an update to spend_limit 0 lifts the limit; 1 cent already declines (seed 4.7)', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1, spend_limit_duration: 'TRANSACTION' });
      await expectDeclined(client, card, 2, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 1);
      await client.cards.update(card.token, { spend_limit: 0 });
      await expectApproved(client, card, 100_000);
      await client.cards.update(card.token, { spend_limit: 1, spend_limit_duration: 'FOREVER' });
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
    });

    it('MONTHLY: the window starts 6 days after today one month earlier, by the program clock', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'MONTHLY' });
      const march = await expectApproved(client, card, 600);
      await client.transactions.simulateClearing({ token: march.token, amount: 650 });
      await moveClock(client, '2031-04-09T23:59:00.000Z');
      await expectDeclined(client, card, 351, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 350);
      await moveClock(client, '2031-04-10T00:00:01.000Z');
      await expectApproved(client, card, 650);
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
    });

    it('ANNUALLY: the trailing year', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'ANNUALLY' });
      const spent = await expectApproved(client, card, 900);
      await client.transactions.simulateClearing({ token: spent.token });
      await moveClock(client, '2032-03-15T11:59:00.000Z');
      await expectDeclined(client, card, 101, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await moveClock(client, '2032-03-15T12:00:01.000Z');
      await expectApproved(client, card, 1_000);
    });

    it('FOREVER: the card’s lifetime; declines and credits never count', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'FOREVER' });
      const spent = await expectApproved(client, card, 700);
      await client.transactions.simulateClearing({ token: spent.token });
      await expectDeclined(client, card, 301, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await client.transactions.simulateReturn({ amount: 500, descriptor: 'REFUND', pan: card.pan });
      await moveClock(client, '2033-01-01T12:00:00.000Z');
      await expectDeclined(client, card, 301, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await expectApproved(client, card, 300);
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
    });

    it('frees the window when a hold expires by itself', async () => {
      const program = await programAt('2031-03-15T12:00:00.000Z');
      const { client } = program;
      const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'FOREVER' });
      await expectApproved(client, card, 1_000);
      await expectDeclined(client, card, 1, 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED');
      await moveClock(client, '2031-03-22T12:00:01.000Z');
      await expectApproved(client, card, 1_000);
    });
  });

  describe('funds', () => {
    it('reads and sets the program switch (off by default: balances may go negative)', async () => {
      const program = await context.server.newProgram();
      expect(await program.client.get('/v1/simulate/program')).toEqual({ require_funds: false });
      const card = await cardOnOwnAccount(program.client);
      await expectApproved(program.client, card, 5_000);
      expect(await issuingBalance(program.client, card)).toEqual({ available: -5_000, pending: 5_000, total: 0 });
      await setRequireFunds(program.client, true);
      expect(await program.client.get('/v1/simulate/program')).toEqual({ require_funds: true });
      for (const body of [{}, { require_funds: 'yes' }, { require_funds: true, extra: 1 }]) {
        const response = await context.server.request('POST', '/v1/simulate/program', { apiKey: program.apiKey, body });
        expect(response.status).toBe(400);
      }
    });

    it('declines a debit above the available funds when required, and approves up to them', async () => {
      const program = await context.server.newProgram();
      const { client } = program;
      await setRequireFunds(client, true);
      const card = await cardOnOwnAccount(client);
      await expectDeclined(client, card, 1, 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS');
      await fund(client, card.funding.token, 1_000);
      const held = await expectApproved(client, card, 600);
      await expectDeclined(client, card, 401, 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS', { status: 'FINANCIAL_AUTHORIZATION' });
      await expectApproved(client, card, 400, { status: 'FINANCIAL_AUTHORIZATION' });
      await expectApproved(client, card, 100, { status: 'CREDIT_AUTHORIZATION' });
      await expectApproved(client, card, 0, { status: 'BALANCE_INQUIRY' });
      await client.transactions.simulateVoid({ token: held.token, amount: 100 });
      await expectApproved(client, card, 100);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 700, total: 700 });
      await setRequireFunds(client, false);
      await expectApproved(client, card, 100);
      expect(await verifyProgramLedger(context.server.server.db.kysely, program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it('approves the available funds on a terminal capable of partial approval: the transaction is for what was approved', async () => {
      const program = await context.server.newProgram();
      const { client } = program;
      await setRequireFunds(client, true);
      const card = await cardOnOwnAccount(client);
      await expectDeclined(client, card, 4_000, 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS', { partial_approval_capable: true });
      await fund(client, card.funding.token, 2_500);
      const partial = await expectApproved(client, card, 4_000, { partial_approval_capable: true, merchant_amount: 3_600, merchant_currency: 'EUR' });
      expect(partial).toMatchObject({
        status: 'PENDING',
        amount: 2_500,
        authorization_amount: 2_500,
        merchant_amount: 2_250,
        merchant_authorization_amount: 2_250,
        pos: { terminal: { partial_approval_capable: true } },
        amounts: { hold: { amount: 2_500 }, cardholder: { amount: 2_500 }, merchant: { amount: 0, currency: 'EUR' } },
      });
      expect(partial.events).toHaveLength(1);
      expect(partial.events?.[0]).toMatchObject({ type: 'AUTHORIZATION', result: 'APPROVED', amount: 2_500 });
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 2_500, total: 2_500 });
      // Nothing left: a partial-capable terminal is declined like any other; the hold clears as usual.
      await expectDeclined(client, card, 100, 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS', { partial_approval_capable: true });
      await client.transactions.simulateClearing({ token: partial.token });
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      await fund(client, card.funding.token, 300);
      const single = await expectApproved(client, card, 1_000, { partial_approval_capable: true, status: 'FINANCIAL_AUTHORIZATION' });
      expect(single).toMatchObject({ status: 'SETTLED', amount: 300, settled_amount: 300 });
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await verifyProgramLedger(context.server.server.db.kysely, program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });
  });
});
