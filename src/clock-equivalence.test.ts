/**
 * A clock move's result does not depend on the path: over a small random set of due items (holds,
 * management operations, a PHYSICAL card, a PRENOTE bank account, 3-D Secure challenges), moving
 * the clock to T in one step leaves exactly the state (resources, balances, ledger, events in the
 * order recorded) that moving through any sequence of intermediate instants to T leaves, with or
 * without reads catching up in between.
 */
import fc from 'fast-check';
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { isoDate, MS_PER_DAY } from './clock.js';
import { verifyProgramLedger } from './ledger/ledger.js';
import { frozenWallClock } from './testing/clock.js';
import { describeWithDb, engine, useTestServer } from './testing/harness.js';
import { fund, manualBankAccount, newAccount } from './testing/money.js';
import { authorize, cardOnOwnAccount, moveClock, simulateChallenge, type Card } from './testing/transactions.js';

const START = '2030-01-30T12:00:00.000Z';
const START_MS = Date.parse(START);
const TARGET_MS = START_MS + 70 * MS_PER_DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const SHIPPING_ADDRESS = { first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA' };

type Item =
  | { kind: 'hold'; atMs: number; amount: number }
  | { kind: 'operation'; atMs: number; days: number; direction: 'CREDIT' | 'DEBIT'; amount: number }
  | { kind: 'physical'; atMs: number }
  | { kind: 'prenote'; atMs: number }
  | { kind: 'challenge'; atMs: number };

/** An instant within the first 20 days, to the minute (so some fall on midnights and on each other's due instants). */
const within20Days = fc.integer({ min: 0, max: 20 * 24 * 60 }).map((minutes) => START_MS + minutes * MINUTE);
const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('hold' as const), atMs: within20Days, amount: fc.integer({ min: 1, max: 400 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('operation' as const), atMs: within20Days, days: fc.integer({ min: 0, max: 30 }),
      direction: fc.constantFrom('CREDIT' as const, 'DEBIT' as const), amount: fc.integer({ min: 1, max: 600 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('physical' as const), atMs: within20Days }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prenote' as const), atMs: within20Days }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('challenge' as const), atMs: within20Days }) },
);
/** Stops between the last item and the target: a few, some exactly on a due instant (midnights, whole minutes). */
const stops = fc.array(fc.integer({ min: 0, max: 70 * 24 * 4 }).map((quarters) => START_MS + quarters * 15 * MINUTE), { maxLength: 8 });

interface Made {
  card: Card;
  operating: string;
  threeDs: string[];
}

/** Makes the items in the program, in the order of their instants, moving its clock to each. */
async function makeItems(client: Lithic, items: readonly Item[]): Promise<Made> {
  const card = await cardOnOwnAccount(client);
  await fund(client, card.funding.token, 1_000);
  const operating = await newAccount(client);
  const threeDs: string[] = [];
  let nowMs = START_MS;
  for (const made of [...items].sort((a, b) => a.atMs - b.atMs)) {
    if (made.atMs > nowMs) await moveClock(client, iso(made.atMs));
    nowMs = Math.max(nowMs, made.atMs);
    if (made.kind === 'hold') await authorize(client, card, made.amount);
    else if (made.kind === 'physical') await client.cards.create({ type: 'PHYSICAL', account_token: card.account_token, shipping_address: SHIPPING_ADDRESS });
    else if (made.kind === 'prenote') await client.externalBankAccounts.create({ ...manualBankAccount(operating), verification_method: 'PRENOTE' });
    else if (made.kind === 'challenge') threeDs.push(await simulateChallenge(client, card));
    else {
      await client.managementOperations.create({
        amount: made.amount, category: 'MANAGEMENT_ADJUSTMENT', direction: made.direction, effective_date: isoDate(nowMs + made.days * MS_PER_DAY),
        event_type: made.direction === 'CREDIT' ? 'PROVISIONAL_CREDIT' : 'LATE_PAYMENT', financial_account_token: card.funding.token,
      });
    }
  }
  return { card, operating, threeDs };
}

async function allPages<T>(first: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const found of first) items.push(found);
  return items;
}

/** Every read that catches up on clock-driven work. */
async function readEverything(client: Lithic, made: Made): Promise<void> {
  await Promise.all([
    client.cards.list(),
    client.transactions.list(),
    client.externalBankAccounts.list(),
    client.managementOperations.list(),
    client.balances.list(),
    client.financialAccounts.financialTransactions.list(made.card.funding.token),
    ...made.threeDs.map((token) => client.threeDS.authentication.retrieve(token)),
  ]);
}

/**
 * Everything the program shows, oldest first, its tokens renamed in order of first appearance (two
 * programs' tokens differ; the same effects in the same order name them alike).
 */
async function stateOf(client: Lithic, made: Made): Promise<unknown> {
  const state = {
    clock: await client.get('/v1/simulate/clock'),
    balances: (await client.balances.list()).data,
    transactions: (await allPages(client.transactions.list({ page_size: 100 }))).reverse(),
    operations: (await allPages(client.managementOperations.list({ page_size: 100 }))).reverse(),
    journal: (await allPages(client.financialAccounts.financialTransactions.list(made.card.funding.token))).reverse(),
    cards: (await allPages(client.cards.list({ page_size: 100 }))).reverse(),
    bankAccounts: (await allPages(client.externalBankAccounts.list({ page_size: 100 }))).reverse(),
    threeDs: await Promise.all(made.threeDs.map((token) => client.threeDS.authentication.retrieve(token))),
    events: (await allPages(client.events.list({ page_size: 100, with_content: true }))).reverse(),
  };
  const recorded = [...state.events].sort((a, b) => (a.token < b.token ? -1 : 1));
  expect(recorded.map((event) => `${event.event_type} ${event.created}`), 'events recorded in the order of created').toEqual(state.events.map((event) => `${event.event_type} ${event.created}`));
  const names = new Map<string, string>();
  const renamed = JSON.stringify(state).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (token) => {
    if (!names.has(token)) names.set(token, `token-${names.size}`);
    return names.get(token) as string;
  });
  // Card numbers, CVVs and tracking numbers differ between programs too: compare their shape.
  return JSON.parse(renamed.replace(/"(pan|cvv|last_four|exp_month|exp_year|tracking_number|account_number|authorization_code|retrieval_reference_number|transaction_id|original_transaction_id)":"[^"]*"/g, '"$1":"…"'));
}

describeWithDb('clock moves: one step or many, the same state', () => {
  const { wall } = frozenWallClock(START);
  const context = useTestServer({ wall });

  it('moving to T at once equals moving through any intermediate instants to T, with or without reads between', async () => {
    let runs = 0;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 7 }), stops, fc.boolean(), async (items, between, read) => {
        runs++;
        const jumping = await context.server.newProgram();
        const stepping = await context.server.newProgram();
        const jumped = await makeItems(jumping.client, items);
        const stepped = await makeItems(stepping.client, items);
        await moveClock(jumping.client, iso(TARGET_MS));
        const fromMs = Date.parse(((await stepping.client.get('/v1/simulate/clock')) as { now: string }).now);
        for (const stopMs of [...new Set(between)].sort((a, b) => a - b).filter((ms) => ms > fromMs)) {
          await moveClock(stepping.client, iso(stopMs));
          if (read) await readEverything(stepping.client, stepped);
        }
        await moveClock(stepping.client, iso(TARGET_MS));
        expect(await stateOf(stepping.client, stepped)).toEqual(await stateOf(jumping.client, jumped));
        for (const { programId } of [jumping, stepping]) {
          expect(await verifyProgramLedger(context.server.server.db.kysely, programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
        }
      }),
      { numRuns: Number(process.env.CLOCK_EQUIVALENCE_RUNS ?? 12), seed: Number(process.env.CLOCK_EQUIVALENCE_SEED ?? 1) },
    );
    console.log(`[clock-equivalence ${engine}] ${runs} runs in ${Math.round(performance.now() - started)} ms`);
  }, 120_000);

});
