/**
 * 3DS authentications end to end over HTTP: the simulator, retrieval, CONDITIONAL_3DS_ACTION rules and their report,
 * and the resolution of a pending challenge (challenge_response, the simulated OTP entry).
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, expect, it } from 'vitest';
import { addDays } from '../auth_rules/report.js';
import { conditionalBlock, createRule, enforcedRule, moveClock, newCard, threeDsAction } from '../testing/auth_rules.js';
import { movableWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { enroll, kybBody, kycExemptBody } from '../testing/enrollment.js';
import { expectError } from '../testing/money.js';
import * as service from './service.js';

type SimulateParams = Lithic.ThreeDS.AuthenticationSimulateParams;

const START = '2031-06-01';
/** Real speed from before every program's first move (to START at noon), so a test can push every program's clock past a challenge's TTL. */
const { wall, advance } = movableWallClock(`${START}T11:00:00.000Z`);
/** The challenge TTL Lithic documents: "usually 10 minutes". */
const TTL_MS = 10 * 60_000;
const at = (ms: number) => new Date(ms).toISOString();

describeWithDb('3DS authentications', () => {
  const context = useTestServer({ wall });
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
      // The SDK: date_time is "in the ISO 8601 format yyyy-MM-dd'T'hh:mm:ssZ" (whole seconds).
      transaction: { amount: 2_500, cardholder_amount: 2_500, currency: 'USD', currency_exponent: 2, date_time: authentication.created.replace(/\.\d{3}Z$/, 'Z'), type: 'GOODS_SERVICE_PURCHASE' },
      additional_data: null,
      app: null,
      // The SDK: browser is present when the channel is BROWSER; the simulation says nothing of it.
      browser: { accept_header: null, ip: null, java_enabled: null, javascript_enabled: null, language: null, time_zone: null, user_agent: null },
      three_ri_request_type: null,
    });
  });

  it('refuses a blank merchant id or name, or one with a control character, with 400 naming it (the schema refuses it before anything is read)', async () => {
    for (const field of ['id', 'name'] as const) {
      for (const value of [' ', '\u3000', 'GROCER\n', 'A\u0007B']) {
        const merchant = { ...body().merchant, [field]: value };
        const message = await expectError(client.threeDS.authentication.simulate(body({ merchant })), 400);
        expect(message, JSON.stringify(value)).toBe(`merchant.${field}: must contain a character other than white space, and no control characters`);
      }
    }
    // Spaces inside and other scripts still pass.
    expect((await simulate({ merchant: { ...body().merchant, name: ' 東京 GROCER ' } })).merchant.name).toBe(' 東京 GROCER ');
  });

  it("documents the SDK's enums of the authentication in /openapi.json", async () => {
    type Schema = { type?: string | string[]; enum?: unknown[]; properties?: Record<string, Schema>; anyOf?: Schema[] };
    type Document = { paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { schema: Schema }> }> } }> };
    const document = (await (await context.server.request('GET', '/openapi.json')).json()) as Document;
    const schema = document.paths['/v1/three_ds_authentication/{three_ds_authentication_token}']?.get?.responses['200']?.content['application/json']?.schema;
    const properties = schema?.properties ?? {};
    expect(properties.three_ds_requestor_challenge_indicator?.enum).toHaveLength(7);
    expect(properties.three_ds_requestor_challenge_indicator?.enum).toEqual(expect.arrayContaining(['NO_PREFERENCE', 'CHALLENGE_MANDATE', 'DATA_SHARE_ONLY', 'OTHER']));
    expect(properties.authentication_request_type?.enum).toEqual(expect.arrayContaining(['ADD_CARD', 'PAYMENT_TRANSACTION', 'SPLIT_SHIPMENT', null]));
    expect(properties.transaction?.properties?.type?.enum).toEqual(['ACCOUNT_FUNDING', 'CHECK_ACCEPTANCE', 'GOODS_SERVICE_PURCHASE', 'PREPAID_ACTIVATION_AND_LOAD', 'QUASI_CASH_TRANSACTION', null]);
    expect(Object.keys(properties.browser?.anyOf?.[0]?.properties ?? {})).toEqual(['accept_header', 'ip', 'java_enabled', 'javascript_enabled', 'language', 'time_zone', 'user_agent']);
  });

  it("gives the purchase currency's ISO 4217 exponent, and a cardholder amount only in the cardholder's currency (USD)", async () => {
    const inCurrency = async (currency: string) => (await simulate({ transaction: { amount: 1_000, currency } })).transaction;
    expect(await inCurrency('JPY')).toMatchObject({ amount: 1_000, currency: 'JPY', currency_exponent: 0, cardholder_amount: null });
    expect(await inCurrency('BHD')).toMatchObject({ amount: 1_000, currency: 'BHD', currency_exponent: 3, cardholder_amount: null });
    expect(await inCurrency('EUR')).toMatchObject({ amount: 1_000, currency: 'EUR', currency_exponent: 2, cardholder_amount: null });
    expect(await inCurrency('USD')).toMatchObject({ amount: 1_000, currency: 'USD', currency_exponent: 2, cardholder_amount: 1_000 });
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

  it("finds the card by PAN within the calling program only: another program's PAN or an unknown one is the 422 of the other simulations", async () => {
    const stranger = await context.server.newProgram('stranger');
    const strangerCard = await newCard(stranger.client);
    const unprocessable = 'pan: no card with this number in this program; the message cannot be processed';
    expect(await expectError(client.threeDS.authentication.simulate(body({}, strangerCard.pan)), 422)).toBe(unprocessable);
    expect(await expectError(client.threeDS.authentication.simulate(body({}, '4111111111111111')), 422)).toBe(unprocessable);
    expect(await expectError(client.transactions.simulateAuthorization({ amount: 100, descriptor: 'SHOP', pan: strangerCard.pan as string }), 422)).toBe(unprocessable);
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
    // Codes of the right form that do not exist, or that EMV 3DS does not take as a purchase currency.
    [{ merchant: { id: 'M-1', country: 'ZZZ', mcc: '5411', name: 'X' } }, 'merchant.country: must be an uppercase ISO 3166-1 alpha-3 code (or QZZ, Kosovo, or ANT, Netherlands Antilles), e.g. USA'],
    [{ transaction: { amount: 1, currency: 'ZZZ' } }, 'transaction.currency: must be an ISO 4217 currency code'],
    [{ transaction: { amount: 1, currency: 'XXX' } }, 'transaction.currency: must be an ISO 4217 currency code'],
    [{ transaction: { amount: 1, currency: 'XAU' } }, 'transaction.currency: must be an ISO 4217 currency code'],
    [{ transaction: { amount: 2_000_000_001, currency: 'USD' } }, 'transaction.amount: must be <= 2000000000'],
    [{ transaction: { amount: 1.5, currency: 'USD' } }, 'transaction.amount: must be integer'],
    [{ transaction: { amount: '100', currency: 'USD' } }, 'transaction.amount: must be integer'],
    [{ transaction: undefined }, 'transaction: is required'],
    [{ merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'X', city: 'Y' } }, 'merchant.city: is not a recognised field'],
  ])('refuses a bad simulation body with 400 and records nothing (%#)', async (overrides, message) => {
    const eventsBefore = (await client.events.list({ page_size: 100 })).data;
    expect(await expectError(client.threeDS.authentication.simulate({ ...body(), ...overrides } as SimulateParams), 400)).toContain(message);
    expect((await client.events.list({ page_size: 100 })).data).toEqual(eventsBefore);
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

  it("takes the card acceptor countries the SDK's COUNTRY attribute lists beside ISO 3166-1's (QZZ, ANT), and a rule sees them", async () => {
    const fresh = await context.server.newProgram('3ds countries');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    await enforcedRule(fresh.client, threeDsAction('DECLINE', [{ attribute: 'COUNTRY', operation: 'IS_ONE_OF', value: ['QZZ'] }]));
    const inCountry = async (country: string) => {
      const { token } = await fresh.client.threeDS.authentication.simulate({ ...body({}, freshCard.pan), merchant: { id: 'M-1', country, mcc: '5411', name: 'GROCER' } });
      const { merchant, authentication_result } = await fresh.client.threeDS.authentication.retrieve(token as string);
      return `${merchant.country} ${authentication_result}`;
    };
    expect([await inCountry('QZZ'), await inCountry('ANT'), await inCountry('CAN')]).toEqual(['QZZ DECLINE', 'ANT SUCCESS', 'CAN SUCCESS']);
  });

  it("gives a 3DS rule's TRANSACTION_AMOUNT in the cardholder's currency (the SDK: 'in the settlement/cardholder billing currency'): the cardholder amount, none for a purchase in another currency", async () => {
    const fresh = await context.server.newProgram('3ds amounts');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    await enforcedRule(fresh.client, threeDsAction('DECLINE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 500 }]));
    await enforcedRule(fresh.client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_LESS_THAN_OR_EQUAL_TO', value: 500 }]));
    const inCurrency = async (amount: number, currency: string) => {
      const { token } = await fresh.client.threeDS.authentication.simulate({ ...body({}, freshCard.pan), transaction: { amount, currency } });
      const { transaction, authentication_result } = await fresh.client.threeDS.authentication.retrieve(token as string);
      return `${transaction?.amount} ${currency} (cardholder ${transaction?.cardholder_amount}): ${authentication_result}`;
    };
    // 1.000 BHD (about 2.65 USD) is not more than 5.00 USD, nor 400 JPY (about 2.70 USD) "400 cents": with no conversion rate the rules cannot tell.
    expect([await inCurrency(1_000, 'USD'), await inCurrency(400, 'USD'), await inCurrency(1_000, 'BHD'), await inCurrency(400, 'JPY')]).toEqual([
      '1000 USD (cardholder 1000): DECLINE',
      '400 USD (cardholder 400): PENDING_CHALLENGE',
      '1000 BHD (cardholder null): SUCCESS',
      '400 JPY (cardholder null): SUCCESS',
    ]);
  });

  it('applies 3DS rules by scope (account, business account, program minus exclusions), CONDITIONAL_ACTION on this stream too, and never an INACTIVE rule', async () => {
    const fresh = await context.server.newProgram('3ds scopes');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const holder = await enroll(fresh.client, kycExemptBody());
    const business = await enroll(fresh.client, kybBody('KYB_BYO'));
    const user = await enroll(fresh.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token });
    const [plain, held, excluded, authorizedUser] = [await newCard(fresh.client), await newCard(fresh.client, holder.account_token), await newCard(fresh.client), await newCard(fresh.client, user.account_token)];
    const resultFor = async (target: Lithic.Card, mcc: string) => {
      const { token } = await fresh.client.threeDS.authentication.simulate({ ...body({}, target.pan), merchant: { id: 'M-1', country: 'USA', mcc, name: 'GROCER' } });
      return (await fresh.client.threeDS.authentication.retrieve(token as string)).authentication_result;
    };
    const mcc = (code: string) => [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: [code] }];
    await enforcedRule(fresh.client, threeDsAction('DECLINE', mcc('1111'), { account_tokens: [holder.account_token] }));
    await enforcedRule(fresh.client, threeDsAction('DECLINE', mcc('2222'), { business_account_tokens: [business.account_token] }));
    await enforcedRule(fresh.client, threeDsAction('CHALLENGE', mcc('3333'), { program_level: true, excluded_card_tokens: [excluded.token] }));
    await enforcedRule(fresh.client, { type: 'CONDITIONAL_ACTION', event_stream: 'THREE_DS_AUTHENTICATION', parameters: { action: 'DECLINE', conditions: mcc('4444') }, card_tokens: [plain.token] });
    const inactive = await enforcedRule(fresh.client, threeDsAction('DECLINE', mcc('5555')));
    await fresh.client.authRules.v2.update(inactive.token, { state: 'INACTIVE' });

    expect([await resultFor(held, '1111'), await resultFor(plain, '1111')]).toEqual(['DECLINE', 'SUCCESS']);
    expect([await resultFor(authorizedUser, '2222'), await resultFor(held, '2222')]).toEqual(['DECLINE', 'SUCCESS']);
    expect([await resultFor(plain, '3333'), await resultFor(excluded, '3333')]).toEqual(['PENDING_CHALLENGE', 'SUCCESS']);
    expect([await resultFor(plain, '4444'), await resultFor(held, '4444')]).toEqual(['DECLINE', 'SUCCESS']);
    expect(await resultFor(plain, '5555')).toBe('SUCCESS');
  });

  it('declines a CLOSED or expired card before any rule (the rules do not count it)', async () => {
    const fresh = await context.server.newProgram('3ds card states');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const rule = await enforcedRule(fresh.client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 0 }]));
    const closed = await newCard(fresh.client);
    await fresh.client.cards.update(closed.token, { state: 'CLOSED' });
    const expiring = await newCard(fresh.client);
    const run = async (target: Lithic.Card) => {
      const { token } = await fresh.client.threeDS.authentication.simulate(body({}, target.pan));
      return fresh.client.threeDS.authentication.retrieve(token as string);
    };
    expect(await run(closed)).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'LITHIC_DEFAULT', challenge_metadata: null });
    expect(await run(expiring)).toMatchObject({ authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'CUSTOMER_RULES' });
    const counted = async (day: string) => {
      await moveClock(fresh.client, `${addDays(day, 1)}T12:00:00.000Z`);
      return (await fresh.client.authRules.v2.retrieveReport(rule.token, { begin: day, end: day })).daily_statistics[0]?.current_version_statistics;
    };
    expect(await counted(START)).toMatchObject({ challenged: 1, declined: 0, approved: 0 });

    const afterExpiry = `${Number(expiring.exp_year) + 1}-01-01`;
    await moveClock(fresh.client, `${afterExpiry}T12:00:00.000Z`);
    expect(await run(expiring)).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'LITHIC_DEFAULT' });
    expect(await counted(afterExpiry)).toMatchObject({ challenged: 0, declined: 0, approved: 0 });
  });

  // ---- resolving a pending challenge ------------------------------------------------------------

  const CHALLENGE_MERCHANT = { id: 'M-1', country: 'USA', mcc: '5411', name: 'SHOP CHALLENGE' };

  async function challenged(program: { client: Lithic } = { client }, pan = card.pan as string): Promise<string> {
    const { token } = await program.client.threeDS.authentication.simulate({ ...body({}, pan), merchant: CHALLENGE_MERCHANT });
    expect((await program.client.threeDS.authentication.retrieve(token as string)).authentication_result).toBe('PENDING_CHALLENGE');
    return token as string;
  }

  it('resolves a pending challenge with challenge_response: APPROVE is SUCCESS, DECLINE_BY_CUSTOMER is DECLINE, nothing else changes', async () => {
    const approved = await challenged();
    const before = await client.threeDS.authentication.retrieve(approved);
    await moveClock(client, `${START}T12:05:00.000Z`);
    expect(await client.threeDS.decisioning.challengeResponse({ token: approved, challenge_response: 'APPROVE' })).toBeFalsy();
    expect(await client.threeDS.authentication.retrieve(approved)).toEqual({
      ...before,
      authentication_result: 'SUCCESS',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'SUCCESS', phone_number: null },
      challenge_orchestrated_by: 'LITHIC',
      decision_made_by: 'LITHIC_DEFAULT',
    });

    const declined = await challenged();
    const pending = await client.threeDS.authentication.retrieve(declined);
    await client.threeDS.decisioning.challengeResponse({ token: declined, challenge_response: 'DECLINE_BY_CUSTOMER' });
    expect(await client.threeDS.authentication.retrieve(declined)).toEqual({
      ...pending,
      authentication_result: 'DECLINE',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'CANCELED_OOB', phone_number: null },
    });
  });

  it('answers a resolution with an empty 200 (the SDK reads it as void), upper-case tokens included', async () => {
    const token = await challenged();
    const response = await context.server.request('POST', '/v1/three_ds_decisioning/challenge_response', {
      apiKey: context.program.apiKey,
      body: { token: token.toUpperCase(), challenge_response: 'APPROVE' },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(response.headers.get('content-type')).toBeNull();
    const otp = await context.server.request('POST', '/v1/three_ds_decisioning/simulate/enter_otp', { apiKey: context.program.apiKey, body: { token: await challenged(), otp: '123456' } });
    expect([otp.status, await otp.text(), otp.headers.get('content-type')]).toEqual([200, '', null]);
  });

  it('simulates the OTP entry: 123456 is the right code (SUCCESS), any other declines; one attempt only', async () => {
    const right = await challenged();
    expect(await client.threeDS.authentication.simulateOtpEntry({ token: right, otp: '123456' })).toBeFalsy();
    expect(await client.threeDS.authentication.retrieve(right)).toMatchObject({
      authentication_result: 'SUCCESS',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'SUCCESS', phone_number: null },
      challenge_orchestrated_by: 'LITHIC',
    });

    const wrong = await challenged();
    await client.threeDS.authentication.simulateOtpEntry({ token: wrong, otp: '654321' });
    expect(await client.threeDS.authentication.retrieve(wrong)).toMatchObject({
      authentication_result: 'DECLINE',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'ATTEMPTS_EXCEEDED', phone_number: null },
      challenge_orchestrated_by: 'LITHIC',
    });
    expect(await expectError(client.threeDS.authentication.simulateOtpEntry({ token: wrong, otp: '123456' }), 422)).toBe(
      `token: 3DS authentication '${wrong}' is not awaiting a challenge: its authentication_result is DECLINE`,
    );
    expect((await client.threeDS.authentication.retrieve(wrong)).authentication_result).toBe('DECLINE');
  });

  it('resolves only a pending challenge: a second resolution, or one of a SUCCESS or DECLINE authentication, is a 422 naming its result', async () => {
    const succeeded = (await simulate()).token;
    const declined = (await simulate({ card_expiry_check: 'MISMATCH' })).token;
    const resolved = await challenged();
    await client.threeDS.decisioning.challengeResponse({ token: resolved, challenge_response: 'DECLINE_BY_CUSTOMER' });
    for (const [token, result] of [[succeeded, 'SUCCESS'], [declined, 'DECLINE'], [resolved, 'DECLINE']] as const) {
      const message = `token: 3DS authentication '${token}' is not awaiting a challenge: its authentication_result is ${result}`;
      expect(await expectError(client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }), 422)).toBe(message);
      expect(await expectError(client.threeDS.authentication.simulateOtpEntry({ token, otp: '123456' }), 422)).toBe(message);
      expect((await client.threeDS.authentication.retrieve(token)).authentication_result).toBe(result);
    }
    expect((await client.threeDS.authentication.retrieve(succeeded)).challenge_metadata).toBeNull();
  });

  it("answers an unknown or another program's token: 404 for challenge_response, 422 for the simulated OTP entry", async () => {
    const stranger = await context.server.newProgram('stranger challenge');
    await moveClock(stranger.client, `${START}T12:00:00.000Z`);
    const theirs = await challenged(stranger, (await newCard(stranger.client)).pan);
    for (const token of [theirs, crypto.randomUUID()]) {
      expect(await expectError(client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }), 404)).toBe(`token: 3DS authentication '${token}' not found`);
      expect(await expectError(client.threeDS.authentication.simulateOtpEntry({ token, otp: '123456' }), 422)).toBe(
        `token: no 3DS authentication '${token}' in this program; the message cannot be processed`,
      );
    }
    expect((await stranger.client.threeDS.authentication.retrieve(theirs)).authentication_result).toBe('PENDING_CHALLENGE');
  });

  it.each([
    [{ otp: '123' }, 'otp: must match pattern'],
    [{ otp: '123456789' }, 'otp: must match pattern'],
    [{ otp: '12a456' }, 'otp: must match pattern'],
    [{ otp: 123456 }, 'otp: must be string'],
    [{ otp: undefined }, 'otp: is required'],
    [{ token: 'not-a-token' }, 'token: must be a valid uuid'],
    [{ extra: 1 }, 'extra'],
  ])('refuses a bad OTP entry with 400 and leaves the challenge pending (%#)', async (overrides, message) => {
    const token = await challenged();
    const params = { token, otp: '123456', ...overrides } as Lithic.ThreeDS.AuthenticationSimulateOtpEntryParams;
    expect(await expectError(client.threeDS.authentication.simulateOtpEntry(params), 400)).toContain(message);
    expect((await client.threeDS.authentication.retrieve(token)).authentication_result).toBe('PENDING_CHALLENGE');
  });

  it.each([
    [{ challenge_response: 'MAYBE' }, 'challenge_response: must be one of APPROVE, DECLINE_BY_CUSTOMER'],
    [{ challenge_response: undefined }, 'challenge_response: is required'],
    [{ token: undefined }, 'token: is required'],
    [{ token: 'not-a-token' }, 'token: must be a valid uuid'],
  ])('refuses a bad challenge response with 400 (%#)', async (overrides, message) => {
    const token = await challenged();
    const params = { token, challenge_response: 'APPROVE', ...overrides } as Lithic.ThreeDS.DecisioningChallengeResponseParams;
    expect(await expectError(client.threeDS.decisioning.challengeResponse(params), 400)).toContain(message);
    expect((await client.threeDS.authentication.retrieve(token)).authentication_result).toBe('PENDING_CHALLENGE');
  });

  it('replays a resolution repeated with the same Idempotency-Key; another key is the 422', async () => {
    // The SDK does not send Idempotency-Key by itself: pass the header.
    const keyed = () => ({ headers: { 'Idempotency-Key': crypto.randomUUID() } });
    const token = await challenged();
    const options = keyed();
    await client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }, options);
    expect(await client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }, options)).toBeFalsy();
    const replay = await client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }, options).asResponse();
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('content-type'), await replay.text()]).toEqual([200, 'true', null, '']);
    expect(await expectError(client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'DECLINE_BY_CUSTOMER' }, options), 400)).toContain('Idempotency-Key');
    await expectError(client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'APPROVE' }, keyed()), 422);
    expect((await client.threeDS.authentication.retrieve(token)).authentication_result).toBe('SUCCESS');

    const otpToken = await challenged();
    const otpOptions = keyed();
    await client.threeDS.authentication.simulateOtpEntry({ token: otpToken, otp: '000000' }, otpOptions);
    expect(await client.threeDS.authentication.simulateOtpEntry({ token: otpToken, otp: '000000' }, otpOptions)).toBeFalsy();
    expect((await client.threeDS.authentication.retrieve(otpToken)).authentication_result).toBe('DECLINE');
  });

  it('of concurrent resolutions of one challenge, exactly one wins; the others get the 422', async () => {
    const token = await challenged();
    const calls = Array.from({ length: 12 }, (_, index) => {
      if (index % 3 === 0) return client.threeDS.authentication.simulateOtpEntry({ token, otp: index % 2 === 0 ? '123456' : '111111' });
      return client.threeDS.decisioning.challengeResponse({ token, challenge_response: index % 2 === 0 ? 'APPROVE' : 'DECLINE_BY_CUSTOMER' });
    });
    const outcomes = await Promise.allSettled(calls);
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(lost.map((outcome) => (outcome.reason as InstanceType<typeof Lithic.APIError>).status)).toEqual(Array(11).fill(422));
    const result = (await client.threeDS.authentication.retrieve(token)).authentication_result;
    expect(['SUCCESS', 'DECLINE']).toContain(result);
    for (const outcome of lost) expect((outcome.reason as InstanceType<typeof Lithic.APIError>).message).toContain(`its authentication_result is ${result}`);
  });

  it('a resolution arriving while another is in progress waits for it, then finds the challenge resolved (the row is locked)', async () => {
    const token = await challenged();
    const { db } = context.server.server;
    const issuedMs = Date.parse((await client.threeDS.authentication.retrieve(token)).created);
    const scope = { programId: context.program.programId, clockOffsetMs: 0, nowMs: issuedMs + 60_000 };
    let second: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await service.respondToChallenge(db, tx, scope, { token, challenge_response: 'APPROVE' });
      second = client.threeDS.decisioning.challengeResponse({ token, challenge_response: 'DECLINE_BY_CUSTOMER' });
      await new Promise((resolve) => setTimeout(resolve, 150));
    });
    expect(await expectError(second as Promise<unknown>, 422)).toContain('its authentication_result is SUCCESS');
    expect(await client.threeDS.authentication.retrieve(token)).toMatchObject({ authentication_result: 'SUCCESS', challenge_metadata: { status: 'SUCCESS' } });
  });

  it("keeps the CHALLENGE rule's evaluation counted as challenged after the challenge is resolved", async () => {
    const fresh = await context.server.newProgram('challenge report');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    const rule = await enforcedRule(fresh.client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1_000 }]));
    const run = async () => {
      const { token } = await fresh.client.threeDS.authentication.simulate(body({}, freshCard.pan));
      const authentication = await fresh.client.threeDS.authentication.retrieve(token as string);
      expect(authentication).toMatchObject({ authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'CUSTOMER_RULES' });
      return token as string;
    };
    const approved = await run();
    const declined = await run();
    await fresh.client.threeDS.decisioning.challengeResponse({ token: approved, challenge_response: 'APPROVE' });
    await fresh.client.threeDS.authentication.simulateOtpEntry({ token: declined, otp: '999999' });
    expect(await fresh.client.threeDS.authentication.retrieve(approved)).toMatchObject({ authentication_result: 'SUCCESS', decision_made_by: 'CUSTOMER_RULES' });
    expect(await fresh.client.threeDS.authentication.retrieve(declined)).toMatchObject({ authentication_result: 'DECLINE', decision_made_by: 'CUSTOMER_RULES' });

    await moveClock(fresh.client, `${addDays(START, 1)}T12:00:00.000Z`);
    const day = (await fresh.client.authRules.v2.retrieveReport(rule.token, { begin: START, end: START })).daily_statistics[0];
    expect(day?.current_version_statistics).toMatchObject({ challenged: 2, declined: 0, approved: 0 });
    expect(day?.current_version_statistics?.examples?.map((example) => example.event_token).sort()).toEqual([approved, declined].sort());
    expect(day?.current_version_statistics?.examples?.every((example) => example.decision === 'CHALLENGED')).toBe(true);
  });

  it('sends the OTP to the phone of the account holder when the challenge is issued: an individual\'s, a business\'s control person\'s, none without a holder', async () => {
    const fresh = await context.server.newProgram('otp phone');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const individual = await enroll(fresh.client, kycExemptBody());
    const business = await enroll(fresh.client, kybBody('KYB_BYO'));
    const [individualCard, businessCard, plainCard] = [await newCard(fresh.client, individual.account_token), await newCard(fresh.client, business.account_token), await newCard(fresh.client)];
    const phoneOf = async (token: string) => (await fresh.client.threeDS.authentication.retrieve(token)).challenge_metadata?.phone_number;
    const before = await challenged(fresh, individualCard.pan);
    expect(await phoneOf(before)).toBe('+15555550102');
    expect(await phoneOf(await challenged(fresh, businessCard.pan))).toBe('+15555550100');
    expect(await phoneOf(await challenged(fresh, plainCard.pan))).toBeNull();

    // The holder's phone changes: a challenge issued before keeps the phone its OTP went to, resolved or not.
    await fresh.client.accountHolders.update(individual.token, { phone_number: '+15555550199' });
    expect(await phoneOf(before)).toBe('+15555550102');
    expect(await phoneOf(await challenged(fresh, individualCard.pan))).toBe('+15555550199');
    await fresh.client.threeDS.decisioning.challengeResponse({ token: before, challenge_response: 'APPROVE' });
    expect((await fresh.client.threeDS.authentication.retrieve(before)).challenge_metadata).toEqual({ method_type: 'SMS_OTP', status: 'SUCCESS', phone_number: '+15555550102' });
  });

  // ---- a challenge that times out ---------------------------------------------------------------

  it('times out a challenge not resolved within the 10-minute TTL of the program clock: DECLINE, CARDHOLDER_TIMEOUT, announced when the TTL ended; a later resolution is the 422 naming it; the report still counts it challenged', async () => {
    const fresh = await context.server.newProgram('challenge timeout');
    await moveClock(fresh.client, `${START}T12:00:00.000Z`);
    const freshCard = await newCard(fresh.client);
    const rule = await enforcedRule(fresh.client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1_000 }]));
    const first = await challenged(fresh, freshCard.pan);
    const issuedMs = Date.parse((await fresh.client.threeDS.authentication.retrieve(first)).created);

    await moveClock(fresh.client, at(issuedMs + TTL_MS - 1_000));
    const pending = await fresh.client.threeDS.authentication.retrieve(first);
    expect(pending).toMatchObject({ authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'CUSTOMER_RULES', challenge_metadata: { status: 'PENDING' } });
    const second = await challenged(fresh, freshCard.pan);

    await moveClock(fresh.client, at(issuedMs + TTL_MS + 1_000));
    expect(await fresh.client.threeDS.authentication.retrieve(first)).toEqual({
      ...pending,
      authentication_result: 'DECLINE',
      challenge_metadata: { method_type: 'SMS_OTP', status: 'CARDHOLDER_TIMEOUT', phone_number: null },
    });
    expect((await fresh.client.threeDS.authentication.retrieve(second)).challenge_metadata?.status).toBe('PENDING');
    const updates = async () =>
      (await fresh.client.events.list({ event_types: ['three_ds_authentication.updated'], with_content: true })).data.map((event) => {
        const payload = event.payload as unknown as Lithic.ThreeDS.AuthenticationRetrieveResponse;
        return [event.created, payload.token, payload.authentication_result, payload.challenge_metadata?.status];
      });
    expect(await updates()).toEqual([[at(issuedMs + TTL_MS), first, 'DECLINE', 'CARDHOLDER_TIMEOUT']]);

    const refused = `token: 3DS authentication '${first}' is not awaiting a challenge: its challenge timed out at ${at(issuedMs + TTL_MS)}, 10 minutes after it was issued (challenge_metadata.status CARDHOLDER_TIMEOUT); its authentication_result is DECLINE`;
    expect(await expectError(fresh.client.threeDS.decisioning.challengeResponse({ token: first, challenge_response: 'APPROVE' }), 422)).toBe(refused);
    expect(await expectError(fresh.client.threeDS.authentication.simulateOtpEntry({ token: first, otp: service.SANDBOX_OTP }), 422)).toBe(refused);

    // The next day: the second timed out too (both events, newest first), and the report counts both as challenged.
    await moveClock(fresh.client, `${addDays(START, 1)}T12:00:00.000Z`);
    const secondIssuedMs = Date.parse((await fresh.client.threeDS.authentication.retrieve(second)).created);
    expect(await updates()).toEqual([
      [at(secondIssuedMs + TTL_MS), second, 'DECLINE', 'CARDHOLDER_TIMEOUT'],
      [at(issuedMs + TTL_MS), first, 'DECLINE', 'CARDHOLDER_TIMEOUT'],
    ]);
    const day = (await fresh.client.authRules.v2.retrieveReport(rule.token, { begin: START, end: START })).daily_statistics[0];
    expect(day?.current_version_statistics).toMatchObject({ challenged: 2, declined: 0, approved: 0 });
  });

  it('refuses a resolution from the instant the TTL ends, even before the timeout is recorded; one just before it resolves', async () => {
    const { db } = context.server.server;
    const late = await challenged();
    const issuedMs = Date.parse((await client.threeDS.authentication.retrieve(late)).created);
    const scope = { programId: context.program.programId, clockOffsetMs: 0, nowMs: issuedMs + TTL_MS };
    await expect(db.transaction((tx) => service.simulateOtpEntry(db, tx, scope, { token: late, otp: service.SANDBOX_OTP }))).rejects.toThrow(
      `its challenge timed out at ${at(issuedMs + TTL_MS)}`,
    );
    const inTime = await challenged();
    const inTimeIssuedMs = Date.parse((await client.threeDS.authentication.retrieve(inTime)).created);
    await db.transaction((tx) => service.respondToChallenge(db, tx, { ...scope, nowMs: inTimeIssuedMs + TTL_MS - 1 }, { token: inTime, challenge_response: 'APPROVE' }));
    expect((await client.threeDS.authentication.retrieve(inTime)).challenge_metadata?.status).toBe('SUCCESS');
  });

  it("times a challenge out by its own program's clock only: another program's move, reads and events leave it pending", async () => {
    const [owner, other] = [await context.server.newProgram('challenge owner'), await context.server.newProgram('challenge bystander')];
    await moveClock(owner.client, `${START}T12:00:00.000Z`);
    await moveClock(other.client, `${START}T12:00:00.000Z`);
    const token = await challenged(owner, (await newCard(owner.client)).pan);
    await moveClock(other.client, `${START}T13:00:00.000Z`);
    expect((await other.client.events.list({ event_types: ['three_ds_authentication.created', 'three_ds_authentication.updated'] })).data).toEqual([]);
    await expectError(other.client.threeDS.authentication.retrieve(token), 404);
    expect((await owner.client.threeDS.authentication.retrieve(token)).challenge_metadata?.status).toBe('PENDING');
    await owner.client.threeDS.authentication.simulateOtpEntry({ token, otp: service.SANDBOX_OTP });
    expect((await owner.client.threeDS.authentication.retrieve(token)).authentication_result).toBe('SUCCESS');
  });

  it('shows a timeout the real-speed clock reached on the next read, before any sweep', async () => {
    const token = await challenged();
    advance(TTL_MS);
    expect(await client.threeDS.authentication.retrieve(token)).toMatchObject({ authentication_result: 'DECLINE', challenge_metadata: { status: 'CARDHOLDER_TIMEOUT' } });
  });

  // ---- the 3DS Decisioning HMAC secret ---------------------------------------------------------

  it("retrieves the program's 3DS Decisioning secret, made by the first retrieval; a rotation replaces it; each program has its own", async () => {
    const [first, other] = [await context.server.newProgram('decisioning secret'), await context.server.newProgram('decisioning secret, other')];
    const secretOf = async (program: { client: Lithic }) => (await program.client.threeDS.decisioning.retrieveSecret()).secret;
    const original = await secretOf(first);
    expect(original).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await secretOf(first)).toBe(original);
    const others = await secretOf(other);
    expect(others).not.toBe(original);

    expect(await first.client.threeDS.decisioning.rotateSecret()).toBeFalsy();
    const rotated = await secretOf(first);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(original);
    expect(await secretOf(first)).toBe(rotated);
    expect(await secretOf(other)).toBe(others);

    // A rotation before any retrieval makes the first secret; concurrent first retrievals all show the one recorded.
    const rotatedFirst = await context.server.newProgram('decisioning secret, rotated first');
    await rotatedFirst.client.threeDS.decisioning.rotateSecret();
    expect(await secretOf(rotatedFirst)).toMatch(/^whsec_/);
    const racing = await context.server.newProgram('decisioning secret, racing');
    expect(new Set(await Promise.all(Array.from({ length: 6 }, () => secretOf(racing))))).toHaveProperty('size', 1);
  });

  it('rotates the decisioning secret with an empty 200, once per Idempotency-Key; a body is a 400 that changes nothing', async () => {
    const program = await context.server.newProgram('decisioning rotation');
    const before = (await program.client.threeDS.decisioning.retrieveSecret()).secret;
    const rotate = (options: { body?: object; headers?: Record<string, string> } = {}) =>
      context.server.request('POST', '/v1/three_ds_decisioning/secret/rotate', { apiKey: program.apiKey, ...options });
    const refused = await rotate({ body: { secret: 'mine' } });
    expect(refused.status).toBe(400);
    expect((await program.client.threeDS.decisioning.retrieveSecret()).secret).toBe(before);

    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const answer = await rotate({ headers });
    expect([answer.status, await answer.text(), answer.headers.get('content-type')]).toEqual([200, '', null]);
    const after = (await program.client.threeDS.decisioning.retrieveSecret()).secret;
    expect(after).not.toBe(before);
    const replay = await rotate({ headers });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect((await program.client.threeDS.decisioning.retrieveSecret()).secret).toBe(after);
  });

  it('documents both resolutions in /openapi.json, with the sandbox OTP', async () => {
    type Operation = { description?: string; requestBody?: object; responses: Record<string, { content?: object }> };
    const document = (await (await context.server.request('GET', '/openapi.json')).json()) as { paths: Record<string, { post?: Operation }> };
    const respond = document.paths['/v1/three_ds_decisioning/challenge_response']?.post;
    const otp = document.paths['/v1/three_ds_decisioning/simulate/enter_otp']?.post;
    for (const operation of [respond, otp]) {
      expect(operation?.requestBody).toBeDefined();
      expect(operation?.responses['200']).toBeDefined();
      expect(operation?.responses['200']?.content).toBeUndefined();
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['400', '404', '409', '422']));
    }
    expect(JSON.stringify(respond?.requestBody)).toContain('DECLINE_BY_CUSTOMER');
    expect(otp?.description).toContain('123456');
  });
});
