/**
 * The spend-bucket rows that one upsert writes for many changes at once (a clock move's expiries):
 * summed per bucket, and in the order every writer locks bucket rows in (cards' before accounts',
 * then token, then start), whatever order the changes came in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketRowsOf, type SpendBucketDelta } from './store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function delta(card_token: string, account_token: string, createdMs: number, spent_cents: number): SpendBucketDelta {
  const day_start_ms = createdMs - (createdMs % DAY_MS);
  return { card_token, account_token, day_start_ms, hour_start_ms: createdMs - (createdMs % HOUR_MS), spent_cents, approved_count: 0 };
}

describe('bucketRowsOf', () => {
  it('sums the changes of one bucket and lists cards before accounts, each by token then start', () => {
    const deltas = [
      delta('card-b', 'account-z', DAY_MS + 2 * HOUR_MS, -300),
      delta('card-a', 'account-y', DAY_MS + HOUR_MS, -100),
      delta('card-b', 'account-z', DAY_MS + 2 * HOUR_MS + 60_000, -50),
      delta('card-a', 'account-z', 5 * HOUR_MS, -20),
    ];
    const keys = (span: 'day' | 'hour') => bucketRowsOf(span, deltas).map((row) => [row.scope_token, row.start_ms / HOUR_MS, row.spent_cents]);
    expect(keys('day')).toEqual([
      ['card-a', 0, -20],
      ['card-a', 24, -100],
      ['card-b', 24, -350],
      ['account-y', 24, -100],
      ['account-z', 0, -20],
      ['account-z', 24, -350],
    ]);
    expect(keys('hour')).toEqual([
      ['card-a', 5, -20],
      ['card-a', 25, -100],
      ['card-b', 26, -350],
      ['account-y', 25, -100],
      ['account-z', 5, -20],
      ['account-z', 26, -350],
    ]);
  });

  it('names each bucket once, keeps every change, and does not depend on the order of the changes', () => {
    const change = fc.record({ card: fc.constantFrom('c1', 'c2', 'c3'), account: fc.constantFrom('a1', 'a2'), createdMs: fc.integer({ min: 0, max: 3 * DAY_MS }), cents: fc.integer({ min: -1_000, max: 0 }) });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 30 }), (changes) => {
        const deltas = changes.map((c) => delta(c.card, c.account, c.createdMs, c.cents));
        for (const span of ['day', 'hour'] as const) {
          const rows = bucketRowsOf(span, deltas);
          expect(new Set(rows.map((row) => `${row.scope_token} ${row.start_ms}`)).size).toBe(rows.length);
          const total = deltas.reduce((sum, each) => sum + each.spent_cents, 0);
          expect(rows.filter((row) => row.scope_rank === 0).reduce((sum, row) => sum + row.spent_cents, 0)).toBe(total);
          expect(rows.filter((row) => row.scope_rank === 1).reduce((sum, row) => sum + row.spent_cents, 0)).toBe(total);
          expect(bucketRowsOf(span, [...deltas].reverse())).toEqual(rows);
        }
      }),
    );
  });
});
