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
