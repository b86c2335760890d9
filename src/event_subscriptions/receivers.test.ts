/**
 * Webhooks as a receiver sees them, black box through the SDK and real routes: every event type's
 * example unwrapped by the SDK, receivers that redirect, hang, drop the connection or fail, retries
 * on wall time whatever the program clock does, the attempts list under every filter and cursor,
 * recover and replay_missing within begin/end, and subscriptions disabled or deleted with attempts
 * still to send.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { EVENT_TYPES } from '../events/types.js';
import { describeWithDb, startTestServer } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { eventually, pause, receivedAt, startWebhookReceiver, useWebhookTestbed } from '../testing/webhook-receiver.js';

const RETRY_SCHEDULE_MS = [100, 100];
const REQUEST_TIMEOUT_MS = 500;
const ATTEMPTS_PER_DELIVERY = RETRY_SCHEDULE_MS.length + 1;

describeWithDb('webhooks as receivers see them', () => {
  const bed = useWebhookTestbed({ retryScheduleMs: RETRY_SCHEDULE_MS, pollIntervalMs: 50, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  const { context } = bed;

  function subscribe(path: string, params: Partial<Lithic.Events.SubscriptionCreateParams> = {}) {
    return bed.client.events.subscriptions.create({ url: `${bed.receiver.url}${path}`, ...params });
  }

  async function allAttempts(list: (params: Lithic.Events.EventListAttemptsParams) => AsyncIterable<Lithic.Events.MessageAttempt>, params: Lithic.Events.EventListAttemptsParams = {}) {
    const attempts: Lithic.Events.MessageAttempt[] = [];
    for await (const attempt of list({ page_size: 2, ...params })) attempts.push(attempt);
    return attempts;
  }

  async function moveClock(now: string) {
    const response = await context.server.request('POST', '/v1/simulate/clock', { apiKey: bed.program.apiKey, body: { now } });
    expect(response.status).toBe(200);
  }

  it('sends an example of every event type that the SDK unwraps, with that event_type, signed with the secret', async () => {
    const subscription = await subscribe('/every-type');
    const { secret } = await bed.client.events.subscriptions.retrieveSecret(subscription.token);
    for (const eventType of EVENT_TYPES) await bed.client.events.subscriptions.sendSimulatedExample(subscription.token, { event_type: eventType });
    const deliveries = await receivedAt(bed.receiver, '/every-type', EVENT_TYPES.length);
    const withSecret = new Lithic({ apiKey: 'unused', webhookSecret: secret });
    const unwrapped = deliveries.map((delivery) => withSecret.webhooks.unwrap(delivery.body, delivery.headers) as { event_type: string; example: boolean });
    expect(unwrapped.map((body) => body.event_type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const body of unwrapped) expect(body.example, body.event_type).toBe(true);
    for (const delivery of deliveries) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(Number(delivery.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
      expect(() => bed.client.webhooks.verifySignature(delivery.body.replace('"example":true', '"example":false'), delivery.headers, secret)).toThrow();
    }
    const tokens = new Set(deliveries.map((delivery) => delivery.event.token));
    expect(tokens.size).toBe(EVENT_TYPES.length);
    const attempts = await allAttempts((params) => bed.client.events.subscriptions.listAttempts(subscription.token, params), { page_size: 100 });
    expect(new Set(attempts.map((attempt) => attempt.event_token))).toEqual(tokens);
    await expectError(bed.client.events.subscriptions.sendSimulatedExample(subscription.token, { event_type: 'card.made' as 'card.created' }), 400);
  });

  it('verifies with each of three secrets after two quick rotations, the newest being the one GET answers, whatever the program clock says', async () => {
    const subscription = await subscribe('/rotations', { event_types: ['financial_account.created'] });
    const secrets = [(await bed.client.events.subscriptions.retrieveSecret(subscription.token)).secret];
    for (let rotation = 0; rotation < 2; rotation++) {
      await bed.client.events.subscriptions.rotateSecret(subscription.token);
      secrets.push((await bed.client.events.subscriptions.retrieveSecret(subscription.token)).secret);
    }
    expect(new Set(secrets).size).toBe(3);
    // The retired secrets' 24 hours are wall time: two program days later they still sign.
    await moveClock(new Date(Date.now() + 2 * 24 * 3_600_000).toISOString());
    await bed.client.financialAccounts.create({ nickname: 'Rotated', type: 'OPERATING' });
    const [delivery] = await receivedAt(bed.receiver, '/rotations', 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(3);
    for (const secret of secrets) expect(() => bed.client.webhooks.unwrap(delivery!.body, delivery!.headers, secret)).not.toThrow();
  });

  it('fails a redirect (not followed), a dropped connection, a hang and a 500 with what happened, and retries each on the schedule', async () => {
    const paths = ['/redirect', '/drop', '/hang', '/error'];
    const subscriptions = new Map<string, string>();
    for (const path of paths) subscriptions.set(path, (await subscribe(path, { event_types: ['card.created'] })).token);
    const hung: (() => void)[] = [];
    const failedAtMs: number[] = [];
    bed.receiver.answer = (request) => {
      if (request.path === '/redirect') return { status: 307, body: 'moved' };
      if (request.path === '/hang') return { status: 200, bodyAfter: new Promise<void>((resolve) => hung.push(resolve)), body: 'late' };
      if (request.path === '/error') {
        failedAtMs.push(Date.now());
        return { status: 500, body: 'broken' };
      }
      return { status: 200, body: 'ok' };
    };
    // The drop receiver: a server of its own that closes every connection without an answer.
    const dropper = http.createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', () => resolve()));
    await bed.client.events.subscriptions.update(subscriptions.get('/drop')!, { url: `http://127.0.0.1:${(dropper.address() as AddressInfo).port}/drop` });
    try {
      const card = await bed.client.cards.create({ type: 'VIRTUAL' });
      const [event] = (await bed.client.events.list({ event_types: ['card.created'] })).data;
      expect(event!.payload).toEqual({});
      const attempts = await eventually(async () => {
        const listed = await allAttempts((params) => bed.client.events.listAttempts(event!.token, params));
        expect(listed.filter((attempt) => attempt.status === 'FAILED')).toHaveLength(paths.length * ATTEMPTS_PER_DELIVERY - ATTEMPTS_PER_DELIVERY);
        expect(listed.filter((attempt) => attempt.status === 'SUCCESS')).toHaveLength(1);
        return listed;
      }, 10_000);
      const of = (path: string) => attempts.filter((attempt) => attempt.event_subscription_token === subscriptions.get(path));
      for (const path of ['/redirect', '/drop', '/error']) expect(of(path).map((attempt) => attempt.status), path).toEqual(Array(ATTEMPTS_PER_DELIVERY).fill('FAILED'));
      expect(of('/redirect').map((attempt) => [attempt.response_status_code, attempt.response])).toEqual(Array(ATTEMPTS_PER_DELIVERY).fill([307, 'moved']));
      expect(of('/error').map((attempt) => [attempt.response_status_code, attempt.response])).toEqual(Array(ATTEMPTS_PER_DELIVERY).fill([500, 'broken']));
      for (const attempt of of('/drop')) expect(attempt.response_status_code).toBe(0);
      for (const attempt of of('/drop')) expect(attempt.response).not.toBe('');
      // The hung receiver answered 200 at once; its body never came: a success, sent once.
      expect(of('/hang').map((attempt) => [attempt.status, attempt.response_status_code])).toEqual([['SUCCESS', 200]]);
      expect(bed.receiver.at('/hang')).toHaveLength(1);
      expect(JSON.parse(bed.receiver.at('/error')[0]!.body)).toMatchObject({ event_type: 'card.created', card_token: card.token });
      await pause(300);
      expect(bed.receiver.at('/error')).toHaveLength(ATTEMPTS_PER_DELIVERY);
      // Each retry waited its delay after the failure before it.
      failedAtMs.slice(1).forEach((atMs, index) => expect(atMs - failedAtMs[index]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[index]!));
      expect(bed.receiver.at('/redirect')).toHaveLength(ATTEMPTS_PER_DELIVERY);
    } finally {
      for (const resolve of hung) resolve();
      dropper.closeAllConnections();
      dropper.close();
    }
  });

  it('times out a receiver that never answers, and retries it', async () => {
    const subscription = await subscribe('/silent', { event_types: ['card.created'] });
    const silent: (() => void)[] = [];
    let calls = 0;
    bed.receiver.answer = (request) => {
      if (request.path !== '/silent' || ++calls > 1) return { status: 204 };
      return new Promise((resolve) => silent.push(() => resolve({ status: 200 })));
    };
    try {
      await bed.client.cards.create({ type: 'VIRTUAL' });
      const attempts = await eventually(async () => {
        const listed = (await bed.client.events.subscriptions.listAttempts(subscription.token)).data;
        expect(listed.map((attempt) => attempt.status)).toEqual(['SUCCESS', 'FAILED']);
        return listed;
      });
      expect(attempts[1]).toMatchObject({ response_status_code: 0, response: `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` });
      expect(attempts[0]).toMatchObject({ response_status_code: 204, response: '' });
      expect(new Set(bed.receiver.at('/silent').map((request) => request.headers['webhook-id'])).size).toBe(1);
    } finally {
      for (const answer of silent) answer();
    }
  });

  it('retries on wall time: moving the program clock a day on does not bring a retry an hour away due', async () => {
    const server = await startTestServer({ delivery: { retryScheduleMs: [3_600_000], pollIntervalMs: 50 } });
    try {
      const own = await server.newProgram();
      const subscription = await own.client.events.subscriptions.create({ url: `${bed.receiver.url}/later`, event_types: ['card.created'] });
      bed.receiver.answer = (request) => (request.path === '/later' ? { status: 503 } : { status: 200, body: 'ok' });
      await own.client.cards.create({ type: 'VIRTUAL' });
      await eventually(async () => expect((await own.client.events.subscriptions.listAttempts(subscription.token)).data.map((attempt) => attempt.status)).toEqual(['PENDING', 'FAILED']));
      const moved = await server.request('POST', '/v1/simulate/clock', { apiKey: own.apiKey, body: { now: new Date(Date.now() + 24 * 3_600_000).toISOString() } });
      expect(moved.status).toBe(200);
      await own.client.events.list();
      await pause(300);
      expect(bed.receiver.at('/later')).toHaveLength(1);
      expect((await own.client.events.subscriptions.listAttempts(subscription.token)).data.map((attempt) => attempt.status)).toEqual(['PENDING', 'FAILED']);
    } finally {
      await server.close();
    }
  });

  it('dates a failure and its retry by the program clock when the answer came, a move of it during the request included', async () => {
    const subscription = await bed.client.events.subscriptions.create({ url: `${bed.receiver.url}/moved-during`, event_types: ['card.created'] });
    const movedTo = new Date(Date.now() + 365 * 24 * 3_600_000).toISOString();
    let moved = false;
    bed.receiver.answer = async (request) => {
      if (request.path !== '/moved-during') return { status: 200, body: 'ok' };
      if (!moved) {
        moved = true;
        await moveClock(movedTo);
      }
      return { status: 500 };
    };
    await bed.client.cards.create({ type: 'VIRTUAL' });
    const [retry, failed] = await eventually(async () => {
      const attempts = (await bed.client.events.subscriptions.listAttempts(subscription.token)).data;
      expect(attempts.map((attempt) => attempt.status)).toContain('FAILED');
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      return attempts;
    });
    expect(failed!.created < movedTo).toBe(true);
    expect(retry!.created >= movedTo, `retry created ${retry!.created}, the clock moved to ${movedTo} before the answer`).toBe(true);
    expect((await bed.client.events.subscriptions.listAttempts(subscription.token, { begin: failed!.created })).data.map((attempt) => attempt.token)).toContain(retry!.token);
  });

  it('lists attempts under every filter and cursor, by event and by subscription, the same as filtering the whole list', async () => {
    const subscription = await subscribe('/attempts', { event_types: ['financial_account.created', 'financial_account.updated'] });
    let failures = 0;
    bed.receiver.answer = (request) => (request.path === '/attempts' && ++failures <= 2 ? { status: 500 } : { status: 200, body: 'ok' });
    const account = await bed.client.financialAccounts.create({ nickname: 'Attempts', type: 'OPERATING' });
    await eventually(async () => expect((await bed.client.events.subscriptions.listAttempts(subscription.token, { status: 'SUCCESS' })).data).toHaveLength(1));
    await bed.client.financialAccounts.update(account.token, { nickname: 'Attempts 2' });
    await bed.client.financialAccounts.update(account.token, { nickname: 'Attempts 3' });
    const all = await eventually(async () => {
      const listed = await allAttempts((params) => bed.client.events.subscriptions.listAttempts(subscription.token, params), { page_size: 100 });
      expect(listed.map((attempt) => attempt.status).sort()).toEqual(['FAILED', 'FAILED', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
      return listed;
    });
    // Newest first, by created then token; each page's cursor continues where it ended.
    const keys = all.map((attempt) => [attempt.created, attempt.token].join(' '));
    expect(keys).toEqual([...keys].sort().reverse());
    const bySubscription = (params: Lithic.Events.EventListAttemptsParams) => allAttempts((query) => bed.client.events.subscriptions.listAttempts(subscription.token, query), params);
    for (const status of ['FAILED', 'SUCCESS', 'PENDING', 'SENDING'] as const) {
      expect(await bySubscription({ status }), status).toEqual(all.filter((attempt) => attempt.status === status));
    }
    const middle = all[2]!;
    expect(await bySubscription({ begin: middle.created })).toEqual(all.filter((attempt) => attempt.created > middle.created));
    expect(await bySubscription({ end: middle.created })).toEqual(all.filter((attempt) => attempt.created < middle.created));
    expect(await bySubscription({ begin: all[all.length - 1]!.created, end: all[0]!.created, status: 'SUCCESS' })).toEqual(
      all.filter((attempt) => attempt.created > all[all.length - 1]!.created && attempt.created < all[0]!.created && attempt.status === 'SUCCESS'),
    );
    const after = await bed.client.events.subscriptions.listAttempts(subscription.token, { starting_after: middle.token, page_size: 100 });
    expect(after.data).toEqual(all.slice(3));
    const before = await bed.client.events.subscriptions.listAttempts(subscription.token, { ending_before: middle.token, page_size: 100 });
    expect(before.data).toEqual(all.slice(0, 2));
    const onePage = await bed.client.events.subscriptions.listAttempts(subscription.token, { ending_before: middle.token, page_size: 1 });
    expect(onePage.data).toEqual([all[1]]);
    expect(onePage.has_more).toBe(true);

    // By event: the first event's attempts, under the same filters.
    const created = all.filter((attempt) => attempt.event_token === all[all.length - 1]!.event_token);
    expect(created).toHaveLength(3);
    const byEvent = (params: Lithic.Events.EventListAttemptsParams) => allAttempts((query) => bed.client.events.listAttempts(created[0]!.event_token, query), params);
    expect(await byEvent({})).toEqual(created);
    expect(await byEvent({ status: 'FAILED' })).toEqual(created.filter((attempt) => attempt.status === 'FAILED'));
    expect(await byEvent({ starting_after: created[0]!.token })).toEqual(created.slice(1));
    expect(await byEvent({ ending_before: created[2]!.token })).toEqual(created.slice(0, 2));
    await expectError(bed.client.events.listAttempts(created[0]!.event_token, { status: 'LOST' as 'FAILED' }), 400);
    await expectError(bed.client.events.listAttempts(created[0]!.event_token, { begin: 'soon' }), 400);
    await expectError(bed.client.events.listAttempts('00000000-0000-4000-8000-000000000000'), 404);
  });

  it('recovers and replays only the events created strictly between begin and end', async () => {
    const failing = await subscribe('/recover-range', { event_types: ['financial_account.updated'] });
    bed.receiver.answer = (request) => (request.path === '/recover-range' ? { status: 500 } : { status: 200, body: 'ok' });
    const account = await bed.client.financialAccounts.create({ nickname: 'Range 0', type: 'OPERATING' });
    const updated: string[] = [];
    for (let index = 1; index <= 3; index++) {
      await bed.client.financialAccounts.update(account.token, { nickname: `Range ${index}` });
      await pause(5);
    }
    const events = (await bed.client.events.list({ event_types: ['financial_account.updated'] })).data.reverse();
    expect(events).toHaveLength(3);
    for (const event of events) updated.push(event.token);
    await eventually(async () => expect((await allAttempts((params) => bed.client.events.subscriptions.listAttempts(failing.token, params), { status: 'FAILED' }))).toHaveLength(3 * ATTEMPTS_PER_DELIVERY));
    bed.receiver.answer = () => ({ status: 200, body: 'ok' });
    // begin and end are exclusive: only the middle event.
    await bed.client.events.subscriptions.recover(failing.token, { begin: events[0]!.created, end: events[2]!.created });
    await eventually(async () => expect((await bed.client.events.subscriptions.listAttempts(failing.token, { status: 'SUCCESS' })).data.map((attempt) => attempt.event_token)).toEqual([updated[1]]));

    // replay_missing to a new subscription of the type: the same range, the same event.
    const late = await subscribe('/replay-range', { event_types: ['financial_account.updated'] });
    await bed.client.events.subscriptions.replayMissing(late.token, { begin: events[0]!.created, end: events[2]!.created });
    const [replayed] = await receivedAt(bed.receiver, '/replay-range', 1);
    expect(replayed!.event.token).toBe(updated[1]);
    await bed.client.events.subscriptions.replayMissing(late.token, { begin: events[0]!.created });
    await receivedAt(bed.receiver, '/replay-range', 2);
    await bed.client.events.subscriptions.replayMissing(late.token);
    await receivedAt(bed.receiver, '/replay-range', 3);
    await pause(300);
    expect(bed.receiver.at('/replay-range').map((request) => request.event.token).sort()).toEqual([...updated].sort());
    await expectError(bed.client.events.subscriptions.replayMissing(late.token, { begin: 'then' }), 400);
  });

  it('refuses unknown event types with a 400 on create, update and list, changing nothing', async () => {
    const existing = await subscribe('/types', { event_types: ['card.created'] });
    await expectError(subscribe('/types-bad', { event_types: ['card.created', 'card.exploded' as 'card.created'] }), 400);
    await expectError(bed.client.events.subscriptions.update(existing.token, { url: existing.url, event_types: ['nothing' as 'card.created'] }), 400);
    await expectError(bed.client.events.list({ event_types: ['card.exploded' as 'card.created'] }), 400);
    expect(await bed.client.events.subscriptions.retrieve(existing.token)).toEqual(existing);
    expect((await bed.client.events.subscriptions.list()).data.map((subscription) => subscription.token)).toEqual([existing.token]);
    // The types an update names are what is sent from then on.
    await bed.client.events.subscriptions.update(existing.token, { url: existing.url, event_types: ['financial_account.created'] });
    await bed.client.cards.create({ type: 'VIRTUAL' });
    const account = await bed.client.financialAccounts.create({ nickname: 'Types', type: 'OPERATING' });
    const [delivery] = await receivedAt(bed.receiver, '/types', 1);
    expect(JSON.parse(delivery!.body)).toMatchObject({ event_type: 'financial_account.created', token: account.token });
    await pause(200);
    expect(bed.receiver.at('/types')).toHaveLength(1);
  });

  it('fails the retry waiting for a subscription disabled, sends nothing more, and recovers it once enabled', async () => {
    const subscription = await subscribe('/disable-pending', { event_types: ['card.created'] });
    bed.receiver.answer = (request) => (request.path === '/disable-pending' ? { status: 500 } : { status: 200, body: 'ok' });
    await bed.client.cards.create({ type: 'VIRTUAL' });
    await receivedAt(bed.receiver, '/disable-pending', 1);
    await bed.client.events.subscriptions.update(subscription.token, { url: subscription.url, disabled: true });
    await bed.client.cards.create({ type: 'VIRTUAL' });
    await pause(400);
    const sent = bed.receiver.at('/disable-pending').length;
    expect(sent).toBeLessThan(ATTEMPTS_PER_DELIVERY + 1);
    const attempts = await allAttempts((params) => bed.client.events.subscriptions.listAttempts(subscription.token, params));
    expect(attempts.filter((attempt) => attempt.status === 'PENDING' || attempt.status === 'SENDING')).toEqual([]);
    // The second card was never queued to it.
    expect(new Set(attempts.map((attempt) => attempt.event_token)).size).toBe(1);
    await expectError(bed.client.events.subscriptions.recover(subscription.token), 422);
    await expectError(bed.client.events.subscriptions.replayMissing(subscription.token), 422);
    await expectError(bed.client.events.subscriptions.sendSimulatedExample(subscription.token), 422);
    await expectError(bed.client.events.resend(attempts[0]!.event_token, { eventSubscriptionToken: subscription.token }), 422);
    bed.receiver.answer = () => ({ status: 200, body: 'ok' });
    await bed.client.events.subscriptions.update(subscription.token, { url: subscription.url, disabled: false });
    await bed.client.events.subscriptions.recover(subscription.token);
    await eventually(async () => expect((await bed.client.events.subscriptions.listAttempts(subscription.token, { status: 'SUCCESS' })).data).toHaveLength(1));
  });

  it('fails at once the attempts waiting for a subscription deleted, sends them never, and keeps them listed by event', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const subscription = await bed.client.events.subscriptions.create({ url: `${closed.url}/gone`, event_types: ['card.created'] });
    await bed.client.cards.create({ type: 'VIRTUAL' });
    const [event] = (await bed.client.events.list({ event_types: ['card.created'] })).data;
    await eventually(async () => expect((await bed.client.events.listAttempts(event!.token, { status: 'FAILED' })).data.length).toBeGreaterThan(0));
    await bed.client.events.subscriptions.del(subscription.token);
    const attempts = (await bed.client.events.listAttempts(event!.token)).data;
    expect(attempts.filter((attempt) => attempt.status === 'PENDING' || attempt.status === 'SENDING')).toEqual([]);
    await pause(400);
    expect((await bed.client.events.listAttempts(event!.token)).data).toEqual(attempts);
    await expectError(bed.client.events.subscriptions.listAttempts(subscription.token), 404);
    await expectError(bed.client.events.resend(event!.token, { eventSubscriptionToken: subscription.token }), 404);
  });

  it('lists events under every filter and cursor: begin and end exclusive, types repeated, payload only with content', async () => {
    const account = await bed.client.financialAccounts.create({ nickname: 'Events 0', type: 'OPERATING' });
    for (let index = 1; index <= 3; index++) await bed.client.financialAccounts.update(account.token, { nickname: `Events ${index}` });
    await bed.client.cards.create({ type: 'VIRTUAL' });
    const all: Lithic.Event[] = [];
    for await (const event of bed.client.events.list({ page_size: 2 })) all.push(event);
    const keys = all.map((event) => `${event.created} ${event.token}`);
    expect(keys).toEqual([...keys].sort().reverse());
    expect(all.every((event) => JSON.stringify(event.payload) === '{}')).toBe(true);
    const types = ['financial_account.updated', 'card.created'] as const;
    const ofTypes = all.filter((event) => (types as readonly string[]).includes(event.event_type));
    expect(ofTypes).toHaveLength(4);
    const listed = async (params: Lithic.EventListParams) => {
      const events: Lithic.Event[] = [];
      for await (const event of bed.client.events.list({ page_size: 1, ...params })) events.push(event);
      return events;
    };
    expect(await listed({ event_types: [...types] })).toEqual(ofTypes);
    const pivot = ofTypes[1]!;
    expect(await listed({ event_types: [...types], begin: pivot.created })).toEqual(ofTypes.filter((event) => event.created > pivot.created));
    expect(await listed({ event_types: [...types], end: pivot.created })).toEqual(ofTypes.filter((event) => event.created < pivot.created));
    expect(await listed({ event_types: [...types], starting_after: pivot.token })).toEqual(ofTypes.slice(2));
    expect(await listed({ event_types: [...types], ending_before: pivot.token })).toEqual(ofTypes.slice(0, 1));
    const withContent = await listed({ event_types: ['financial_account.updated'], with_content: true });
    expect(withContent.map((event) => (event.payload as { nickname: string }).nickname)).toEqual(['Events 3', 'Events 2', 'Events 1']);
    await expectError(bed.client.events.list({ event_types: Array(11).fill('card.created') }), 400);
    await expectError(bed.client.events.list({ begin: 'yesterday' }), 400);
    await expectError(bed.client.events.list({ page_size: 0 }), 400);
  });
});
