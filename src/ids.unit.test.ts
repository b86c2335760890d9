import { describe, expect, it } from 'vitest';
import { newToken } from './ids.js';

describe('tokens', () => {
  it('are RFC 9562 version 7 UUIDs carrying the millisecond time', () => {
    const token = newToken({ nowMs: () => 1_795_334_400_123 });
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(token.replace(/-/g, '').slice(0, 12), 16)).toBe(1_795_334_400_123);
  });

  it('sort by time and never repeat', () => {
    const early = newToken({ nowMs: () => 1_000 });
    const late = newToken({ nowMs: () => 2_000 });
    expect(early < late).toBe(true);
    const many = new Set(Array.from({ length: 10_000 }, () => newToken()));
    expect(many.size).toBe(10_000);
  });

  it('made in one millisecond, sort in the order they were made (journals and events of one instant keep their order)', () => {
    const sameMs = { nowMs: () => 1_795_334_400_000 };
    const made = Array.from({ length: 5_000 }, () => newToken(sameMs));
    expect([...made].sort()).toEqual(made);
    // Past 4096 in one millisecond the counter carries into the time: still increasing.
    expect(made.every((token, index) => index === 0 || token > (made[index - 1] as string))).toBe(true);
    const later = newToken({ nowMs: () => 1_795_334_400_001 });
    expect(later > (made.at(-1) as string)).toBe(true);
  });
});
