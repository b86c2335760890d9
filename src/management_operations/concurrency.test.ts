/**
 * Management operations that wait for their account under concurrency (PostgreSQL: row locks). An
 * operation whose effective date has come while its account is SUSPENDED waits, PENDING; the due
 * job that every money-moving write runs first must leave it alone, not lock it: else every write
 * of the program queues behind that one row (and its balance), and writes that hold other locks
 * deadlock on it. The test holds the operation's row lock in a transaction of its own and checks
 * that a transfer elsewhere in the program still goes through.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { expect, it, onTestFinished } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { lockBalances } from '../ledger/ledger.js';
import { frozenWallClock } from '../testing/clock.js';
import { startServer } from '../server.js';
import { describeWithDb, engine, sdkClient, testConfig, useTestServer } from '../testing/harness.js';
import { balanceOf, bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount, setRequireFunds } from '../testing/transactions.js';
import * as service from './service.js';
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

  // Three servers: one moves the clock; one that read the clock before the move (its cache is up to
  // a second old) creates work due by the moved clock; one that checked for due work right after the
  // move must not keep a horizon that hides that work (db/horizons.ts `noteClockMove`).
  it.skipIf(engine !== 'postgres')('work a stale server creates after another moved the clock is due at once on a third', async () => {
    const program = await context.server.newProgram('three servers');
    const [stale, third] = await Promise.all(
      [0, 1].map(() => startServer(testConfig(context.server.database, { encryptionKey }), { wall: clock.wall, logStream: { write: () => true } })),
    );
    onTestFinished(async () => {
      await Promise.all([stale?.close(), third?.close()]);
    });
    const [staleClient, thirdClient] = [stale, third].map((server) => sdkClient((server as { url: string }).url, program.apiKey)) as [Lithic, Lithic];
    const account = await newAccount(program.client, 'credited');
    const card = await cardOnOwnAccount(program.client);
    await setRequireFunds(program.client, true);
    const { now: before } = (await staleClient.get('/v1/simulate/clock')) as { now: string }; // the stale server caches this time
    await program.client.post('/v1/simulate/clock', { body: { now: new Date(Date.parse(before) + 10 * MS_PER_DAY).toISOString() } });
    await balanceOf(thirdClient, account); // the third checks for due work after the move: nothing is due yet
    const dayAfter = new Date(Date.parse(before) + MS_PER_DAY).toISOString().slice(0, 10);
    const credit = await staleClient.managementOperations.create({
      amount: 500, category: 'MANAGEMENT_REWARD', direction: 'CREDIT', effective_date: dayAfter, event_type: 'CASH_BACK', financial_account_token: account,
    });
    await fund(staleClient, card.funding.token, 1_000);
    const hold = await authorize(staleClient, card, 1_000); // dated before the move: expired 3 days ago by the moved clock
    expect(credit.status).toBe('PENDING'); // the stale server still read the old time
    expect(await balanceOf(thirdClient, account)).toEqual({ available: 500, pending: 0, total: 500 });
    expect((await thirdClient.transactions.retrieve(await authorize(thirdClient, card, 600))).result).toBe('APPROVED');
    expect((await thirdClient.transactions.retrieve(hold)).status).toBe('EXPIRED');
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

  /** A $3.00 CASH_BACK credit to `account` dated tomorrow on the program clock, PENDING until then. */
  async function cashBackTomorrow(client: Lithic, account: string) {
    const tomorrow = new Date(clock.wall.nowMs() + MS_PER_DAY).toISOString().slice(0, 10);
    const operation = await client.managementOperations.create({
      amount: 300, category: 'MANAGEMENT_REWARD', direction: 'CREDIT', effective_date: tomorrow, event_type: 'CASH_BACK', financial_account_token: account,
    });
    return { tomorrow, operation };
  }

  // A reverse by a request that read the clock just before the operation's date, while a write that
  // read it just after applies the operation (two requests across midnight, or two servers).
  it.skipIf(engine !== 'postgres')('a reverse that found the operation PENDING reverses it once a concurrent write settled it, instead of a 422', async () => {
    const program = await context.server.newProgram('reverse across its date');
    const { client, programId } = program;
    const account = await newAccount(client, 'credited');
    const { tomorrow, operation } = await cashBackTomorrow(client, account);
    const beforeDate = { programId, clockOffsetMs: 0, nowMs: Date.parse(`${tomorrow}T00:00:00.000Z`) - 1 };
    const onDate = { programId, clockOffsetMs: 0, nowMs: Date.parse(`${tomorrow}T00:00:00.000Z`) + 1 };
    const { db } = context.server.server;
    let reversed: Promise<Lithic.ManagementOperationTransaction> | undefined;
    await db.transaction(async (tx) => {
      expect(await store.lockIfPending(db, tx, programId, operation.token)).toBeDefined(); // the write that applies it holds it
      reversed = db.transaction((reverseTx) => service.reverse(db, reverseTx, beforeDate, operation.token, { effective_date: tomorrow }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await service.applyDueOperations(db, tx, onDate);
    });
    const answer = await (reversed as Promise<Lithic.ManagementOperationTransaction>);
    expect([answer.status, answer.events?.map((event) => event.type)]).toEqual(['REVERSED', ['CASH_BACK', 'CASH_BACK_REVERSAL']]);
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 });
  });

  // The reopening applies the operations that waited for the account (financial_accounts/service.ts
  // updateStatus): it locks them before the account's balance, as a reverse of one does.
  it.skipIf(engine !== 'postgres')('a reopening that applies a waiting operation locks it before the account\'s balance', async () => {
    const program = await context.server.newProgram('reopen order');
    const { client, programId } = program;
    const account = await newAccount(client, 'suspended');
    const { operation: waiting } = await cashBackTomorrow(client, account);
    await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: null });
    clock.advance(MS_PER_DAY);
    const { db } = context.server.server;
    // Stands for a reverse of the operation: it holds the operation, then needs the balance.
    let reopened: Promise<string> | undefined;
    const waitedMs = await db.transaction(async (tx) => {
      expect(await store.lockIfPending(db, tx, programId, waiting.token)).toBeDefined();
      reopened = client.financialAccounts.updateStatus(account, { status: 'OPEN', substatus: null }).then((made) => made.status);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const started = performance.now();
      await lockBalances(tx, programId, [account]);
      return performance.now() - started;
    });
    expect(waitedMs).toBeLessThan(500); // a deadlock is detected only after deadlock_timeout (1 s)
    expect(await reopened).toBe('OPEN');
    expect((await client.managementOperations.retrieve(waiting.token)).status).toBe('SETTLED');
    expect(await balanceOf(client, account)).toEqual({ available: 300, pending: 0, total: 300 });
  });

  // A reverse of an operation that is due (its date has come, nothing applied it yet) while a write
  // applies what fell due: that write locks the due operations in the order they fell due; the
  // reverse must take the one it names in that order too, not before the others.
  it.skipIf(engine !== 'postgres')('a reverse of a due operation locks it in the due order, not before the operations due before it', async () => {
    const program = await context.server.newProgram('reverse of a due operation');
    const { client, programId } = program;
    const [first, second] = [await newAccount(client, 'first'), await newAccount(client, 'second')];
    const tomorrow = new Date(clock.wall.nowMs() + MS_PER_DAY).toISOString().slice(0, 10);
    const credit = { amount: 100, category: 'MANAGEMENT_REWARD', direction: 'CREDIT', event_type: 'CASH_BACK', effective_date: tomorrow } as const;
    const earlier = await client.managementOperations.create({ ...credit, financial_account_token: first });
    clock.advance(1); // created after it: due after it
    const named = await client.managementOperations.create({ ...credit, financial_account_token: second });
    clock.advance(MS_PER_DAY); // both are due; nothing has applied them yet
    const { db } = context.server.server;
    // Stands for a write that applies what fell due: it holds the earlier operation, then needs the
    // named one. Not retried: a deadlock fails it.
    let reversed: Promise<Lithic.ManagementOperationTransaction> | undefined;
    const waitedMs = await db.kysely.transaction().execute(async (tx) => {
      expect(await store.lockIfPending(db, tx, programId, earlier.token)).toBeDefined();
      reversed = client.managementOperations.reverse(named.token, { effective_date: tomorrow });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      expect(await store.lockIfPending(db, tx, programId, named.token)).toBeDefined();
      return performance.now() - started;
    });
    expect(waitedMs).toBeLessThan(500); // a deadlock is detected only after deadlock_timeout (1 s)
    const answer = await (reversed as Promise<Lithic.ManagementOperationTransaction>);
    expect([answer.status, answer.events?.map((event) => event.type)]).toEqual(['REVERSED', ['CASH_BACK', 'CASH_BACK_REVERSAL']]);
    expect((await client.managementOperations.retrieve(earlier.token)).status).toBe('SETTLED');
    expect(await balanceOf(client, second)).toEqual({ available: 0, pending: 0, total: 0 });
    expect(await balanceOf(client, first)).toEqual({ available: 100, pending: 0, total: 100 });
  });
});
