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
});
