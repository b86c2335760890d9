/**
 * Time. Cardwright never calls `Date.now()` outside this file.
 *
 * There is one wall clock (injectable, so tests and benchmarks can control it) and, per program,
 * an offset that a sandbox user moves forward with `POST /v1/simulate/clock`. A program's "now"
 * is `wall + offset`: it runs at real speed and only ever jumps forward.
 */

export interface WallClock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export const systemClock: WallClock = { nowMs: () => Date.now() };

export const MS_PER_SECOND = 1000;
export const MS_PER_DAY = 86_400_000;

export function programNowMs(wall: WallClock, clockOffsetMs: number): number {
  return wall.nowMs() + clockOffsetMs;
}

/** RFC 3339 timestamp in UTC with milliseconds, e.g. `2026-11-22T07:47:00.123Z`. */
export function isoTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** `YYYY-MM-DD` of the UTC day that contains `epochMs`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Start of the UTC day given as `YYYY-MM-DD`, in epoch milliseconds. */
export function utcDayStartMs(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}
