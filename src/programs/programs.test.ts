/** API keys, program isolation, and the program clock. */
import Lithic from 'lithic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { revokeKey } from './service.js';
import { systemClock } from '../clock.js';
import { describeWithDb, sdkClient, startTestServer, type TestProgram, type TestServer } from '../testing/harness.js';

describeWithDb('API keys', () => {
  let server: TestServer;
  let program: TestProgram;

  beforeAll(async () => {
    server = await startTestServer();
    program = await server.newProgram();
  });
  afterAll(async () => server.close());

  it('accepts the bare key (as the SDK sends it) and a Bearer key', async () => {
    await expect(program.client.apiStatus()).resolves.toEqual({ message: 'OK' });
    const response = await server.request('GET', '/v1/status', { apiKey: `Bearer ${program.apiKey}` });
    expect(response.status).toBe(200);
  });

  it('answers 401 without a key, with an unknown key, and with a revoked key', async () => {
    const missing = await server.request('GET', '/v1/status');
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toMatch(/provide API key/);

    await expect(sdkClient(server.url, 'cw_not-a-real-key').apiStatus()).rejects.toBeInstanceOf(Lithic.AuthenticationError);
    await expect(sdkClient(server.url, 'cw_not-a-real-key').financialAccounts.list()).rejects.toBeInstanceOf(Lithic.AuthenticationError);

    const doomed = await server.newProgram('doomed');
    await expect(doomed.client.apiStatus()).resolves.toEqual({ message: 'OK' });
    const keyRow = await server.server.db.kysely.selectFrom('api_keys').select('id').where('program_id', '=', doomed.programId).executeTakeFirstOrThrow();
    await revokeKey(server.server.db.kysely, systemClock, keyRow.id);
    const error = await doomed.client.apiStatus().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.AuthenticationError);
    expect((error as Error).message).toMatch(/not active/);
  });

  it('stores only hashes of keys', async () => {
    const rows = await server.server.db.kysely.selectFrom('api_keys').select(['key_hash', 'key_prefix']).execute();
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(program.apiKey);
    }
    expect(JSON.stringify(rows)).not.toContain(program.apiKey);
  });

  it('never logs the Authorization header or the key', async () => {
    await program.client.apiStatus();
    expect(server.logs()).toContain('/v1/status');
    expect(server.logs()).not.toContain(program.apiKey);
  });
});

describeWithDb('program clock', () => {
  let server: TestServer;
  let program: TestProgram;

  beforeAll(async () => {
    server = await startTestServer();
    program = await server.newProgram();
  });
  afterAll(async () => server.close());

  async function now(client: TestProgram): Promise<number> {
    const body = (await client.client.get('/v1/simulate/clock')) as { now: string };
    return Date.parse(body.now);
  }

  it('starts at real time and runs at real speed', async () => {
    const before = Date.now();
    const clock = await now(program);
    expect(clock).toBeGreaterThanOrEqual(before - 5);
    expect(clock).toBeLessThanOrEqual(Date.now() + 5);
  });

  it('moves forward, and timestamps follow it', async () => {
    const target = '2031-03-15T12:00:00.000Z';
    const moved = (await program.client.post('/v1/simulate/clock', { body: { now: target } })) as { now: string };
    expect(moved.now).toBe(target);
    const clock = await now(program);
    expect(clock).toBeGreaterThanOrEqual(Date.parse(target));
    expect(clock).toBeLessThan(Date.parse(target) + 60_000);
    const account = await program.client.financialAccounts.create({ nickname: 'future', type: 'OPERATING' });
    expect(Date.parse(account.created)).toBeGreaterThanOrEqual(Date.parse(target));
    expect(account.created.startsWith('2031-03-15')).toBe(true);
  });

  it('refuses to move backward with 400 and keeps its time', async () => {
    const before = await now(program);
    const error = await program.client.post('/v1/simulate/clock', { body: { now: '2020-01-01T00:00:00Z' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.BadRequestError);
    expect((error as Error).message).toMatch(/now: must not be earlier/);
    expect(await now(program)).toBeGreaterThanOrEqual(before);
  });

  it('refuses malformed instants with 400', async () => {
    for (const body of [{ now: 'tomorrow' }, { now: 12 }, {}, { now: '2031-02-30T00:00:00Z' }, { now: '2031-03-15T12:00:00Z', extra: true }]) {
      await expect(program.client.post('/v1/simulate/clock', { body })).rejects.toBeInstanceOf(Lithic.BadRequestError);
    }
  });

  it('is per program: moving one clock leaves the others alone', async () => {
    const other = await server.newProgram('other');
    const clock = await now(other);
    expect(Math.abs(clock - Date.now())).toBeLessThan(5_000);
  });
});

describeWithDb('program isolation', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("answers another program's resources with 404 and shows none of them in lists", async () => {
    const alice = await server.newProgram('alice');
    const bob = await server.newProgram('bob');
    const alices = await alice.client.financialAccounts.list();
    const bobs = await bob.client.financialAccounts.list();
    const aliceTokens = new Set(alices.data.map((account) => account.token));
    expect(bobs.data.some((account) => aliceTokens.has(account.token))).toBe(false);
    for (const token of aliceTokens) {
      await expect(bob.client.financialAccounts.retrieve(token)).rejects.toBeInstanceOf(Lithic.NotFoundError);
    }
    const cursor = [...aliceTokens][0] as string;
    const response = await server.request('GET', `/v1/financial_accounts?starting_after=${cursor}`, { apiKey: bob.apiKey });
    expect(response.status).toBe(400);
  });
});
