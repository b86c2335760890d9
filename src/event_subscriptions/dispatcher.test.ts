/**
 * The dispatcher as a process: two servers on one PostgreSQL deliver each attempt exactly once; a
 * server stops within its deadline while a receiver hangs, and gives the attempt back for another
 * to send, but records a status answered before it stopped; a secret rotated out stops signing 24
 * hours (wall time) after the rotation that retired it, each on its own.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { emitEvent } from '../events/emit.js';
import { describeWithDb, engine, sdkClient, startTestServer, testConfig, type TestServer } from '../testing/harness.js';
import { movableWallClock } from '../testing/clock.js';
import { eventually, pause, receivedAt, startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { startServer, type RunningServer } from '../server.js';
import type { Db } from '../db/database.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from './delivery.js';
import { webhookSignature } from './signature.js';
import * as service from './service.js';

const FAST = { retryScheduleMs: [50], pollIntervalMs: 20 };

function emitCards(server: { db: RunningServer['db'] }, programId: string, count: number) {
  return server.db.transaction(async (tx) => {
    const tokens: string[] = [];
    for (let index = 0; index < count; index++) tokens.push((await emitEvent(tx, programId, 'card.created', { index }, systemClock.nowMs())).token);
    return tokens;
  });
}

describe.skipIf(engine !== 'postgres' || !process.env.TEST_DATABASE_URL)('two servers on one PostgreSQL', () => {
  const encryptionKey = crypto.randomBytes(32);
  let first: TestServer;
  let second: RunningServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    first = await startTestServer({ config: { encryptionKey }, delivery: FAST });
    second = await startServer(testConfig(first.database, { encryptionKey }), { delivery: FAST });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await receiver?.close();
  });

  it('deliver each attempt exactly once', async () => {
    const program = await first.newProgram();
    const subscription = await program.client.events.subscriptions.create({ url: `${receiver.url}/both` });
    const count = 60;
    // Half the events committed by each server, so that both dispatchers are woken at once.
    const tokens = (await Promise.all([emitCards(first.server, program.programId, count / 2), emitCards(second, program.programId, count / 2)])).flat();
    await receivedAt(receiver, '/both', count);
    await pause(300);
    const ids = receiver.at('/both').map((request) => request.headers['webhook-id']);
    expect(ids.sort()).toEqual([...tokens].sort());
    const attempts = await program.client.events.subscriptions.listAttempts(subscription.token, { page_size: 100 });
    expect(attempts.data).toHaveLength(count);
    expect(attempts.data.every((attempt) => attempt.status === 'SUCCESS')).toBe(true);
  });
});

describeWithDb('the dispatcher', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => receiver?.close());

  it('stops within the shutdown deadline while a receiver hangs, and gives the attempt back', async () => {
    const encryptionKey = crypto.randomBytes(32);
    const server = await startTestServer({ config: { encryptionKey }, delivery: FAST });
    let release = () => {};
    receiver.answer = (request) =>
      request.path === '/hang' ? new Promise((resolve) => (release = () => resolve({ status: 200 }))) : { status: 200, body: 'ok' };
    try {
      const program = await server.newProgram();
      await program.client.events.subscriptions.create({ url: `${receiver.url}/hang` });
      const [eventToken] = await emitCards(server.server, program.programId, 1);
      await receivedAt(receiver, '/hang', 1);
      const startedMs = performance.now();
      await server.server.close();
      expect(performance.now() - startedMs).toBeLessThan(2_000);

      // Another server on the same database sends it again (the receiver now answers).
      receiver.answer = () => ({ status: 200, body: 'ok' });
      const again = await startServer(testConfig(server.database, { encryptionKey }), { delivery: FAST });
      try {
        const client = sdkClient(again.url, program.apiKey);
        await receivedAt(receiver, '/hang', 2);
        await eventually(async () => expect((await client.events.listAttempts(eventToken!)).data.map((attempt) => attempt.status)).toEqual(['SUCCESS']));
      } finally {
        await again.close();
      }
    } finally {
      release();
      await server.database.drop();
    }
  });

  it('records a 2xx answered before the server stopped, its body still coming, as SUCCESS: not sent again', async () => {
    const encryptionKey = crypto.randomBytes(32);
    const server = await startTestServer({ config: { encryptionKey }, delivery: FAST });
    let finishBody = () => {};
    receiver.answer = (request) =>
      request.path === '/slow-body' ? { status: 202, body: 'accepted', bodyAfter: new Promise<void>((resolve) => (finishBody = resolve)) } : { status: 200, body: 'ok' };
    try {
      const program = await server.newProgram();
      await program.client.events.subscriptions.create({ url: `${receiver.url}/slow-body` });
      const [eventToken] = await emitCards(server.server, program.programId, 1);
      await receivedAt(receiver, '/slow-body', 1);
      await pause(200); // the status reaches the dispatcher; the body does not
      await server.server.close();

      receiver.answer = () => ({ status: 200, body: 'ok' });
      const again = await startServer(testConfig(server.database, { encryptionKey }), { delivery: FAST });
      try {
        const client = sdkClient(again.url, program.apiKey);
        await pause(300);
        expect(receiver.at('/slow-body')).toHaveLength(1);
        expect((await client.events.listAttempts(eventToken!)).data.map((attempt) => [attempt.status, attempt.response_status_code])).toEqual([['SUCCESS', 202]]);
      } finally {
        await again.close();
      }
    } finally {
      finishBody();
      await server.database.drop();
    }
  });

  it('keeps a subscription whose receiver hangs, with a backlog, from holding up another program\'s webhooks', async () => {
    const server = await startTestServer({ config: { encryptionKey: crypto.randomBytes(32) }, delivery: FAST });
    const hanging: Array<() => void> = [];
    receiver.answer = (request) =>
      request.path === '/stuck' ? new Promise((resolve) => hanging.push(() => resolve({ status: 200 }))) : { status: 200, body: 'ok' };
    try {
      const [slow, quick] = [await server.newProgram('slow receiver'), await server.newProgram('quick receiver')];
      await slow.client.events.subscriptions.create({ url: `${receiver.url}/stuck` });
      await quick.client.events.subscriptions.create({ url: `${receiver.url}/quick` });
      await emitCards(server.server, slow.programId, 40);
      await receivedAt(receiver, '/stuck', DEFAULT_DISPATCHER_OPTIONS.maxInFlightPerSubscription);
      await emitCards(server.server, quick.programId, 1);
      // Without turns, all 16 slots would hang on /stuck until the 10 s request timeout.
      await receivedAt(receiver, '/quick', 1);
      expect(receiver.at('/stuck')).toHaveLength(DEFAULT_DISPATCHER_OPTIONS.maxInFlightPerSubscription);
    } finally {
      receiver.answer = () => ({ status: 200, body: 'ok' });
      for (const release of hanging) release();
      await server.close();
    }
  });

  it('signs with the previous secret for 24 hours of wall time after a rotation, then only with the current one', async () => {
    const clock = movableWallClock('2031-03-01T12:00:00.000Z');
    const server = await startTestServer({ wall: clock.wall, delivery: FAST });
    try {
      const program = await server.newProgram();
      const subscription = await program.client.events.subscriptions.create({ url: `${receiver.url}/overlap` });
      const { secret: previous } = await program.client.events.subscriptions.retrieveSecret(subscription.token);
      await program.client.events.subscriptions.rotateSecret(subscription.token);
      const { secret: current } = await program.client.events.subscriptions.retrieveSecret(subscription.token);

      const signaturesOf = (request: { headers: Record<string, string>; body: string }) => request.headers['webhook-signature']!.split(' ');
      const expected = (secret: string, request: { headers: Record<string, string>; body: string }) =>
        webhookSignature(secret, request.headers['webhook-id']!, Number(request.headers['webhook-timestamp']), request.body);

      clock.advance(23 * 3_600_000);
      await emitCards(server.server, program.programId, 1);
      const [during] = await receivedAt(receiver, '/overlap', 1);
      expect(signaturesOf(during!)).toEqual([expected(current!, during!), expected(previous!, during!)]);
      expect(Number(during!.headers['webhook-timestamp'])).toBe(Math.floor(clock.wall.nowMs() / 1000));

      clock.advance(2 * 3_600_000);
      await emitCards(server.server, program.programId, 1);
      const [, after] = await receivedAt(receiver, '/overlap', 2);
      expect(signaturesOf(after!)).toEqual([expected(current!, after!)]);
    } finally {
      await server.close();
    }
  });

  it('signs with every secret rotated out until its own 24 hours (wall time) end: two rotations within a day, three signatures', async () => {
    const HOUR_MS = 3_600_000;
    const clock = movableWallClock('2031-03-01T12:00:00.000Z');
    const server = await startTestServer({ wall: clock.wall, delivery: FAST });
    try {
      const program = await server.newProgram();
      const subscriptions = program.client.events.subscriptions;
      const subscription = await subscriptions.create({ url: `${receiver.url}/twice` });
      const { secret: first } = await subscriptions.retrieveSecret(subscription.token);
      await subscriptions.rotateSecret(subscription.token);
      const { secret: second } = await subscriptions.retrieveSecret(subscription.token);
      clock.advance(2 * HOUR_MS);
      await subscriptions.rotateSecret(subscription.token);
      const { secret: current } = await subscriptions.retrieveSecret(subscription.token);
      expect(new Set([first, second, current]).size).toBe(3);

      /** The signatures of the next delivery, once the wall clock has moved `hours` more. */
      const deliveryAfter = async (hours: number) => {
        clock.advance(hours * HOUR_MS);
        const count = receiver.at('/twice').length + 1;
        await emitCards(server.server, program.programId, 1);
        const request = (await receivedAt(receiver, '/twice', count))[count - 1]!;
        const expected = (secret: string) => webhookSignature(secret, request.headers['webhook-id']!, Number(request.headers['webhook-timestamp']), request.body);
        return { signatures: request.headers['webhook-signature']!.split(' '), expected };
      };

      const during = await deliveryAfter(20); // 22 h after the first rotation, 20 h after the second
      expect(during.signatures).toEqual([during.expected(current!), during.expected(second!), during.expected(first!)]);

      const firstEnded = await deliveryAfter(3); // 25 h after the first rotation, 23 h after the second
      expect(firstEnded.signatures).toEqual([firstEnded.expected(current!), firstEnded.expected(second!)]);

      const bothEnded = await deliveryAfter(2);
      expect(bothEnded.signatures).toEqual([bothEnded.expected(current!)]);
    } finally {
      await server.close();
    }
  });
});

describeWithDb('recording an outcome while the subscription is deleted', () => {
  it('queues no retry that outlives the deletion: the deletion waits for the outcome, then fails the retry at once', async () => {
    const receiver = await startWebhookReceiver();
    // The server's own dispatcher sends nothing: this test's dispatcher, on a database that runs the deletion inside its transactions, does.
    const server = await startTestServer({ delivery: { maxInFlight: 0 } });
    const db = server.server.db;
    const program = await server.newProgram();
    const subscription = await program.client.events.subscriptions.create({ url: `${receiver.url}/deleted-meanwhile` });
    receiver.answer = () => ({ status: 500 });
    let deletion: Promise<unknown> | undefined;
    /** The deletion, sent from inside the transaction that records the failure, once its statements ran, given 300 ms before that transaction commits. */
    const deletingBeforeCommit: Db = {
      ...db,
      transaction: (work) =>
        db.transaction(async (tx) => {
          const result = await work(tx);
          deletion ??= program.client.events.subscriptions.del(subscription.token);
          await Promise.race([deletion, pause(300)]);
          return result;
        }),
    };
    const dispatcher = new Dispatcher(deletingBeforeCommit, server.server.app.deps.secrets, systemClock, server.server.app.log, { retryScheduleMs: [60_000], pollIntervalMs: 20 });
    dispatcher.start();
    try {
      const [eventToken] = await emitCards(server.server, program.programId, 1);
      await eventually(() => expect(deletion).toBeDefined());
      await deletion;
      const attempts = (await program.client.events.listAttempts(eventToken!)).data;
      expect(attempts.map((attempt) => attempt.status)).not.toContain('PENDING');
      expect(attempts.map((attempt) => [attempt.status, attempt.response_status_code, attempt.response])).toEqual([
        ['FAILED', 0, 'event subscription deleted'],
        ['FAILED', 500, ''],
      ]);
    } finally {
      await dispatcher.stop();
      await server.close();
      await receiver.close();
    }
  });
});

describeWithDb('queueing an attempt while the subscription is deleted', () => {
  /**
   * A resend and a send_simulated_example run in a transaction that, once its statements ran, sends
   * the subscription's deletion and gives it 300 ms before committing: the deletion must wait for the
   * queued attempt and fail it, not commit first and leave it PENDING for a subscription that is gone.
   */
  it.each(['resend', 'send_simulated_example'] as const)('%s leaves no PENDING attempt to a subscription deleted meanwhile', async (operation) => {
    const receiver = await startWebhookReceiver();
    const server = await startTestServer({ delivery: { maxInFlight: 0 } });
    const { db } = server.server;
    const program = await server.newProgram();
    try {
      const subscription = await program.client.events.subscriptions.create({ url: `${receiver.url}/deleted-meanwhile` });
      const [eventToken] = await emitCards(server.server, program.programId, 1);
      const scope = { programId: program.programId, clockOffsetMs: 0, nowMs: systemClock.nowMs() };
      let deletion: Promise<unknown> | undefined;
      const queued = await db.transaction(async (tx) => {
        if (operation === 'resend') await service.resend(db, tx, scope, eventToken!, subscription.token);
        else await service.sendExample(db, tx, scope, subscription.token, { event_type: 'card.created' }, () => ({}));
        deletion = program.client.events.subscriptions.del(subscription.token);
        await Promise.race([deletion, pause(300)]);
        return (await tx.selectFrom('event_attempts').select('event_token').where('program_id', '=', program.programId).where('status', '=', 'PENDING').execute()).map((row) => row.event_token);
      });
      await deletion;
      expect(queued.length).toBeGreaterThan(0);
      const statuses = await db.kysely.selectFrom('event_attempts').select('status').where('program_id', '=', program.programId).where('event_token', 'in', queued).execute();
      expect(statuses.map((row) => row.status)).not.toContain('PENDING');
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
