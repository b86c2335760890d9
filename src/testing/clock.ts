import type { WallClock } from '../clock.js';

/**
 * A wall clock for tests: it runs at real speed from `startIso` (pick a noon, far from a date
 * change) and the test can push it forward, so "the real clock reaches a date" needs no waiting.
 */
export function movableWallClock(startIso: string): { wall: WallClock; advance(ms: number): void } {
  const startMs = Date.parse(startIso);
  const realStartMs = Date.now();
  let shiftMs = 0;
  return {
    wall: { nowMs: () => startMs + (Date.now() - realStartMs) + shiftMs },
    advance(ms: number) {
      shiftMs += ms;
    },
  };
}

/**
 * A wall clock that stands still unless the test pushes it: the program clock then moves only
 * when the test moves it, so time-dependent effects (an authorization expiring 7 days after it was
 * made) happen at instants the test knows exactly.
 */
export function frozenWallClock(startIso: string): { wall: WallClock; advance(ms: number): void } {
  let nowMs = Date.parse(startIso);
  return {
    wall: { nowMs: () => nowMs },
    advance(ms: number) {
      nowMs += ms;
    },
  };
}
