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
export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;

/**
 * The latest instant a program's clock may be moved to (9900-01-01T00:00:00Z). Every date derived
 * from "now" (card expiries years ahead, report windows, effective dates) then stays a four-digit
 * year, as RFC 3339 requires, for a century of sandbox time after the furthest move.
 */
export const LATEST_CLOCK_MS = Date.UTC(9900, 0, 1);

export function programNowMs(wall: WallClock, clockOffsetMs: number): number {
  return wall.nowMs() + clockOffsetMs;
}

/** The largest distance from the epoch a Date can hold (ECMA-262 TimeClip). */
const MAX_DATE_MS = 8.64e15;

/** The `YYYY-MM-DDT` of the last UTC day `isoTimestamp` formatted (a memo of a pure function). */
const lastDay = { startMs: Number.NaN, prefix: '' };

const twoDigits = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const threeDigits = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);

/**
 * RFC 3339 timestamp in UTC with milliseconds, e.g. `2026-11-22T07:47:00.123Z`: exactly what
 * `Date#toISOString` gives, at a fifth of its cost (a list page formats ~150 of them), since only
 * the time of day is formatted anew while the day stays the same.
 */
export function isoTimestamp(epochMs: number): string {
  if (!Number.isInteger(epochMs) || Math.abs(epochMs) > MAX_DATE_MS) return new Date(epochMs).toISOString();
  const msOfDay = ((epochMs % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  const dayStartMs = epochMs - msOfDay;
  if (dayStartMs !== lastDay.startMs) {
    lastDay.prefix = new Date(dayStartMs).toISOString().slice(0, -'00:00:00.000Z'.length);
    lastDay.startMs = dayStartMs;
  }
  const hours = Math.floor(msOfDay / MS_PER_HOUR);
  const minutes = Math.floor(msOfDay / 60_000) % 60;
  const seconds = Math.floor(msOfDay / MS_PER_SECOND) % 60;
  return `${lastDay.prefix}${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${threeDigits(msOfDay % MS_PER_SECOND)}Z`;
}

/** RFC 3339 timestamp in UTC to the whole second (the millisecond dropped), e.g. `2026-11-22T07:47:00Z`. */
export function isoSecondTimestamp(epochMs: number): string {
  return `${isoTimestamp(epochMs).slice(0, -'.000Z'.length)}Z`;
}

/**
 * An RFC 3339 date-time as the bound that items (stamped in whole milliseconds) must be strictly
 * before (`end`): digits past the millisecond, which Date.parse drops, round it up, so that
 * `created_ms < bound` keeps an item of 12:00:00.000 before 12:00:00.0005.
 */
export function exclusiveEndMs(dateTime: string): number {
  const beyondMs = /\.\d{3}(\d+)/.exec(dateTime)?.[1] ?? '';
  return Date.parse(dateTime) + (/[1-9]/.test(beyondMs) ? 1 : 0);
}

/** `YYYY-MM-DD` of the UTC day that contains `epochMs`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Start of the UTC day given as `YYYY-MM-DD`, in epoch milliseconds. */
export function utcDayStartMs(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}
