/** 3DS authentications end to end over HTTP: the simulator, retrieval, CONDITIONAL_3DS_ACTION rules and their report. */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { beforeAll, expect, it } from 'vitest';
import { addDays } from '../auth_rules/report.js';
import { conditionalBlock, createRule, enforcedRule, moveClock, newCard, threeDsAction } from '../testing/auth_rules.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { expectError } from '../testing/money.js';

type SimulateParams = Lithic.ThreeDS.AuthenticationSimulateParams;

const START = '2031-06-01';

describeWithDb('3DS authentications', () => {
  const context = useTestServer();
  let client: Lithic;
  let card: Lithic.Card;

  beforeAll(async () => {
    client = context.program.client;
    await moveClock(client, `${START}T12:00:00.000Z`);
    card = await newCard(client);
  });

  function body(overrides: Partial<SimulateParams> = {}, pan = card.pan as string): SimulateParams {
    return {
      pan,
      merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'GROCER' },
      transaction: { amount: 2_500, currency: 'USD' },
      ...overrides,
    };
  }
  async function simulate(overrides: Partial<SimulateParams> = {}, pan?: string) {
    const { token } = await client.threeDS.authentication.simulate(body(overrides, pan));
    return client.threeDS.authentication.retrieve(token as string);
  }

  it('succeeds by default and shows the merchant, transaction and card', async () => {
    const { token } = await client.threeDS.authentication.simulate(body());
    const authentication = await client.threeDS.authentication.retrieve(token as string);
    expect(authentication).toEqual({
      token,
      account_type: 'DEBIT',
      authentication_result: 'SUCCESS',
      card_expiry_check: 'MATCH',
      card_token: card.token,
      cardholder: { address_match: null },
      channel: 'BROWSER',
      created: expect.stringMatching(new RegExp(`^${START}T12:`)),
      merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'GROCER', risk_indicator: {} },
      message_category: 'PAYMENT_AUTHENTICATION',
      three_ds_requestor_challenge_indicator: 'NO_PREFERENCE',
      authentication_request_type: 'PAYMENT_TRANSACTION',
      challenge_metadata: null,
      challenge_orchestrated_by: 'NO_CHALLENGE',
      decision_made_by: 'LITHIC_DEFAULT',
      transaction: { amount: 2_500, cardholder_amount: 2_500, currency: 'USD', currency_exponent: 2, date_time: authentication.created, type: 'GOODS_SERVICE_PURCHASE' },
      additional_data: null,
      app: null,
      browser: null,
      three_ri_request_type: null,
    });
  });

  it('challenges when the merchant name contains CHALLENGE', async () => {
    const authentication = await simulate({ merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'SHOP CHALLENGE' } });
    expect(authentication).toMatchObject({
      authentication_result: 'PENDING_CHALLENGE',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'PENDING', phone_number: null },
      challenge_orchestrated_by: 'LITHIC',
      decision_made_by: 'LITHIC_DEFAULT',
    });
  });

  it('declines an expiry mismatch and a card that cannot be used', async () => {
    expect(await simulate({ card_expiry_check: 'MISMATCH' })).toMatchObject({ authentication_result: 'DECLINE', card_expiry_check: 'MISMATCH' });
    expect(await simulate({ card_expiry_check: 'NOT_PRESENT' })).toMatchObject({ authentication_result: 'SUCCESS', card_expiry_check: 'NOT_PRESENT' });
    const paused = await newCard(client);
    await client.cards.update(paused.token, { state: 'PAUSED' });
    expect(await simulate({}, paused.pan)).toMatchObject({ authentication_result: 'DECLINE', card_token: paused.token });
  });

  it('declines a card whose account or ISSUING financial account cannot be used, as an authorization would', async () => {
    const fresh = await context.server.newProgram('account states');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    const run = async () => {
      const { token } = await fresh.client.threeDS.authentication.simulate(body({}, freshCard.pan));
      return fresh.client.threeDS.authentication.retrieve(token as string);
    };
    expect(await run()).toMatchObject({ authentication_result: 'SUCCESS' });
    await fresh.client.accounts.update(freshCard.account_token, { state: 'PAUSED' });
    expect(await run()).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'LITHIC_DEFAULT', card_token: freshCard.token });
    await fresh.client.accounts.update(freshCard.account_token, { state: 'ACTIVE' });
    expect(await run()).toMatchObject({ authentication_result: 'SUCCESS' });
    await fresh.client.financialAccounts.updateStatus(freshCard.funding.token, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
    expect(await run()).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'LITHIC_DEFAULT' });
  });

  it('finds the card by PAN within the calling program only', async () => {
    const stranger = await context.server.newProgram('stranger');
    const strangerCard = await newCard(stranger.client);
    expect(await expectError(client.threeDS.authentication.simulate(body({}, strangerCard.pan)), 404)).toBe('pan: no card with this number in this program');
    const { token } = await client.threeDS.authentication.simulate(body());
    await expectError(stranger.client.threeDS.authentication.retrieve(token as string), 404);
    await expectError(client.threeDS.authentication.retrieve(crypto.randomUUID()), 404);
  });

  it.each([
    [{ pan: '4111' }, 'pan: must match pattern'],
    [{ merchant: { id: 'M-1', country: 'us', mcc: '5411', name: 'X' } }, 'merchant.country: must match pattern'],
    [{ merchant: { id: 'M-1', country: 'USA', mcc: '54', name: 'X' } }, 'merchant.mcc: must match pattern'],
    [{ merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: '' } }, 'merchant.name: must NOT have fewer than 1 characters'],
    [{ transaction: { amount: -1, currency: 'USD' } }, 'transaction.amount: must be >= 0'],
    [{ transaction: { amount: 1, currency: 'dollars' } }, 'transaction.currency: must match pattern'],
    [{ card_expiry_check: 'SOMETIMES' }, 'card_expiry_check: must be one of MATCH, MISMATCH, NOT_PRESENT'],
  ])('refuses a bad simulation body with 400 (%#)', async (overrides, message) => {
    expect(await expectError(client.threeDS.authentication.simulate({ ...body(), ...overrides } as SimulateParams), 400)).toContain(message);
  });

  it('applies CONDITIONAL_3DS_ACTION rules: DECLINE before CHALLENGE, drafts in shadow, authorization rules not at all', async () => {
    const fresh = await context.server.newProgram('rules');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    const run = async (amount: number, mcc = '5411') => {
      const { token } = await fresh.client.threeDS.authentication.simulate({ ...body({}, freshCard.pan), merchant: { id: 'M-1', country: 'USA', mcc, name: 'GROCER' }, transaction: { amount, currency: 'USD' } });
      return fresh.client.threeDS.authentication.retrieve(token as string);
    };
    await enforcedRule(fresh.client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }]));
    await createRule(fresh.client, threeDsAction('DECLINE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 0 }]));
    expect(await run(100)).toMatchObject({ authentication_result: 'SUCCESS' });

    const challenge = await enforcedRule(fresh.client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 10_000 }], { card_tokens: [freshCard.token] }));
    const decline = await enforcedRule(fresh.client, threeDsAction('DECLINE', [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }, { attribute: 'MESSAGE_CATEGORY', operation: 'IS_ONE_OF', value: ['PAYMENT_AUTHENTICATION'] }]));
    expect(await run(20_000)).toMatchObject({ authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'CUSTOMER_RULES', challenge_orchestrated_by: 'LITHIC' });
    expect(await run(20_000, '7995')).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'CUSTOMER_RULES' });
    expect(await run(500, '7995')).toMatchObject({ authentication_result: 'DECLINE' });
    expect(await run(500)).toMatchObject({ authentication_result: 'SUCCESS' });

    await fresh.client.authRules.v2.update(challenge.token, { card_tokens: [] });
    expect(await run(20_000)).toMatchObject({ authentication_result: 'SUCCESS' });

    // The report counts each evaluation of the two enforced rules: challenged, declined, approved.
    await moveClock(fresh.client, `${addDays(START, 1)}T12:00:00.000Z`);
    const day = (await fresh.client.authRules.v2.retrieveReport(challenge.token, { begin: START, end: START })).daily_statistics[0];
    expect(day?.current_version_statistics).toMatchObject({ challenged: 2, declined: 0, approved: 2, version: 1 });
    expect(day?.draft_version_statistics).toMatchObject({ challenged: 0, declined: 0, approved: 0, version: 1 });
    expect(day?.current_version_statistics?.examples?.filter((example) => example.decision === 'CHALLENGED')).toHaveLength(2);
    expect(day?.current_version_statistics?.examples?.every((example) => example.approved === (example.decision === 'APPROVED'))).toBe(true);
    const declines = (await fresh.client.authRules.v2.retrieveReport(decline.token, { begin: START, end: START })).daily_statistics[0];
    expect(declines?.current_version_statistics).toMatchObject({ challenged: 0, declined: 2, approved: 3 });
  });
});
