/**
 * Management operations that wait for their account under concurrency (PostgreSQL: row locks). An
 * operation whose effective date has come while its account is SUSPENDED waits, PENDING; the due
 * job that every money-moving write runs first must leave it alone, not lock it: else every write
 * of the program queues behind that one row (and its balance), and writes that hold other locks
 * deadlock on it. The test holds the operation's row lock in a transaction of its own and checks
 * that a transfer elsewhere in the program still goes through.
 */
import crypto from 'node:crypto';
import { expect, it, onTestFinished } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { lockBalances } from '../ledger/ledger.js';
import { frozenWallClock } from '../testing/clock.js';
import { startServer } from '../server.js';
import { describeWithDb, engine, sdkClient, testConfig, useTestServer } from '../testing/harness.js';
import { balanceOf, bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';
import * as store from './store.js';

const clock = frozenWallClock('2033-05-10T12:00:00.000Z');

describeWithDb('management operations under concurrency', () => {
  const encryptionKey = crypto.randomBytes(32);
  const context = useTestServer({ wall: clock.wall, config: { encryptionKey } });

  it.skipIf(engine !== 'postgres')('an operation waiting for its SUSPENDED account does not hold up writes on other accounts', async () => {
    const { client, programId } = context.program;
    const [suspended, a, b] = [await newAccount(client, 's'), await newAccount(client, 'a'), await newAccount(client, 'b')];
    await fund(client, a, 1_000);
    const waiting = await client.managementOperations.create({
      amount: 100,
      category: 'MANAGEMENT_FEE',
      direction: 'DEBIT',
      effective_date: '2033-05-11',
      event_type: 'LATE_PAYMENT',
      financial_account_token: suspended,
    });
    await client.financialAccounts.updateStatus(suspended, { status: 'SUSPENDED', substatus: null });
    await client.post('/v1/simulate/clock', { body: { now: '2033-05-11T12:00:00.000Z' } });
    expect((await client.managementOperations.retrieve(waiting.token)).status).toBe('PENDING');

    const { db } = context.server.server;
    let transfer: Promise<string> | undefined;
    const outcome = await db.transaction(async (tx) => {
      expect(await store.lockIfPending(db, tx, programId, waiting.token)).toBeDefined();
      transfer = bookTransfer(client, a, b, 100).then((made) => made.status);
      const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled behind the waiting operation'), 1_500));
      return Promise.race([transfer, stalled]);
    });
    expect(outcome).toBe('SETTLED');
    expect(await transfer).toBe('SETTLED');
    expect((await client.managementOperations.retrieve(waiting.token)).status).toBe('PENDING');
  });

  // Within one server a write waits for a clock move (programs/clock-gate.ts); another server on the
  // same PostgreSQL does not, and reads the moved time only within a second: the race is theirs.
  it.skipIf(engine !== 'postgres')('an operation created on another server while the clock moves falls due with the moved clock, even if it commits during the move', async () => {
    const program = await context.server.newProgram('clock race');
    const { client } = program;
    const other = await startServer(testConfig(context.server.database, { encryptionKey }), { wall: clock.wall, logStream: { write: () => true } });
    onTestFinished(() => other.close());
    const account = await newAccount(client, 'credited');
    // Holds that all expire when the clock moves: the move's transaction is long, and checks for
    // due operations before it expires them.
    const card = await cardOnOwnAccount(client);
    for (let batch = 0; batch < 8; batch++) await Promise.all(Array.from({ length: 25 }, () => authorize(client, card, 1)));
    await balanceOf(client, account); // due checks find nothing due: a horizon up to the next midnight
    const moved = client.post('/v1/simulate/clock', { body: { now: '2033-05-20T12:00:00.000Z' } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Read the clock before the move committed: for this request 2033-05-20 is still in the future.
    const credit = await sdkClient(other.url, program.apiKey).managementOperations.create({
      amount: 500,
      category: 'MANAGEMENT_REWARD',
      direction: 'CREDIT',
      effective_date: '2033-05-20',
      event_type: 'CASH_BACK',
      financial_account_token: account,
    });
    await moved;
    expect(credit.status).toBe('PENDING'); // else the race was not reproduced: the move committed first
    expect((await client.managementOperations.retrieve(credit.token)).status).toBe('SETTLED');
    expect(await balanceOf(client, account)).toEqual({ available: 500, pending: 0, total: 500 });
  });

  it.skipIf(engine !== 'postgres')('a write that applies a due operation first locks its balances in one sorted order with its own', async () => {
    const program = await context.server.newProgram('due order');
    const { client } = program;
    // `low` sorts before `due`: a movement over both locks `low` first.
    const [low, due] = [await newAccount(client, 'one'), await newAccount(client, 'two')].sort();
    const other = await newAccount(client, 'other');
    await fund(client, low as string, 1_000);
    const tomorrow = new Date(clock.wall.nowMs() + MS_PER_DAY).toISOString().slice(0, 10);
    const credit = { amount: 100, category: 'MANAGEMENT_REWARD', direction: 'CREDIT', event_type: 'CASH_BACK' } as const;
    await client.managementOperations.create({ ...credit, effective_date: tomorrow, financial_account_token: due as string });
    clock.advance(MS_PER_DAY); // the operation is due; nothing has applied it yet
    const { db } = context.server.server;
    // Stands for a movement over `low` and `due` by a request that read the clock before the
    // operation fell due: it holds `low`, then needs `due`. Not retried: a deadlock fails it.
    let transfer: Promise<string> | undefined;
    const waitedMs = await db.kysely.transaction().execute(async (tx) => {
      await lockBalances(tx, program.programId, [low as string]);
      transfer = bookTransfer(client, low as string, other, 100).then((made) => made.status);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const started = performance.now();
      await lockBalances(tx, program.programId, [due as string]);
      return performance.now() - started;
    });
    expect(waitedMs).toBeLessThan(500); // a deadlock is detected only after deadlock_timeout (1 s)
    expect(await transfer).toBe('SETTLED');
    expect(await balanceOf(client, due as string)).toEqual({ available: 100, pending: 0, total: 100 });
  });
});
