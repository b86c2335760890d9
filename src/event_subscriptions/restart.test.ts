/**
 * Webhook deliveries across a restart of the server process: a retry waiting on its wall-time
 * delay is sent by the next process when it comes due; an attempt under way when the server is
 * stopped (SIGTERM) is given back and sent by the next process at once; one under way when the
 * process is killed (kill -9) is sent again once its lease ends.
 */
import crypto from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, sdkClient, type TestDatabase } from '../testing/harness.js';
import { spawnServer, type ServerProcess } from '../testing/process.js';
import { pause, receivedAt, startWebhookReceiver, eventually, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { DEFAULT_DISPATCHER_OPTIONS } from './delivery.js';

const API_KEY = 'webhook-restart-key';
const [FIRST_RETRY_MS] = DEFAULT_DISPATCHER_OPTIONS.retryScheduleMs as [number];

// kill -9 waits out a lease (60 s): more than the default 30 s.
describeWithDb('webhooks across a server restart', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let receiver: WebhookReceiver;
  const running: ServerProcess[] = [];
  /** Answers the receiver holds back until the test ends. */
  const held: (() => void)[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    receiver = await startWebhookReceiver();
    env = {
      DATABASE_URL: database.databaseUrl,
      CARDWRIGHT_DATA_DIR: database.dataDir,
      CARDWRIGHT_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
      CARDWRIGHT_API_KEYS: API_KEY,
    };
  });
  afterEach(async () => {
    for (const server of running.splice(0)) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    for (const release of held.splice(0)) release();
    await receiver.close();
    await database.drop();
  });

  async function start(): Promise<{ server: ServerProcess; client: ReturnType<typeof sdkClient> }> {
    const server = await spawnServer(env);
    running.push(server);
    return { server, client: sdkClient(server.url, API_KEY) };
  }

  /** A receiver answer that waits until the test ends. */
  function hang() {
    return new Promise<{ status: number }>((resolve) => held.push(() => resolve({ status: 200 })));
  }

  it('sends a retry that was waiting when the server stopped, from the next server, when it comes due', async () => {
    const first = await start();
    const subscription = await first.client.events.subscriptions.create({ url: `${receiver.url}/retry`, event_types: ['financial_account.created'] });
    receiver.answer = () => ({ status: 500, body: 'not yet' });
    const account = await first.client.financialAccounts.create({ nickname: 'Restart', type: 'OPERATING' });
    const [failed] = await receivedAt(receiver, '/retry', 1);
    const failedAtMs = Date.now();
    await eventually(async () => expect((await first.client.events.subscriptions.listAttempts(subscription.token)).data.map((a) => a.status)).toEqual(['PENDING', 'FAILED']));
    first.server.child.kill('SIGTERM');
    expect(await first.server.exited).toBe(0);

    receiver.answer = () => ({ status: 200, body: 'ok' });
    const second = await start();
    const [, retried] = await receivedAt(receiver, '/retry', 2);
    expect(Date.now() - failedAtMs).toBeGreaterThanOrEqual(FIRST_RETRY_MS - 500);
    expect(retried!.event.token).toBe(failed!.event.token);
    expect(JSON.parse(retried!.body)).toMatchObject({ event_type: 'financial_account.created', token: account.token });
    const { secret } = await second.client.events.subscriptions.retrieveSecret(subscription.token);
    expect(() => second.client.webhooks.verifySignature(retried!.body, retried!.headers, secret)).not.toThrow();
    await eventually(async () => expect((await second.client.events.subscriptions.listAttempts(subscription.token)).data.map((a) => a.status)).toEqual(['SUCCESS', 'FAILED']));
  });

  it('gives back the attempt under way on SIGTERM, and the next server sends it at once', async () => {
    const first = await start();
    const subscription = await first.client.events.subscriptions.create({ url: `${receiver.url}/stopped`, event_types: ['financial_account.created'] });
    receiver.answer = hang;
    await first.client.financialAccounts.create({ nickname: 'Stopped', type: 'OPERATING' });
    await receivedAt(receiver, '/stopped', 1);
    first.server.child.kill('SIGTERM');
    expect(await first.server.exited).toBe(0);

    receiver.answer = () => ({ status: 200, body: 'ok' });
    const restartedAtMs = Date.now();
    const second = await start();
    await receivedAt(receiver, '/stopped', 2);
    expect(Date.now() - restartedAtMs).toBeLessThan(FIRST_RETRY_MS);
    await eventually(async () => expect((await second.client.events.subscriptions.listAttempts(subscription.token)).data.map((a) => a.status)).toEqual(['SUCCESS']));
  });

  it('sends again, once its lease ends, an attempt under way when the server was killed', async () => {
    const first = await start();
    const subscription = await first.client.events.subscriptions.create({ url: `${receiver.url}/killed`, event_types: ['financial_account.created'] });
    receiver.answer = hang;
    await first.client.financialAccounts.create({ nickname: 'Killed', type: 'OPERATING' });
    const [sent] = await receivedAt(receiver, '/killed', 1);
    first.server.child.kill('SIGKILL');
    await first.server.exited;

    receiver.answer = () => ({ status: 200, body: 'ok' });
    const second = await start();
    expect((await second.client.events.subscriptions.listAttempts(subscription.token)).data.map((a) => a.status)).toEqual(['SENDING']);
    const [, again] = await receivedAt(receiver, '/killed', 2, DEFAULT_DISPATCHER_OPTIONS.leaseMs + 10_000);
    expect(again!.event.token).toBe(sent!.event.token);
    await eventually(async () => expect((await second.client.events.subscriptions.listAttempts(subscription.token)).data.map((a) => a.status)).toEqual(['SUCCESS']));
    await pause(200);
    expect(receiver.at('/killed')).toHaveLength(2);
  });
});
