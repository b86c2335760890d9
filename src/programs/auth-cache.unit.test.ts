import { describe, expect, it } from 'vitest';
import { AUTH_CACHE_TTL_MS, AuthCache } from './auth-cache.js';

function clock(start = 1_000_000) {
  let now = start;
  return { wall: { nowMs: () => now }, advance: (ms: number) => (now += ms) };
}

describe('authentication cache', () => {
  it('keeps an authentication for one second of wall time, then forgets it', () => {
    const { wall, advance } = clock();
    const cache = new AuthCache(wall);
    cache.set('hash', { programId: 'p', clockOffsetMs: 5 }, cache.epoch);
    expect(cache.get('hash')).toMatchObject({ programId: 'p', clockOffsetMs: 5 });
    advance(AUTH_CACHE_TTL_MS - 1);
    expect(cache.get('hash')).toBeDefined();
    advance(1);
    expect(cache.get('hash')).toBeUndefined();
  });

  it("drops a program's entries, and refuses a lookup that began before the drop", () => {
    const { wall } = clock();
    const cache = new AuthCache(wall);
    cache.set('a', { programId: 'p', clockOffsetMs: 0 }, cache.epoch);
    cache.set('b', { programId: 'q', clockOffsetMs: 0 }, cache.epoch);
    const before = cache.epoch;
    cache.forgetProgram('p');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    cache.set('a', { programId: 'p', clockOffsetMs: 0 }, before);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', { programId: 'p', clockOffsetMs: 9 }, cache.epoch);
    expect(cache.get('a')?.clockOffsetMs).toBe(9);
  });
});
