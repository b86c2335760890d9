/**
 * The spend buckets (per card and account, per UTC day and hour) always add up to the
 * transactions they summarise: after a random history of authorizations, advices, clearings,
 * reversals, returns and expiries spread over hours and days, every window read from buckets
 * (`windowSpend`) equals the plain sum of the transactions in it.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { authorize, cardOnOwnAccount, moveClock, type Card } from '../testing/transactions.js';
import { MS_PER_HOUR } from '../clock.js';
import { windowSpend, type SpendScope } from './history.js';
import * as store from './store.js';

type Step =
  | { kind: 'authorize'; card: number; amount: number }
  | { kind: 'advice' | 'clear' | 'reverse'; pick: number; fraction: number }
  | { kind: 'return'; card: number; amount: number }
  | { kind: 'wait'; minutes: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('authorize' as const), card: fc.nat(1), amount: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ kind: fc.constantFrom('advice' as const, 'clear' as const, 'reverse' as const), pick: fc.nat(), fraction: fc.double({ min: 0.1, max: 1.5, noNaN: true }) }),
  fc.record({ kind: fc.constant('return' as const), card: fc.nat(1), amount: fc.integer({ min: 1, max: 2_000 }) }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 36 * 60 }) }),
);

describeWithDb('spend buckets', () => {
  const context = useTestServer();

  it('add up to the transactions of every window, for cards and accounts, across hours and days', async () => {
    const program = await context.server.newProgram();
    const { client } = program;
    let nowMs = Date.parse('2031-03-15T21:40:00.000Z');
    await moveClock(client, new Date(nowMs).toISOString());
    const first = await cardOnOwnAccount(client);
    const cards: Card[] = [first, (await client.cards.create({ type: 'VIRTUAL', account_token: first.account_token })) as Card];
    const pending: string[] = [];

    const [steps] = fc.sample(fc.array(step, { minLength: 40, maxLength: 40 }), { numRuns: 1, seed: 20261122 });
    for (const action of steps ?? []) {
      const target = 'pick' in action ? pending[action.pick % Math.max(pending.length, 1)] : undefined;
      const partOf = (amount: number) => Math.max(1, Math.round(amount * ('fraction' in action ? action.fraction : 1)));
      switch (action.kind) {
        case 'authorize':
          pending.push(await authorize(client, cards[action.card] as Card, action.amount));
          break;
        case 'return':
          await client.transactions.simulateReturn({ amount: action.amount, descriptor: 'REFUND', pan: (cards[action.card] as Card).pan });
          break;
        case 'wait':
          nowMs += action.minutes * 60_000;
          await moveClock(client, new Date(nowMs).toISOString());
          break;
        default: {
          if (target === undefined) break;
          const transaction = await client.transactions.retrieve(target);
          if (transaction.status !== 'PENDING') break;
          const amount = partOf(transaction.amount);
          if (action.kind === 'advice') await client.transactions.simulateAuthorizationAdvice({ token: target, amount });
          if (action.kind === 'clear') await client.transactions.simulateClearing({ token: target, amount });
          if (action.kind === 'reverse') await client.transactions.simulateVoid({ token: target, amount: Math.min(amount, transaction.amount), type: 'AUTHORIZATION_REVERSAL' });
        }
      }
    }

    const db = context.server.server.db.kysely;
    const clock = await client.get<unknown, { now: string }>('/v1/simulate/clock');
    const programNowMs = Date.parse(clock.now);
    const startMs = Date.parse('2031-03-15T00:00:00.000Z');
    const scopes: Array<[SpendScope, string]> = [
      ['CARD', cards[0]?.token as string],
      ['CARD', cards[1]?.token as string],
      ['ACCOUNT', first.account_token],
    ];
    const instant = fc.oneof(
      fc.integer({ min: startMs, max: programNowMs + MS_PER_HOUR }),
      fc.integer({ min: 0, max: Math.ceil((programNowMs - startMs) / MS_PER_HOUR) }).map((hours) => startMs + hours * MS_PER_HOUR),
    );
    const windows = fc.sample(fc.tuple(instant, instant, fc.nat(scopes.length - 1)), { numRuns: 150, seed: 42 });
    windows.push([programNowMs - 86_400_000, programNowMs + 1, 2], [startMs, programNowMs + 1, 0], [programNowMs - 3 * MS_PER_HOUR, programNowMs, 1], [startMs, startMs, 2]);
    let nonZero = 0;
    for (const [a, b, scopeIndex] of windows) {
      const [sinceMs, untilMs] = a <= b ? [a, b] : [b, a];
      const [scope, token] = scopes[scopeIndex] as [SpendScope, string];
      const fromBuckets = await windowSpend(db, program.programId, scope, token, { since_ms: sinceMs, until_ms: untilMs, now_ms: programNowMs });
      const rawUntil = untilMs > programNowMs ? Number.MAX_SAFE_INTEGER : untilMs;
      const everyRow = [{ source: 'raw' as const, since_ms: sinceMs, until_ms: rawUntil }];
      const plain = sinceMs < untilMs ? await store.spendPartsSum(db, program.programId, scope, token, everyRow) : { amount_cents: 0, count: 0 };
      expect(fromBuckets, `${scope} [${new Date(sinceMs).toISOString()}, ${new Date(untilMs).toISOString()})`).toEqual(plain);
      if (plain.amount_cents !== 0) nonZero++;
    }
    // The history reached across days and the windows saw it.
    expect(programNowMs - startMs).toBeGreaterThan(2 * 86_400_000);
    expect(nonZero).toBeGreaterThan(50);
  }, 120_000);
});
