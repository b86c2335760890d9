/**
 * Starting a server in process: configured keys answer from the first request the port takes;
 * a start that cannot listen leaves nothing running behind it.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, testConfig, type TestDatabase } from './testing/harness.js';
import { startServer } from './server.js';

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** GET /v1/status with `key` on `port`: the status, or undefined while nothing listens there. */
function statusAt(port: number, key: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/v1/status', headers: { authorization: key } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', () => resolve(undefined));
  });
}

describeWithDb('starting a server', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('answers a configured key from the first request the port takes (no 401 while keys are provisioned)', async () => {
    const port = await freePort();
    const key = 'configured-from-the-start';
    const answered: number[] = [];
    let started = false;
    // Pollers knock from before the start until it has returned, each again as soon as it is answered or refused.
    const poll = async () => {
      while (!started) {
        const status = await statusAt(port, key);
        if (status !== undefined) answered.push(status);
      }
    };
    const pollers = Array.from({ length: 8 }, poll);
    const server = await startServer(testConfig(database, { port, apiKeys: [key] }), { logStream: { write: () => true } });
    started = true;
    await Promise.all(pollers);
    try {
      expect(answered.every((status) => status === 200), `answers while starting: ${answered.join(', ')}`).toBe(true);
      expect(await statusAt(port, key)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('leaves nothing running when it cannot listen: no dispatcher polling a closed database', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    const logged: string[] = [];
    try {
      const starting = startServer(testConfig(database, { port }), { logStream: { write: (line: string) => logged.push(line) > 0 }, delivery: { pollIntervalMs: 10 } });
      await expect(starting).rejects.toThrow(/PORT/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(logged.filter((line) => line.includes('"level":50'))).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
