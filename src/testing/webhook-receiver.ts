/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request (raw
 * body and headers) and answers what the test tells it to (200 by default).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Lithic from 'lithic';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { useTestServer, type TestProgram, type TestServer } from './harness.js';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The event it carries: its token (the `webhook-id` header) and its type (in the body, beside the payload's fields). */
  event: { token: string; event_type: string };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** What to answer the next requests; the default answer is 200 "ok". */
  answer: (request: ReceivedWebhook) => Promise<Answer> | Answer;
  /** The requests whose path is `path`. */
  at(path: string): ReceivedWebhook[];
  close(): Promise<void>;
}

/** A receiver's answer: its status at once; its body then, or once `bodyAfter` settles (a receiver slow to finish its answer). */
interface Answer {
  status: number;
  body?: string;
  bodyAfter?: Promise<unknown>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = {
    url: '',
    received: [] as ReceivedWebhook[],
    answer: (() => ({ status: 200, body: 'ok' })) as WebhookReceiver['answer'],
    at: (path: string) => receiver.received.filter((request) => request.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const { event_type } = JSON.parse(body) as { event_type: string };
      const received: ReceivedWebhook = { path: request.url ?? '', headers, body, event: { token: headers['webhook-id'] ?? '', event_type } };
      receiver.received.push(received);
      void Promise.resolve(receiver.answer(received)).then(async ({ status, body: answer, bodyAfter }) => {
        response.writeHead(status);
        if (bodyAfter !== undefined) {
          response.flushHeaders();
          await bodyAfter;
        }
        response.end(answer ?? '');
      });
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Waits (polling every 20 ms, at most `timeoutMs`) until `check` passes; fails with its last error. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 5_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Waits (at most `timeoutMs`) until `path` got `count` requests, and returns them. */
export function receivedAt(receiver: WebhookReceiver, path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]> {
  return eventually(() => {
    const requests = receiver.at(path);
    expect(requests.length, `requests to ${path}`).toBeGreaterThanOrEqual(count);
    return requests;
  }, timeoutMs);
}

/** Resolves after `ms`: to check that nothing more arrives. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What `useWebhookTestbed` gives each test: the server, a receiver (answering 200 "ok" when the test starts) and a program of the test's own. */
export interface WebhookTestbed {
  context: { server: TestServer };
  receiver: WebhookReceiver;
  program: TestProgram;
  client: Lithic;
}

/**
 * A test server with these dispatcher options and a receiver for the whole file, and for each test
 * a program of its own (so that no test's subscriptions see another's events). Read the fields in
 * a test or hook: they are set by the hooks this registers.
 */
export function useWebhookTestbed(delivery: NonNullable<Parameters<typeof useTestServer>[0]>['delivery']): WebhookTestbed {
  const context = useTestServer({ delivery });
  const bed = {} as WebhookTestbed;
  bed.context = context;
  beforeAll(async () => {
    bed.receiver = await startWebhookReceiver();
  });
  beforeEach(async () => {
    bed.program = await context.server.newProgram();
    bed.client = bed.program.client;
    bed.receiver.answer = () => ({ status: 200, body: 'ok' });
  });
  afterAll(async () => bed.receiver?.close());
  return bed;
}
