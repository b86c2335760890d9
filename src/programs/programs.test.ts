/** API keys, program isolation, and the program clock. */
import http from 'node:http';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { AUTH_CACHE_TTL_MS } from './auth-cache.js';
import { revokeKey } from './service.js';
import { systemClock } from '../clock.js';
import { expectErrorResponse } from '../testing/api-errors.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, sdkClient, startTestServer, useTestServer, type TestProgram } from '../testing/harness.js';

describeWithDb('API keys', () => {
  const context = useTestServer();

  it('accepts the bare key (as the SDK sends it) and a Bearer key', async () => {
    await expect(context.program.client.apiStatus()).resolves.toEqual({ message: 'OK' });
    const response = await context.server.request('GET', '/v1/status', { apiKey: `Bearer ${context.program.apiKey}` });
    expect(response.status).toBe(200);
  });

  it('reads the key with spaces around it or after Bearer; an empty key, a bare Bearer, another scheme or anything after the key is a 401', async () => {
    const { apiKey } = context.program;
    for (const header of [` ${apiKey} `, `Bearer ${apiKey}`, `bearer ${apiKey}`, `Bearer   ${apiKey}`]) {
      expect((await context.server.request('GET', '/v1/status', { apiKey: header })).status, header).toBe(200);
    }
    const refusals: Array<[string, RegExp]> = [
      ['', /^Please provide API key/],
      ['   ', /^Please provide API key/],
      ['Bearer ', /^Could not find API key/],
      ['Bearer', /^Could not find API key/],
      [`Basic ${apiKey}`, /^Could not find API key/],
      [`${apiKey} ${apiKey}`, /^Could not find API key/],
      [apiKey.toUpperCase(), /^Could not find API key/],
    ];
    for (const [header, message] of refusals) {
      await expectErrorResponse(await context.server.request('GET', '/v1/status', { apiKey: header }), 401, message);
    }
  });

  it('reads the Authorization header whatever the case of its name', async () => {
    const { port } = new URL(context.server.url);
    for (const name of ['Authorization', 'AUTHORIZATION', 'aUtHoRiZaTiOn']) {
      // Node sends a header name as it is given (fetch would lower-case it).
      const status = await new Promise<number | undefined>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/v1/status', headers: { [name]: context.program.apiKey } }, (response) => {
          response.resume();
          resolve(response.statusCode);
        }).on('error', reject);
      });
      expect(status, name).toBe(200);
    }
  });

  it('answers 401 without a key, with an unknown key, and with a revoked key', async () => {
    const missing = await context.server.request('GET', '/v1/status');
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toMatch(/provide API key/);

    await expect(sdkClient(context.server.url, 'cw_not-a-real-key').apiStatus()).rejects.toBeInstanceOf(Lithic.AuthenticationError);
    await expect(sdkClient(context.server.url, 'cw_not-a-real-key').financialAccounts.list()).rejects.toBeInstanceOf(Lithic.AuthenticationError);

    const doomed = await context.server.newProgram('doomed');
    await expect(doomed.client.apiStatus()).resolves.toEqual({ message: 'OK' });
    const keyRow = await context.server.server.db.kysely.selectFrom('api_keys').select('id').where('program_id', '=', doomed.programId).executeTakeFirstOrThrow();
    await revokeKey(context.server.server.db.kysely, systemClock, keyRow.id);
    // A running server trusts an authentication it has seen for at most AUTH_CACHE_TTL_MS.
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 20));
    const error = await doomed.client.apiStatus().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.AuthenticationError);
    expect((error as Error).message).toMatch(/not active/);
  });

  it('stores only hashes of keys', async () => {
    const rows = await context.server.server.db.kysely.selectFrom('api_keys').select(['key_hash', 'key_prefix']).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(context.program.apiKey);
    }
    expect(JSON.stringify(rows)).not.toContain(context.program.apiKey);
  });

  it('stores no configured key in clear, however short, nor most of one', async () => {
    const keys = ['k8secret', 'twelve-chars', 'a-configured-key-of-32-characters'];
    const server = await startTestServer({ config: { apiKeys: keys } });
    try {
      for (const key of keys) await expect(sdkClient(server.url, key).apiStatus()).resolves.toEqual({ message: 'OK' });
      const { kysely } = server.server.db;
      const stored = JSON.stringify([await kysely.selectFrom('api_keys').selectAll().execute(), await kysely.selectFrom('programs').selectAll().execute()]);
      for (const key of keys) expect(stored).not.toContain(key.slice(0, Math.ceil(key.length / 2)));
    } finally {
      await server.close();
    }
  });

  it('never logs the Authorization header or the key', async () => {
    await context.program.client.apiStatus();
    // A key misplaced in a query string, on a route and on no route.
    await context.server.request('GET', `/v1/status?api_key=${context.program.apiKey}`, { apiKey: context.program.apiKey });
    await context.server.request('GET', `/v1/no-such-route?key=${context.program.apiKey}`);
    expect(context.server.logs()).toContain('/v1/status');
    expect(context.server.logs()).not.toContain(context.program.apiKey);
  });
});

describeWithDb('program clock', () => {
  const context = useTestServer();

  async function now(client: TestProgram): Promise<number> {
    const body = (await client.client.get('/v1/simulate/clock')) as { now: string };
    return Date.parse(body.now);
  }

  it('starts at real time and runs at real speed', async () => {
    const before = Date.now();
    const clock = await now(context.program);
    expect(clock).toBeGreaterThanOrEqual(before - 5);
    expect(clock).toBeLessThanOrEqual(Date.now() + 5);
  });

  it('moves forward, and timestamps follow it', async () => {
    const target = '2031-03-15T12:00:00.000Z';
    const moved = (await context.program.client.post('/v1/simulate/clock', { body: { now: target } })) as { now: string };
    expect(moved.now).toBe(target);
    const clock = await now(context.program);
    expect(clock).toBeGreaterThanOrEqual(Date.parse(target));
    expect(clock).toBeLessThan(Date.parse(target) + 60_000);
    const account = await context.program.client.financialAccounts.create({ nickname: 'future', type: 'OPERATING' });
    expect(Date.parse(account.created)).toBeGreaterThanOrEqual(Date.parse(target));
    expect(account.created.startsWith('2031-03-15')).toBe(true);
  });

  it('refuses to move backward with 400 and keeps its time', async () => {
    const before = await now(context.program);
    const error = await context.program.client.post('/v1/simulate/clock', { body: { now: '2020-01-01T00:00:00Z' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.BadRequestError);
    expect((error as Error).message).toMatch(/now: must not be earlier/);
    expect(await now(context.program)).toBeGreaterThanOrEqual(before);
  });

  it('refuses malformed instants with 400', async () => {
    for (const [body, message] of [
      [{ now: 'tomorrow' }, 'now: must be a valid date-time'],
      [{ now: 12 }, 'now: must be string'],
      [{}, 'now: is required'],
      [{ now: '2031-02-30T00:00:00Z' }, 'now: must be a valid date-time'],
      [{ now: '2031-03-15' }, 'now: must be a valid date-time'],
      [{ now: '2031-03-15T12:00:00Z', extra: true }, 'extra: is not a recognised field'],
    ] as const) {
      const refused = await context.program.client.post('/v1/simulate/clock', { body }).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(Lithic.BadRequestError);
      expect((refused as Error).message).toContain(message);
    }
    // A leap second is RFC 3339 but no instant a clock can hold; it used to be misreported as a concurrent move.
    const leap = await context.program.client.post('/v1/simulate/clock', { body: { now: '2098-12-31T23:59:60Z' } }).catch((caught: unknown) => caught);
    expect((leap as Error).message).toMatch(/now: must be a valid date-time/);
  });

  it('stops at 9900-01-01, so that every date it derives keeps a four-digit year', async () => {
    const { client } = await context.server.newProgram('far future');
    const refused = await client.post('/v1/simulate/clock', { body: { now: '9999-12-31T23:59:59Z' } }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(Lithic.BadRequestError);
    expect((refused as Error).message).toMatch(/now: must not be later than 9900-01-01T00:00:00.000Z/);
    expect((await client.post('/v1/simulate/clock', { body: { now: '9900-01-01T00:00:00Z' } })) as { now: string }).toEqual({ now: '9900-01-01T00:00:00.000Z' });
    const card = await client.cards.create({ type: 'VIRTUAL' });
    expect(card.exp_year).toMatch(/^99\d\d$/);
  });

  it('is per program: moving one clock leaves the others alone', async () => {
    const other = await context.server.newProgram('other');
    const clock = await now(other);
    expect(Math.abs(clock - Date.now())).toBeLessThan(5_000);
  });
});

describeWithDb('program clock, standing still', () => {
  const NOW = '2032-06-15T12:00:00.000Z';
  const context = useTestServer({ wall: frozenWallClock(NOW).wall });

  it('answers GET and POST /v1/simulate/clock with exactly {"now": <date-time>}; the current instant is a move, one a millisecond earlier a 400 that changes nothing', async () => {
    const { apiKey } = context.program;
    const clock = async (method: 'GET' | 'POST', now?: string) => {
      const response = await context.server.request(method, '/v1/simulate/clock', { apiKey, ...(now === undefined ? {} : { body: { now } }) });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    expect(await clock('GET')).toEqual({ status: 200, body: { now: NOW } });
    expect(await clock('POST', NOW)).toEqual({ status: 200, body: { now: NOW } });
    const later = '2032-06-15T13:30:00.250Z';
    expect(await clock('POST', '2032-06-15T15:30:00.250+02:00')).toEqual({ status: 200, body: { now: later } });
    expect(await clock('GET')).toEqual({ status: 200, body: { now: later } });
    const earlier = await context.server.request('POST', '/v1/simulate/clock', { apiKey, body: { now: '2032-06-15T13:30:00.249Z' } });
    await expectErrorResponse(earlier, 400, /^now: must not be earlier than the program's current time 2032-06-15T13:30:00.250Z/);
    expect(await clock('GET')).toEqual({ status: 200, body: { now: later } });
  });
});

describeWithDb('program isolation', () => {
  const context = useTestServer();

  it("answers another program's resources with 404 and shows none of them in lists", async () => {
    const alice = await context.server.newProgram('alice');
    const bob = await context.server.newProgram('bob');
    const alices = await alice.client.financialAccounts.list();
    const bobs = await bob.client.financialAccounts.list();
    const aliceTokens = new Set(alices.data.map((account) => account.token));
    expect(bobs.data.some((account) => aliceTokens.has(account.token))).toBe(false);
    for (const token of aliceTokens) {
      await expect(bob.client.financialAccounts.retrieve(token)).rejects.toBeInstanceOf(Lithic.NotFoundError);
    }
    const cursor = [...aliceTokens][0] as string;
    const response = await context.server.request('GET', `/v1/financial_accounts?starting_after=${cursor}`, { apiKey: bob.apiKey });
    expect(response.status).toBe(400);
  });
});
