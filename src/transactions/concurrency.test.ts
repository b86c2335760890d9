/**
 * Concurrency on limits: authorizations of one account decide one at a time (its account row, then
 * the card, are locked before spend is summed), so of 50 concurrent authorizations against a limit
 * that admits exactly N of them, exactly N approve. On PostgreSQL the requests truly overlap (a
 * pool of connections); on SQLite they go through its single writer. Messages on one transaction
 * serialize on its row: of concurrent clearings exactly one settles it.
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import * as accountStore from '../accounts/store.js';
import * as cardStore from '../cards/store.js';
import * as bankAccountStore from '../external_bank_accounts/store.js';
import { STAT_SHARDS } from '../auth_rules/evaluator.js';
import { exampleLine } from '../auth_rules/report.js';
import * as authRuleStore from '../auth_rules/store.js';
import { isoDate, isoTimestamp } from '../clock.js';
import type { Tx } from '../db/database.js';
import { lockBalances, verifyProgramLedger } from '../ledger/ledger.js';
import * as operationStore from '../management_operations/store.js';
import { conditionalBlock, enforcedRule } from '../testing/auth_rules.js';
import { describeWithDb, engine, useTestServer, type TestProgram } from '../testing/harness.js';
import { movableWallClock } from '../testing/clock.js';
import { bookTransfer, fund, manualBankAccount, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount, issuingBalance, setRequireFunds, type Card } from '../testing/transactions.js';
import * as threeDsStore from '../three_ds/store.js';
import * as transactionStore from './store.js';

const CONCURRENT = 50;
const SHIPPING_ADDRESS = { first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA' };
const { wall, advance } = movableWallClock('2032-05-04T10:00:00.000Z');

describeWithDb('authorizations under concurrency', () => {
  const context = useTestServer({ wall });

  async function race(card: Pick<Card, 'pan'>, amount: number, client = context.program.client) {
    const tokens = await Promise.all(Array.from({ length: CONCURRENT }, () => authorize(client, card, amount)));
    const transactions = await Promise.all(tokens.map((token) => client.transactions.retrieve(token)));
    return {
      approved: transactions.filter((t) => t.result === 'APPROVED').length,
      declined: transactions.filter((t) => t.result !== 'APPROVED').map((t) => t.events?.[0]?.detailed_results?.[0]),
    };
  }

  async function expectLedgerConsistent(programId = context.program.programId) {
    expect(await verifyProgramLedger(context.server.server.db.kysely, programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  it('a card limit that admits exactly 7 approves exactly 7 of 50 concurrent authorizations', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client, { spend_limit: 700, spend_limit_duration: 'FOREVER' });
    const outcome = await race(card, 100);
    expect(outcome.approved).toBe(7);
    expect(outcome.declined).toEqual(Array(CONCURRENT - 7).fill('CARD_SPEND_LIMIT_EXCEEDED'));
    expect(await issuingBalance(client, card)).toEqual({ available: -700, pending: 700, total: 0 });
    await expectLedgerConsistent();
  });

  it('an account daily limit shared by two cards admits exactly 12 of 50', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const sibling = (await client.cards.create({ type: 'VIRTUAL', account_token: card.account_token })) as Card;
    await client.accounts.update(card.account_token, { daily_spend_limit: 1_200 });
    const tokens = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => authorize(client, index % 2 === 0 ? card : sibling, 100)));
    const results = await Promise.all(tokens.map(async (token) => (await client.transactions.retrieve(token)).result));
    expect(results.filter((result) => result === 'APPROVED')).toHaveLength(12);
    expect(await issuingBalance(client, card)).toEqual({ available: -1_200, pending: 1_200, total: 0 });
  });

  it('required funds that cover exactly 9 approve exactly 9 of 50', async () => {
    const program = await context.server.newProgram();
    await setRequireFunds(program.client, true);
    const card = await cardOnOwnAccount(program.client);
    await fund(program.client, card.funding.token, 950);
    const outcome = await race(card, 100, program.client);
    expect(outcome.approved).toBe(9);
    expect(new Set(outcome.declined)).toEqual(new Set(['INSUFFICIENT_FUNDS']));
    expect(await issuingBalance(program.client, card)).toEqual({ available: 50, pending: 900, total: 950 });
    await expectLedgerConsistent(program.programId);
  });

  it('of 10 concurrent clearings of one authorization, exactly one settles it; the others get 422', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const token = await authorize(client, card, 500);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => client.transactions.simulateClearing({ token, amount: 400 + index })));
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((outcome) => (outcome.reason as InstanceType<typeof Lithic.APIError>).status)).toEqual(Array(9).fill(422));
    const settled = await client.transactions.retrieve(token);
    expect(settled.events).toHaveLength(2);
    expect(await issuingBalance(client, card)).toEqual({ available: -settled.settled_amount, pending: 0, total: -settled.settled_amount });
    await expectLedgerConsistent();
  });

  it('returns racing the closing of their card account\'s ISSUING financial account never land on it once CLOSED', async () => {
    const program = await context.server.newProgram('return race');
    for (let round = 0; round < 5; round++) {
      const card = await cardOnOwnAccount(program.client);
      await program.client.cards.update(card.token, { state: 'CLOSED' });
      const outcomes = await Promise.allSettled([
        ...Array.from({ length: 4 }, () => program.client.transactions.simulateReturn({ amount: 100, descriptor: 'LATE RETURN', pan: card.pan })),
        program.client.financialAccounts.updateStatus(card.funding.token, { status: 'CLOSED', substatus: null }),
        ...Array.from({ length: 4 }, () => program.client.transactions.simulateReturn({ amount: 100, descriptor: 'LATE RETURN', pan: card.pan })),
      ]);
      const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(refused.map((outcome) => (outcome.reason as InstanceType<typeof Lithic.APIError>).status)).toEqual(refused.map(() => 422));
      const closed = (await program.client.financialAccounts.retrieve(card.funding.token)).status === 'CLOSED';
      const returned = outcomes.slice(0, 4).concat(outcomes.slice(5)).filter((outcome) => outcome.status === 'fulfilled').length;
      expect(await issuingBalance(program.client, card)).toEqual(closed ? { available: 0, pending: 0, total: 0 } : { available: 100 * returned, pending: 0, total: 100 * returned });
    }
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only: the test holds a row lock of its own while a request runs (`withoutDeadlock`).
  it.skipIf(engine !== 'postgres')('an authorization that finds a hold due locks the account before the hold\'s balance (the documented order)', async () => {
    const program = await context.server.newProgram('expiry order');
    const card = await cardOnOwnAccount(program.client);
    const due = await authorize(program.client, card, 300);
    advance(7 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // Stands for another authorization of the account: it holds the account and then needs the balance.
    const authorization = await withoutDeadlock(
      async (tx) => expect(await accountStore.lock(db, tx, program.programId, card.account_token)).toBeDefined(),
      () => authorize(program.client, card, 10),
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
    );
    expect((await program.client.transactions.retrieve(authorization)).status).toBe('PENDING');
    expect((await program.client.transactions.retrieve(due)).status).toBe('EXPIRED');
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a message that finds a hold due locks its own transaction before the hold\'s balance (the documented order)', async () => {
    const program = await context.server.newProgram('expiry order, message');
    const card = await cardOnOwnAccount(program.client);
    const due = await authorize(program.client, card, 300);
    advance(86_400_000);
    const cleared = await authorize(program.client, card, 200);
    advance(6 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // Stands for another message on `cleared`: it holds the transaction and then needs the balance.
    await withoutDeadlock(
      async (tx) => expect(await transactionStore.lock(db, tx, program.programId, cleared)).toBeDefined(),
      () => program.client.transactions.simulateClearing({ token: cleared }),
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
    );
    expect((await program.client.transactions.retrieve(cleared)).status).toBe('SETTLED');
    expect((await program.client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect(await issuingBalance(program.client, card)).toEqual({ available: -200, pending: 0, total: -200 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('an authorization that finds another account\'s hold due locks that balance and its own in one sorted set, before it expires the hold', async () => {
    const program = await context.server.newProgram('expiry order, authorization');
    const [low, high] = await twoInOrder(program.client);
    const due = await authorize(program.client, high, 300);
    advance(7 * 86_400_000 + 1_000);
    // Stands for a transfer from `low` to `high`: it holds `low` and then needs `high`.
    const authorization = await withoutDeadlock(
      (tx) => lockBalances(tx, program.programId, [low.funding.token]),
      () => authorize(program.client, low, 10),
      (tx) => lockBalances(tx, program.programId, [high.funding.token]),
    );
    expect((await program.client.transactions.retrieve(authorization)).status).toBe('PENDING');
    expect((await program.client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect(await issuingBalance(program.client, high)).toEqual({ available: 0, pending: 0, total: 0 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('an authorization that requires funds and finds a hold and a management operation due locks the operation before any balance', async () => {
    const program = await context.server.newProgram('expiry order, authorization and operation');
    const { client } = program;
    const [low, high] = await twoInOrder(client);
    for (const card of [low, high]) await fund(client, card.funding.token, 1_000);
    await setRequireFunds(client, true);
    const due = await authorize(client, high, 300);
    const operation = await creditTomorrow(client, low.funding.token);
    advance(7 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // Stands for a money write that found the operation due (not the hold): it holds the operation
    // and then needs the balances.
    const authorization = await withoutDeadlock(
      async (tx) => expect(await operationStore.lockIfPending(db, tx, program.programId, operation.token)).toBeDefined(),
      () => authorize(client, low, 10),
      (tx) => lockBalances(tx, program.programId, [high.funding.token]),
    );
    expect((await client.transactions.retrieve(authorization)).status).toBe('PENDING');
    expect((await client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect((await client.managementOperations.retrieve(operation.token)).status).toBe('SETTLED');
    expect(await issuingBalance(client, low)).toEqual({ available: 1_040, pending: 10, total: 1_050 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('an authorization counts its Auth Rules outcome only once it holds its balance (the counter is locked last)', async () => {
    const program = await context.server.newProgram('auth rules outcome order');
    const { client } = program;
    const rule = await enforcedRule(client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }]));
    const card = await cardOnOwnAccount(client);
    const earlier = await authorize(client, card, 300);
    const today = isoDate(wall.nowMs());
    // Stands for an authorization on another account that found `card`'s hold due and expired it,
    // approved by the rule as `earlier` was: it holds this balance and then counts its outcome (each
    // shard of today's counter, so the one the request's event goes to as well).
    const authorization = await withoutDeadlock(
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
      () => authorize(client, card, 10),
      (tx) => countOutcomeOnEachShard(tx, program.programId, rule.token, today),
    );
    expect((await client.transactions.retrieve(authorization)).status).toBe('PENDING');
    // `earlier`, the stand-in's events and the request's, each counted once (shown the next day).
    advance(86_400_000);
    const report = await client.authRules.v2.retrieveReport(rule.token, { begin: today, end: today });
    expect(report.daily_statistics[0]?.current_version_statistics).toMatchObject({ approved: 1 + STAT_SHARDS + 1, challenged: 0, declined: 0 });
    expect((await client.transactions.retrieve(earlier)).status).toBe('PENDING');
    await expectLedgerConsistent(program.programId);
  });

  it('concurrent clearings, voids and returns on one card while its holds fall due all succeed, each hold expires once, and the ledger adds up', async () => {
    const program = await context.server.newProgram('expiry race, messages');
    const { client } = program;
    const card = await cardOnOwnAccount(client);
    const due: string[] = [];
    for (let index = 0; index < 5; index++) due.push(await authorize(client, card, 100));
    advance(86_400_000);
    const live: string[] = [];
    for (let index = 0; index < 20; index++) live.push(await authorize(client, card, 100));
    advance(6 * 86_400_000 + 1_000);
    const { transactions } = client;
    // Each of them may find the due holds and expire them (on PostgreSQL side by side): on the 20
    // live holds, 5 full clearings, 5 of 60, 5 full voids, 5 voids of 30; 2 clearings of due
    // holds (each settles what its expiry released); 5 returns of 50.
    const messages = [
      ...live.map((token, index) => {
        if (index % 4 === 0) return transactions.simulateClearing({ token });
        if (index % 4 === 1) return transactions.simulateClearing({ token, amount: 60 });
        if (index % 4 === 2) return transactions.simulateVoid({ token });
        return transactions.simulateVoid({ token, amount: 30 });
      }),
      ...due.slice(0, 2).map((token) => transactions.simulateClearing({ token })),
      ...Array.from({ length: 5 }, () => transactions.simulateReturn({ amount: 50, descriptor: 'RETURN', pan: card.pan })),
    ];
    const outcomes = await Promise.allSettled(messages);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([]);
    const expiredThenCleared = ['AUTHORIZATION', 'AUTHORIZATION_EXPIRY', 'CLEARING'];
    for (const [index, token] of due.entries()) {
      const transaction = await transactions.retrieve(token);
      const expected = index < 2 ? ['SETTLED', expiredThenCleared] : ['EXPIRED', expiredThenCleared.slice(0, 2)];
      expect([transaction.status, transaction.events?.map((event) => event.type)]).toEqual(expected);
    }
    const statuses = await Promise.all(live.map(async (token) => (await transactions.retrieve(token)).status));
    expect(statuses).toEqual(live.map((_, index) => ['SETTLED', 'SETTLED', 'VOIDED', 'PENDING'][index % 4]));
    // Settled: 5 × 100 + 5 × 60 + 2 × 100 (the due holds) − 5 × 50 (returns); pending: 5 × 70.
    expect(await issuingBalance(client, card)).toEqual({ available: -750 - 350, pending: 350, total: -750 });
    await expectLedgerConsistent(program.programId);
  });

  /** A credit of 50 to the account dated tomorrow by the program clock: PENDING until then. */
  function creditTomorrow(client: Lithic, financialAccountToken: string) {
    const tomorrow = new Date(wall.nowMs() + 86_400_000).toISOString().slice(0, 10);
    return client.managementOperations.create({
      amount: 50, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', event_type: 'PROVISIONAL_CREDIT', effective_date: tomorrow, financial_account_token: financialAccountToken,
    });
  }

  /**
   * Adds one event to each shard of the day counter of the rule's only outcome on `day`, as
   * authorizations with that outcome would: the rows stay locked until `tx` ends.
   */
  async function countOutcomeOnEachShard(tx: Tx, programId: string, ruleToken: string, day: string): Promise<void> {
    const [counted] = await authRuleStore.outcomeDaysOfRule(tx, programId, ruleToken, day, day);
    const hash = counted?.hash as string;
    const verdicts = (await authRuleStore.outcomeVerdicts(tx, programId, [hash])).get(hash) as string;
    const nowMs = wall.nowMs();
    for (let shard = 0; shard < STAT_SHARDS; shard++) {
      const example = exampleLine({ event_token: crypto.randomUUID(), timestamp: isoTimestamp(nowMs) });
      await authRuleStore.addOutcomeEvent(tx, { programId, hash, verdicts, ruleTokens: [ruleToken], day, shard, example, nowMs });
    }
  }

  /** Two cards on their own accounts, by financial account token. */
  async function twoInOrder(client: Lithic): Promise<[Card, Card]> {
    const cards = [await cardOnOwnAccount(client), await cardOnOwnAccount(client)];
    return cards.sort((a, b) => (a.funding.token < b.funding.token ? -1 : 1)) as [Card, Card];
  }

  /** Three cards on their own accounts, by financial account token; `low` has 1,000 to transfer. */
  async function threeFundedInOrder(client: Lithic): Promise<[Card, Card, Card]> {
    const cards = [await cardOnOwnAccount(client), await cardOnOwnAccount(client), await cardOnOwnAccount(client)];
    const [low, middle, high] = cards.sort((a, b) => (a.funding.token < b.funding.token ? -1 : 1)) as [Card, Card, Card];
    await fund(client, low.funding.token, 1_000);
    return [low, middle, high];
  }

  /**
   * The test's own transaction stands for another write, by a request that read the clock just
   * before the holds expired (so it found nothing due): it takes `held` (row locks), sends
   * `request`, and once that runs (after `runningMs`) needs `then`. Not retried: a deadlock fails
   * it. Checks that `then` was not held up by a deadlock; answers the request's answer.
   */
  async function withoutDeadlock<T>(held: (tx: Tx) => Promise<unknown>, request: () => Promise<T>, then: (tx: Tx) => Promise<unknown>, runningMs = 150): Promise<T> {
    let sent: Promise<T> | undefined;
    const waitedMs = await context.server.server.db.kysely.transaction().execute(async (tx) => {
      await held(tx);
      sent = request();
      await new Promise((resolve) => setTimeout(resolve, runningMs));
      const started = performance.now();
      await then(tx);
      return performance.now() - started;
    });
    expect(waitedMs).toBeLessThan(500); // a deadlock is detected only after deadlock_timeout (1 s)
    return sent as Promise<T>;
  }

  /**
   * A transfer of 100 from `low` to `high` that finds holds due, while the test stands for another
   * movement, over `held` and `then` (sorted): it holds `held` and, once the transfer runs, needs `then`.
   */
  async function transferWithoutDeadlock(program: TestProgram, low: Card, high: Card, held: Card, then: Card) {
    const transfer = await withoutDeadlock(
      (tx) => lockBalances(tx, program.programId, [held.funding.token]),
      () => bookTransfer(program.client, low.funding.token, high.funding.token, 100),
      (tx) => lockBalances(tx, program.programId, [then.funding.token]),
      300,
    );
    expect(transfer.status).toBe('SETTLED');
  }

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a transfer that finds a hold due locks the hold\'s balance and its own in one sorted set, before it expires the hold', async () => {
    const program = await context.server.newProgram('expiry order, transfer');
    const [low, middle, high] = await threeFundedInOrder(program.client);
    const due = await authorize(program.client, middle, 300);
    advance(7 * 86_400_000 + 1_000);
    await transferWithoutDeadlock(program, low, high, low, middle);
    expect((await program.client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect(await issuingBalance(program.client, middle)).toEqual({ available: 0, pending: 0, total: 0 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a transfer that finds more holds due than one expiry batch locks the balances of all of them with its own, before it expires any', async () => {
    const program = await context.server.newProgram('expiry order, two batches');
    const [low, middle, high] = await threeFundedInOrder(program.client);
    // A first batch of holds (100) on `high`, then one more, in the second batch, on `middle`.
    for (let index = 0; index < 100; index++) await authorize(program.client, high, 1);
    const last = await authorize(program.client, middle, 300);
    advance(7 * 86_400_000 + 1_000);
    await transferWithoutDeadlock(program, low, high, middle, high);
    expect((await program.client.transactions.retrieve(last)).status).toBe('EXPIRED');
    expect(await issuingBalance(program.client, high)).toEqual({ available: 100, pending: 0, total: 100 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('the clock jobs that find more holds due than one expiry batch lock all of them before any balance', async () => {
    const program = await context.server.newProgram('expiry order, job');
    const card = await cardOnOwnAccount(program.client);
    // A first batch of holds (100), then one more, in the second batch.
    for (let index = 0; index < 100; index++) await authorize(program.client, card, 1);
    const last = await authorize(program.client, card, 300);
    advance(7 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // A read catches up (the jobs) while the test stands for a message on `last`: it holds the
    // transaction and then needs the balance.
    await withoutDeadlock(
      async (tx) => expect(await transactionStore.lock(db, tx, program.programId, last)).toBeDefined(),
      () => program.client.transactions.list({ card_token: card.token }),
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
      300,
    );
    expect((await program.client.transactions.retrieve(last)).status).toBe('EXPIRED');
    expect(await issuingBalance(program.client, card)).toEqual({ available: 0, pending: 0, total: 0 });
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('the clock jobs lock a due hold before posting an operation dated earlier on its balance', async () => {
    const program = await context.server.newProgram('expiry order, job and operation');
    const { client } = program;
    const card = await cardOnOwnAccount(client);
    const due = await authorize(client, card, 300);
    const operation = await creditTomorrow(client, card.funding.token);
    advance(7 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // A read catches up (the jobs: the operation at its date, then the expiry) while the test
    // stands for a message on the hold: it holds the transaction and then needs the balance.
    await withoutDeadlock(
      async (tx) => expect(await transactionStore.lock(db, tx, program.programId, due)).toBeDefined(),
      () => client.transactions.list({ card_token: card.token }),
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
      300,
    );
    expect((await client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect((await client.managementOperations.retrieve(operation.token)).status).toBe('SETTLED');
    expect(await issuingBalance(client, card)).toEqual({ available: 50, pending: 0, total: 50 });
    await expectLedgerConsistent(program.programId);
  });

  /**
   * Three cards as `threeFundedInOrder`, what `setUp` makes for a clock job other than the expiry,
   * and a hold of 300 on `middle`, now due.
   */
  async function besideHoldDue<T>(name: string, setUp: (client: Lithic, low: Card) => Promise<T>) {
    const program = await context.server.newProgram(name);
    const [low, middle, high] = await threeFundedInOrder(program.client);
    const made = await setUp(program.client, low);
    const due = await authorize(program.client, middle, 300);
    advance(7 * 86_400_000 + 1_000);
    return { program, client: program.client, db: context.server.server.db, low, high, made, due };
  }

  /**
   * A transfer of 100 from `low` to `to` that finds the hold due, while the test stands for a write
   * that holds a row the other job takes (locked by `held`) and then needs the balance of `needs`
   * (one of the transfer's two). The hold expires, the ledger adds up.
   */
  async function transferBesideDueRow(setting: Awaited<ReturnType<typeof besideHoldDue>>, to: string, held: (tx: Tx) => Promise<unknown>, needs = setting.low.funding.token) {
    const { program, low, due } = setting;
    const transfer = await withoutDeadlock(
      held,
      () => bookTransfer(program.client, low.funding.token, to, 100),
      (tx) => lockBalances(tx, program.programId, [needs]),
      300,
    );
    expect(transfer.status).toBe('SETTLED');
    expect((await program.client.transactions.retrieve(due)).status).toBe('EXPIRED');
    await expectLedgerConsistent(program.programId);
  }

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a transfer that finds a hold due locks a card due for fulfilment before any balance', async () => {
    const setting = await besideHoldDue('job order, fulfilment', (client, low) =>
      client.cards.create({ type: 'PHYSICAL', account_token: low.account_token, shipping_address: SHIPPING_ADDRESS }),
    );
    const { client, db, program, made: physical } = setting;
    // Stands for a reissue of the physical card (POST /v1/cards replacement_for): it holds the card
    // and then needs its account's balance (an authorization on it holds the card the same way).
    await transferBesideDueRow(setting, setting.high.funding.token, async (tx) => expect(await cardStore.lockCard(db, tx, program.programId, physical.token)).toBeDefined());
    expect((await client.cards.retrieve(physical.token)).state).toBe('PENDING_ACTIVATION');
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a card PATCH that finds a card due for fulfilment and a hold due locks its own card before the hold\'s balance', async () => {
    const program = await context.server.newProgram('patch order');
    const { client } = program;
    const [card] = await threeFundedInOrder(client);
    await client.cards.create({ type: 'PHYSICAL', account_token: card.account_token, shipping_address: SHIPPING_ADDRESS });
    const due = await authorize(client, card, 300);
    advance(7 * 86_400_000 + 1_000);
    const { db } = context.server.server;
    // Stands for a reissue of the card (POST /v1/cards replacement_for): it holds the card, then
    // needs its account's balance, which the PATCH's catch-up locks to release the hold.
    const patched = await withoutDeadlock(
      async (tx) => expect(await cardStore.lockCard(db, tx, program.programId, card.token)).toBeDefined(),
      () => client.cards.update(card.token, { memo: 'patched' }),
      (tx) => lockBalances(tx, program.programId, [card.funding.token]),
      300,
    );
    expect(patched.memo).toBe('patched');
    expect((await client.transactions.retrieve(due)).status).toBe('EXPIRED');
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('an authorization that finds a hold due locks the cards due for fulfilment before its own card', async () => {
    const setting = await besideHoldDue('job order, fulfilment, authorization', async (client, low) => {
      const physical = (): Promise<Card> => client.cards.create({ type: 'PHYSICAL', account_token: low.account_token, shipping_address: SHIPPING_ADDRESS }) as Promise<Card>;
      const cards = [await physical(), await physical()];
      // The order the fulfilment job locks them in (cards/store.ts `lockAwaitingFulfilment`).
      return cards.sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || (a.token < b.token ? -1 : 1)) as [Card, Card];
    });
    const { client, db, program, made: [first, second], due } = setting;
    // Stands for another write running the clock jobs (a catch-up, a transfer, an authorization on
    // another card): it locks the due cards in the job's order, holding `first` and then needing
    // `second`. The authorization on `second` must not hold its own card while it waits for `first`.
    const token = await withoutDeadlock(
      async (tx) => expect(await cardStore.lockCard(db, tx, program.programId, first.token)).toBeDefined(),
      () => authorize(client, second, 100),
      async (tx) => expect(await cardStore.lockCard(db, tx, program.programId, second.token)).toBeDefined(),
      300,
    );
    expect((await client.transactions.retrieve(token)).status).toBe('PENDING');
    expect((await client.transactions.retrieve(due)).status).toBe('EXPIRED');
    expect([(await client.cards.retrieve(first.token)).state, (await client.cards.retrieve(second.token)).state]).toEqual(['PENDING_ACTIVATION', 'PENDING_ACTIVATION']);
    await expectLedgerConsistent(program.programId);
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a transfer that finds a hold due locks a prenote that fell due before any balance', async () => {
    const setting = await besideHoldDue('job order, prenote', async (client) => {
      const operating = await newAccount(client);
      return { operating, prenote: await client.externalBankAccounts.create({ ...manualBankAccount(operating), verification_method: 'PRENOTE' }) };
    });
    const { client, db, program, made: { operating, prenote } } = setting;
    // Stands for a retry_micro_deposits that found the prenote due and enabled it: it holds that
    // bank account and then needs the balance it sends the micro-deposits from (the transfer's own).
    await transferBesideDueRow(setting, operating, async (tx) => expect(await bankAccountStore.lock(db, tx, program.programId, prenote.token)).toBeDefined(), operating);
    expect((await client.externalBankAccounts.retrieve(prenote.token)).verification_state).toBe('ENABLED');
  });

  // PostgreSQL only, as above.
  it.skipIf(engine !== 'postgres')('a transfer that finds a hold due locks a 3-D Secure challenge that timed out before any balance', async () => {
    const setting = await besideHoldDue('job order, challenge', async (client, low) => {
      const merchant = { id: 'M-1', country: 'USA', mcc: '5411', name: 'SHOP CHALLENGE' };
      return (await client.threeDS.authentication.simulate({ pan: low.pan, merchant, transaction: { amount: 2_500, currency: 'USD' } })).token as string;
    });
    const { client, db, program, made: challenge } = setting;
    // Stands for a write on the challenge that would then need a balance (none does today: resolving
    // one takes no other lock): the order holds for every clock job's rows all the same.
    await transferBesideDueRow(setting, setting.high.funding.token, async (tx) => expect(await threeDsStore.lock(db, tx, program.programId, challenge)).toBeDefined());
    expect((await client.threeDS.authentication.retrieve(challenge)).challenge_metadata?.status).toBe('CARDHOLDER_TIMEOUT');
  });

  it('concurrent requests that all find the same hold due expire it once, and none fails', async () => {
    const program = await context.server.newProgram('expiry race');
    const card = await cardOnOwnAccount(program.client);
    const due = await authorize(program.client, card, 300);
    advance(7 * 86_400_000 + 1_000);
    // Every one of them finds the hold due and runs the expiry job (on PostgreSQL side by side).
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 20 }, () => authorize(program.client, card, 10)),
      ...Array.from({ length: 10 }, () => program.client.transactions.list({ card_token: card.token })),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([]);
    const expired = await program.client.transactions.retrieve(due);
    expect([expired.status, expired.events?.map((event) => event.type)]).toEqual(['EXPIRED', ['AUTHORIZATION', 'AUTHORIZATION_EXPIRY']]);
    expect(await issuingBalance(program.client, card)).toEqual({ available: -200, pending: 200, total: 0 });
    await expectLedgerConsistent(program.programId);
  });

  it('concurrent authorizations, transfers, payments and operations that find many holds due expire each once, and none fails', async () => {
    const program = await context.server.newProgram('expiry race, money writes');
    const { client } = program;
    const [a, b] = [await cardOnOwnAccount(client), await cardOnOwnAccount(client)];
    for (const card of [a, b]) await fund(client, card.funding.token, 10_000);
    // More holds than one expiry batch (100), on two accounts.
    const due: string[] = [];
    for (let index = 0; index < 160; index++) due.push(await authorize(client, index % 4 === 0 ? b : a, 10));
    advance(7 * 86_400_000 + 1_000);
    const transfer = (from: Card, to: Card, amount: number) =>
      client.bookTransfers.create({ amount, category: 'TRANSFER', type: 'ACCOUNT_TO_ACCOUNT', subtype: 'P2P', from_financial_account_token: from.funding.token, to_financial_account_token: to.funding.token });
    const today = new Date(wall.nowMs()).toISOString().slice(0, 10);
    // Each of them may find the holds due and run the expiry job (on PostgreSQL side by side).
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 10 }, () => authorize(client, a, 10)),
      ...Array.from({ length: 10 }, () => transfer(a, b, 5)),
      ...Array.from({ length: 10 }, () => transfer(b, a, 3)),
      ...Array.from({ length: 5 }, () =>
        client.managementOperations.create({ amount: 1, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: today, event_type: 'PROVISIONAL_CREDIT', financial_account_token: a.funding.token }),
      ),
      ...Array.from({ length: 5 }, () => client.externalPayments.create({ amount: 2, category: 'EXTERNAL_WIRE', effective_date: today, financial_account_token: b.funding.token, payment_type: 'WITHDRAWAL' })),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([]);
    const approved = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value).filter((value) => typeof value === 'object');
    expect(approved.map((value) => (value as { result: string }).result)).toEqual(Array.from({ length: 30 }, () => 'APPROVED'));
    for (const token of due) {
      const expired = await client.transactions.retrieve(token);
      expect([expired.status, expired.events?.map((event) => event.type)]).toEqual(['EXPIRED', ['AUTHORIZATION', 'AUTHORIZATION_EXPIRY']]);
    }
    // A: funded, ten new holds of 10, ten transfers out of 5 and in of 3, five credits of 1.
    expect(await issuingBalance(client, a)).toEqual({ available: 10_000 - 100 - 50 + 30 + 5, pending: 100, total: 10_000 - 50 + 30 + 5 });
    await expectLedgerConsistent(program.programId);
  });
});
