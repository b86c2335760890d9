import { describe, expect, it } from 'vitest';
import { actingOn } from './scope.js';

describe('actingOn', () => {
  const scope = { programId: 'p', clockOffsetMs: 5, nowMs: 1_000 };

  it('keeps the request time when the resource last changed at or before it', () => {
    expect(actingOn(scope, 999)).toBe(scope);
    expect(actingOn(scope, 1_000)).toBe(scope);
  });

  it('moves the time up to the resource\'s last change when that is later (a clock moved under the request)', () => {
    expect(actingOn(scope, 1_500)).toEqual({ programId: 'p', clockOffsetMs: 5, nowMs: 1_500 });
    expect(scope.nowMs).toBe(1_000);
  });
});
