/**
 * The Auth Rules seam from the engine's side: an evaluator gets the authorization's facts and a
 * history over indexed sums, its enforced declines become a DECLINED transaction whose event names
 * the rules, and the history answers the windows and filters velocity rules ask for.
 */
import { expect, it } from 'vitest';
import type { AuthorizationFacts, AuthorizationHistory, AuthRulesEvaluator, RuleResult } from '../engine/rules-seam.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { authorize, cardOnOwnAccount, issuingBalance, moveClock } from '../testing/transactions.js';
import { authorizationHistory } from './history.js';
import * as service from './service.js';

const blockedMcc: RuleResult = { auth_rule_token: '00000000-0000-4000-8000-000000000001', explanation: 'MCC 7995 blocked', name: 'no casinos', result: 'AUTH_RULE_BLOCKED_MCC' };

describeWithDb('the Auth Rules seam', () => {
  const context = useTestServer();

  async function authorizeWith(evaluator: AuthRulesEvaluator, pan: string, mcc: string) {
    const { db } = context.server.server;
    const { secrets } = context.server.server.app.deps;
    const programId = context.program.programId;
    const now = Date.parse(((await context.program.client.get('/v1/simulate/clock')) as { now: string }).now);
    return db.transaction((tx) =>
      service.authorize({ db, tx, scope: { programId, clockOffsetMs: 0, nowMs: now } }, { secrets, evaluator }, { amount: 2_500, descriptor: 'LUCKY CASINO', pan, mcc, merchant_acceptor_id: 'CASINO-9' }),
    );
  }

  it('hands the evaluator the facts and records its declines as the event’s rule_results', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const seen: AuthorizationFacts[] = [];
    const evaluator: AuthRulesEvaluator = {
      evaluateAuthorization: async ({ facts }) => {
        seen.push(facts);
        return facts.merchant.mcc === '7995' ? [blockedMcc] : [];
      },
    };
    const { token } = await authorizeWith(evaluator, card.pan, '7995');
    const declined = await client.transactions.retrieve(token);
    expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED' });
    expect(declined.events?.[0]).toMatchObject({ result: 'DECLINED', detailed_results: ['AUTH_RULE_BLOCKED_MCC'], rule_results: [blockedMcc] });
    expect(seen[0]).toMatchObject({
      transaction_token: token,
      event_token: declined.events?.[0]?.token,
      card: { token: card.token, account_token: card.account_token, state: 'OPEN', pin_status: 'NOT_SET' },
      amount_cents: 2_500,
      cash_amount_cents: 0,
      merchant: { acceptor_id: 'CASINO-9', descriptor: 'LUCKY CASINO', mcc: '7995', country: 'USA', currency: 'USD' },
      pan_entry_mode: 'ECOMMERCE',
      pin_entered: false,
      wallet_type: 'NONE',
      liability_shift: 'NONE',
      transaction_initiator: 'CARDHOLDER',
    });
    expect(await issuingBalance(client, card)).toEqual({ available: 0, pending: 0, total: 0 });
    const approved = await authorizeWith(evaluator, card.pan, '5411');
    expect((await client.transactions.retrieve(approved.token)).events?.[0]).toMatchObject({ result: 'APPROVED', rule_results: [] });
  });

  it('is not asked when an earlier step declines', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    await client.cards.update(card.token, { state: 'PAUSED' });
    let asked = 0;
    const { token } = await authorizeWith({ evaluateAuthorization: async () => ((asked += 1), [blockedMcc]) }, card.pan, '7995');
    expect(asked).toBe(0);
    expect((await client.transactions.retrieve(token)).result).toBe('CARD_PAUSED');
  });

  it('answers approved spend and attempts over windows and merchant filters', async () => {
    const program = await context.server.newProgram();
    const { client } = program;
    await moveClock(client, '2031-03-10T12:00:00.000Z');
    const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'TRANSACTION' });
    const sibling = await client.cards.create({ type: 'VIRTUAL', account_token: card.account_token });
    await authorize(client, card, 300, { mcc: '5411' });
    await moveClock(client, '2031-03-12T12:00:00.000Z');
    const cleared = await authorize(client, card, 200, { mcc: '5812' });
    await client.transactions.simulateClearing({ token: cleared, amount: 250 });
    const voided = await authorize(client, card, 400, { mcc: '5812' });
    await client.transactions.simulateVoid({ token: voided, amount: 150 });
    await authorize(client, card, 5_000);
    await authorize(client, card, 100, { status: 'CREDIT_AUTHORIZATION' });
    await authorize(client, { pan: sibling.pan as string }, 70, { status: 'FINANCIAL_AUTHORIZATION', mcc: '5411' });

    const now = Date.parse('2031-03-12T12:10:00.000Z');
    const history: AuthorizationHistory = authorizationHistory(context.server.server.db.kysely, program.programId, now);
    const since = (iso: string) => Date.parse(iso);
    const card_ = { scope: 'CARD' as const, token: card.token };
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-01T00:00:00Z'), until_ms: now + 1 })).toEqual({ amount_cents: 300 + 250 + 250, count: 3 });
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-11T00:00:00Z'), until_ms: now + 1 })).toEqual({ amount_cents: 500, count: 2 });
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-10T06:00:00Z'), until_ms: since('2031-03-11T00:00:00Z') })).toEqual({ amount_cents: 300, count: 1 });
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-10T13:00:00Z'), until_ms: since('2031-03-12T18:00:00Z') })).toEqual({ amount_cents: 500, count: 2 });
    expect(await history.approvedSpend({ scope: 'ACCOUNT', token: card.account_token, since_ms: since('2031-03-01T00:00:00Z'), until_ms: now + 1 })).toEqual({ amount_cents: 870, count: 4 });
    expect(
      await history.approvedSpend({ scope: 'ACCOUNT', token: card.account_token, since_ms: since('2031-03-01T00:00:00Z'), until_ms: now + 1, filters: { include_mccs: ['5411'] } }),
    ).toEqual({ amount_cents: 370, count: 2 });
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-01T00:00:00Z'), until_ms: now + 1, filters: { exclude_mccs: ['5411'], include_countries: ['USA'] } })).toEqual({
      amount_cents: 500,
      count: 2,
    });
    expect(await history.approvedSpend({ ...card_, since_ms: since('2031-03-01T00:00:00Z'), until_ms: now + 1, filters: { exclude_countries: ['USA'] } })).toEqual({ amount_cents: 0, count: 0 });
    expect(await history.cardTransactionCount(card.token, since('2031-03-12T00:00:00Z'), now + 1)).toBe(4);
    expect(await history.cardTransactionCount(card.token, since('2031-03-01T00:00:00Z'), now + 1)).toBe(5);
  });
});
