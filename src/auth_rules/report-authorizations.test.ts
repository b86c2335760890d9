/**
 * The performance report and the conditions, black-box through the SDK on a wall clock that stands
 * still (`frozenWallClock`), so every authorization happens at an instant the test chose: the UTC
 * day boundaries of the report, which authorizations each rule's counts take in (scopes, exclusions
 * changed during the day, declines by earlier engine steps and by funds, credits), the report's
 * refusals, and what each attribute and operation sees of a simulated authorization.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { conditionalBlock, createRule, enforcedRule, moveClock, newCard, type ConditionInput } from '../testing/auth_rules.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { expectError } from '../testing/money.js';

const GAMBLING = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }];
const clock = frozenWallClock('2031-03-10T12:00:00.000Z');

type Extra = Partial<Lithic.TransactionSimulateAuthorizationParams>;

describeWithDb('Auth Rules report and conditions on simulated authorizations', () => {
  const context = useTestServer({ wall: clock.wall });

  async function fresh(name: string): Promise<{ program: TestProgram; client: Lithic; card: Lithic.Card }> {
    const program = await context.server.newProgram(name);
    return { program, client: program.client, card: await newCard(program.client) };
  }

  async function authorize(client: Lithic, card: Lithic.Card, extra: Extra = {}) {
    const { token } = await client.transactions.simulateAuthorization({ amount: 1_000, descriptor: 'SHOP', pan: card.pan as string, ...extra });
    return client.transactions.retrieve(token as string);
  }

  const eventOf = (transaction: Lithic.Transaction) => transaction.events?.[0]?.token as string;
  const report = (client: Lithic, token: string, begin: string, end: string) => client.authRules.v2.retrieveReport(token, { begin, end });
  const counts = (stats: Lithic.AuthRules.V2.RuleStats | null | undefined) =>
    stats && { approved: stats.approved, declined: stats.declined, challenged: stats.challenged, version: stats.version, events: stats.examples?.map((example) => example.event_token) };

  it('counts an authorization in the UTC day of its instant: the last millisecond of a day, the first of the next; begin and end inclusive', async () => {
    const { client, card } = await fresh('day boundaries');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING));
    await moveClock(client, '2031-03-10T23:59:59.999Z');
    const lastOfDay = await authorize(client, card, { mcc: '7995' });
    await moveClock(client, '2031-03-11T00:00:00.000Z');
    const firstOfNext = await authorize(client, card, { mcc: '7995' });
    const approvedNext = await authorize(client, card, { mcc: '5411' });
    expect([lastOfDay.created, firstOfNext.created]).toEqual(['2031-03-10T23:59:59.999Z', '2031-03-11T00:00:00.000Z']);

    // At 00:00:00.000 of the 12th, the 11th is complete: the latest end.
    await moveClock(client, '2031-03-12T00:00:00.000Z');
    const days = (await report(client, rule.token, '2031-03-10', '2031-03-11')).daily_statistics;
    expect(days.map((entry) => [entry.date, counts(entry.current_version_statistics)])).toEqual([
      ['2031-03-10', { approved: 0, declined: 1, challenged: 0, version: 1, events: [eventOf(lastOfDay)] }],
      ['2031-03-11', { approved: 1, declined: 1, challenged: 0, version: 1, events: [eventOf(firstOfNext), eventOf(approvedNext)].sort() }],
    ]);
    expect((await report(client, rule.token, '2031-03-11', '2031-03-11')).daily_statistics.map((entry) => entry.date)).toEqual(['2031-03-11']);
    await expectError(report(client, rule.token, '2031-03-11', '2031-03-12'), 422);
  });

  it('counts only the authorizations a rule was evaluated on: its cards, not excluded ones (as the exclusions were at that instant), not those an earlier step declined; a funds decline after it approved, and a credit, count as approved', async () => {
    const { client, card } = await fresh('which authorizations');
    const excluded = await newCard(client);
    const paused = await newCard(client);
    const elsewhere = await newCard(client);
    const programRule = await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true, excluded_card_tokens: [excluded.token] }));
    const shadow = await createRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token, excluded.token] }));
    await client.cards.update(paused.token, { state: 'PAUSED' });

    const onCard = await authorize(client, card, { mcc: '7995' }); // program: declined; shadow: declined
    const onExcluded = await authorize(client, excluded, { mcc: '7995' }); // program: not evaluated; shadow: declined
    expect(onExcluded.status).toBe('PENDING');
    expect((await authorize(client, paused, { mcc: '7995' })).result).toBe('CARD_PAUSED'); // neither evaluated
    const onElsewhere = await authorize(client, elsewhere, { mcc: '5411' }); // program: approved; shadow: not bound
    await client.authRules.v2.update(programRule.token, { excluded_card_tokens: [card.token] });
    const nowExcluded = await authorize(client, card, { mcc: '7995' }); // program: not evaluated; shadow: declined
    const noLongerExcluded = await authorize(client, excluded, { mcc: '7995' }); // program: declined; shadow: declined
    await client.post('/v1/simulate/program', { body: { require_funds: true } });
    const unfunded = await authorize(client, elsewhere, { mcc: '5411' }); // program: approved, then funds decline
    expect(unfunded.result).toBe('INSUFFICIENT_FUNDS');
    const credit = await authorize(client, excluded, { mcc: '5411', status: 'CREDIT_AUTHORIZATION' }); // program and shadow: approved

    await moveClock(client, '2031-03-11T12:00:00.000Z');
    const dayOf = async (token: string) => (await report(client, token, '2031-03-10', '2031-03-10')).daily_statistics[0];
    const programDay = await dayOf(programRule.token);
    expect(counts(programDay?.current_version_statistics)).toEqual({
      approved: 3,
      declined: 2,
      challenged: 0,
      version: 1,
      events: [onCard, onElsewhere, noLongerExcluded, unfunded, credit].map(eventOf).sort(),
    });
    const shadowDay = await dayOf(shadow.token);
    expect(shadowDay?.current_version_statistics).toBeNull();
    expect(counts(shadowDay?.draft_version_statistics)).toMatchObject({ approved: 1, declined: 4, challenged: 0, version: 1 });
    expect(shadowDay?.draft_version_statistics?.examples?.map((example) => [example.event_token, example.decision, example.approved]).sort()).toEqual(
      [
        [eventOf(onCard), 'DECLINED', false],
        [eventOf(onExcluded), 'DECLINED', false],
        [eventOf(nowExcluded), 'DECLINED', false],
        [eventOf(noLongerExcluded), 'DECLINED', false],
        [eventOf(credit), 'APPROVED', true],
      ].sort(),
    );
  });

  it('refuses malformed queries (400 naming the parameter) before anything else, and answers 404 for another program’s rule whatever the range', async () => {
    const { program, client } = await fresh('report queries');
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    await moveClock(client, '2031-03-12T12:00:00.000Z');
    const messageOf = async (query: string, apiKey = program.apiKey) => {
      const response = await context.server.request('GET', `/v2/auth_rules/${rule.token}/report${query}`, { apiKey });
      return [response.status, ((await response.json()) as { message: string }).message];
    };
    expect(await messageOf('')).toEqual([400, 'begin: is required']);
    expect(await messageOf('?begin=&end=2031-03-11')).toEqual([400, 'begin: must be a valid date']);
    expect(await messageOf('?begin=2031-03-11T00:00:00Z&end=2031-03-11')).toEqual([400, 'begin: must be a valid date']);
    expect(await messageOf('?begin=2031-03-11&end=2031-3-11')).toEqual([400, 'end: must be a valid date']);
    expect(await messageOf('?begin=2031-03-11&end=2031-03-11&card_token=x')).toEqual([400, 'card_token: is not a recognised field']);
    expect((await messageOf('?begin=2031-03-11&begin=2031-03-10&end=2031-03-11'))[0]).toBe(400);

    const other = await fresh('another program');
    expect(await messageOf('?begin=2031-03-11&end=2031-03-11', other.program.apiKey)).toEqual([404, `auth rule '${rule.token}' not found`]);
    expect((await messageOf('?begin=2020-01-01&end=2031-03-11', other.program.apiKey))[0]).toBe(404);
    expect(await messageOf('?begin=2031-02-30&end=2031-03-11', other.program.apiKey)).toEqual([400, 'begin: must be a valid date']);
    await expectError(report(other.client, rule.token, '2031-03-11', '2031-03-11'), 404);
    await expectError(report(client, crypto.randomUUID(), '2031-03-11', '2031-03-11'), 404);
  });

  it('tests each attribute as a simulated authorization has it: exact integer bounds, text lists and patterns (case-sensitive), enums, the merchant id taken from the descriptor', async () => {
    const { client } = await fresh('conditions');
    const cases: Array<[ConditionInput, Extra, boolean]> = [
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_EQUAL_TO', value: 1_234 }, { amount: 1_234 }, true],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_EQUAL_TO', value: 1_234 }, { amount: 1_235 }, false],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_NOT_EQUAL_TO', value: 1_234 }, { amount: 1_234 }, false],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1_234 }, { amount: 1_234 }, false],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1_234 }, { amount: 1_235 }, true],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN_OR_EQUAL_TO', value: 1_234 }, { amount: 1_234 }, true],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_LESS_THAN', value: 1_234 }, { amount: 1_234 }, false],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_LESS_THAN_OR_EQUAL_TO', value: 1_234 }, { amount: 1_234 }, true],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_LESS_THAN', value: 0 }, { status: 'CREDIT_AUTHORIZATION' }, true],
      [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_EQUAL_TO', value: 0 }, { status: 'BALANCE_INQUIRY', amount: 0 }, true],
      [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^Acme' }, { descriptor: 'Acme Store' }, true],
      [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^ACME' }, { descriptor: 'Acme Store' }, false],
      [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: 'Store' }, { descriptor: 'Acme Store' }, true],
      [{ attribute: 'DESCRIPTOR', operation: 'DOES_NOT_MATCH', value: '^ACME' }, { descriptor: 'Acme Store' }, true],
      [{ attribute: 'DESCRIPTOR', operation: 'IS_ONE_OF', value: ['Acme Store', 'Other'] }, { descriptor: 'Acme Store' }, true],
      [{ attribute: 'DESCRIPTOR', operation: 'IS_ONE_OF', value: ['ACME STORE'] }, { descriptor: 'Acme Store' }, false],
      [{ attribute: 'MERCHANT_ID', operation: 'IS_ONE_OF', value: ['ACMESTORE'] }, { descriptor: 'Acme Store' }, true],
      [{ attribute: 'MERCHANT_ID', operation: 'IS_NOT_ONE_OF', value: ['M-1'] }, { descriptor: 'Acme Store', merchant_acceptor_id: 'M-1' }, false],
      [{ attribute: 'MCC', operation: 'IS_NOT_ONE_OF', value: ['7995', '7801'] }, { mcc: '5411' }, true],
      [{ attribute: 'MCC', operation: 'MATCHES', value: '^79' }, { mcc: '7995' }, true],
      [{ attribute: 'CURRENCY', operation: 'IS_ONE_OF', value: ['EUR'] }, { merchant_currency: 'eur', merchant_amount: 900 }, true],
      [{ attribute: 'COUNTRY', operation: 'IS_NOT_ONE_OF', value: ['USA'] }, {}, false],
      [{ attribute: 'PAN_ENTRY_MODE', operation: 'IS_ONE_OF', value: ['ICC'] }, { pin: '1234' }, true],
      [{ attribute: 'PAN_ENTRY_MODE', operation: 'IS_ONE_OF', value: ['ECOMMERCE'] }, {}, true],
      [{ attribute: 'PIN_ENTERED', operation: 'IS_ONE_OF', value: ['TRUE'] }, { pin: '1234' }, true],
      [{ attribute: 'PIN_STATUS', operation: 'IS_ONE_OF', value: ['NOT_SET'] }, {}, true],
      [{ attribute: 'CARD_STATE', operation: 'IS_ONE_OF', value: ['OPEN'] }, {}, true],
      [{ attribute: 'WALLET_TYPE', operation: 'IS_NOT_ONE_OF', value: ['NONE'] }, {}, false],
      [{ attribute: 'LIABILITY_SHIFT', operation: 'IS_ONE_OF', value: ['NONE'] }, {}, true],
      [{ attribute: 'RISK_SCORE', operation: 'IS_LESS_THAN_OR_EQUAL_TO', value: 999 }, {}, false],
      [{ attribute: 'RISK_SCORE', operation: 'IS_NOT_EQUAL_TO', value: 500 }, {}, false],
    ];
    const outcomes = [];
    for (const [condition, extra] of cases) {
      const card = await newCard(client);
      await enforcedRule(client, conditionalBlock([condition], { card_tokens: [card.token] }));
      const transaction = await authorize(client, card, extra);
      outcomes.push([condition, extra, transaction.status === 'DECLINED']);
    }
    expect(outcomes).toEqual(cases);
  });

  it('counts CARD_TRANSACTION_COUNT_15M over the trailing 15 minutes up to the authorization, its start included, this authorization not', async () => {
    const { client, card } = await fresh('transaction count');
    await enforcedRule(client, conditionalBlock([{ attribute: 'CARD_TRANSACTION_COUNT_15M', operation: 'IS_GREATER_THAN_OR_EQUAL_TO', value: 2 }], { card_tokens: [card.token] }));
    const statuses = [];
    statuses.push((await authorize(client, card)).status); // 0 before it
    await moveClock(client, '2031-03-10T12:10:00.000Z');
    statuses.push((await authorize(client, card)).status); // 1 before it
    await moveClock(client, '2031-03-10T12:15:00.000Z');
    statuses.push((await authorize(client, card)).status); // 2: the one at 12:00:00.000 is 15 minutes before, in the window
    await moveClock(client, '2031-03-10T12:15:00.001Z');
    statuses.push((await authorize(client, card)).status); // 2: 12:10 and 12:15 (12:00 has left the window)
    await moveClock(client, '2031-03-10T12:30:00.001Z');
    statuses.push((await authorize(client, card)).status); // 1: the one at 12:15:00.001 (12:15:00.000 has left the window)
    expect(statuses).toEqual(['PENDING', 'PENDING', 'DECLINED', 'DECLINED', 'PENDING']);
  });
});
