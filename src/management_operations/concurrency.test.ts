/**
 * Management operations that wait for their account under concurrency (PostgreSQL: row locks). An
 * operation whose effective date has come while its account is SUSPENDED waits, PENDING; the due
 * job that every money-moving write runs first must leave it alone, not lock it: else every write
 * of the program queues behind that one row (and its balance), and writes that hold other locks
 * deadlock on it. The test holds the operation's row lock in a transaction of its own and checks
 * that a transfer elsewhere in the program still goes through.
 */
import { expect, it } from 'vitest';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import * as store from './store.js';

const clock = frozenWallClock('2033-05-10T12:00:00.000Z');

describeWithDb('management operations under concurrency', () => {
  const context = useTestServer({ wall: clock.wall });

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
});
