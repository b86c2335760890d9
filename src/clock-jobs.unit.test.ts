import { describe, expect, it } from 'vitest';
import { dueAfterLifetime } from './clock-jobs.js';
import { REQUEST_CLOCK_MARGIN_MS } from './db/horizons.js';

describe('dueAfterLifetime', () => {
  const lifetimeMs = 600_000;
  const nowMs = 1_800_000_000_000;

  it('is due once the oldest pending one has lived its lifetime, to the millisecond', () => {
    expect(dueAfterLifetime(nowMs - lifetimeMs, lifetimeMs, nowMs)).toEqual({ due: true });
    expect(dueAfterLifetime(nowMs - lifetimeMs - 1, lifetimeMs, nowMs)).toEqual({ due: true });
  });

  it('is clear until the oldest one ends, or sooner if one created by a request that read the clock a margin ago would end first', () => {
    expect(dueAfterLifetime(nowMs - lifetimeMs + 1, lifetimeMs, nowMs)).toEqual({ due: false, clearUntilMs: nowMs + 1 });
    const nextCreatableEndMs = nowMs - REQUEST_CLOCK_MARGIN_MS + lifetimeMs;
    expect(dueAfterLifetime(nowMs, lifetimeMs, nowMs)).toEqual({ due: false, clearUntilMs: nextCreatableEndMs });
    expect(dueAfterLifetime(undefined, lifetimeMs, nowMs)).toEqual({ due: false, clearUntilMs: nextCreatableEndMs });
  });
});
