/**
 * Seed 4.2 over HTTP: the report's daily counts equal the evaluations the test ran over several
 * days moved by the program clock; current and draft versions, nulls, examples, and every limit.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { authorizationFacts, conditionalBlock, createRule, evaluate, moveClock, newCard, programNow } from '../testing/auth_rules.js';
import { changedLastAt, describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { addDays } from './report.js';

const START = '2031-03-10';
const day = (offset: number) => addDays(START, offset);
const GAMBLING = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }];
const stats = (approved: number, declined: number, version: number, examples = approved + declined) => ({
  approved,
  challenged: 0,
  declined,
  version,
  examples: expect.toSatisfy((list: unknown[]) => list.length === Math.min(examples, 5)),
});

describeWithDb('auth rule performance report', () => {
  const context = useTestServer();

  async function freshProgram(name: string): Promise<{ program: TestProgram; client: Lithic; card: Lithic.Card }> {
    const program = await context.server.newProgram(name);
    await moveClock(program.client, `${START}T12:00:00.000Z`);
    return { program, client: program.client, card: await newCard(program.client) };
  }

  async function authorize(program: TestProgram, card: Lithic.Card, mcc: string) {
    const facts = authorizationFacts(card, await programNow(program.client), { merchant: { ...authorizationFacts(card, 0).merchant, mcc } });
    return { results: await evaluate(context.server, program, facts), facts };
  }

  it('counts each day’s evaluations per version, with nulls when a version did not exist that day', async () => {
    const { program, client, card } = await freshProgram('days');
    // Day 0: created (draft v1 only); two would-be declines and one approval, all in shadow.
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    for (const mcc of ['7995', '7995', '5411']) expect((await authorize(program, card, mcc)).results).toEqual([]);

    // Day 1: v1 promoted, v2 drafted; the current version declines for real, the draft in shadow.
    await moveClock(client, `${day(1)}T09:00:00.000Z`);
    await client.authRules.v2.promote(rule.token);
    await client.authRules.v2.draft(rule.token, { parameters: { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995', '5411'] }] } } as never);
    expect((await authorize(program, card, '7995')).results).toHaveLength(1);
    expect((await authorize(program, card, '5411')).results).toEqual([]);

    // Day 2: nothing evaluated. Day 3: the draft is cleared, one evaluation of the current version.
    await moveClock(client, `${day(3)}T08:00:00.000Z`);
    await client.authRules.v2.draft(rule.token, { parameters: null });
    await authorize(program, card, '5411');

    await moveClock(client, `${day(5)}T01:00:00.000Z`);
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: day(-1), end: day(4) });
    expect(report).toEqual({
      auth_rule_token: rule.token,
      begin: day(-1),
      end: day(4),
      daily_statistics: [
        { date: day(-1), current_version_statistics: null, draft_version_statistics: null },
        { date: day(0), current_version_statistics: null, draft_version_statistics: stats(1, 2, 1) },
        { date: day(1), current_version_statistics: stats(1, 1, 1), draft_version_statistics: stats(0, 2, 2) },
        { date: day(2), current_version_statistics: stats(0, 0, 1), draft_version_statistics: stats(0, 0, 2) },
        { date: day(3), current_version_statistics: stats(1, 0, 1), draft_version_statistics: stats(0, 0, 2) },
        { date: day(4), current_version_statistics: stats(0, 0, 1), draft_version_statistics: null },
      ],
    });
  });

  it('never starts or ends a version’s role before the rule’s last change (one stamped by a request that saw a moved clock)', async () => {
    const { program, client } = await freshProgram('acting-on');
    await moveClock(client, `${day(0)}T23:30:00.000Z`);
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    // As if a change at a clock moved an hour ahead (into day 1) had committed first.
    const laterMs = Date.parse(`${day(1)}T00:30:00.000Z`);
    await changedLastAt(context.server.server.db, 'auth_rules', program.programId, rule.token, laterMs);
    await client.authRules.v2.promote(rule.token);

    await moveClock(client, `${day(2)}T12:00:00.000Z`);
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: day(0), end: day(1) });
    expect(report.daily_statistics).toEqual([
      { date: day(0), current_version_statistics: null, draft_version_statistics: stats(0, 0, 1) },
      { date: day(1), current_version_statistics: stats(0, 0, 1), draft_version_statistics: stats(0, 0, 1) },
    ]);
  });

  it('shows at most 5 examples a day, earliest first, each with its event, decision and time', async () => {
    const { program, client, card } = await freshProgram('examples');
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    const events: Array<{ token: string; time: string; mcc: string }> = [];
    for (let index = 0; index < 12; index++) {
      const mcc = index % 3 === 0 ? '5411' : '7995';
      const { facts } = await authorize(program, card, mcc);
      events.push({ token: facts.event_token, time: new Date(facts.now_ms).toISOString(), mcc });
    }
    await moveClock(client, `${day(1)}T12:00:00.000Z`);
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: day(0), end: day(0) });
    const draft = report.daily_statistics[0]?.draft_version_statistics;
    expect(draft).toMatchObject({ approved: 4, declined: 8, challenged: 0, version: 1 });
    expect(draft?.examples).toHaveLength(5);
    for (const example of draft?.examples ?? []) {
      const event = events.find((candidate) => candidate.token === example.event_token);
      expect(event, 'an example is one of the evaluated events').toBeDefined();
      const decision = event?.mcc === '7995' ? 'DECLINED' : 'APPROVED';
      expect(example).toEqual({ approved: decision === 'APPROVED', decision, event_token: event?.token, timestamp: event?.time });
    }
    const times = (draft?.examples ?? []).map((example) => example.timestamp as string);
    expect(times).toEqual([...times].sort());
  });

  it('keeps exact counts under concurrent evaluations of the same rule', async () => {
    const { program, client, card } = await freshProgram('concurrent');
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    const now = await programNow(client);
    await Promise.all(
      Array.from({ length: 24 }, (_, index) => {
        const facts = authorizationFacts(card, now, { merchant: { ...authorizationFacts(card, 0).merchant, mcc: index % 2 === 0 ? '7995' : '5411' } });
        return evaluate(context.server, program, facts);
      }),
    );
    await moveClock(client, `${day(1)}T12:00:00.000Z`);
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: day(0), end: day(0) });
    expect(report.daily_statistics[0]?.draft_version_statistics).toMatchObject({ approved: 12, declined: 12, challenged: 0 });
  });

  it('enforces its limits on the program clock: 400 for missing or malformed dates, 422 naming the limit', async () => {
    const { program, client } = await freshProgram('limits');
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    const token = rule.token;
    const raw = (query: string) => context.server.request('GET', `/v2/auth_rules/${token}/report${query}`, { apiKey: program.apiKey });
    const messageOf = async (query: string, status: number) => {
      const response = await raw(query);
      expect(response.status).toBe(status);
      return ((await response.json()) as { message: string }).message;
    };
    expect(await messageOf(`?end=${day(-1)}`, 400)).toBe('begin: is required');
    expect(await messageOf(`?begin=${day(-1)}`, 400)).toBe('end: is required');
    expect(await messageOf(`?begin=2031-02-30&end=${day(-1)}`, 400)).toBe('begin: must be a valid date');
    expect(await messageOf(`?begin=yesterday&end=${day(-1)}`, 400)).toBe('begin: must be a valid date');

    const report = (begin: string, end: string) => client.authRules.v2.retrieveReport(token, { begin, end });
    expect(await expectError(report(day(-1), day(0)), 422)).toBe(`end: report data is available through the previous UTC day only; the latest end is ${day(-1)}`);
    expect(await expectError(report(day(-2), day(-3)), 422)).toBe(`begin: must be on or before end (${day(-2)} is after ${day(-3)})`);
    expect(await expectError(report('2030-12-09', '2030-12-20'), 422)).toBe('begin: reports cover the past 3 months only; the earliest begin is 2030-12-10');
    expect(await expectError(report('2031-01-10', '2031-02-10'), 422)).toBe('end: a report covers at most 1 month; from begin 2031-01-10 the latest end is 2031-02-09');

    const oldest = await report('2030-12-10', '2031-01-09');
    expect(oldest.daily_statistics).toHaveLength(31);
    expect(oldest.daily_statistics.every((entry) => entry.current_version_statistics === null && entry.draft_version_statistics === null)).toBe(true);
    expect((await report(day(-1), day(-1))).daily_statistics).toEqual([{ date: day(-1), current_version_statistics: null, draft_version_statistics: null }]);
    await expectError(client.authRules.v2.retrieveReport(crypto.randomUUID(), { begin: day(-1), end: day(-1) }), 404);
  });

  it('is gone with its rule', async () => {
    const { program, client, card } = await freshProgram('deleted');
    const rule = await createRule(client, conditionalBlock(GAMBLING));
    await authorize(program, card, '7995');
    await client.authRules.v2.del(rule.token);
    await moveClock(client, `${day(1)}T12:00:00.000Z`);
    await expectError(client.authRules.v2.retrieveReport(rule.token, { begin: day(0), end: day(0) }), 404);
  });
});
