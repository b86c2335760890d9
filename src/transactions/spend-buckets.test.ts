/**
 * The spend buckets (per card and account, per UTC day and hour) say what was spent: after a random
 * history of authorizations, advices, clearings, reversals, expiries and returns spread over hours
 * and days (the wall clock frozen, so every transaction is made at an instant the test knows), every
 * window the engine reads (`windowSpend`, and the account's spend_velocity on
 * GET /v1/accounts/{token}/spend_limits) equals the spend the test works out itself from what it
 * did through the SDK: an approved authorization spends its amount, then the advised or cleared
 * amount, then what a partial reversal leaves; a full reversal or expiry spends nothing; a return is
 * no spend. It never reads the transactions back from the store, so a wrong spend on a transaction
 * row (which the buckets would copy) fails it.
 */
import fc from 'fast-check';
import type { KyselyPlugin } from 'kysely';
import { expect, it } from 'vitest';
import { monthlyWindowStartMs } from '../accounts/spend.js';
import { MS_PER_DAY, MS_PER_HOUR } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { authorized, cardOnOwnAccount, moveClock, type Card } from '../testing/transactions.js';
import { accountAndCardSpent, windowSpend, type SpendScope } from './history.js';

type Step =
  | { kind: 'authorize'; card: number; amount: number }
  | { kind: 'advice' | 'clear' | 'reverse' | 'expire'; pick: number; fraction: number }
  | { kind: 'return'; card: number; amount: number }
  | { kind: 'wait'; minutes: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('authorize' as const), card: fc.nat(1), amount: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ kind: fc.constantFrom('advice' as const, 'clear' as const, 'reverse' as const, 'expire' as const), pick: fc.nat(), fraction: fc.double({ min: 0.1, max: 1.5, noNaN: true }) }),
  fc.record({ kind: fc.constant('return' as const), card: fc.nat(1), amount: fc.integer({ min: 1, max: 2_000 }) }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 36 * 60 }) }),
);

/** The latest pending authorization. */
const LAST = -1;
/** After the random history, every ending for sure: a partial then a full reversal, an expiry by message and by the clock, a partial reversal that stays pending. */
const ENDINGS: Step[] = [
  { kind: 'authorize', card: 1, amount: 2_500 },
  { kind: 'reverse', pick: LAST, fraction: 0.4 },
  { kind: 'wait', minutes: 61 },
  { kind: 'reverse', pick: LAST, fraction: 1.5 },
  { kind: 'authorize', card: 0, amount: 900 },
  { kind: 'expire', pick: LAST, fraction: 1 },
  { kind: 'authorize', card: 0, amount: 1_800 },
  { kind: 'advice', pick: LAST, fraction: 1.2 },
  { kind: 'wait', minutes: 8 * 24 * 60 },
  { kind: 'authorize', card: 1, amount: 1_234 },
  { kind: 'reverse', pick: LAST, fraction: 0.3 },
  { kind: 'return', card: 1, amount: 700 },
  { kind: 'wait', minutes: 30 },
];

const START = '2031-03-15T21:40:00.000Z';
/** Lithic expires an authorization 7 days after it was made. */
const EXPIRY_MS = 7 * MS_PER_DAY;
/** High enough that no authorization of the history is declined, set so that spend_limits shows every window. */
const LIMIT_CENTS = 100_000_000;

/** What the test knows of one authorization it made. */
interface Made {
  token: string;
  card: number;
  created_ms: number;
  status: 'PENDING' | 'SETTLED' | 'VOIDED' | 'EXPIRED';
  /** The amount it spends: authorized, then advised or cleared, less what was reversed. */
  spend_cents: number;
}

describeWithDb('spend buckets', () => {
  const clock = frozenWallClock(START);
  const context = useTestServer({ wall: clock.wall });

  it('hold the spend worked out from the transactions made, for cards and accounts, across hours and days', async () => {
    const program = await context.server.newProgram();
    const { client } = program;
    let nowMs = Date.parse(START);
    await moveClock(client, START);
    const first = await cardOnOwnAccount(client);
    const cards: Card[] = [first, (await client.cards.create({ type: 'VIRTUAL', account_token: first.account_token })) as Card];
    await client.accounts.update(first.account_token, { daily_spend_limit: LIMIT_CENTS, monthly_spend_limit: LIMIT_CENTS, lifetime_spend_limit: LIMIT_CENTS });
    const made: Made[] = [];
    /** An authorization still pending when its seventh day has come is EXPIRED (the clock job). */
    const expireDue = () => {
      for (const each of made) if (each.status === 'PENDING' && each.created_ms + EXPIRY_MS <= nowMs) Object.assign(each, { status: 'EXPIRED', spend_cents: 0 });
    };

    const [steps] = fc.sample(fc.array(step, { minLength: 40, maxLength: 40 }), { numRuns: 1, seed: 20261122 });
    for (const action of [...(steps ?? []), ...ENDINGS]) {
      switch (action.kind) {
        case 'authorize': {
          const transaction = await authorized(client, cards[action.card] as Card, action.amount);
          expect(transaction.status).toBe('PENDING');
          made.push({ token: transaction.token, card: action.card, created_ms: nowMs, status: 'PENDING', spend_cents: action.amount });
          break;
        }
        case 'return':
          await client.transactions.simulateReturn({ amount: action.amount, descriptor: 'REFUND', pan: (cards[action.card] as Card).pan });
          break;
        case 'wait':
          nowMs += action.minutes * 60_000;
          await moveClock(client, new Date(nowMs).toISOString());
          expireDue();
          break;
        default: {
          const pending = made.filter((each) => each.status === 'PENDING');
          const target = action.pick === LAST ? pending.at(-1) : pending[action.pick % Math.max(pending.length, 1)];
          if (target === undefined) break;
          const amount = Math.max(1, Math.round(target.spend_cents * action.fraction));
          if (action.kind === 'advice') {
            await client.transactions.simulateAuthorizationAdvice({ token: target.token, amount });
            target.spend_cents = amount;
          } else if (action.kind === 'clear') {
            await client.transactions.simulateClearing({ token: target.token, amount });
            Object.assign(target, { status: 'SETTLED', spend_cents: amount });
          } else if (action.kind === 'reverse') {
            const reversed = Math.min(amount, target.spend_cents);
            await client.transactions.simulateVoid({ token: target.token, amount: reversed, type: 'AUTHORIZATION_REVERSAL' });
            target.spend_cents -= reversed;
            if (target.spend_cents === 0) target.status = 'VOIDED';
          } else {
            await client.transactions.simulateVoid({ token: target.token, type: 'AUTHORIZATION_EXPIRY' });
            Object.assign(target, { status: 'EXPIRED', spend_cents: 0 });
          }
        }
      }
    }

    // The history reached across days, and every kind of step happened.
    const startMs = Date.parse('2031-03-15T00:00:00.000Z');
    expect(nowMs - startMs).toBeGreaterThan(2 * MS_PER_DAY);
    const statuses = new Set(made.map((each) => each.status));
    for (const status of ['PENDING', 'SETTLED', 'VOIDED', 'EXPIRED'] as const) expect(statuses, status).toContain(status);
    expect(made.some((each) => each.status === 'PENDING' && each.spend_cents > 0)).toBe(true);

    // The test's view of each transaction is the API's.
    for (const each of made) expect((await client.transactions.retrieve(each.token)).status, each.token).toBe(each.status);

    type Scope = { scope: SpendScope; token: string; cards: number[] };
    const scopes: Scope[] = [
      { scope: 'CARD', token: cards[0]?.token as string, cards: [0] },
      { scope: 'CARD', token: cards[1]?.token as string, cards: [1] },
      { scope: 'ACCOUNT', token: first.account_token, cards: [0, 1] },
    ];
    const expected = ({ cards: of }: Scope, sinceMs: number, untilMs: number) => {
      const inWindow = made.filter((each) => of.includes(each.card) && each.created_ms >= sinceMs && each.created_ms < untilMs);
      return { amount_cents: inWindow.reduce((sum, each) => sum + each.spend_cents, 0), count: inWindow.length };
    };

    // What the API shows: the account's spend in the trailing day, the month and its lifetime.
    const limits = await client.accounts.retrieveSpendLimits(first.account_token);
    const account = scopes[2] as Scope;
    expect(limits.spend_velocity).toEqual({
      daily: expected(account, nowMs - MS_PER_DAY, nowMs + 1).amount_cents,
      monthly: expected(account, monthlyWindowStartMs(nowMs), nowMs + 1).amount_cents,
      lifetime: expected(account, 0, nowMs + 1).amount_cents,
    });

    // What the engine reads for any window: raw rows at its edges, hour and day buckets inside.
    const db = context.server.server.db.kysely;
    const instant = fc.oneof(
      fc.integer({ min: startMs, max: nowMs + MS_PER_HOUR }),
      fc.integer({ min: 0, max: Math.ceil((nowMs - startMs) / MS_PER_HOUR) }).map((hours) => startMs + hours * MS_PER_HOUR),
    );
    const windows = fc.sample(fc.tuple(instant, instant, fc.nat(scopes.length - 1)), { numRuns: 150, seed: 42 });
    windows.push([nowMs - MS_PER_DAY, nowMs + 1, 2], [startMs, nowMs + 1, 0], [nowMs - 3 * MS_PER_HOUR, nowMs, 1], [startMs, startMs, 2]);
    let nonZero = 0;
    for (const [a, b, scopeIndex] of windows) {
      const [sinceMs, untilMs] = a <= b ? [a, b] : [b, a];
      const scope = scopes[scopeIndex] as Scope;
      const fromBuckets = await windowSpend(db, program.programId, scope.scope, scope.token, { since_ms: sinceMs, until_ms: untilMs, now_ms: nowMs });
      const worked = expected(scope, sinceMs, untilMs > nowMs ? Number.MAX_SAFE_INTEGER : untilMs);
      expect(fromBuckets, `${scope.scope} [${new Date(sinceMs).toISOString()}, ${new Date(untilMs).toISOString()})`).toEqual(worked);
      if (worked.amount_cents !== 0) nonZero++;
    }
    expect(nonZero).toBeGreaterThan(50);

    // What an authorization reads: every window of the account's limits and the card's, in ONE statement.
    let statements = 0;
    const counter: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => ((statements += 1), args.result) };
    const card = scopes[0] as Scope;
    const limited = { daily_spend_limit_cents: LIMIT_CENTS, monthly_spend_limit_cents: LIMIT_CENTS, lifetime_spend_limit_cents: LIMIT_CENTS };
    const both = await accountAndCardSpent(
      db.withPlugin(counter),
      program.programId,
      { token: account.token, created_ms: 0, ...limited },
      { token: card.token, created_ms: startMs, spend_limit_cents: LIMIT_CENTS, spend_limit_duration: 'MONTHLY' },
      nowMs,
    );
    expect(statements).toBe(1);
    expect(both).toEqual({
      account: {
        daily_cents: expected(account, nowMs - MS_PER_DAY, Number.MAX_SAFE_INTEGER).amount_cents,
        monthly_cents: expected(account, monthlyWindowStartMs(nowMs), Number.MAX_SAFE_INTEGER).amount_cents,
        lifetime_cents: expected(account, 0, Number.MAX_SAFE_INTEGER).amount_cents,
      },
      card_cents: expected(card, monthlyWindowStartMs(nowMs), Number.MAX_SAFE_INTEGER).amount_cents,
    });
    expect(both.account.lifetime_cents).toBeGreaterThan(both.card_cents);
  }, 120_000);
});
