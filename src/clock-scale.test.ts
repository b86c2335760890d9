/**
 * A clock move at scale: thousands of holds that expire at spread instants and hundreds of
 * management operations dated across two years, brought up to date by ONE request. Every effect
 * once, dated when it fell due, in the order it fell due (funds decided accordingly), the ledger
 * consistent, another program untouched, and requests racing the move wholly before or after it.
 */
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { isoDate, MS_PER_DAY, utcDayStartMs } from './clock.js';
import { verifyProgramLedger } from './ledger/ledger.js';
import { frozenWallClock } from './testing/clock.js';
import { describeWithDb, engine, useTestServer } from './testing/harness.js';
import { fund } from './testing/money.js';
import { authorize, cardOnOwnAccount, moveClock, type Card } from './testing/transactions.js';

const START = '2030-01-10T12:00:00.000Z';
const iso = (ms: number) => new Date(ms).toISOString();
const HOLD_LIFETIME_MS = 7 * MS_PER_DAY;

const CARDS = 10;
const OPERATIONS_PER_ACCOUNT = 30;
const FUNDED_CENTS = 200_000;

/** A small deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

interface PlannedOperation {
  account: number;
  direction: 'CREDIT' | 'DEBIT';
  amount: number;
  date: string;
  token?: string;
  order: number;
}

interface MadeHold {
  account: number;
  token: string;
  amount: number;
  createdMs: number;
}

async function allPages<T>(first: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of first) items.push(item);
  return items;
}

/**
 * What the move must do, derived apart from the server: per account, hold expiries (at their
 * creation + 7 days) and operations (at the start of their date) in time order, expiries first at
 * one instant, operations in creation order; a DEBIT is approved when the available funds cover it.
 */
function expectedOutcome(holds: readonly MadeHold[], operations: readonly PlannedOperation[]) {
  type Step = { atMs: number; rank: number; order: number; apply: () => void };
  const available = new Map<number, number>();
  const statuses = new Map<PlannedOperation, string>();
  for (let account = 0; account < CARDS; account++) available.set(account, FUNDED_CENTS);
  for (const hold of holds) available.set(hold.account, (available.get(hold.account) ?? 0) - hold.amount);
  const steps: Step[] = [
    ...holds.map((hold, order) => ({ atMs: hold.createdMs + HOLD_LIFETIME_MS, rank: 0, order, apply: () => available.set(hold.account, (available.get(hold.account) ?? 0) + hold.amount) })),
    ...operations.map((operation) => ({
      atMs: utcDayStartMs(operation.date),
      rank: 1,
      order: operation.order,
      apply: () => {
        const funds = available.get(operation.account) ?? 0;
        if (operation.direction === 'CREDIT') available.set(operation.account, funds + operation.amount);
        else if (funds >= operation.amount) available.set(operation.account, funds - operation.amount);
        else return statuses.set(operation, 'DECLINED');
        statuses.set(operation, 'SETTLED');
      },
    })),
  ];
  steps.sort((a, b) => a.atMs - b.atMs || a.rank - b.rank || a.order - b.order);
  for (const step of steps) step.apply();
  return { available, statuses };
}

/** The due items of one program: CARDS funded cards, their holds made across six days, the operations. */
async function makeDueItems(client: Lithic, clock: ReturnType<typeof frozenWallClock>, holdsPerCard: number, seed: number) {
  const next = random(seed);
  const cards: Card[] = [];
  for (let account = 0; account < CARDS; account++) {
    const card = await cardOnOwnAccount(client);
    await fund(client, card.funding.token, FUNDED_CENTS);
    cards.push(card);
  }
  // Operations dated from day 7 (after every hold is made) across two years, many within the
  // week the holds expire in, so debits are decided between expiries.
  const startDayMs = utcDayStartMs(iso(clock.wall.nowMs()).slice(0, 10));
  const operations: PlannedOperation[] = [];
  for (let account = 0; account < CARDS; account++) {
    for (let index = 0; index < OPERATIONS_PER_ACCOUNT; index++) {
      const day = index < OPERATIONS_PER_ACCOUNT / 2 ? 7 + Math.floor(next() * 8) : 7 + Math.floor(next() * 720);
      const direction = next() < 0.3 ? 'CREDIT' : 'DEBIT';
      const amount = direction === 'CREDIT' ? 1 + Math.floor(next() * 20_000) : 1 + Math.floor(next() * 60_000);
      operations.push({ account, direction, amount, date: isoDate(startDayMs + day * MS_PER_DAY), order: 0 });
    }
  }
  // Each account's in order (the order they are decided in at one instant), the accounts side by side.
  for (const [order, operation] of operations.entries()) operation.order = order;
  await Promise.all(
    cards.map(async (card, account) => {
      for (const operation of operations.filter((planned) => planned.account === account)) {
        const created = await client.managementOperations.create({
          amount: operation.amount, category: 'MANAGEMENT_ADJUSTMENT', direction: operation.direction, effective_date: operation.date,
          event_type: operation.direction === 'CREDIT' ? 'PROVISIONAL_CREDIT' : 'LATE_PAYMENT', financial_account_token: card.funding.token,
        });
        expect(created.status).toBe('PENDING');
        operation.token = created.token;
      }
    }),
  );
  // The holds, one per card at a time, made across six days at uneven instants: nothing expires
  // nor falls due while they are made (the wall clock stands still but for these steps).
  const holds: MadeHold[] = [];
  for (let round = 0; round < holdsPerCard; round++) {
    clock.advance(Math.floor((6 * MS_PER_DAY) / holdsPerCard) - 500 + Math.floor(next() * 1_000));
    const createdMs = clock.wall.nowMs();
    const amounts = cards.map(() => 1 + Math.floor(next() * 500));
    const tokens = await Promise.all(cards.map((card, account) => authorize(client, card, amounts[account] as number)));
    tokens.forEach((token, account) => holds.push({ account, token, amount: amounts[account] as number, createdMs }));
  }
  const expected = expectedOutcome(holds, operations);
  expect(new Set(expected.statuses.values()), 'debits both approved and declined').toEqual(new Set(['SETTLED', 'DECLINED']));
  return { cards, holds, operations, expected, madeUntilMs: clock.wall.nowMs() };
}

type DueItems = Awaited<ReturnType<typeof makeDueItems>>;

/**
 * Each hold expired once, 7 days after it was made; each operation decided once, on its date, as
 * the funds then allowed; the events recorded in the order of `created`, one per effect (plus
 * `extra.updates` card_transaction.updated and `extra.balances` balance.updated of other requests).
 */
async function expectAppliedOnce(client: Lithic, made: DueItems, extra: { updates: number; balances: number }) {
  const { holds, operations, expected } = made;
  const transactions = await allPages(client.transactions.list({ page_size: 100 }));
  const byToken = new Map(transactions.map((transaction) => [transaction.token, transaction]));
  for (const hold of holds) {
    const transaction = byToken.get(hold.token);
    expect(transaction?.status, hold.token).toBe('EXPIRED');
    expect(transaction?.events?.map((event) => [event.type, event.created])).toEqual([
      ['AUTHORIZATION', iso(hold.createdMs)],
      ['AUTHORIZATION_EXPIRY', iso(hold.createdMs + HOLD_LIFETIME_MS)],
    ]);
  }
  const decided = await allPages(client.managementOperations.list({ page_size: 100 }));
  const operationsByToken = new Map(decided.map((operation) => [operation.token, operation]));
  for (const operation of operations) {
    const found = operationsByToken.get(operation.token as string);
    expect([found?.status, found?.updated], `${operation.direction} ${operation.amount} on ${operation.date}`).toEqual([expected.statuses.get(operation), `${operation.date}T00:00:00.000Z`]);
  }
  const events = (await allPages(client.events.list({ page_size: 100 }))).reverse().filter((event) => event.created > iso(made.madeUntilMs));
  const recorded = [...events].sort((a, b) => (a.token < b.token ? -1 : 1));
  expect(recorded.map((event) => event.token), 'recorded in the order of created').toEqual(events.map((event) => event.token));
  const counts = (type: string) => events.filter((event) => event.event_type === type).length;
  const settled = operations.filter((operation) => expected.statuses.get(operation) === 'SETTLED').length;
  expect({ updatedTransactions: counts('card_transaction.updated'), updatedOperations: counts('management_operation.updated'), balances: counts('balance.updated') }).toEqual({
    updatedTransactions: holds.length + extra.updates,
    updatedOperations: operations.length,
    balances: holds.length + settled + extra.balances,
  });
}

const availableOf = (balances: readonly Lithic.Balance[]) => new Map(balances.map((balance) => [balance.financial_account_token, balance.available_amount]));

describeWithDb('a two-year clock move over thousands of due items, in one request', () => {
  const clock = frozenWallClock(START);
  const context = useTestServer({ wall: clock.wall });

  it('applies each due item once, in due order, dated when due; the ledger balances; others untouched; racing requests see before or after', async () => {
    const { client, programId } = await context.server.newProgram();
    const other = await context.server.newProgram();
    const otherCard = await cardOnOwnAccount(other.client);
    const otherHold = await authorize(other.client, otherCard, 1_234);
    const made = await makeDueItems(client, clock, 250, 20300110);
    const { cards, holds, operations, expected } = made;
    const before = availableOf((await client.balances.list()).data);
    const otherClockBefore = await other.client.get('/v1/simulate/clock');

    // The move, with reads and a write racing it.
    const targetMs = Date.parse(START) + 2 * 365 * MS_PER_DAY;
    const moveStarted = performance.now();
    const move = moveClock(client, iso(targetMs)).then(() => performance.now() - moveStarted);
    const racingReads = Array.from({ length: 4 }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, 20 * index));
      return (await client.balances.list()).data;
    });
    const racingHold = authorize(client, cards[0] as Card, 100);
    const otherRacing = authorize(other.client, otherCard, 10); // another program's write meanwhile: waits at most, never fails
    const [moveMs, reads, racing, otherRacingHold] = await Promise.all([move, Promise.all(racingReads), racingHold, otherRacing]);
    const afterByToken = availableOf((await client.balances.list()).data);
    const racingTransaction = await client.transactions.retrieve(racing);
    const racedAfter = racingTransaction.created !== iso(made.madeUntilMs);
    console.log(`[clock-scale ${engine}] ${holds.length} holds and ${operations.length} operations: the two-year move took ${Math.round(moveMs)} ms (the racing hold came ${racedAfter ? 'after' : 'before'} it)`);
    expect(racingTransaction.status).toBe(racedAfter ? 'PENDING' : 'EXPIRED');
    if (racedAfter) expect(racingTransaction.created).toBe(iso(targetMs));
    for (const [account, card] of cards.entries()) {
      // A hold racing before the move expired in it; after it, it is still held.
      const racingCents = account === 0 && racedAfter ? 100 : 0;
      expect(afterByToken.get(card.funding.token), `account ${account}`).toBe((expected.available.get(account) ?? 0) - racingCents);
    }
    // A read racing the move shows all of it or none of it.
    const afterWithoutRacing = new Map(cards.map((card, account) => [card.funding.token, expected.available.get(account)]));
    const beforeWithRacing = new Map(cards.map((card, account) => [card.funding.token, (before.get(card.funding.token) ?? 0) - (account === 0 ? 100 : 0)]));
    for (const read of reads) {
      const seen = availableOf(read);
      const whole = (state: Map<string, number | undefined>) => cards.every((card) => seen.get(card.funding.token) === state.get(card.funding.token));
      expect(whole(before) || whole(afterByToken) || whole(afterWithoutRacing) || whole(beforeWithRacing), 'a read saw part of the move').toBe(true);
    }
    // The racing hold: its expiry when it came before the move, its authorization when after.
    await expectAppliedOnce(client, made, { updates: 1, balances: 1 });
    expect(await verifyProgramLedger(context.server.server.db.kysely, programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });

    // The other program: its clock and its hold as they were.
    expect(await other.client.get('/v1/simulate/clock')).toEqual(otherClockBefore);
    expect((await other.client.transactions.retrieve(otherHold)).status).toBe('PENDING');
    expect(await other.client.transactions.retrieve(otherRacingHold)).toMatchObject({ status: 'PENDING', created: (otherClockBefore as { now: string }).now });
    expect(await verifyProgramLedger(context.server.server.db.kysely, other.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });

    // Nothing is left to do: the clock, moved again, records nothing.
    const eventsBefore = (await allPages(client.events.list({ page_size: 100 }))).length;
    await moveClock(client, iso(targetMs + 1));
    expect((await allPages(client.events.list({ page_size: 100 }))).length).toBe(eventsBefore);
  }, 240_000);
});

describeWithDb('two years passing at real speed over 900 due items: reads catch up, together', () => {
  const clock = frozenWallClock(START);
  const context = useTestServer({ wall: clock.wall });

  it('concurrent reads that find it all due apply each item once, in due order, dated when due', async () => {
    const { client, programId } = await context.server.newProgram();
    const made = await makeDueItems(client, clock, 60, 20300111);
    clock.advance(2 * 365 * MS_PER_DAY); // no move, no sweep: the reads are the first to look
    const started = performance.now();
    const reads = await Promise.all([
      client.balances.list(),
      client.transactions.list({ page_size: 10 }),
      client.managementOperations.list({ page_size: 10 }),
      client.events.list({ page_size: 10 }),
      client.balances.list(),
    ]);
    console.log(`[clock-scale ${engine}] ${made.holds.length} holds and ${made.operations.length} operations: concurrent reads caught up in ${Math.round(performance.now() - started)} ms`);
    const balances = availableOf(reads[0].data);
    expect(made.cards.map((card) => balances.get(card.funding.token))).toEqual(made.cards.map((_, account) => made.expected.available.get(account)));
    await expectAppliedOnce(client, made, { updates: 0, balances: 0 });
    expect(await verifyProgramLedger(context.server.server.db.kysely, programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }, 240_000);
});
