/**
 * Auth Rules end to end: rules created over the API decide real authorizations
 * (`POST /v1/simulate/authorize`), their declines appear on the transaction, drafts run in shadow,
 * and the performance report counts what the authorizations did, day by day on the program clock.
 */
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { conditionalBlock, createRule, enforcedRule, merchantLock, newCard, velocityLimit, type RuleScope } from '../testing/auth_rules.js';
import { enroll, kybBody, kycExemptBody } from '../testing/enrollment.js';

const GAMBLING = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }];

describeWithDb('Auth Rules on authorizations', () => {
  const context = useTestServer();

  async function fresh(name: string): Promise<{ program: TestProgram; client: Lithic; card: Lithic.Card }> {
    const program = await context.server.newProgram(name);
    return { program, client: program.client, card: await newCard(program.client) };
  }

  async function authorize(client: Lithic, card: Lithic.Card, extra: { mcc?: string; amount?: number; merchant_acceptor_id?: string; descriptor?: string; pin?: string } = {}) {
    const { token } = await client.transactions.simulateAuthorization({ amount: 1_000, descriptor: 'SHOP', pan: card.pan as string, ...extra });
    return client.transactions.retrieve(token as string);
  }

  async function moveClockTo(client: Lithic, instant: string) {
    await client.post('/v1/simulate/clock', { body: { now: instant } });
  }

  it('a CONDITIONAL_BLOCK declines what it blocks and names itself; everything else is approved', async () => {
    const { client, card } = await fresh('block');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }, 'no gambling'));
    const declined = await authorize(client, card, { mcc: '7995' });
    expect(declined.status).toBe('DECLINED');
    expect(declined.result).not.toBe('APPROVED');
    const event = declined.events?.[0];
    expect(event?.detailed_results).toEqual(['AUTH_RULE_BLOCKED_MCC']);
    expect(event?.rule_results).toEqual([
      { auth_rule_token: rule.token, name: 'no gambling', result: 'AUTH_RULE_BLOCKED_MCC', explanation: expect.stringContaining('7995') },
    ]);
    expect(declined.amounts.hold.amount).toBe(0);

    const approved = await authorize(client, card, { mcc: '5411' });
    expect(approved).toMatchObject({ status: 'PENDING', result: 'APPROVED' });
    expect(approved.events?.[0]?.rule_results).toEqual([]);
  });

  it('applies program-level rules to every card but the excluded ones, and account rules to that account only', async () => {
    const { program, client, card } = await fresh('scopes');
    const excluded = await newCard(client);
    await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true, excluded_card_tokens: [excluded.token] }));
    expect((await authorize(client, card, { mcc: '7995' })).status).toBe('DECLINED');
    expect((await authorize(client, excluded, { mcc: '7995' })).status).toBe('PENDING');

    const other = await fresh('account scope');
    const accountToken = other.card.account_token;
    await enforcedRule(other.client, conditionalBlock([{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 5_000 }], { account_tokens: [accountToken] }));
    expect((await authorize(other.client, other.card, { amount: 6_000 })).status).toBe('DECLINED');
    expect((await authorize(other.client, other.card, { amount: 4_000 })).status).toBe('PENDING');
    // Rules of one program never touch another's cards.
    expect((await authorize(program.client, card, { mcc: '5411', amount: 6_000 })).status).toBe('PENDING');
  });

  it('applies a business-account rule to the business’s cards and its authorized users’ cards, not to others', async () => {
    const { client, card: elsewhere } = await fresh('business account');
    const business = await enroll(client, kybBody('KYB_BYO'));
    const user = await enroll(client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token });
    const businessCard = await newCard(client, business.account_token);
    const userCard = await newCard(client, user.account_token);
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { account_tokens: [user.account_token], business_account_tokens: [business.account_token] }));
    for (const card of [businessCard, userCard]) {
      const declined = await authorize(client, card, { mcc: '7995' });
      expect(declined.status).toBe('DECLINED');
      // Bound twice to the user's card (its account and its business), the rule is evaluated once.
      expect(declined.events?.[0]?.rule_results.map((result) => result.auth_rule_token)).toEqual([rule.token]);
    }
    expect((await authorize(client, elsewhere, { mcc: '7995' })).status).toBe('PENDING');
  });

  it('stops applying a deactivated rule, and applies it again once a draft is promoted', async () => {
    const { client, card } = await fresh('deactivate');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }));
    await client.authRules.v2.update(rule.token, { state: 'INACTIVE' } as Lithic.AuthRules.V2UpdateParams);
    expect((await authorize(client, card, { mcc: '7995' })).status).toBe('PENDING');
    await client.authRules.v2.draft(rule.token, { parameters: { conditions: GAMBLING } } as unknown as Lithic.AuthRules.V2DraftParams);
    await client.authRules.v2.promote(rule.token);
    expect((await authorize(client, card, { mcc: '7995' })).status).toBe('DECLINED');
  });

  it('a VELOCITY_LIMIT counts approved authorizations of its window only', async () => {
    const { client, card } = await fresh('velocity');
    const scope: RuleScope = { card_tokens: [card.token] };
    await enforcedRule(client, velocityLimit({ limit_count: 2, period: { type: 'DAY' } }, scope, 'two a day'));
    expect((await authorize(client, card)).status).toBe('PENDING');
    expect((await authorize(client, card, { mcc: '7995', amount: 1 })).status).toBe('PENDING');
    const third = await authorize(client, card);
    expect(third.status).toBe('DECLINED');
    expect(third.events?.[0]?.detailed_results).toEqual(['CARD_SPEND_LIMIT_EXCEEDED']);
    expect(third.events?.[0]?.rule_results[0]).toMatchObject({ name: 'two a day', result: 'CARD_SPEND_LIMIT_EXCEEDED' });
    // The decline did not count; a new (US Eastern) day starts a new window.
    expect((await authorize(client, card)).status).toBe('DECLINED');
    const today = (await client.get('/v1/simulate/clock')) as { now: string };
    await moveClockTo(client, new Date(Date.parse(today.now) + 2 * 86_400_000).toISOString());
    expect((await authorize(client, card)).status).toBe('PENDING');
  });

  it('a VELOCITY_LIMIT on amount declines the authorization that would go over it', async () => {
    const { client, card } = await fresh('velocity amount');
    await enforcedRule(client, velocityLimit({ limit_amount: 2_500, period: { type: 'CUSTOM', duration: 3_600 } }, { card_tokens: [card.token] }));
    expect((await authorize(client, card, { amount: 1_500 })).status).toBe('PENDING');
    expect((await authorize(client, card, { amount: 1_001 })).status).toBe('DECLINED');
    expect((await authorize(client, card, { amount: 1_000 })).status).toBe('PENDING');
  });

  it('a VELOCITY_LIMIT on count limits $0 authorizations, which count as every approved authorization does; balance inquiries and credits neither count nor are limited', async () => {
    const { client, card } = await fresh('velocity zero');
    await enforcedRule(client, velocityLimit({ limit_count: 1, period: { type: 'DAY' } }, { card_tokens: [card.token] }, 'one a day'));
    const other = async (status: 'BALANCE_INQUIRY' | 'CREDIT_AUTHORIZATION', amount: number) =>
      (await client.transactions.retrieve((await client.transactions.simulateAuthorization({ amount, descriptor: 'SHOP', pan: card.pan as string, status })).token as string)).status;
    expect((await authorize(client, card, { amount: 0 })).status).toBe('PENDING');
    expect(await other('BALANCE_INQUIRY', 0)).toBe('SETTLED');
    expect(await other('CREDIT_AUTHORIZATION', 500)).toBe('PENDING');
    // The $0 authorization was the one the limit allows: the next, of any amount, would be the second.
    const second = await authorize(client, card, { amount: 0 });
    expect(second.status).toBe('DECLINED');
    expect(second.events?.[0]?.rule_results[0]).toMatchObject({ name: 'one a day', result: 'CARD_SPEND_LIMIT_EXCEEDED' });
    expect((await authorize(client, card, { amount: 100 })).status).toBe('DECLINED');
    expect(await other('BALANCE_INQUIRY', 0)).toBe('SETTLED');
  });

  it('a VELOCITY_LIMIT on amount leaves a $0 authorization alone, even with the window full', async () => {
    const { client, card } = await fresh('velocity zero amount');
    await enforcedRule(client, velocityLimit({ limit_amount: 1_000 }, { card_tokens: [card.token] }));
    expect((await authorize(client, card, { amount: 1_000 })).status).toBe('PENDING');
    expect((await authorize(client, card, { amount: 0 })).status).toBe('PENDING');
    expect((await authorize(client, card, { amount: 1 })).status).toBe('DECLINED');
  });

  it('a VELOCITY_LIMIT with include_pan_entry_modes counts only authorizations made that way', async () => {
    const { client } = await fresh('velocity pan entry');
    const card = await client.cards.create({ type: 'VIRTUAL', pin: Buffer.from('4321').toString('base64') });
    const rule = await enforcedRule(client, velocityLimit({ limit_count: 1, filters: { include_pan_entry_modes: ['ICC'] } }, { card_tokens: [card.token] }));
    expect(rule.current_version?.parameters).toMatchObject({ filters: { include_pan_entry_modes: ['ICC'] } });
    // Card-not-present (ECOMMERCE): neither counted nor limited.
    for (let i = 0; i < 2; i++) expect((await authorize(client, card)).status).toBe('PENDING');
    const chip = await authorize(client, card, { pin: '4321' });
    expect(chip).toMatchObject({ status: 'PENDING', pos: { entry_mode: { pan: 'ICC' } } });
    expect((await authorize(client, card, { pin: '4321' })).status).toBe('DECLINED');
    expect((await authorize(client, card)).status).toBe('PENDING');
  });

  it('a MERCHANT_LOCK approves its merchants only', async () => {
    const { client, card } = await fresh('merchant lock');
    await enforcedRule(client, merchantLock([{ merchant_id: 'SHOP-1' }, { descriptor: 'CORNER CAFE' }], { card_tokens: [card.token] }));
    expect((await authorize(client, card, { merchant_acceptor_id: 'SHOP-1' })).status).toBe('PENDING');
    expect((await authorize(client, card, { merchant_acceptor_id: 'ELSEWHERE', descriptor: 'CORNER CAFE' })).status).toBe('PENDING');
    const elsewhere = await authorize(client, card, { merchant_acceptor_id: 'ELSEWHERE', descriptor: 'OTHER SHOP' });
    expect(elsewhere.status).toBe('DECLINED');
    expect(elsewhere.events?.[0]?.detailed_results).toEqual(['MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE']);
  });

  // Overlapping alternatives under a repetition backtrack exponentially in a backtracking engine:
  // before patterns ran in linear time, this 20-character descriptor took over 10 s (25: hours),
  // blocking the whole server, even for a rule in shadow.
  it('runs MATCHES patterns in linear time: a pattern with overlapping alternatives cannot stall authorizations', async () => {
    const { client, card } = await fresh('linear patterns');
    const pattern = [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^(A|A|A)*$' }];
    await createRule(client, conditionalBlock(pattern, { card_tokens: [card.token] }, 'shadow'));
    await enforcedRule(client, conditionalBlock(pattern, { card_tokens: [card.token] }, 'enforced'));
    expect((await authorize(client, card, { descriptor: `${'A'.repeat(19)}!` })).status).toBe('PENDING');
    expect((await authorize(client, card, { descriptor: 'A'.repeat(25) })).status).toBe('DECLINED');
  }, 5_000);

  // Lithic's Authorization Challenges (docs.lithic.com/docs/authorization-challenges): a CHALLENGE
  // rule declines the authorization at once and asks the cardholder to confirm; only a confirmed
  // cardholder's retry passes, and SDK 0.119 has no call to confirm. Its code, CARDHOLDER_CHALLENGED,
  // is not in SDK 0.119's enums: the decline reads DECLINED and its explanation names the challenge.
  it('a CONDITIONAL_ACTION CHALLENGE on AUTHORIZATION declines (DECLINED, explained as a challenge); a DECLINE rule wins over it; the report counts it challenged', async () => {
    const { client } = await fresh('authorization challenge');
    await moveClockTo(client, '2031-06-10T12:00:00.000Z');
    const card = await newCard(client);
    const action = (verb: 'DECLINE' | 'CHALLENGE', conditions: object[], name: string) => ({
      type: 'CONDITIONAL_ACTION',
      event_stream: 'AUTHORIZATION',
      name,
      card_tokens: [card.token],
      parameters: { action: verb, conditions },
    });
    const challenge = await enforcedRule(client, action('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 5_000 }], 'big ones'));
    expect(challenge.current_version?.parameters).toMatchObject({ action: 'CHALLENGE' });
    await enforcedRule(client, action('DECLINE', GAMBLING, 'no gambling'));
    const shadow = await createRule(client, action('CHALLENGE', [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }], 'shadow'));

    const challenged = await authorize(client, card, { amount: 6_000, mcc: '5411' });
    expect(challenged).toMatchObject({ status: 'DECLINED', result: 'DECLINED' });
    expect(challenged.amounts.hold.amount).toBe(0);
    expect(challenged.events?.[0]?.detailed_results).toEqual(['DECLINED']);
    expect(challenged.events?.[0]?.rule_results).toEqual([
      { auth_rule_token: challenge.token, name: 'big ones', result: 'DECLINED', explanation: 'Cardholder challenged: TRANSACTION_AMOUNT 6000 is greater than 5000' },
    ]);
    const retried = await authorize(client, card, { amount: 6_000, mcc: '5411' });
    expect(retried.events?.[0]?.detailed_results).toEqual(['DECLINED']);

    const declined = await authorize(client, card, { amount: 6_000, mcc: '7995' });
    expect(declined.events?.[0]?.detailed_results).toEqual(['AUTH_RULE_BLOCKED_MCC']);
    expect(declined.events?.[0]?.rule_results?.map((result) => result.name)).toEqual(['no gambling']);
    expect(await authorize(client, card, { amount: 1_000, mcc: '5411' })).toMatchObject({ status: 'PENDING', result: 'APPROVED' });

    await moveClockTo(client, '2031-06-11T09:00:00.000Z');
    const statistics = async (token: string) =>
      (await client.authRules.v2.retrieveReport(token, { begin: '2031-06-10', end: '2031-06-10' } as Lithic.AuthRules.V2RetrieveReportParams)).daily_statistics[0];
    const day = await statistics(challenge.token);
    expect(day?.current_version_statistics).toMatchObject({ approved: 1, challenged: 3, declined: 0 });
    expect(day?.current_version_statistics?.examples?.find((example) => example.event_token === challenged.events?.[0]?.token)).toMatchObject({ approved: false, decision: 'CHALLENGED' });
    expect((await statistics(shadow.token))?.draft_version_statistics).toMatchObject({ approved: 1, challenged: 3, declined: 0 });
  });

  it('runs drafts in shadow: a draft that would decline never declines, but the report counts it', async () => {
    const { client } = await fresh('shadow');
    await moveClockTo(client, '2031-06-10T12:00:00.000Z');
    const card = await newCard(client);
    const rule = await createRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }, 'shadow'));
    const shadowed = await authorize(client, card, { mcc: '7995' });
    expect(shadowed).toMatchObject({ status: 'PENDING', result: 'APPROVED' });
    expect(shadowed.events?.[0]?.rule_results).toEqual([]);
    await authorize(client, card, { mcc: '5411' });

    await moveClockTo(client, '2031-06-11T09:00:00.000Z');
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: '2031-06-10', end: '2031-06-10' } as Lithic.AuthRules.V2RetrieveReportParams);
    const day = report.daily_statistics[0];
    expect(day?.current_version_statistics).toBeNull();
    expect(day?.draft_version_statistics).toMatchObject({ approved: 1, declined: 1, challenged: 0 });
    const examples = day?.draft_version_statistics?.examples ?? [];
    expect(examples.map((example) => example.event_token).sort()).toEqual(
      [shadowed.events?.[0]?.token as string, expect.any(String)].sort(),
    );
    expect(examples.find((example) => example.event_token === shadowed.events?.[0]?.token)).toMatchObject({ approved: false, decision: 'DECLINED' });
  });

  it('reports one draft version a day: the latest that ran, with only its own counts and examples', async () => {
    const { client } = await fresh('draft versions');
    await moveClockTo(client, '2031-08-01T10:00:00.000Z');
    const card = await newCard(client);
    const rule = await createRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }, 'drafts'));
    for (const mcc of ['7995', '5411']) await authorize(client, card, { mcc });
    await client.authRules.v2.promote(rule.token);
    await client.authRules.v2.draft(rule.token, { parameters: { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }] } } as unknown as Lithic.AuthRules.V2DraftParams);
    const v2Events = [];
    for (const mcc of ['5411', '5814']) v2Events.push((await authorize(client, card, { mcc })).events?.[0]?.token);
    await moveClockTo(client, '2031-08-02T10:00:00.000Z');

    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: '2031-08-01', end: '2031-08-01' } as Lithic.AuthRules.V2RetrieveReportParams);
    const [day] = report.daily_statistics;
    expect(day?.draft_version_statistics).toMatchObject({ approved: 1, declined: 1, challenged: 0, version: 2 });
    expect(day?.draft_version_statistics?.examples?.map((example) => example.event_token).sort()).toEqual([...v2Events].sort());
    expect(day?.current_version_statistics).toMatchObject({ approved: 2, declined: 0, challenged: 0, version: 1 });
    expect(day?.current_version_statistics?.examples?.map((example) => example.event_token).sort()).toEqual([...v2Events].sort());
  });

  it("counts each day's authorizations in the report, with the version that was in force", async () => {
    const { client } = await fresh('report');
    await moveClockTo(client, '2031-07-01T10:00:00.000Z');
    const card = await newCard(client);
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }, 'daily'));
    const declinedEvents: string[] = [];
    for (const mcc of ['5411', '5411', '7995']) {
      const transaction = await authorize(client, card, { mcc });
      if (transaction.status === 'DECLINED') declinedEvents.push(transaction.events?.[0]?.token as string);
    }
    await moveClockTo(client, '2031-07-02T10:00:00.000Z');
    await authorize(client, card, { mcc: '5411' });
    await moveClockTo(client, '2031-07-04T10:00:00.000Z');

    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: '2031-07-01', end: '2031-07-03' } as Lithic.AuthRules.V2RetrieveReportParams);
    expect(report.daily_statistics.map((day) => day.date)).toEqual(['2031-07-01', '2031-07-02', '2031-07-03']);
    const [first, second, third] = report.daily_statistics;
    expect(first?.current_version_statistics).toMatchObject({ approved: 2, declined: 1, challenged: 0 });
    expect(first?.current_version_statistics?.examples?.filter((example) => example.decision === 'DECLINED').map((example) => example.event_token)).toEqual(declinedEvents);
    expect(second?.current_version_statistics).toMatchObject({ approved: 1, declined: 0 });
    expect(third?.current_version_statistics).toMatchObject({ approved: 0, declined: 0, examples: [] });
    // Version 1 was a draft for a moment on the 1st (created, then promoted): zeros that day, null after.
    expect(first?.draft_version_statistics).toMatchObject({ approved: 0, declined: 0, challenged: 0, version: 1 });
    expect(second?.draft_version_statistics).toBeNull();
  });
});
