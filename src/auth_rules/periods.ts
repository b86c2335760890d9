/**
 * Velocity windows (reference 01): where the window of a VELOCITY_LIMIT period starts, for an
 * authorization at `nowMs` (the program clock). Pure.
 *
 * - Trailing windows (a number of seconds, or `{type: CUSTOM, duration}`): the last `duration`
 *   seconds.
 * - Calendar windows start at 00:00 US Eastern time (America/New_York, so daylight saving time is
 *   followed): DAY today; WEEK on the latest `day_of_week` (ISO: 1 = Monday, default Monday);
 *   MONTH on the latest `day_of_month` (default 1; a day the month lacks means its last day);
 *   YEAR on the latest `month`/`day_of_month` (default January 1; Feb 29 is Feb 28 in other years).
 *   The bare strings DAY, WEEK, MONTH, YEAR are the objects with their defaults.
 */
import { MS_PER_DAY, MS_PER_SECOND } from '../clock.js';
import type { VelocityPeriod } from './parameters.js';

const EASTERN = 'America/New_York';
const easternParts = new Intl.DateTimeFormat('en-US', {
  timeZone: EASTERN,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** A calendar date (month 1–12). */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

function partsAt(epochMs: number): CivilDate & { hour: number; minute: number; second: number } {
  const values: Record<string, number> = {};
  for (const part of easternParts.formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') values[part.type] = Number(part.value);
  }
  return {
    year: values.year as number,
    month: values.month as number,
    day: values.day as number,
    hour: values.hour as number,
    minute: values.minute as number,
    second: values.second as number,
  };
}

/** Eastern time's offset from UTC at an instant, in ms (e.g. -4 h in summer). */
function easternOffsetMs(epochMs: number): number {
  const p = partsAt(epochMs);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(epochMs / MS_PER_SECOND) * MS_PER_SECOND;
}

/** The Eastern calendar date at an instant. */
function easternDate(epochMs: number): CivilDate {
  const { year, month, day } = partsAt(epochMs);
  return { year, month, day };
}

/** The instant of 00:00 Eastern time on a date (DST changes at 02:00, so midnight always exists once). */
export function easternMidnightMs(date: CivilDate): number {
  const naive = Date.UTC(date.year, date.month - 1, date.day);
  const first = naive - easternOffsetMs(naive);
  const offset = easternOffsetMs(first);
  return naive - offset;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `date` moved by whole days (calendar arithmetic, no time zone involved). */
function addDays(date: CivilDate, days: number): CivilDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * MS_PER_DAY);
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

function compareDates(a: CivilDate, b: CivilDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** ISO weekday, 1 = Monday … 7 = Sunday. */
function isoWeekday(date: CivilDate): number {
  const weekday = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return weekday === 0 ? 7 : weekday;
}

function weekStart(today: CivilDate, dayOfWeek: number): CivilDate {
  return addDays(today, -((isoWeekday(today) - dayOfWeek + 7) % 7));
}

function monthStart(today: CivilDate, dayOfMonth: number): CivilDate {
  const thisMonth = { year: today.year, month: today.month, day: Math.min(dayOfMonth, daysInMonth(today.year, today.month)) };
  if (compareDates(today, thisMonth) >= 0) return thisMonth;
  const year = today.month === 1 ? today.year - 1 : today.year;
  const month = today.month === 1 ? 12 : today.month - 1;
  return { year, month, day: Math.min(dayOfMonth, daysInMonth(year, month)) };
}

function yearStart(today: CivilDate, month: number, dayOfMonth: number): CivilDate {
  const inYear = (year: number) => ({ year, month, day: Math.min(dayOfMonth, daysInMonth(year, month)) });
  const thisYear = inYear(today.year);
  return compareDates(today, thisYear) >= 0 ? thisYear : inYear(today.year - 1);
}

/** Start (inclusive, epoch ms) of the velocity window that contains `nowMs`. */
export function windowStartMs(period: VelocityPeriod, nowMs: number): number {
  if (typeof period === 'number') return nowMs - period * MS_PER_SECOND;
  const fixed: Exclude<VelocityPeriod, number | string> = typeof period === 'string' ? ({ type: period } as Exclude<VelocityPeriod, number | string>) : period;
  if (fixed.type === 'CUSTOM') return nowMs - fixed.duration * MS_PER_SECOND;
  const today = easternDate(nowMs);
  switch (fixed.type) {
    case 'DAY':
      return easternMidnightMs(today);
    case 'WEEK':
      return easternMidnightMs(weekStart(today, fixed.day_of_week ?? 1));
    case 'MONTH':
      return easternMidnightMs(monthStart(today, fixed.day_of_month ?? 1));
    case 'YEAR':
      return easternMidnightMs(yearStart(today, fixed.month ?? 1, fixed.day_of_month ?? 1));
  }
}

/** How a period reads in an explanation, e.g. "the trailing 3600 seconds" or "the current WEEK". */
export function describePeriod(period: VelocityPeriod): string {
  if (typeof period === 'number') return `the trailing ${period} seconds`;
  if (typeof period === 'string') return `the current ${period} (US Eastern)`;
  if (period.type === 'CUSTOM') return `the trailing ${period.duration} seconds`;
  return `the current ${period.type} (US Eastern)`;
}
