/**
 * What falls due while the server is down (killed with -9 just before) is applied once after the
 * restart, by the first read, dated when it fell due and in that order: due work lives in the
 * database, not in the process (its horizons and clock gate start empty).
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, sdkClient, type TestDatabase } from './testing/harness.js';
import { spawnServer, type ServerProcess } from './testing/process.js';
import { fund } from './testing/money.js';
import { authorize, cardOnOwnAccount, moveClock } from './testing/transactions.js';

const SHIPPING_ADDRESS = { first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA' };
const KEY = 'restart-key';

describeWithDb('due work across a restart', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  const running: ServerProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const server of running) server.child.kill('SIGKILL');
    await Promise.all(running.map((server) => server.exited));
    await database.drop();
  });

  /** Starts a server process on the test's database (the same encryption key and API key each time). */
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  async function start(): Promise<{ server: ServerProcess; client: Lithic }> {
    const server = await spawnServer({ DATABASE_URL: database.databaseUrl, CARDWRIGHT_DATA_DIR: database.dataDir, CARDWRIGHT_ENCRYPTION_KEY: encryptionKey, CARDWRIGHT_API_KEYS: KEY });
    running.push(server);
    return { server, client: sdkClient(server.url, KEY) };
  }

  it('a hold, a PHYSICAL card and an operation that fall due at the same midnight while the server is down are applied once, at their instants, after it restarts', async () => {
    const first = await start();
    await moveClock(first.client, '2031-01-01T00:00:00.000Z');
    const card = await cardOnOwnAccount(first.client);
    await fund(first.client, card.funding.token, 1_000);
    const hold = await authorize(first.client, card, 400); // expires 7 days after it was made, a few ms after 2031-01-08T00:00
    const holdMadeMs = Date.parse((await first.client.transactions.retrieve(hold)).created);
    await moveClock(first.client, '2031-01-07T23:59:59.000Z');
    const physical = await cardOnOwnAccount(first.client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS }); // ships 2031-01-08T00:00
    const debit = await first.client.managementOperations.create({
      amount: 800, category: 'MANAGEMENT_FEE', direction: 'DEBIT', effective_date: '2031-01-08', event_type: 'LATE_PAYMENT', financial_account_token: card.funding.token,
    });
    expect(debit.status).toBe('PENDING');
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the program clock passes midnight while no server runs

    const { client } = await start();
    const [decided, shipped, expired] = await Promise.all([
      client.managementOperations.retrieve(debit.token),
      client.cards.retrieve(physical.token),
      client.transactions.retrieve(hold),
    ]);
    // The debit took effect at midnight, before the hold expired: 800 of the 600 left available is declined.
    expect({ status: decided.status, updated: decided.updated }).toEqual({ status: 'DECLINED', updated: '2031-01-08T00:00:00.000Z' });
    expect(shipped.state).toBe('PENDING_ACTIVATION');
    expect(expired.events?.map((event) => [event.type, event.created])).toEqual([
      ['AUTHORIZATION', new Date(holdMadeMs).toISOString()],
      ['AUTHORIZATION_EXPIRY', new Date(holdMadeMs + 7 * 86_400_000).toISOString()],
    ]);
    const fellDue: string[][] = [];
    for await (const event of client.events.list({ page_size: 100, begin: '2031-01-07T23:59:59.500Z' })) fellDue.push([event.event_type, event.created]);
    expect(fellDue.reverse()).toEqual([
      ['card.shipped', '2031-01-08T00:00:00.000Z'],
      ['management_operation.updated', '2031-01-08T00:00:00.000Z'],
      ['balance.updated', new Date(holdMadeMs + 7 * 86_400_000).toISOString()],
      ['card_transaction.updated', new Date(holdMadeMs + 7 * 86_400_000).toISOString()],
    ]);
    const [balance] = (await client.financialAccounts.balances.list(card.funding.token)).data;
    expect(balance).toMatchObject({ available_amount: 1_000, pending_amount: 0 });
  });
});
