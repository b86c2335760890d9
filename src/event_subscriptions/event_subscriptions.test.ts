/**
 * Event subscriptions and webhook delivery end to end: CRUD and validation through the SDK, and
 * deliveries to a real HTTP receiver (signatures checked with the SDK's verifySignature), retries
 * on a schedule in milliseconds, the attempts API, resend / recover / replay_missing /
 * send_example, and isolation between programs. Events are emitted with `emitEvent` in a
 * transaction of their own, as every resource does in the transaction of its change.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Lithic from 'lithic';
import { beforeEach, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import type { Db } from '../db/database.js';
import { emitEvent } from '../events/emit.js';
import type { EventType } from '../events/types.js';
import { describeWithDb, type TestProgram } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';
import { eventually, pause, receivedAt, startWebhookReceiver, useWebhookTestbed, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { RESPONSE_KEPT_CHARS, RETIRED_SECRETS_KEPT } from './delivery.js';
import { recover, replayMissing } from './service.js';

const RETRY_SCHEDULE_MS = [100, 100, 100];
/** Short, so that a receiver that never ends its answer does not hold a test for the default 10 s. */
const REQUEST_TIMEOUT_MS = 1_000;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describeWithDb('event subscriptions and webhooks', () => {
  const bed = useWebhookTestbed({ retryScheduleMs: RETRY_SCHEDULE_MS, pollIntervalMs: 50, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  const { context } = bed;
  let receiver: WebhookReceiver;
  // Each test has a program of its own, so that no test's subscriptions see another's events.
  let program: TestProgram;
  let client: Lithic;
  beforeEach(() => ({ receiver, program, client } = bed));

  function subscribe(path: string, params: Partial<Lithic.Events.SubscriptionCreateParams> = {}, on: TestProgram = program) {
    return on.client.events.subscriptions.create({ url: `${receiver.url}${path}`, ...params });
  }

  async function emit(eventType: EventType, payload: object = { token: crypto.randomUUID() }, on: TestProgram = program) {
    return context.server.server.db.transaction((tx) => emitEvent(tx, on.programId, eventType, payload, systemClock.nowMs()));
  }

  async function attemptsOf(eventToken: string, query: Lithic.Events.EventListAttemptsParams = {}) {
    return (await client.events.listAttempts(eventToken, query)).data;
  }

  /** Events of these types in one transaction, a millisecond apart, ending a second ago (before anything the test does next). */
  async function emitInOrder(eventTypes: readonly EventType[]) {
    const startMs = systemClock.nowMs() - 1_000 - eventTypes.length;
    return context.server.server.db.transaction(async (tx) => {
      const emitted = [];
      for (const [index, eventType] of eventTypes.entries()) emitted.push(await emitEvent(tx, program.programId, eventType, { token: crypto.randomUUID() }, startMs + index));
      return emitted;
    });
  }

  async function allAttemptsTo(subscriptionToken: string) {
    const attempts: Lithic.Events.MessageAttempt[] = [];
    for await (const attempt of client.events.subscriptions.listAttempts(subscriptionToken, { page_size: 100 })) attempts.push(attempt);
    return attempts;
  }

  /** The server's database, noting how many attempts to the subscription each of its transactions queued (the walks run them one after another). */
  function recordingChunks(subscriptionToken: string): { db: Db; queuedPerTransaction: number[] } {
    const db = context.server.server.db;
    const queuedPerTransaction: number[] = [];
    const attemptCount = async () => {
      const { count } = await db.kysely
        .selectFrom('event_attempts')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('program_id', '=', program.programId)
        .where('subscription_token', '=', subscriptionToken)
        .executeTakeFirstOrThrow();
      return Number(count);
    };
    const recording: Db = {
      ...db,
      async transaction(work) {
        const before = await attemptCount();
        const result = await db.transaction(work);
        queuedPerTransaction.push((await attemptCount()) - before);
        return result;
      },
    };
    return { db: recording, queuedPerTransaction };
  }

  const scopeNow = () => ({ programId: program.programId, clockOffsetMs: 0, nowMs: systemClock.nowMs() });

  it('creates, reads, updates, lists and deletes subscriptions', async () => {
    const created = await subscribe('/crud');
    expect(created).toEqual({ token: expect.any(String), url: `${receiver.url}/crud`, description: '', disabled: false, event_types: null });
    expect(await client.events.subscriptions.retrieve(created.token)).toEqual(created);

    const updated = await client.events.subscriptions.update(created.token, { url: 'https://example.com/hooks', description: 'ops', event_types: ['card.created', 'card.created'] });
    expect(updated).toEqual({ ...created, url: 'https://example.com/hooks', description: 'ops', event_types: ['card.created'] });
    // An omitted field keeps its value; [] means every type.
    expect(await client.events.subscriptions.update(created.token, { url: 'https://example.com/h2', disabled: true })).toEqual({ ...updated, url: 'https://example.com/h2', disabled: true });
    expect((await client.events.subscriptions.update(created.token, { url: 'https://example.com/h2', event_types: [] })).event_types).toBeNull();
    expect((await client.events.subscriptions.update(created.token, { url: 'https://example.com/h2', description: VISIBLE_TEXT })).description).toBe(VISIBLE_TEXT);
    expect((await client.events.subscriptions.update(created.token, { url: 'https://example.com/h2', description: '' })).description).toBe('');

    const [second, third] = [await subscribe('/crud-2', { disabled: true, description: 'two' }), await subscribe('/crud-3', { event_types: null as never })];
    const first = await client.events.subscriptions.list({ page_size: 2 });
    expect(first.data.map((s) => s.token)).toEqual([third.token, second.token]);
    expect(first.has_more).toBe(true);
    const next = await client.events.subscriptions.list({ page_size: 2, starting_after: second.token });
    expect(next.data.map((s) => s.token)).toContain(created.token);

    const response = await context.server.request('DELETE', `/v1/event_subscriptions/${created.token}`, { apiKey: program.apiKey });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    await expectError(client.events.subscriptions.retrieve(created.token), 404);
    await expectError(client.events.subscriptions.del(created.token), 404);
    for (const token of [second.token, third.token]) await client.events.subscriptions.del(token);
  });

  it('refuses bad input with a 400 naming the field, and unknown tokens with a 404, changing nothing', async () => {
    const before = (await client.events.subscriptions.list()).data.length;
    const badUrls = ['', 'not a url', '/relative', 'ftp://example.com/x', 'https://user:secret@example.com/x', `https://example.com/${'a'.repeat(2048)}`, 'mailto:a@example.com'];
    // What a URL parser would silently drop or encode (and the URL then shown is not the one called).
    badUrls.push('https://example.com/x\n', ' https://example.com/x', 'https://exa\tmple.com/x', 'https://example.com/a b', 'https://example.com/\u0085');
    for (const url of badUrls) expect(await expectError(client.events.subscriptions.create({ url }), 400)).toMatch(/url/);
    const bodies: unknown[] = [
      { url: 'https://example.com', event_types: ['card.nope'] },
      { url: 'https://example.com', event_types: 'card.created' },
      { url: 'https://example.com', disabled: 'yes' },
      { url: 'https://example.com', description: 'x'.repeat(513) },
      { url: 'https://example.com', unknown: 1 },
      { url: 42 },
      {},
    ];
    for (const body of bodies) {
      const response = await context.server.request('POST', '/v1/event_subscriptions', { apiKey: program.apiKey, body: body as object });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const existing = await subscribe('/validation', { description: 'ops' });
    await expectError(client.events.subscriptions.update(existing.token, { url: 'javascript:alert(1)' }), 400);
    // A description is empty, or shows something without control characters (C0 but NUL, which every body refuses, DEL, C1).
    for (const description of [...NOT_VISIBLE_TEXTS, 'ops\u0007', 'ops\u007f', 'ops\u0085']) {
      expect(await expectError(client.events.subscriptions.create({ url: 'https://example.com', description }), 400)).toBe(notEmptyOrVisibleMessage('description'));
      expect(await expectError(client.events.subscriptions.update(existing.token, { url: existing.url, description }), 400)).toBe(notEmptyOrVisibleMessage('description'));
    }
    const noUrl = await context.server.request('PATCH', `/v1/event_subscriptions/${existing.token}`, { apiKey: program.apiKey, body: { description: 'x' } });
    expect(noUrl.status).toBe(400);
    expect(await client.events.subscriptions.retrieve(existing.token)).toEqual(existing);
    await expectError(client.events.subscriptions.update(UNKNOWN, { url: 'https://example.com' }), 404);
    await expectError(client.events.subscriptions.retrieveSecret(UNKNOWN), 404);
    await expectError(client.events.subscriptions.rotateSecret(UNKNOWN), 404);
    await expectError(client.events.subscriptions.list({ page_size: 101 }), 400);
    await expectError(client.events.subscriptions.listAttempts(existing.token, { status: 'DONE' as 'SUCCESS' }), 400);
    await expectError(client.events.subscriptions.recover(existing.token, { begin: 'yesterday' }), 400);
    await expectError(client.events.subscriptions.sendSimulatedExample(existing.token, { event_type: 'card.nope' as 'card.created' }), 400);
    expect((await client.events.subscriptions.list()).data.length).toBe(before + 1);
    await client.events.subscriptions.del(existing.token);
  });

  it('delivers what real routes record: each event as GET /v1/events/{token} has it, with its event_type, in order', async () => {
    const subscription = await subscribe('/routes', { event_types: ['financial_account.created', 'financial_account.updated', 'card.created'] });
    const { secret } = await client.events.subscriptions.retrieveSecret(subscription.token);
    const account = await client.financialAccounts.create({ nickname: 'Webhooks', type: 'OPERATING' });
    await client.financialAccounts.update(account.token, { nickname: 'Webhooks 2' });
    const card = await client.cards.create({ type: 'VIRTUAL' });

    const deliveries = await receivedAt(receiver, '/routes', 3);
    // The three newest: the program's own accounts recorded their creation before the subscription existed.
    const events = (await client.events.list({ event_types: ['financial_account.created', 'financial_account.updated', 'card.created'], with_content: true, page_size: 3 })).data;
    expect(events.map((event) => event.event_type)).toEqual(['card.created', 'financial_account.updated', 'financial_account.created']);
    for (const event of events) {
      const delivery = deliveries.find((candidate) => candidate.headers['webhook-id'] === event.token);
      expect(delivery, `a delivery of ${event.event_type}`).toBeDefined();
      expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, secret)).not.toThrow();
      expect(JSON.parse(delivery!.body)).toEqual({ event_type: event.event_type, ...event.payload });
    }
    expect(JSON.parse(deliveries.find((d) => d.headers['webhook-id'] === events[0]!.token)!.body)).toMatchObject({ event_type: 'card.created', card_token: card.token });
    expect(events[2]!.payload).toMatchObject({ token: account.token, nickname: 'Webhooks' });
    expect(events[1]!.payload).toMatchObject({ token: account.token, nickname: 'Webhooks 2' });
    // Nothing else: the types it does not name were not sent.
    await pause(200);
    expect(receiver.at('/routes')).toHaveLength(3);
  });

  it('delivers an event signed with the secret, and records the attempt', async () => {
    const subscription = await subscribe('/deliver');
    const { secret } = await client.events.subscriptions.retrieveSecret(subscription.token);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const payload = { token: crypto.randomUUID(), nickname: 'Payroll', type: 'OPERATING' };
    const event = await emit('financial_account.created', payload);

    const [delivery] = await receivedAt(receiver, '/deliver', 1);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['webhook-id']).toBe(event.token);
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, secret)).not.toThrow();
    // Lithic's webhook body: the payload with its event_type (the event's token is the webhook-id).
    expect(JSON.parse(delivery!.body)).toEqual({ event_type: 'financial_account.created', ...payload });

    const attempts = await eventually(async () => {
      const listed = await attemptsOf(event.token);
      expect(listed.map((attempt) => attempt.status)).toEqual(['SUCCESS']);
      return listed;
    });
    expect(attempts[0]).toEqual({
      token: expect.any(String),
      created: new Date(event.created_ms).toISOString(),
      event_subscription_token: subscription.token,
      event_token: event.token,
      response: 'ok',
      response_status_code: 200,
      status: 'SUCCESS',
      url: `${receiver.url}/deliver`,
    });
    expect((await client.events.subscriptions.listAttempts(subscription.token)).data).toEqual(attempts);
    await client.events.subscriptions.del(subscription.token);
  });

  it('sends each subscription only its event types, and nothing to a disabled one', async () => {
    const cards = await subscribe('/types-cards', { event_types: ['card.created'] });
    const everything = await subscribe('/types-all');
    const disabled = await subscribe('/types-disabled', { disabled: true });
    const account = await emit('financial_account.created');
    const card = await emit('card.created');

    const all = await receivedAt(receiver, '/types-all', 2);
    expect(all.map((request) => request.event.token).sort()).toEqual([account.token, card.token].sort());
    expect((await receivedAt(receiver, '/types-cards', 1)).map((request) => request.event.token)).toEqual([card.token]);
    await pause(300);
    expect(receiver.at('/types-cards')).toHaveLength(1);
    expect(receiver.at('/types-disabled')).toHaveLength(0);
    expect((await client.events.subscriptions.listAttempts(disabled.token)).data).toEqual([]);
    // Enabled again, it gets the events emitted from then on.
    await client.events.subscriptions.update(disabled.token, { url: disabled.url, disabled: false });
    const later = await emit('card.created');
    expect((await receivedAt(receiver, '/types-disabled', 1)).map((request) => request.event.token)).toEqual([later.token]);
    for (const subscription of [cards, everything, disabled]) await client.events.subscriptions.del(subscription.token);
  });

  it('signs with the new and the previous secret after a rotation', async () => {
    const subscription = await subscribe('/rotate');
    const { secret: previous } = await client.events.subscriptions.retrieveSecret(subscription.token);
    const rotated = await context.server.request('POST', `/v1/event_subscriptions/${subscription.token}/secret/rotate`, { apiKey: program.apiKey });
    expect(rotated.status).toBe(200);
    expect(await rotated.text()).toBe('');
    const { secret: current } = await client.events.subscriptions.retrieveSecret(subscription.token);
    expect(current).not.toBe(previous);

    await emit('card.created');
    const [delivery] = await receivedAt(receiver, '/rotate', 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, current!)).not.toThrow();
    expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, previous!)).not.toThrow();
    expect(context.server.logs()).not.toContain(current!.slice('whsec_'.length));
    await client.events.subscriptions.del(subscription.token);
  });

  it('signs with the new secret and both previous ones after two rotations, and deleting the subscription deletes them', async () => {
    const subscription = await subscribe('/rotate-twice');
    const secrets = [(await client.events.subscriptions.retrieveSecret(subscription.token)).secret!];
    for (let rotation = 0; rotation < 2; rotation++) {
      await client.events.subscriptions.rotateSecret(subscription.token);
      secrets.push((await client.events.subscriptions.retrieveSecret(subscription.token)).secret!);
    }
    expect(new Set(secrets).size).toBe(3);

    await emit('card.created');
    const [delivery] = await receivedAt(receiver, '/rotate-twice', 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(3);
    for (const secret of secrets) expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, secret)).not.toThrow();

    const retired = () =>
      context.server.server.db.kysely.selectFrom('event_subscription_secrets').select('until_ms').where('program_id', '=', program.programId).where('subscription_token', '=', subscription.token).execute();
    expect(await retired()).toHaveLength(2);
    await client.events.subscriptions.del(subscription.token);
    expect(await retired()).toEqual([]);
  });

  it(`keeps only the newest ${RETIRED_SECRETS_KEPT} retired secrets: many rotations in a day do not grow the signature header without bound`, async () => {
    const subscription = await subscribe('/rotate-often');
    const secrets = [(await client.events.subscriptions.retrieveSecret(subscription.token)).secret!];
    for (let rotation = 0; rotation < RETIRED_SECRETS_KEPT + 2; rotation++) {
      await pause(2); // each rotation in a millisecond of its own: which secrets are the oldest is then certain
      await client.events.subscriptions.rotateSecret(subscription.token);
      secrets.push((await client.events.subscriptions.retrieveSecret(subscription.token)).secret!);
    }
    const retired = await context.server.server.db.kysely
      .selectFrom('event_subscription_secrets')
      .select('until_ms')
      .where('program_id', '=', program.programId)
      .where('subscription_token', '=', subscription.token)
      .execute();
    expect(retired).toHaveLength(RETIRED_SECRETS_KEPT);

    await emit('card.created');
    const [delivery] = await receivedAt(receiver, '/rotate-often', 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(RETIRED_SECRETS_KEPT + 1);
    const [oldest, secondOldest, ...kept] = secrets;
    for (const secret of kept) expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, secret)).not.toThrow();
    for (const dropped of [oldest!, secondOldest!]) expect(() => client.webhooks.verifySignature(delivery!.body, delivery!.headers, dropped)).toThrow();
    await client.events.subscriptions.del(subscription.token);
  });

  it('retries a failed delivery on the schedule until it succeeds', async () => {
    const subscription = await subscribe('/flaky');
    let calls = 0;
    receiver.answer = (request) => (request.path === '/flaky' && ++calls <= 2 ? { status: 500, body: `boom ${calls}` } : { status: 200, body: 'ok' });
    const event = await emit('card.created');
    await receivedAt(receiver, '/flaky', 3);
    const attempts = await eventually(async () => {
      const listed = await attemptsOf(event.token);
      expect(listed.map((attempt) => attempt.status)).toEqual(['SUCCESS', 'FAILED', 'FAILED']);
      return listed;
    });
    expect(attempts.map((attempt) => [attempt.response_status_code, attempt.response])).toEqual([
      [200, 'ok'],
      [500, 'boom 2'],
      [500, 'boom 1'],
    ]);
    expect(new Set(receiver.at('/flaky').map((request) => request.headers['webhook-id']))).toEqual(new Set([event.token]));
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await client.events.subscriptions.del(subscription.token);
  });

  it('records any answer a receiver gives, a NUL character too (which PostgreSQL text cannot hold)', async () => {
    const subscription = await subscribe('/nul');
    receiver.answer = (request) => (request.path === '/nul' ? { status: 500, body: 'bad\u0000answer' } : { status: 200, body: 'ok' });
    const event = await emit('card.created');
    const [attempt] = await eventually(async () => {
      const attempts = await attemptsOf(event.token, { status: 'FAILED' });
      expect(attempts).not.toEqual([]);
      return attempts;
    });
    expect(attempt).toMatchObject({ status: 'FAILED', response_status_code: 500, response: 'bad\uFFFDanswer' });
    await client.events.subscriptions.del(subscription.token);
  });

  it.each([
    ['as soon as the first KiB of the answer arrived', 'x'.repeat(RESPONSE_KEPT_CHARS + 100), 'x'.repeat(RESPONSE_KEPT_CHARS)],
    ["when less came before the request's time ran out", 'ok', 'ok'],
  ])("records a 2xx as a success %s, without waiting for the body's end", async (_when, written, kept) => {
    // A receiver that answers 200, writes the start of its body, and never ends it.
    let requests = 0;
    const endless = http.createServer((_request, response) => {
      requests += 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write(written);
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', () => resolve()));
    try {
      const subscription = await client.events.subscriptions.create({ url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/endless` });
      const event = await emit('card.created');
      const [attempt] = await eventually(async () => {
        const attempts = await attemptsOf(event.token);
        expect(attempts.map((candidate) => candidate.status)).toEqual(['SUCCESS']);
        return attempts;
      });
      expect(attempt).toMatchObject({ response_status_code: 200, response: kept });
      await pause(300);
      expect(requests).toBe(1);
      await client.events.subscriptions.del(subscription.token);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('gives up after the schedule when the receiver refuses connections; recover sends them again', async () => {
    const closed = await startWebhookReceiver();
    const refusedUrl = `${closed.url}/refused`;
    await closed.close();
    const subscription = await client.events.subscriptions.create({ url: refusedUrl });
    const event = await emit('card.created');
    const attempts = await eventually(async () => {
      const listed = await attemptsOf(event.token);
      expect(listed).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
      expect(listed.every((attempt) => attempt.status === 'FAILED')).toBe(true);
      return listed;
    });
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ response_status_code: 0, url: refusedUrl, event_subscription_token: subscription.token });
      expect(attempt.response).toMatch(/ECONNREFUSED/);
    }
    await pause(400);
    expect(await attemptsOf(event.token)).toHaveLength(RETRY_SCHEDULE_MS.length + 1);
    expect((await client.events.subscriptions.listAttempts(subscription.token, { status: 'FAILED', page_size: 2 })).data).toHaveLength(2);
    expect((await client.events.subscriptions.listAttempts(subscription.token, { status: 'SUCCESS' })).data).toEqual([]);
    expect((await client.events.subscriptions.listAttempts(subscription.token, { end: '2000-01-01T00:00:00Z' })).data).toEqual([]);

    // The receiver is back: recover re-queues the event (once), the delivery goes to the new URL.
    await client.events.subscriptions.update(subscription.token, { url: `${receiver.url}/recovered` });
    await client.events.subscriptions.recover(subscription.token, { begin: new Date(event.created_ms - 1000).toISOString() });
    const [delivery] = await receivedAt(receiver, '/recovered', 1);
    expect(delivery!.event.token).toBe(event.token);
    await eventually(async () => expect((await attemptsOf(event.token))[0]).toMatchObject({ status: 'SUCCESS', url: `${receiver.url}/recovered` }));
    await client.events.subscriptions.recover(subscription.token);
    await pause(300);
    expect(receiver.at('/recovered')).toHaveLength(1);
    await client.events.subscriptions.del(subscription.token);
  });

  it("recovers the events created in the range, whenever their failed attempts were made", async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const subscription = await client.events.subscriptions.create({ url: `${closed.url}/refused-range` });
    const nowMs = systemClock.nowMs();
    const db = context.server.server.db;
    // Created 20 s and 10 s ago: each first attempt is dated at its event, its retries now.
    const older = await db.transaction((tx) => emitEvent(tx, program.programId, 'card.created', { token: crypto.randomUUID() }, nowMs - 20_000));
    const newer = await db.transaction((tx) => emitEvent(tx, program.programId, 'card.created', { token: crypto.randomUUID() }, nowMs - 10_000));
    await eventually(async () => {
      const attempts = await allAttemptsTo(subscription.token);
      expect(attempts).toHaveLength(2 * (RETRY_SCHEDULE_MS.length + 1));
      expect(attempts.every((attempt) => attempt.status === 'FAILED')).toBe(true);
    });
    await client.events.subscriptions.update(subscription.token, { url: `${receiver.url}/recovered-range` });
    const between = new Date(nowMs - 15_000).toISOString();

    // The older event was created before `begin` (its retries failed after it): not recovered.
    await client.events.subscriptions.recover(subscription.token, { begin: between });
    await receivedAt(receiver, '/recovered-range', 1);
    await pause(300);
    expect(receiver.at('/recovered-range').map((request) => request.event.token)).toEqual([newer.token]);

    // It was created before `end`, though its failed retries came after: recovered.
    await client.events.subscriptions.recover(subscription.token, { end: between });
    await receivedAt(receiver, '/recovered-range', 2);
    await pause(300);
    expect(receiver.at('/recovered-range').map((request) => request.event.token)).toEqual([newer.token, older.token]);
    await client.events.subscriptions.del(subscription.token);
  });

  it('resends an event, and replays the events a subscription never got', async () => {
    const early = await emit('card.created');
    const other = await emit('financial_account.created');
    const subscription = await subscribe('/replay', { event_types: ['card.created'] });
    await client.events.subscriptions.replayMissing(subscription.token, { begin: new Date(early.created_ms - 1).toISOString() });
    expect((await receivedAt(receiver, '/replay', 1)).map((request) => request.event.token)).toEqual([early.token]);
    await client.events.subscriptions.replayMissing(subscription.token);
    await pause(300);
    expect(receiver.at('/replay')).toHaveLength(1);

    await client.events.resend(other.token, { eventSubscriptionToken: subscription.token });
    expect((await receivedAt(receiver, '/replay', 2))[1]!.event.token).toBe(other.token);
    await expectError(client.events.resend(UNKNOWN, { eventSubscriptionToken: subscription.token }), 404);
    await expectError(client.events.resend(early.token, { eventSubscriptionToken: UNKNOWN }), 404);
    await expectError(client.events.listAttempts(UNKNOWN), 404);
    await expectError(client.events.subscriptions.listAttempts(UNKNOWN), 404);

    await client.events.subscriptions.update(subscription.token, { url: subscription.url, disabled: true });
    await expectError(client.events.resend(early.token, { eventSubscriptionToken: subscription.token }), 422);
    await expectError(client.events.subscriptions.replayMissing(subscription.token), 422);
    await client.events.subscriptions.del(subscription.token);
  });

  it('replays missing events in chunks, each in a transaction of its own, one type after another, queueing each event once', async () => {
    const CHUNK = 4;
    const events = await emitInOrder([...Array<EventType>(9).fill('card.created'), ...Array<EventType>(5).fill('balance.updated'), 'financial_account.updated']);
    const subscription = await subscribe('/replay-chunks', { event_types: ['card.created', 'balance.updated', 'card.shipped'] });
    const resent = events[2]!;
    await client.events.resend(resent.token, { eventSubscriptionToken: subscription.token });
    await receivedAt(receiver, '/replay-chunks', 1);

    const chunks = recordingChunks(subscription.token);
    await replayMissing(chunks.db, scopeNow(), subscription.token, {}, CHUNK);
    // card.created: 4 + 4 + 1 events (one already sent), balance.updated: 4 + 1, card.shipped: none.
    expect(chunks.queuedPerTransaction).toEqual([3, 4, 1, 4, 1, 0]);
    const expected = events.filter((event) => event.event_type !== 'financial_account.updated').map((event) => event.token);
    await receivedAt(receiver, '/replay-chunks', expected.length);
    await pause(200);
    expect(receiver.at('/replay-chunks').map((request) => request.event.token).sort()).toEqual([...expected].sort());
    const attempts = await allAttemptsTo(subscription.token);
    expect(attempts.map((attempt) => attempt.event_token).sort()).toEqual([...expected].sort());

    // Again: nothing is missing any more, over HTTP too (where an Idempotency-Key's repeat replays the answer).
    const again = recordingChunks(subscription.token);
    await replayMissing(again.db, scopeNow(), subscription.token, {}, CHUNK);
    expect(again.queuedPerTransaction.every((queued) => queued === 0)).toBe(true);
    const request = () => context.server.request('POST', `/v1/event_subscriptions/${subscription.token}/replay_missing`, { apiKey: program.apiKey, headers: { 'idempotency-key': resent.token } });
    expect((await request()).status).toBe(200);
    const repeated = await request();
    expect([repeated.status, repeated.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    await pause(200);
    expect(await allAttemptsTo(subscription.token)).toHaveLength(expected.length);
    await client.events.subscriptions.del(subscription.token);
  });

  it('replays each missing event once when two replays of one subscription run at once', async () => {
    const events = await emitInOrder(Array<EventType>(12).fill('card.created'));
    const subscription = await subscribe('/replay-together', { event_types: ['card.created'] });
    const db = context.server.server.db;
    await Promise.all([replayMissing(db, scopeNow(), subscription.token, {}, 4), replayMissing(db, scopeNow(), subscription.token, {}, 4)]);
    expect((await allAttemptsTo(subscription.token)).map((attempt) => attempt.event_token).sort()).toEqual(events.map((event) => event.token).sort());
    await receivedAt(receiver, '/replay-together', events.length);
    await client.events.subscriptions.del(subscription.token);
  });

  it('recovers in chunks, each in a transaction of its own, queueing each event that gave up once whatever the number of its failed attempts', async () => {
    const closed = await startWebhookReceiver();
    const refusedUrl = `${closed.url}/refused-chunks`;
    await closed.close();
    const subscription = await client.events.subscriptions.create({ url: refusedUrl, event_types: ['card.created'] });
    const events = await emitInOrder(Array<EventType>(5).fill('card.created'));
    const attemptsEach = RETRY_SCHEDULE_MS.length + 1;
    await eventually(async () => {
      const attempts = await allAttemptsTo(subscription.token);
      expect(attempts).toHaveLength(events.length * attemptsEach);
      expect(attempts.every((attempt) => attempt.status === 'FAILED')).toBe(true);
    });

    await client.events.subscriptions.update(subscription.token, { url: `${receiver.url}/recover-chunks` });
    const chunks = recordingChunks(subscription.token);
    // Chunks of 3 attempts: an event's first attempt and its retries fall in different chunks.
    await recover(chunks.db, scopeNow(), subscription.token, {}, 3);
    expect(chunks.queuedPerTransaction.length).toBeGreaterThan(attemptsEach);
    expect(Math.max(...chunks.queuedPerTransaction)).toBeLessThanOrEqual(3);
    expect(chunks.queuedPerTransaction.reduce((sum, queued) => sum + queued, 0)).toBe(events.length);
    await receivedAt(receiver, '/recover-chunks', events.length);
    await eventually(async () => expect((await allAttemptsTo(subscription.token)).filter((attempt) => attempt.status === 'SUCCESS')).toHaveLength(events.length));
    expect(receiver.at('/recover-chunks').map((request) => request.event.token).sort()).toEqual(events.map((event) => event.token).sort());

    // Delivered now: nothing more to recover.
    const again = recordingChunks(subscription.token);
    await recover(again.db, scopeNow(), subscription.token, {}, 3);
    expect(again.queuedPerTransaction.every((queued) => queued === 0)).toBe(true);
    await pause(200);
    expect(receiver.at('/recover-chunks')).toHaveLength(events.length);
    await client.events.subscriptions.del(subscription.token);
  });

  it('sends an example event to one subscription only, kept out of the events', async () => {
    const target = await subscribe('/example', { event_types: ['balance.updated', 'card.created'] });
    const bystander = await subscribe('/example-bystander');
    await client.events.subscriptions.sendSimulatedExample(target.token);
    await client.events.subscriptions.sendSimulatedExample(target.token, { event_type: 'card.created' });
    const examples = await receivedAt(receiver, '/example', 2);
    expect(examples.map((request) => request.event.event_type).sort()).toEqual(['balance.updated', 'card.created']);
    const { secret } = await client.events.subscriptions.retrieveSecret(target.token);
    expect(() => client.webhooks.verifySignature(examples[0]!.body, examples[0]!.headers, secret!)).not.toThrow();
    const token = examples[0]!.event.token;
    await eventually(async () => expect((await attemptsOf(token)).map((attempt) => attempt.status)).toEqual(['SUCCESS']));
    await expectError(client.events.retrieve(token), 404);
    await pause(200);
    expect(receiver.at('/example-bystander')).toHaveLength(0);
    await client.events.subscriptions.del(target.token);
    await client.events.subscriptions.del(bystander.token);
  });

  it('queues no retry to a subscription deleted or disabled while an attempt was under way', async () => {
    const deleted = await subscribe('/deleted', { event_types: ['card.created'] });
    const disabled = await subscribe('/disabled', { event_types: ['card.created'] });
    // Each receiver removes its subscription, then fails: no retry is queued, nor ever sent.
    receiver.answer = async (request) => {
      if (request.path === '/deleted') await client.events.subscriptions.del(deleted.token);
      if (request.path === '/disabled') await client.events.subscriptions.update(disabled.token, { url: disabled.url, disabled: true });
      return { status: 503 };
    };
    const event = await emit('card.created');
    await eventually(async () => {
      const attempts = await attemptsOf(event.token);
      expect(attempts.map((attempt) => [attempt.status, attempt.response_status_code])).toEqual([
        ['FAILED', 503],
        ['FAILED', 503],
      ]);
    });
    await pause(300);
    expect(await attemptsOf(event.token)).toHaveLength(2);
    expect([receiver.at('/deleted'), receiver.at('/disabled')].map((requests) => requests.length)).toEqual([1, 1]);
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });


  it("keeps programs apart: another program's subscriptions are 404 and never get its events", async () => {
    const other = await context.server.newProgram('other');
    const mine = await subscribe('/mine');
    const theirs = await subscribe('/theirs', {}, other);
    await expectError(other.client.events.subscriptions.retrieve(mine.token), 404);
    await expectError(other.client.events.subscriptions.update(mine.token, { url: 'https://example.com' }), 404);
    await expectError(other.client.events.subscriptions.retrieveSecret(mine.token), 404);
    await expectError(other.client.events.subscriptions.listAttempts(mine.token), 404);
    await expectError(other.client.events.subscriptions.sendSimulatedExample(mine.token), 404);
    await expectError(other.client.events.subscriptions.del(mine.token), 404);
    expect((await other.client.events.subscriptions.list()).data.map((s) => s.token)).toEqual([theirs.token]);

    const event = await emit('card.created');
    await receivedAt(receiver, '/mine', 1);
    await expectError(other.client.events.listAttempts(event.token), 404);
    await expectError(other.client.events.resend(event.token, { eventSubscriptionToken: theirs.token }), 404);
    const theirEvent = await emit('card.created', { token: crypto.randomUUID() }, other);
    expect((await receivedAt(receiver, '/theirs', 1)).map((request) => request.event.token)).toEqual([theirEvent.token]);
    await pause(200);
    expect(receiver.at('/mine').map((request) => request.event.token)).toEqual([event.token]);

    // Neither program can send its event to the other's subscription, nor the other's example event to its own.
    await expectError(other.client.events.resend(theirEvent.token, { eventSubscriptionToken: mine.token }), 404);
    await client.events.subscriptions.sendSimulatedExample(mine.token);
    const [, example] = await receivedAt(receiver, '/mine', 2);
    await expectError(other.client.events.resend(example!.event.token, { eventSubscriptionToken: theirs.token }), 404);
    await expectError(other.client.events.subscriptions.recover(mine.token), 404);
    await expectError(other.client.events.subscriptions.replayMissing(mine.token), 404);
    await expectError(other.client.events.subscriptions.rotateSecret(mine.token), 404);
    // This program's attempts are no place in the other's lists: a cursor naming one is a 400, as an unknown token is.
    const [myAttempt] = (await client.events.subscriptions.listAttempts(mine.token)).data;
    for (const cursor of [myAttempt!.token, crypto.randomUUID()]) {
      expect(await expectError(other.client.events.subscriptions.listAttempts(theirs.token, { starting_after: cursor }), 400)).toContain(`no item with token '${cursor}'`);
      expect(await expectError(other.client.events.listAttempts(theirEvent.token, { ending_before: cursor }), 400)).toContain(`no item with token '${cursor}'`);
    }

    // The other program's replay and recover of its own subscription send only its own events (this program's are older, some failed).
    const failing = await client.events.subscriptions.create({ url: `${receiver.url}/mine-failing` });
    receiver.answer = (request) => (request.path === '/mine-failing' ? { status: 500 } : { status: 200, body: 'ok' });
    const failed = await emit('card.created');
    await eventually(async () => expect(await attemptsOf(failed.token, { status: 'FAILED' })).toHaveLength(RETRY_SCHEDULE_MS.length + 1));
    const theirEvents = (await other.client.events.list({ page_size: 100 })).data.map((listed) => listed.token);
    await other.client.events.subscriptions.replayMissing(theirs.token);
    await other.client.events.subscriptions.recover(theirs.token);
    await pause(300);
    const theyReceived = receiver.at('/theirs').map((request) => request.event.token);
    expect(theyReceived.length).toBeGreaterThan(1);
    expect(theyReceived.filter((token) => !theirEvents.includes(token))).toEqual([]);
    const theirAttempts = (await other.client.events.subscriptions.listAttempts(theirs.token, { page_size: 100 })).data;
    expect(theirAttempts.filter((attempt) => !theirEvents.includes(attempt.event_token))).toEqual([]);
    for (const subscription of [mine, failing]) await client.events.subscriptions.del(subscription.token);
  });
});
