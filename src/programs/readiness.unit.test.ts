import { describe, expect, it } from 'vitest';
import { sharedWhileRunning } from './readiness.js';

describe('sharedWhileRunning', () => {
  it('runs the check once for every caller that asks while it is under way, and again after', async () => {
    let runs = 0;
    let finish!: () => void;
    const ask = sharedWhileRunning(() => {
      runs += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const waiting = Array.from({ length: 30 }, () => ask());
    expect(runs).toBe(1);
    finish();
    await Promise.all(waiting);
    const next = ask();
    expect(runs).toBe(2);
    finish();
    await next;
  });

  it('fails every caller of a failed check, and the next call asks again', async () => {
    let runs = 0;
    const ask = sharedWhileRunning(async () => {
      runs += 1;
      if (runs === 1) throw new Error('unreachable');
    });
    const results = await Promise.allSettled([ask(), ask(), ask()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await expect(ask()).resolves.toBeUndefined();
    expect(runs).toBe(2);
  });
});
