/**
 * The network simulations, black-box through the SDK: every endpoint's legal and refused state
 * transitions, the amounts and signs of every field after each step, the ISSUING balance after
 * each step, and the ledger's consistency.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { authorize, authorized, cardOnOwnAccount, issuingBalance, type Card, type Transaction } from '../testing/transactions.js';

const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const usd = (amount: number) => ({ amount, currency: 'USD' });
const rated = (amount: number, conversion_rate = '1.000000') => ({ amount, conversion_rate, currency: 'USD' });

/** Every value in an object tree, to check that none is undefined. */
function leaves(value: unknown, path = ''): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object') return [[path, value]];
  return Object.entries(value).flatMap(([key, item]) => leaves(item, `${path}.${key}`));
}

describeWithDb('card transaction simulations', () => {
  const context = useTestServer({ config: { logLevel: 'trace' } });

  const retrieve = (token: string) => context.program.client.transactions.retrieve(token);
  const amountsOf = (t: Transaction) => ({
    amount: t.amount,
    authorization_amount: t.authorization_amount,
    settled_amount: t.settled_amount,
    hold: t.amounts.hold.amount,
    settlement: t.amounts.settlement.amount,
    cardholder: t.amounts.cardholder.amount,
    merchant: t.amounts.merchant.amount,
  });
  const eventsOf = (t: Transaction) =>
    (t.events ?? []).map((event) => [event.type, event.amount, event.effective_polarity, event.amounts.settlement?.amount ?? null, event.result]);

  async function expectLedgerConsistent() {
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  describe('authorize', () => {
    it('holds an approved AUTHORIZATION: PENDING, every field of spec 2.4 present, available → pending', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const response = await client.transactions.simulateAuthorization({ amount: 1_250, descriptor: 'COFFEE SHOP', pan: card.pan, mcc: '5814', merchant_acceptor_id: 'CAFE-1' });
      expect(response).toEqual({ token: UUID, debugging_request_id: UUID });
      const t = await retrieve(response.token as string);
      expect(t).toMatchObject({
        token: response.token,
        account_token: card.account_token,
        card_token: card.token,
        financial_account_token: card.funding.token,
        status: 'PENDING',
        result: 'APPROVED',
        acquirer_fee: 0,
        acquirer_reference_number: null,
        authorization_code: expect.stringMatching(/^\d{6}$/),
        merchant: { acceptor_id: 'CAFE-1', descriptor: 'COFFEE SHOP', mcc: '5814', country: 'USA', city: expect.any(String), state: expect.any(String), acquiring_institution_id: expect.any(String) },
        merchant_currency: 'USD',
        merchant_amount: 1_250,
        merchant_authorization_amount: 1_250,
        network: 'VISA',
        network_risk_score: null,
        avs: null,
        token_info: null,
        cardholder_authentication: { authentication_result: 'NONE', liability_shift: 'NONE', verification_result: 'NOT_ATTEMPTED', three_ds_authentication_token: null },
        pos: {
          entry_mode: { card: 'NOT_PRESENT', cardholder: 'ELECTRONIC_ORDER', pan: 'ECOMMERCE', pin_entered: false },
          terminal: { type: 'ECOMMERCE', partial_approval_capable: false, acceptor_terminal_id: null },
        },
        amounts: { cardholder: rated(1_250), hold: usd(1_250), merchant: usd(0), settlement: rated(0) },
      });
      expect(amountsOf(t)).toEqual({ amount: 1_250, authorization_amount: 1_250, settled_amount: 0, hold: 1_250, settlement: 0, cardholder: 1_250, merchant: 0 });
      expect(t.created).toBe(t.updated);
      expect(t.events).toHaveLength(1);
      expect(t.events?.[0]).toMatchObject({
        token: UUID,
        type: 'AUTHORIZATION',
        amount: 1_250,
        amounts: { cardholder: rated(1_250), merchant: usd(1_250), settlement: null },
        effective_polarity: 'DEBIT',
        result: 'APPROVED',
        detailed_results: ['APPROVED'],
        rule_results: [],
        network_info: {
          acquirer: { acquirer_reference_number: null, retrieval_reference_number: expect.stringMatching(/^\d{12}$/) },
          amex: null,
          mastercard: null,
          visa: { original_transaction_id: null, transaction_id: expect.stringMatching(/^\d{15}$/) },
        },
      });
      for (const [path, value] of leaves(t)) expect(value, path).not.toBeUndefined();
      expect(await issuingBalance(client, card)).toEqual({ available: -1_250, pending: 1_250, total: 0 });
      await expectLedgerConsistent();
    });

    it('takes the merchant currency the simulator knows (others become GBP) and its amount as the rate', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const euro = await authorized(client, card, 1_000, { merchant_currency: 'EUR', merchant_amount: 800 });
      expect(euro).toMatchObject({ merchant_currency: 'EUR', merchant_authorization_amount: 800, merchant_amount: 800 });
      expect((euro.amounts.settlement as { conversion_rate?: string }).conversion_rate).toBe('1.250000');
    expect(euro.amounts.cardholder.conversion_rate).toBe('1.250000');
      expect(euro.events?.[0]?.amounts.merchant).toEqual({ amount: 800, currency: 'EUR' });
      const yen = await authorized(client, card, 500, { merchant_currency: 'JPY' });
      expect(yen).toMatchObject({ merchant_currency: 'GBP', merchant_authorization_amount: 500 });
      await client.transactions.simulateClearing({ token: euro.token, amount: 500 });
      expect((await retrieve(euro.token)).amounts.merchant).toEqual({ amount: 400, currency: 'EUR' });
    });

    it('refuses a merchant_amount that cannot be the amount in the merchant currency (0 for a non-zero amount, non-zero for 0, as on a BALANCE_INQUIRY) with 400, recording nothing', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const refused: Array<[Partial<Lithic.TransactionSimulateAuthorizationParams>, string]> = [
        ...(['AUTHORIZATION', 'CREDIT_AUTHORIZATION', 'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'] as const).map(
          (status): [Partial<Lithic.TransactionSimulateAuthorizationParams>, string] => [
            { status, amount: 1_000, merchant_amount: 0, merchant_currency: 'EUR' },
            'merchant_amount: must be more than 0 when amount is; it is the same amount in merchant_currency',
          ],
        ),
        [{ status: 'BALANCE_INQUIRY', amount: 0, merchant_amount: 500 }, 'merchant_amount: must be 0 when amount is 0, as for every BALANCE_INQUIRY; it is the same amount in merchant_currency'],
        [{ amount: 0, merchant_amount: 500, merchant_currency: 'GBP' }, 'merchant_amount: must be 0 when amount is 0; it is the same amount in merchant_currency'],
        // In USD, the cardholder's currency, there is nothing to convert: the same number or none.
        ...([{}, { merchant_currency: 'USD' }, { merchant_currency: 'usd', status: 'FINANCIAL_CREDIT_AUTHORIZATION' }] as const).map(
          (override): [Partial<Lithic.TransactionSimulateAuthorizationParams>, string] => [
            { amount: 1_000, merchant_amount: 900, ...override },
            'merchant_amount: must be amount (1000) when merchant_currency is USD, the cardholder currency; it is the same amount in merchant_currency',
          ],
        ),
      ];
      for (const [override, message] of refused) {
        expect(await expectError(client.transactions.simulateAuthorization({ amount: 100, descriptor: 'FX SHOP', pan: card.pan, ...override }), 400), JSON.stringify(override)).toBe(message);
      }
      expect((await client.transactions.list({ card_token: card.token })).data).toEqual([]);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });

      // What is consistent still passes: 0 for 0, and any rate between two non-zero amounts.
      const inquiry = await authorized(client, card, 0, { status: 'BALANCE_INQUIRY', merchant_amount: 0, merchant_currency: 'EUR' });
      expect(inquiry).toMatchObject({ status: 'SETTLED', merchant_amount: 0, merchant_authorization_amount: 0, merchant_currency: 'EUR' });
      const dollars = await authorized(client, card, 1_000, { merchant_amount: 1_000, merchant_currency: 'USD' });
      expect(dollars).toMatchObject({ merchant_amount: 1_000, merchant_currency: 'USD', amounts: { cardholder: rated(1_000) } });
      const steep = await authorized(client, card, 1_000, { merchant_amount: 1, merchant_currency: 'GBP' });
      expect(steep).toMatchObject({ status: 'PENDING', merchant_amount: 1, merchant_authorization_amount: 1, amounts: { cardholder: rated(1_000, '1000.000000') } });
      // The other simulations take no merchant amount at all.
      const calls = [
        () => client.transactions.simulateAuthorizationAdvice({ token: steep.token, amount: 500, merchant_amount: 0 } as never),
        () => client.transactions.simulateClearing({ token: steep.token, merchant_amount: 0 } as never),
        () => client.transactions.simulateCreditAuthorizationAdvice({ amount: 500, descriptor: 'FX SHOP', pan: card.pan, merchant_amount: 0 } as never),
        () => client.transactions.simulateReturn({ amount: 500, descriptor: 'FX SHOP', pan: card.pan, merchant_amount: 0 } as never),
      ];
      for (const call of calls) expect(await expectError(call(), 400)).toBe('merchant_amount: is not a recognised field');
      expect((await client.transactions.list({ card_token: card.token })).data.map((t) => t.token).sort()).toEqual([inquiry.token, dollars.token, steep.token].sort());
    });

    it('converts one amount to one merchant amount whatever its sign: a debit, a credit, a reversal or a clearing of it', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      // At 1,000 USD for 333 EUR, 500 USD is 166.5 EUR: 167 EUR, signed as the amount is.
      const merchantAmounts = async (status: 'AUTHORIZATION' | 'CREDIT_AUTHORIZATION') => {
        const token = await authorize(client, card, 1_000, { status, merchant_amount: 333, merchant_currency: 'EUR' });
        await client.transactions.simulateVoid({ token, amount: 500 });
        await client.transactions.simulateClearing({ token });
        const t = await retrieve(token);
        return { merchant_amount: t.merchant_amount, settled: t.amounts.merchant.amount, events: t.events?.map((event) => [event.type, event.amount, event.amounts.merchant.amount]) };
      };
      expect(await merchantAmounts('AUTHORIZATION')).toEqual({
        merchant_amount: 167,
        settled: 167,
        events: [
          ['AUTHORIZATION', 1_000, 333],
          ['AUTHORIZATION_REVERSAL', -500, -167],
          ['CLEARING', 500, 167],
        ],
      });
      expect(await merchantAmounts('CREDIT_AUTHORIZATION')).toEqual({
        merchant_amount: -167,
        settled: -167,
        events: [
          ['CREDIT_AUTHORIZATION', -1_000, -333],
          ['AUTHORIZATION_REVERSAL', 500, 167],
          ['CLEARING', -500, -167],
        ],
      });
    });

    it('keeps the opening rate through an advice: no recorded event changes, merchant amounts follow at that rate', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const dollars = await authorized(client, card, 1_000);
      await client.transactions.simulateAuthorizationAdvice({ token: dollars.token, amount: 1_500 });
      const advised = await retrieve(dollars.token);
      expect(advised).toMatchObject({ amount: 1_500, authorization_amount: 1_500, merchant_amount: 1_500, merchant_authorization_amount: 1_500 });
      expect(advised.amounts.cardholder).toEqual(rated(1_500));
      expect(advised.events?.map((event) => [event.type, event.amounts.cardholder, event.amounts.merchant])).toEqual([
        ['AUTHORIZATION', rated(1_000), usd(1_000)],
        ['AUTHORIZATION_ADVICE', rated(1_500), usd(1_500)],
      ]);
      await client.transactions.simulateClearing({ token: dollars.token });
      const cleared = await retrieve(dollars.token);
      expect(cleared).toMatchObject({ amount: 1_500, merchant_amount: 1_500, amounts: { merchant: usd(1_500), settlement: rated(1_500) } });

      const euro = await authorized(client, card, 1_000, { merchant_currency: 'EUR', merchant_amount: 900 });
      await client.transactions.simulateAuthorizationAdvice({ token: euro.token, amount: 2_000 });
      const euroAdvised = await retrieve(euro.token);
      expect(euroAdvised).toMatchObject({ merchant_authorization_amount: 1_800, merchant_amount: 1_800 });
      expect(euroAdvised.events?.map((event) => [event.amounts.merchant.amount, event.amounts.cardholder.conversion_rate])).toEqual([
        [900, '1.111111'],
        [1_800, '1.111111'],
      ]);
    });

    it('records a card-present transaction when a PIN is entered', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client, { pin: Buffer.from('2468').toString('base64') });
      const t = await authorized(client, card, 100, { pin: '2468', partial_approval_capable: true });
      expect(t.status).toBe('PENDING');
      expect(t.pos).toEqual({
        entry_mode: { card: 'PRESENT', cardholder: 'PRESENT', pan: 'ICC', pin_entered: true },
        terminal: {
          attended: true,
          card_retention_capable: false,
          on_premise: true,
          operator: 'CARD_ACCEPTOR',
          partial_approval_capable: true,
          pin_capability: 'CAPABLE',
          type: 'POS_TERMINAL',
          acceptor_terminal_id: null,
        },
      });
    });

    it('settles single-message kinds at once and holds dual-message credits as incoming, with credits negative', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const financial = await authorized(client, card, 700, { status: 'FINANCIAL_AUTHORIZATION' });
      expect(financial.status).toBe('SETTLED');
      expect(amountsOf(financial)).toEqual({ amount: 700, authorization_amount: 700, settled_amount: 700, hold: 0, settlement: 700, cardholder: 700, merchant: 700 });
      expect(eventsOf(financial)).toEqual([['FINANCIAL_AUTHORIZATION', 700, 'DEBIT', 700, 'APPROVED']]);
      // SDK 0.119: the ARN is "applicable to dual-message transactions only", populated once cleared.
      expect(financial.events?.[0]?.network_info?.acquirer).toEqual({ acquirer_reference_number: null, retrieval_reference_number: expect.stringMatching(/^\d{12}$/) });
      expect(financial.acquirer_reference_number).toBeNull();
      expect(await issuingBalance(client, card)).toEqual({ available: -700, pending: 0, total: -700 });

      const refund = await authorized(client, card, 300, { status: 'FINANCIAL_CREDIT_AUTHORIZATION' });
      expect(refund.status).toBe('SETTLED');
      expect(amountsOf(refund)).toEqual({ amount: -300, authorization_amount: -300, settled_amount: -300, hold: 0, settlement: -300, cardholder: -300, merchant: -300 });
      expect(eventsOf(refund)).toEqual([['FINANCIAL_CREDIT_AUTHORIZATION', -300, 'CREDIT', -300, 'APPROVED']]);
      expect(refund.events?.[0]?.network_info?.acquirer?.acquirer_reference_number).toBeNull();
      expect(refund.acquirer_reference_number).toBeNull();
      // Its return reversal is a single message too (no clearing record), so still no ARN.
      await client.transactions.simulateReturnReversal({ token: refund.token });
      const reversed = await retrieve(refund.token);
      expect([reversed.acquirer_reference_number, ...(reversed.events ?? []).map((event) => event.network_info?.acquirer?.acquirer_reference_number)]).toEqual([null, null, null]);
      await client.transactions.simulateReturn({ amount: 300, descriptor: 'RETURNS', pan: card.pan });
      expect(await issuingBalance(client, card)).toEqual({ available: -400, pending: 0, total: -400 });

      const credit = await authorized(client, card, 200, { status: 'CREDIT_AUTHORIZATION' });
      expect(credit.status).toBe('PENDING');
      expect(amountsOf(credit)).toEqual({ amount: -200, authorization_amount: -200, settled_amount: 0, hold: -200, settlement: 0, cardholder: -200, merchant: 0 });
      expect(eventsOf(credit)).toEqual([['CREDIT_AUTHORIZATION', -200, 'CREDIT', null, 'APPROVED']]);
      expect(await issuingBalance(client, card)).toEqual({ available: -400, pending: 200, total: -200 });

      await client.transactions.simulateClearing({ token: credit.token, amount: 250 });
      const cleared = await retrieve(credit.token);
      expect(cleared.status).toBe('SETTLED');
      expect(amountsOf(cleared)).toEqual({ amount: -250, authorization_amount: -200, settled_amount: -250, hold: 0, settlement: -250, cardholder: -250, merchant: -250 });
      expect(eventsOf(cleared)[1]).toEqual(['CLEARING', -250, 'CREDIT', -250, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: -150, pending: 0, total: -150 });

      const inquiry = await authorized(client, card, 0, { status: 'BALANCE_INQUIRY' });
      expect(inquiry.status).toBe('SETTLED');
      expect(amountsOf(inquiry)).toEqual({ amount: 0, authorization_amount: 0, settled_amount: 0, hold: 0, settlement: 0, cardholder: 0, merchant: 0 });
      expect(await expectError(client.transactions.simulateAuthorization({ amount: 1, descriptor: 'ATM', pan: card.pan, status: 'BALANCE_INQUIRY' }), 400)).toContain('amount');
      expect(await issuingBalance(client, card)).toEqual({ available: -150, pending: 0, total: -150 });
      await expectLedgerConsistent();
    });

    it('answers 422 for a PAN with no card in the calling program, and records nothing', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const other = await context.server.newProgram('other');
      for (const call of [
        () => other.client.transactions.simulateAuthorization({ amount: 100, descriptor: 'X', pan: card.pan }),
        () => other.client.transactions.simulateReturn({ amount: 100, descriptor: 'X', pan: card.pan }),
        () => other.client.transactions.simulateCreditAuthorizationAdvice({ amount: 100, descriptor: 'X', pan: card.pan }),
        () => client.transactions.simulateAuthorization({ amount: 100, descriptor: 'X', pan: '4000000000000002' }),
      ]) {
        expect(await expectError(call(), 422)).toContain('pan');
      }
      expect((await other.client.transactions.list()).data).toEqual([]);
      expect((await client.transactions.list({ card_token: card.token })).data).toEqual([]);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
    });

    it.each([
      [{ pan: '123' }, 'pan'],
      [{ pan: '4000 0000 0000 0002' }, 'pan'],
      [{ amount: -1 }, 'amount: must be >= 0'],
      [{ amount: 2_000_000_001 }, 'amount: must be <= 2000000000'],
      [{ amount: 1.5 }, 'amount: must be integer'],
      [{ descriptor: '' }, 'descriptor'],
      [{ descriptor: 'x'.repeat(26) }, 'descriptor'],
      [{ mcc: '59' }, 'mcc'],
      [{ merchant_acceptor_id: 'x'.repeat(16) }, 'merchant_acceptor_id'],
      [{ pin: '12' }, 'pin'],
      [{ status: 'REFUND' }, 'status: must be one of'],
      [{ merchant_currency: 'EURO' }, 'merchant_currency'],
      [{ colour: 'red' }, 'colour: is not a recognised field'],
    ])('refuses %j with 400 naming the field', async (override, message) => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const body = { amount: 100, descriptor: 'COFFEE', pan: card.pan, ...override };
      expect(await expectError(client.transactions.simulateAuthorization(body as never), 400)).toContain(message);
    });

    it('refuses a blank descriptor or one with a control character with 400 naming it, in every simulation that takes one, recording nothing', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const simulations = [
        (descriptor: string) => client.transactions.simulateAuthorization({ amount: 100, descriptor, pan: card.pan }),
        (descriptor: string) => client.transactions.simulateReturn({ amount: 100, descriptor, pan: card.pan }),
        (descriptor: string) => client.transactions.simulateCreditAuthorizationAdvice({ amount: 100, descriptor, pan: card.pan }),
      ];
      const refused = [' ', '    ', '\u00a0\u3000', 'COFFEE\tSHOP', 'COFFEE\nSHOP', 'COFFEE SHOP\r', '\u001b[31mRED', 'DEL\u007f', 'NEL\u0085'];
      for (const simulate of simulations) {
        for (const descriptor of refused) {
          expect(await expectError(simulate(descriptor), 400), JSON.stringify(descriptor)).toBe('descriptor: must contain a character other than white space, and no control characters');
        }
      }
      expect((await client.transactions.list({ card_token: card.token })).data).toEqual([]);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      // Spaces inside, around, and any other script still pass.
      for (const descriptor of [' CAFÉ  DU MONDE ', '東京 カフェ', 'A']) {
        expect((await authorized(client, card, 100, { descriptor })).merchant.descriptor).toBe(descriptor);
      }
    });

    it('refuses a blank merchant_acceptor_id or one with a control character with 400 naming it, recording nothing', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const simulations = [
        (id: string) => client.transactions.simulateAuthorization({ amount: 100, descriptor: 'SHOP', pan: card.pan, merchant_acceptor_id: id }),
        (id: string) => client.transactions.simulateCreditAuthorizationAdvice({ amount: 100, descriptor: 'SHOP', pan: card.pan, merchant_acceptor_id: id }),
      ];
      for (const simulate of simulations) {
        for (const id of [' ', '\u00a0', 'M-1\t', 'M\n1']) {
          expect(await expectError(simulate(id), 400), JSON.stringify(id)).toBe('merchant_acceptor_id: must contain a character other than white space, and no control characters');
        }
      }
      expect((await client.transactions.list({ card_token: card.token })).data).toEqual([]);
      expect((await authorized(client, card, 100, { merchant_acceptor_id: ' M 1 ' })).merchant.acceptor_id).toBe(' M 1 ');
    });

    it('replays an Idempotency-Key authorization: one transaction, the first answer', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const key = crypto.randomUUID();
      const body = { amount: 100, descriptor: 'ONCE', pan: card.pan };
      const first = await client.transactions.simulateAuthorization(body, { headers: { 'Idempotency-Key': key } });
      const again = await client.transactions.simulateAuthorization(body, { headers: { 'Idempotency-Key': key } }).withResponse();
      expect(again.data).toEqual(first);
      // The replay's header names the request its body names: the original one.
      expect(again.response.headers.get('x-request-id')).toBe(first.debugging_request_id);
      expect((await client.transactions.list({ card_token: card.token })).data).toHaveLength(1);
      expect(await issuingBalance(client, card)).toEqual({ available: -100, pending: 100, total: 0 });
    });
  });

  describe('clearing', () => {
    it.each([
      ['partial', 600, 600],
      ['full (no amount)', undefined, 1_000],
      ['over', 1_300, 1_300],
    ])('%s clearing settles the cleared amount and adjusts available by the difference', async (_name, amount, cleared) => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 1_000);
      const response = await client.transactions.simulateClearing({ token, ...(amount === undefined ? {} : { amount }) });
      expect(response).toEqual({ debugging_request_id: UUID });
      const t = await retrieve(token);
      expect(t.status).toBe('SETTLED');
      expect(amountsOf(t)).toEqual({ amount: cleared, authorization_amount: 1_000, settled_amount: cleared, hold: 0, settlement: cleared, cardholder: cleared, merchant: cleared });
      expect(eventsOf(t)).toEqual([
        ['AUTHORIZATION', 1_000, 'DEBIT', null, 'APPROVED'],
        ['CLEARING', cleared, 'DEBIT', cleared, 'APPROVED'],
      ]);
      const clearing = t.events?.[1];
      expect(clearing?.network_info?.acquirer?.acquirer_reference_number).toMatch(/^\d{23}$/);
      expect(t.acquirer_reference_number).toBe(clearing?.network_info?.acquirer?.acquirer_reference_number);
      expect(clearing?.network_info?.visa).toEqual({ original_transaction_id: t.events?.[0]?.network_info?.visa?.transaction_id, transaction_id: expect.stringMatching(/^\d{15}$/) });
      expect(Date.parse(t.updated)).toBeGreaterThanOrEqual(Date.parse(t.created));
      expect(await issuingBalance(client, card)).toEqual({ available: -cleared, pending: 0, total: -cleared });
      await expectLedgerConsistent();
    });

    it('refuses what cannot be cleared with 422 and changes nothing', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const cleared = await authorize(client, card, 100);
      await client.transactions.simulateClearing({ token: cleared, amount: 40 });
      expect(await expectError(client.transactions.simulateClearing({ token: cleared }), 422)).toContain('SETTLED');
      const voided = await authorize(client, card, 100);
      await client.transactions.simulateVoid({ token: voided });
      expect(await expectError(client.transactions.simulateClearing({ token: voided }), 422)).toContain('VOIDED');
      const financial = await authorize(client, card, 100, { status: 'FINANCIAL_AUTHORIZATION' });
      expect(await expectError(client.transactions.simulateClearing({ token: financial }), 422)).toContain('dual-message');
      await client.cards.update(card.token, { state: 'PAUSED' });
      const declined = await authorize(client, card, 100);
      expect(await expectError(client.transactions.simulateClearing({ token: declined }), 422)).toContain('DECLINED');
      expect(await expectError(client.transactions.simulateClearing({ token: crypto.randomUUID() }), 422)).toContain('no transaction');
      const other = await context.server.newProgram('other');
      expect(await expectError(other.client.transactions.simulateClearing({ token: cleared }), 422)).toContain('no transaction');
      expect(await expectError(client.transactions.simulateClearing({ token: 'nope' }), 400)).toContain('token');
      expect((await retrieve(cleared)).events).toHaveLength(2);
      expect(await issuingBalance(client, card)).toEqual({ available: -140, pending: 0, total: -140 });
    });
  });

  describe('void', () => {
    it('reverses part of a hold, then the rest (VOIDED); each reversal is a CREDIT event', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 1_000);
      expect(await client.transactions.simulateVoid({ token, amount: 300 })).toEqual({ debugging_request_id: UUID });
      let t = await retrieve(token);
      expect(t.status).toBe('PENDING');
      expect(amountsOf(t)).toEqual({ amount: 700, authorization_amount: 1_000, settled_amount: 0, hold: 700, settlement: 0, cardholder: 700, merchant: 0 });
      expect(await issuingBalance(client, card)).toEqual({ available: -700, pending: 700, total: 0 });
      await client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_REVERSAL' });
      t = await retrieve(token);
      expect(t.status).toBe('VOIDED');
      expect(amountsOf(t)).toEqual({ amount: 1_000, authorization_amount: 1_000, settled_amount: 0, hold: 0, settlement: 0, cardholder: 0, merchant: 0 });
      expect(eventsOf(t)).toEqual([
        ['AUTHORIZATION', 1_000, 'DEBIT', null, 'APPROVED'],
        ['AUTHORIZATION_REVERSAL', -300, 'CREDIT', null, 'APPROVED'],
        ['AUTHORIZATION_REVERSAL', -700, 'CREDIT', null, 'APPROVED'],
      ]);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await expectError(client.transactions.simulateVoid({ token }), 422)).toContain('VOIDED');
      await expectLedgerConsistent();
    });

    it('expires a whole hold (AUTHORIZATION_EXPIRY, EXPIRED), whatever amount is given', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 900);
      await client.transactions.simulateVoid({ token, amount: 100 });
      await client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_EXPIRY', amount: 5 });
      const t = await retrieve(token);
      expect(t.status).toBe('EXPIRED');
      expect(eventsOf(t).at(-1)).toEqual(['AUTHORIZATION_EXPIRY', -800, 'CREDIT', null, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
    });

    it('takes an expiry with amount 0, or one above the pending amount (the SDK: amount applies to reversals only), releasing the whole hold each time; a reversal still needs 1 or more', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      for (const amount of [0, 5_000]) {
        const token = await authorize(client, card, 600);
        await client.transactions.simulateVoid({ token, amount: 100 });
        expect(await client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_EXPIRY', amount })).toEqual({ debugging_request_id: UUID });
        const t = await retrieve(token);
        expect([t.status, eventsOf(t).at(-1)]).toEqual(['EXPIRED', ['AUTHORIZATION_EXPIRY', -500, 'CREDIT', null, 'APPROVED']]);
      }
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      const token = await authorize(client, card, 600);
      for (const type of [undefined, 'AUTHORIZATION_REVERSAL'] as const) {
        expect(await expectError(client.transactions.simulateVoid({ token, amount: 0, ...(type ? { type } : {}) }), 400)).toBe('amount: must be >= 1');
      }
      expect(await expectError(client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_EXPIRY', amount: -1 }), 400)).toBe('amount: must be >= 0');
      expect((await retrieve(token)).status).toBe('PENDING');
      await expectLedgerConsistent();
    });

    it('clears an EXPIRED authorization (the network may clear after the hold was released): by default for what the expiry released', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 900);
      await client.transactions.simulateVoid({ token, amount: 100 });
      await client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_EXPIRY' });
      await client.transactions.simulateClearing({ token });
      const t = await retrieve(token);
      expect([t.status, eventsOf(t).map((event) => event[0])]).toEqual(['SETTLED', ['AUTHORIZATION', 'AUTHORIZATION_REVERSAL', 'AUTHORIZATION_EXPIRY', 'CLEARING']]);
      expect(eventsOf(t).at(-1)).toEqual(['CLEARING', 800, 'DEBIT', 800, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: -800, pending: 0, total: -800 });
      expect(await expectError(client.transactions.simulateClearing({ token }), 422)).toContain('SETTLED');

      // For another amount when the network says so; expired by the program clock as well.
      const later = await authorize(client, card, 300);
      const now = Date.parse(((await client.get('/v1/simulate/clock')) as { now: string }).now);
      await client.post('/v1/simulate/clock', { body: { now: new Date(now + 8 * 86_400_000).toISOString() } });
      expect((await retrieve(later)).status).toBe('EXPIRED');
      await client.transactions.simulateClearing({ token: later, amount: 350 });
      expect(eventsOf(await retrieve(later)).at(-1)).toEqual(['CLEARING', 350, 'DEBIT', 350, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: -1_150, pending: 0, total: -1_150 });

      // Not on a CLOSED account, and never a VOIDED one.
      const voided = await authorize(client, card, 40);
      await client.transactions.simulateVoid({ token: voided });
      expect(await expectError(client.transactions.simulateClearing({ token: voided }), 422)).toContain('VOIDED');
      const closing = await cardOnOwnAccount(client);
      const stranded = await authorize(client, closing, 70);
      await client.transactions.expireAuthorization(stranded);
      await client.cards.update(closing.token, { state: 'CLOSED' });
      await client.financialAccounts.updateStatus(closing.funding.token, { status: 'CLOSED', substatus: null });
      expect(await expectError(client.transactions.simulateClearing({ token: stranded }), 422)).toContain('CLOSED');
      await expectLedgerConsistent();
    });

    it('expires an authorization on request (expire_authorization): 404 unknown, 422 unless a PENDING debit authorization', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 400);
      await client.transactions.simulateVoid({ token, amount: 150 });
      await client.transactions.expireAuthorization(token);
      const t = await retrieve(token);
      expect(t.status).toBe('EXPIRED');
      expect(eventsOf(t).at(-1)).toEqual(['AUTHORIZATION_EXPIRY', -250, 'CREDIT', null, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await expectError(client.transactions.expireAuthorization(token), 422)).toContain('EXPIRED');
      const credit = await authorize(client, card, 300, { status: 'CREDIT_AUTHORIZATION' });
      expect(await expectError(client.transactions.expireAuthorization(credit), 422)).toContain('credit');
      await expectError(client.transactions.expireAuthorization(crypto.randomUUID()), 404);
      const other = await context.server.newProgram('expire elsewhere');
      await expectError(other.client.transactions.expireAuthorization(credit), 404);
      expect((await retrieve(credit)).status).toBe('PENDING');
      await expectLedgerConsistent();
    });

    it('refuses a reversal above the pending amount, of 0, on a cleared transaction, and an expiry of a credit', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 500);
      expect(await expectError(client.transactions.simulateVoid({ token, amount: 501 }), 422)).toContain('exceeds the pending amount 500');
      expect(await expectError(client.transactions.simulateVoid({ token, amount: 0 }), 400)).toContain('amount');
      expect(await expectError(client.transactions.simulateVoid({ token, type: 'EXPIRE' as never }), 400)).toContain('type');
      await client.transactions.simulateClearing({ token, amount: 200 });
      expect(await expectError(client.transactions.simulateVoid({ token }), 422)).toContain('SETTLED');
      const credit = await authorize(client, card, 300, { status: 'CREDIT_AUTHORIZATION' });
      expect(await expectError(client.transactions.simulateVoid({ token: credit, type: 'AUTHORIZATION_EXPIRY' }), 422)).toContain('credit');
      await client.transactions.simulateVoid({ token: credit, amount: 100 });
      const partlyVoided = await retrieve(credit);
      expect(amountsOf(partlyVoided).hold).toBe(-200);
      expect(eventsOf(partlyVoided).at(-1)).toEqual(['AUTHORIZATION_REVERSAL', 100, 'DEBIT', null, 'APPROVED']);
      expect(await issuingBalance(client, card)).toEqual({ available: -200, pending: 200, total: 0 });
      await expectLedgerConsistent();
    });
  });

  describe('authorization advice', () => {
    it('sets the pending amount of a PENDING authorization, up or down', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const token = await authorize(client, card, 1_000);
      expect(await client.transactions.simulateAuthorizationAdvice({ token, amount: 1_500 })).toEqual({ token, debugging_request_id: UUID });
      expect(await issuingBalance(client, card)).toEqual({ available: -1_500, pending: 1_500, total: 0 });
      await client.transactions.simulateAuthorizationAdvice({ token, amount: 400 });
      const t = await retrieve(token);
      expect(amountsOf(t)).toEqual({ amount: 400, authorization_amount: 400, settled_amount: 0, hold: 400, settlement: 0, cardholder: 400, merchant: 0 });
      expect(eventsOf(t).slice(1)).toEqual([
        ['AUTHORIZATION_ADVICE', 1_500, 'DEBIT', null, 'APPROVED'],
        ['AUTHORIZATION_ADVICE', 400, 'DEBIT', null, 'APPROVED'],
      ]);
      expect(await issuingBalance(client, card)).toEqual({ available: -400, pending: 400, total: 0 });
      await client.transactions.simulateClearing({ token });
      expect(await issuingBalance(client, card)).toEqual({ available: -400, pending: 0, total: -400 });
      expect(await expectError(client.transactions.simulateAuthorizationAdvice({ token, amount: 1 }), 422)).toContain('PENDING');
      const credit = await authorize(client, card, 100, { status: 'CREDIT_AUTHORIZATION' });
      expect(await expectError(client.transactions.simulateAuthorizationAdvice({ token: credit, amount: 50 }), 422)).toContain('AUTHORIZATION');
      await expectLedgerConsistent();
    });
  });

  describe('credit authorization advice, return, return reversal', () => {
    it('records a PENDING credit the network approved, even on a closed card', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      await client.cards.update(card.token, { state: 'CLOSED' });
      const response = await client.transactions.simulateCreditAuthorizationAdvice({ amount: 450, descriptor: 'REFUND DESK', pan: card.pan, mcc: '5311', merchant_acceptor_id: 'DEPT-7' });
      expect(response).toEqual({ token: UUID, debugging_request_id: UUID });
      const t = await retrieve(response.token as string);
      expect(t).toMatchObject({ status: 'PENDING', result: 'APPROVED', merchant: { mcc: '5311', acceptor_id: 'DEPT-7' } });
      expect(amountsOf(t)).toEqual({ amount: -450, authorization_amount: -450, settled_amount: 0, hold: -450, settlement: 0, cardholder: -450, merchant: 0 });
      expect(eventsOf(t)).toEqual([['CREDIT_AUTHORIZATION_ADVICE', -450, 'CREDIT', null, 'APPROVED']]);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 450, total: 450 });
      await client.transactions.simulateClearing({ token: t.token });
      expect(await issuingBalance(client, card)).toEqual({ available: 450, pending: 0, total: 450 });
    });

    it('credits a return at once and takes it back once with a return reversal', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const response = await client.transactions.simulateReturn({ amount: 800, descriptor: 'RETURNS', pan: card.pan });
      expect(response).toEqual({ token: UUID, debugging_request_id: UUID });
      const token = response.token as string;
      let t = await retrieve(token);
      expect(t.status).toBe('SETTLED');
      expect(amountsOf(t)).toEqual({ amount: -800, authorization_amount: -800, settled_amount: -800, hold: 0, settlement: -800, cardholder: -800, merchant: -800 });
      expect(eventsOf(t)).toEqual([['RETURN', -800, 'CREDIT', -800, 'APPROVED']]);
      const returnArn = t.events?.[0]?.network_info?.acquirer?.acquirer_reference_number;
      expect(t.acquirer_reference_number).toEqual(expect.stringMatching(/^\d{23}$/));
      expect(t.acquirer_reference_number).toBe(returnArn);
      expect(await issuingBalance(client, card)).toEqual({ available: 800, pending: 0, total: 800 });
      expect(await client.transactions.simulateReturnReversal({ token })).toEqual({ debugging_request_id: UUID });
      t = await retrieve(token);
      expect(t.status).toBe('SETTLED');
      expect(amountsOf(t)).toEqual({ amount: 0, authorization_amount: -800, settled_amount: 0, hold: 0, settlement: 0, cardholder: 0, merchant: 0 });
      expect(eventsOf(t)).toEqual([
        ['RETURN', -800, 'CREDIT', -800, 'APPROVED'],
        ['RETURN_REVERSAL', 800, 'DEBIT', 800, 'APPROVED'],
      ]);
      expect(t.acquirer_reference_number).toBe(returnArn);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await expectError(client.transactions.simulateReturnReversal({ token }), 422)).toContain('already reversed');
      await expectLedgerConsistent();
    });

    it('reverses only settled credits', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const debit = await authorize(client, card, 100, { status: 'FINANCIAL_AUTHORIZATION' });
      expect(await expectError(client.transactions.simulateReturnReversal({ token: debit }), 422)).toContain('credit');
      const pendingCredit = await authorize(client, card, 100, { status: 'CREDIT_AUTHORIZATION' });
      expect(await expectError(client.transactions.simulateReturnReversal({ token: pendingCredit }), 422)).toContain('SETTLED');
      await client.transactions.simulateClearing({ token: pendingCredit });
      await client.transactions.simulateReturnReversal({ token: pendingCredit });
      const financialCredit = await authorize(client, card, 100, { status: 'FINANCIAL_CREDIT_AUTHORIZATION' });
      await client.transactions.simulateReturnReversal({ token: financialCredit });
      expect(await expectError(client.transactions.simulateReturnReversal({ token: crypto.randomUUID() }), 422)).toContain('no transaction');
      expect(await issuingBalance(client, card)).toEqual({ available: -100, pending: 0, total: -100 });
      await expectLedgerConsistent();
    });

    it('refuses with 422, storing nothing, a message that would move money on a CLOSED ISSUING account', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const refund = (await client.transactions.simulateReturn({ amount: 800, descriptor: 'RETURNS', pan: card.pan })).token as string;
      await authorize(client, card, 800, { status: 'FINANCIAL_AUTHORIZATION' });
      await client.cards.update(card.token, { state: 'CLOSED' });
      await client.financialAccounts.updateStatus(card.funding.token, { status: 'CLOSED', substatus: null });
      const listed = async () => (await client.transactions.list({ card_token: card.token })).data.map((t) => [t.token, t.events?.length]);
      const before = await listed();
      for (const call of [
        () => client.transactions.simulateReturn({ amount: 500, descriptor: 'RETURNS', pan: card.pan }),
        () => client.transactions.simulateCreditAuthorizationAdvice({ amount: 300, descriptor: 'REFUND', pan: card.pan }),
        () => client.transactions.simulateReturnReversal({ token: refund }),
      ]) {
        expect(await expectError(call(), 422)).toContain('CLOSED');
      }
      expect(await listed()).toEqual(before);
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      await expectLedgerConsistent();
    });
  });

  describe('an ISSUING account with a PENDING transaction that holds nothing', () => {
    it('cannot close while the network may still clear or advise it (it would move money on a CLOSED account)', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const zero = await authorize(client, card, 0);
      const advised = await authorize(client, card, 100);
      await client.transactions.simulateAuthorizationAdvice({ token: advised, amount: 0 });
      await client.cards.update(card.token, { state: 'CLOSED' });
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
      const close = () => client.financialAccounts.updateStatus(card.funding.token, { status: 'CLOSED', substatus: null });
      expect(await expectError(close(), 422)).toContain('still PENDING');
      // Settled and voided, nothing is left to arrive: the account closes.
      await client.transactions.simulateClearing({ token: zero, amount: 0 });
      expect(await expectError(close(), 422)).toContain('still PENDING');
      await client.transactions.simulateVoid({ token: advised });
      expect((await close()).status).toBe('CLOSED');
      await expectLedgerConsistent();
    });
  });

  describe('expiry by the program clock', () => {
    it('expires a PENDING authorization 7 days after it was made and releases its hold', async () => {
      const { client } = context.program;
      const card = await cardOnOwnAccount(client);
      const now = Date.parse(((await client.get('/v1/simulate/clock')) as { now: string }).now);
      const token = await authorize(client, card, 600);
      const credit = await authorize(client, card, 50, { status: 'CREDIT_AUTHORIZATION' });
      await client.post('/v1/simulate/clock', { body: { now: new Date(now + 6 * 86_400_000).toISOString() } });
      expect((await retrieve(token)).status).toBe('PENDING');
      await client.post('/v1/simulate/clock', { body: { now: new Date(now + 30 * 86_400_000).toISOString() } });
      const t = await retrieve(token);
      expect(t.status).toBe('EXPIRED');
      expect(eventsOf(t).at(-1)).toEqual(['AUTHORIZATION_EXPIRY', -600, 'CREDIT', null, 'APPROVED']);
      // Dated when the hold expired, not when the clock was moved past it.
      const expiredAt = new Date(Date.parse(t.created) + 7 * 86_400_000).toISOString();
      expect([t.events?.at(-1)?.created, t.updated]).toEqual([expiredAt, expiredAt]);
      expect((await retrieve(credit)).status).toBe('PENDING');
      expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 50, total: 50 });
      await expectLedgerConsistent();
    });

    it('expires more holds than one batch in one move, each dated, released and announced as it would be alone', async () => {
      const { client } = context.program;
      const cards = [await cardOnOwnAccount(client), await cardOnOwnAccount(client), await cardOnOwnAccount(client)];
      const now = Date.parse(((await client.get('/v1/simulate/clock')) as { now: string }).now);
      const holds: { token: string; card: number; amount: number }[] = [];
      for (let index = 0; index < 230; index++) {
        const card = index % cards.length;
        holds.push({ token: await authorize(client, cards[card] as Card, 100 + index), card, amount: 100 + index });
      }
      // Not PENDING by the move: neither expires.
      const voided = await authorize(client, cards[0] as Card, 77);
      await client.transactions.simulateVoid({ token: voided });
      const cleared = await authorize(client, cards[1] as Card, 88);
      await client.transactions.simulateClearing({ token: cleared });

      await client.post('/v1/simulate/clock', { body: { now: new Date(now + 8 * 86_400_000).toISOString() } });

      for (const [card, expected] of [[cards[0], { available: 0, pending: 0, total: 0 }], [cards[1], { available: -88, pending: 0, total: -88 }], [cards[2], { available: 0, pending: 0, total: 0 }]] as const) {
        expect(await issuingBalance(client, card as Card)).toEqual(expected);
      }
      const transactions = new Map<string, Transaction>();
      for await (const t of client.transactions.list({ page_size: 100, begin: new Date(now - 60_000).toISOString() })) transactions.set(t.token, t);
      for (const hold of holds) {
        const t = transactions.get(hold.token) as Transaction;
        const expiredAt = new Date(Date.parse(t.created) + 7 * 86_400_000).toISOString();
        expect([t.status, t.updated, eventsOf(t).at(-1), t.events?.at(-1)?.created]).toEqual(['EXPIRED', expiredAt, ['AUTHORIZATION_EXPIRY', -hold.amount, 'CREDIT', null, 'APPROVED'], expiredAt]);
      }
      expect([transactions.get(voided)?.status, transactions.get(cleared)?.status]).toEqual(['VOIDED', 'SETTLED']);

      // The move's events, oldest first: each expiry's balance.updated (the balance as that expiry
      // left it), then its card_transaction.updated.
      const announced = [];
      for await (const event of client.events.list({ begin: new Date(now + 6 * 86_400_000).toISOString(), with_content: true, page_size: 100 })) announced.unshift(event);
      expect(announced).toHaveLength(2 * holds.length);
      const pendingLeft = cards.map((_, card) => holds.filter((hold) => hold.card === card).reduce((sum, hold) => sum + hold.amount, 0));
      for (const [index, hold] of holds.entries()) {
        const [balanceEvent, transactionEvent] = [announced[2 * index], announced[2 * index + 1]];
        pendingLeft[hold.card] = (pendingLeft[hold.card] as number) - hold.amount;
        expect(balanceEvent?.event_type).toBe('balance.updated');
        expect((balanceEvent?.payload as { data: unknown[] }).data).toEqual([
          expect.objectContaining({ token: (cards[hold.card] as Card).funding.token, pending_amount: pendingLeft[hold.card], last_transaction_token: hold.token }),
        ]);
        expect(transactionEvent?.event_type).toBe('card_transaction.updated');
        expect(transactionEvent?.payload).toMatchObject({ token: hold.token, status: 'EXPIRED' });
        expect(transactionEvent?.created).toBe(balanceEvent?.created);
      }
      await expectLedgerConsistent();
    });
  });

  it('never writes a PAN, a CVV or a PIN to the logs', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client, { pin: Buffer.from('97531').toString('base64') });
    await authorize(client, card, 100, { pin: '97531' });
    await authorize(client, card, 100, { pin: '13579' });
    await client.transactions.simulateReturn({ amount: 1, descriptor: 'R', pan: card.pan });
    await context.server.request('POST', '/v1/simulate/authorize', { apiKey: context.program.apiKey, body: { amount: 'x', descriptor: 'X', pan: card.pan } });
    await context.server.request('POST', '/v1/simulate/authorize', { apiKey: context.program.apiKey, body: { amount: 1, descriptor: 'X', pan: `${card.pan}1` } });
    expect((await context.server.request('GET', `/v1/transactions?card_token=${card.pan}`, { apiKey: context.program.apiKey })).status).toBe(400);
    const logs = context.server.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(card.pan);
    expect(logs).not.toMatch(new RegExp(`"cvv"\\s*:\\s*"${card.cvv}"`));
    expect(logs).not.toMatch(/"(pan|cvv|pin)"\s*:\s*"\d/);
    // The request with the PAN in its query string is logged by its path alone.
    expect(logs).toContain('"url":"/v1/transactions"');
  });
});
