/**
 * The dispatcher's due query (store.ts `dueAttempts`): it answers exactly what ranking every due
 * attempt would (turns between subscriptions, oldest due first within a turn), checked against that
 * ranking done in memory on random attempt tables; and on SQLite it reaches attempts only through
 * the index of migration 0022, never by reading every attempt.
 */
import fc from 'fast-check';
import type { CompiledQuery } from 'kysely';
import { expect, it } from 'vitest';
import { insertRows } from '../db/prepared.js';
import type { EventAttemptsTable } from '../events/tables.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { planOf } from '../testing/plans.js';
import { dueAttempts } from './store.js';

const NOW_WALL_MS = 1_000;
const STATUSES = ['PENDING', 'SENDING', 'SUCCESS', 'FAILED'] as const;

type Attempt = Pick<EventAttemptsTable, 'program_id' | 'token' | 'subscription_token' | 'status' | 'due_wall_ms'>;

/** What the dispatcher must be given, ranked in memory: every due attempt's turn in its subscription. */
function expectedDue(attempts: readonly Attempt[], perSubscription: number, limit: number): string[] {
  const byToken = (a: Attempt, b: Attempt) => a.due_wall_ms - b.due_wall_ms || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0);
  const due = attempts.filter((a) => (a.status === 'PENDING' || a.status === 'SENDING') && a.due_wall_ms <= NOW_WALL_MS).sort(byToken);
  const turns = new Map<string, number>();
  const ranked = due.map((attempt) => {
    const turn = turns.get(attempt.subscription_token) ?? 0;
    turns.set(attempt.subscription_token, turn + 1);
    return { turn, attempt };
  });
  return ranked
    .filter(({ turn }) => turn < perSubscription)
    .sort((a, b) => a.turn - b.turn || byToken(a.attempt, b.attempt))
    .slice(0, limit)
    .map(({ attempt }) => attempt.token);
}

function rowOf(attempt: Attempt): EventAttemptsTable {
  return { ...attempt, event_token: `e-${attempt.token}`, url: 'http://127.0.0.1:9/', response: '', response_status_code: 0, attempt_number: 1, lease_owner: null, created_ms: 0, updated_ms: 0 };
}

describeWithDb('the due attempts query', () => {
  const storage = useMigratedDb();

  const attemptsArbitrary = fc.uniqueArray(
    fc.record({
      program_id: fc.constantFrom('p-1', 'p-2'),
      token: fc.stringMatching(/^[a-f0-9]{6}$/),
      subscription_token: fc.constantFrom('s-a', 's-b', 's-c', 's-d', 's-e'),
      status: fc.constantFrom(...STATUSES),
      // Few distinct times, so that ties in due time are common and the token must break them.
      due_wall_ms: fc.constantFrom(0, 500, 1_000, 1_001, 5_000),
    }),
    { maxLength: 60, selector: (attempt) => attempt.token },
  );

  it('answers as ranking every due attempt would: turns between subscriptions, oldest due first', async () => {
    const { kysely } = storage.db;
    await fc.assert(
      fc.asyncProperty(attemptsArbitrary, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 20 }), async (attempts, perSubscription, limit) => {
        await kysely.deleteFrom('event_attempts').execute();
        if (attempts.length > 0) await insertRows(kysely, 'event_attempts', attempts.map(rowOf));
        const due = await dueAttempts(kysely, NOW_WALL_MS, perSubscription, limit);
        expect(due.map((attempt) => attempt.token)).toEqual(expectedDue(attempts, perSubscription, limit));
        const programs = new Map(attempts.map((attempt) => [attempt.token, [attempt.program_id, attempt.subscription_token]]));
        for (const attempt of due) expect([attempt.program_id, attempt.subscription_token]).toEqual(programs.get(attempt.token));
      }),
      { numRuns: 150, seed: Number(process.env.DUE_ATTEMPTS_SEED ?? 20261123) },
    );
  });

  it.skipIf(engine !== 'sqlite')('reads attempts only through the index of attempts to send (SQLite query plan)', async () => {
    const { kysely } = storage.db;
    await kysely.deleteFrom('event_attempts').execute();
    await insertRows(kysely, 'event_attempts', [
      rowOf({ program_id: 'p-1', token: 't-1', subscription_token: 's-a', status: 'PENDING', due_wall_ms: 0 }),
      rowOf({ program_id: 'p-1', token: 't-2', subscription_token: 's-b', status: 'SENDING', due_wall_ms: 10 }),
      rowOf({ program_id: 'p-2', token: 't-3', subscription_token: 's-c', status: 'SUCCESS', due_wall_ms: 0 }),
    ]);
    // Every statement dueAttempts runs, as it runs it.
    const statements: CompiledQuery[] = [];
    const watched = new Proxy(kysely, {
      get: (target, property) => {
        if (property === 'executeQuery') {
          return (query: CompiledQuery) => {
            statements.push(query);
            return target.executeQuery(query);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect((await dueAttempts(watched, NOW_WALL_MS, 4, 16)).map((attempt) => attempt.token)).toEqual(['t-1', 't-2']);
    expect(statements).toHaveLength(3);
    const reads: string[] = [];
    for (const statement of statements) {
      reads.push(...(await planOf(kysely, statement)).filter((detail) => detail.includes('event_attempts')));
    }
    // Each read is a seek into the index; the one scan is the skip scan's start, the first entry
    // in index order (`order by subscription_token limit 1`).
    expect(reads.length).toBeGreaterThanOrEqual(statements.length);
    for (const detail of reads) expect(detail).toMatch(/^(SEARCH|SCAN) event_attempts USING (COVERING )?INDEX event_attempts_due_by_subscription\b/);
    expect(reads.filter((detail) => detail.startsWith('SCAN'))).toHaveLength(1);
  });
});
