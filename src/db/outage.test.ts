/**
 * PostgreSQL going away while the server runs: requests answer 503 in the one error shape (never a
 * 500, never a crash), change nothing, and the server recovers by itself once PostgreSQL is back.
 * `GET /v1/status` is a readiness check: it asks the database.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiFailure } from '../testing/api-errors.js';
import { createTestDatabase, engine, sdkClient, testConfig, type TestDatabase } from '../testing/harness.js';
import { spawnServer } from '../testing/process.js';
import { proxyDatabase, type TcpProxy } from '../testing/tcp-proxy.js';
import { startServer, type RunningServer } from '../server.js';
import { systemClock } from '../clock.js';
import { createProgramWithKey } from '../programs/service.js';

const postgresUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(engine !== 'postgres' || !postgresUrl)('PostgreSQL outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: RunningServer;
  const encryptionKey = crypto.randomBytes(32);
  /** Only this test's server connects with this name: the only backends the test may terminate. */
  const applicationName = `cw_outage_${crypto.randomBytes(4).toString('hex')}`;

  beforeEach(async () => {
    database = await createTestDatabase();
    const url = new URL(database.databaseUrl);
    url.searchParams.set('application_name', applicationName);
    proxy = await proxyDatabase(url.toString());
    server = await startServer(testConfig(database, { databaseUrl: proxy.url, pgPoolSize: 4, encryptionKey }), { logStream: { write: () => true } });
  });
  afterEach(async () => {
    await server.close();
    await proxy.close();
    await database.drop();
  });

  async function newClient() {
    const { key } = await createProgramWithKey(server.db, systemClock, 'outage');
    return sdkClient(server.url, key);
  }

  function expectUnavailable(failure: { status: number; message: string }) {
    expect(failure.status).toBe(503);
    expect(failure.message).toMatch(/^Database unavailable/);
  }

  it('answers 503 while the database cannot be reached, changes nothing, and recovers without a restart', async () => {
    const client = await newClient();
    await expect(client.apiStatus()).resolves.toEqual({ message: 'OK' });
    proxy.cut();

    expectUnavailable(await apiFailure(client.apiStatus()));
    expectUnavailable(await apiFailure(client.financialAccounts.list()));
    expectUnavailable(await apiFailure(client.financialAccounts.create({ nickname: 'during the outage', type: 'OPERATING' })));
    const raw = await fetch(`${server.url}/v1/financial_accounts`, { headers: { authorization: (client as unknown as { apiKey: string }).apiKey } });
    expect(raw.status).toBe(503);
    expect(Object.keys((await raw.json()) as object).sort()).toEqual(['debugging_request_id', 'message']);

    proxy.restore();
    await expect(client.apiStatus()).resolves.toEqual({ message: 'OK' });
    const accounts = await client.financialAccounts.list();
    expect(accounts.data.map((account) => account.nickname)).not.toContain('during the outage');
    await expect(client.financialAccounts.create({ nickname: 'after the outage', type: 'OPERATING' })).resolves.toMatchObject({ nickname: 'after the outage' });
  });

  it('answers 503 to the requests that wait too long for a connection while every one is held, and serves all once they are free (no pool deadlock)', async () => {
    const client = await newClient();
    const from = (await client.financialAccounts.create({ nickname: 'from', type: 'OPERATING' })).token;
    const to = (await client.financialAccounts.create({ nickname: 'to', type: 'OPERATING' })).token;
    const admin = new pg.Client({ connectionString: database.databaseUrl, application_name: `${applicationName}_admin` });
    await admin.connect();
    try {
      await admin.query('begin');
      await admin.query('lock table balances in exclusive mode');
      // As many transfers as the pool has connections (4) wait on the lock, each holding one.
      const transfers = Array.from({ length: 4 }, () =>
        client.bookTransfers.create({ from_financial_account_token: from, to_financial_account_token: to, amount: 500, category: 'TRANSFER', subtype: 'INTERNAL', type: 'TRANSFER' }),
      );
      await waitFor(async () => (await backendsWaitingOnLock(admin, [applicationName])) === 4);
      const failures = await Promise.all([apiFailure(client.financialAccounts.list()), apiFailure(client.financialAccounts.retrieve(from))]);
      for (const failure of failures) expectUnavailable(failure);
      await admin.query('rollback');
      // Each answered 200 (the accounts hold no funds: each is a recorded decline).
      for (const transfer of await Promise.all(transfers)) expect(transfer).toMatchObject({ status: 'DECLINED', result: 'DECLINED' });
    } finally {
      await admin.end();
    }
    await expect(client.bookTransfers.list({ financial_account_token: from })).resolves.toMatchObject({ data: [{}, {}, {}, {}] });
    await expect(client.financialAccounts.list()).resolves.toMatchObject({ has_more: false });
  });

  it('survives a connection terminated in the middle of a request (it crashed the process): 503, and that request changes nothing', async () => {
    // A server process of its own on this test's schema, whose connections carry its own name.
    const url = new URL(database.databaseUrl);
    url.searchParams.set('application_name', `${applicationName}_process`);
    const child = await spawnServer({ DATABASE_URL: url.toString(), CARDWRIGHT_DATA_DIR: database.dataDir, CARDWRIGHT_ENCRYPTION_KEY: encryptionKey.toString('base64'), CARDWRIGHT_API_KEYS: 'outage-process-key' });
    try {
      const client = sdkClient(child.url, 'outage-process-key');
      const from = (await client.financialAccounts.create({ nickname: 'from', type: 'OPERATING' })).token;
      const to = (await client.financialAccounts.create({ nickname: 'to', type: 'OPERATING' })).token;
      const admin = new pg.Client({ connectionString: postgresUrl, application_name: `${applicationName}_admin` });
      await admin.connect();
      try {
        // Hold the balances, so that the transfer waits inside its transaction; then end its connection.
        await admin.query('begin');
        await admin.query(`lock table ${url.searchParams.get('options')?.replace('-c search_path=', '')}.balances in exclusive mode`);
        const transfer = apiFailure(
          client.bookTransfers.create({ from_financial_account_token: from, to_financial_account_token: to, amount: 500, category: 'TRANSFER', subtype: 'INTERNAL', type: 'TRANSFER' }),
        );
        const serverBackends = [`${applicationName}_process`];
        await waitFor(async () => (await backendsWaitingOnLock(admin, serverBackends)) === 1);
        const { rows } = await admin.query<{ terminated: number }>('select count(pg_terminate_backend(pid))::int as terminated from pg_stat_activity where application_name = any($1)', [serverBackends]);
        expect(rows[0]?.terminated).toBeGreaterThan(0);
        await admin.query('rollback');
        expectUnavailable(await transfer);
      } finally {
        await admin.end();
      }
      expect(child.child.exitCode).toBeNull();
      await expect(client.bookTransfers.list({ financial_account_token: from })).resolves.toMatchObject({ data: [] });
      const balances = await client.financialAccounts.balances.list(from);
      expect(balances.data[0]).toMatchObject({ available_amount: 0, total_amount: 0 });
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
});

/** The backends of these application names waiting on a lock (a fresh look: a transaction otherwise sees one snapshot of the statistics). */
async function backendsWaitingOnLock(admin: pg.Client, applicationNames: string[]): Promise<number> {
  await admin.query('select pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where application_name = any($1) and wait_event_type = 'Lock'", [applicationNames]);
  return rows[0]?.n ?? 0;
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not met within 5 s');
}
