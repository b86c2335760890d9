import { describe, expect, it } from 'vitest';
import { easternMidnightMs, windowStartMs } from './periods.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('velocity windows', () => {
  it('trailing windows: a number of seconds or CUSTOM duration', () => {
    expect(windowStartMs(3600, at('2024-05-01T12:00:00Z'))).toBe(at('2024-05-01T11:00:00Z'));
    expect(windowStartMs({ type: 'CUSTOM', duration: 10 }, at('2024-05-01T12:00:00Z'))).toBe(at('2024-05-01T11:59:50Z'));
  });

  it('DAY starts at midnight US Eastern, following daylight saving time', () => {
    expect(iso(windowStartMs('DAY', at('2024-07-01T12:00:00Z')))).toBe('2024-07-01T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'DAY' }, at('2024-01-15T12:00:00Z')))).toBe('2024-01-15T05:00:00.000Z');
    // 02:00 UTC on July 2 is still July 1 in New York.
    expect(iso(windowStartMs('DAY', at('2024-07-02T02:00:00Z')))).toBe('2024-07-01T04:00:00.000Z');
    // The day DST starts (March 10, 2024) begins at 05:00 UTC; the day it ends (Nov 3) at 04:00 UTC.
    expect(iso(easternMidnightMs({ year: 2024, month: 3, day: 10 }))).toBe('2024-03-10T05:00:00.000Z');
    expect(iso(easternMidnightMs({ year: 2024, month: 3, day: 11 }))).toBe('2024-03-11T04:00:00.000Z');
    expect(iso(easternMidnightMs({ year: 2024, month: 11, day: 3 }))).toBe('2024-11-03T04:00:00.000Z');
    expect(iso(easternMidnightMs({ year: 2024, month: 11, day: 4 }))).toBe('2024-11-04T05:00:00.000Z');
  });

  it('WEEK starts on the latest day_of_week (Monday by default)', () => {
    // 2024-05-01 is a Wednesday.
    const wednesday = at('2024-05-01T15:00:00Z');
    expect(iso(windowStartMs('WEEK', wednesday))).toBe('2024-04-29T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'WEEK', day_of_week: 3 }, wednesday))).toBe('2024-05-01T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'WEEK', day_of_week: 4 }, wednesday))).toBe('2024-04-25T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'WEEK', day_of_week: 7 }, wednesday))).toBe('2024-04-28T04:00:00.000Z');
  });

  it('MONTH starts on the latest day_of_month, the last day of shorter months', () => {
    expect(iso(windowStartMs('MONTH', at('2024-05-20T15:00:00Z')))).toBe('2024-05-01T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'MONTH', day_of_month: 15 }, at('2024-05-20T15:00:00Z')))).toBe('2024-05-15T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'MONTH', day_of_month: 25 }, at('2024-05-20T15:00:00Z')))).toBe('2024-04-25T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'MONTH', day_of_month: 31 }, at('2024-03-15T15:00:00Z')))).toBe('2024-02-29T05:00:00.000Z');
    expect(iso(windowStartMs({ type: 'MONTH', day_of_month: 31 }, at('2023-02-28T15:00:00Z')))).toBe('2023-02-28T05:00:00.000Z');
    expect(iso(windowStartMs({ type: 'MONTH', day_of_month: 31 }, at('2024-01-10T15:00:00Z')))).toBe('2023-12-31T05:00:00.000Z');
  });

  it('YEAR starts on the latest month/day_of_month (January 1 by default; Feb 29 is Feb 28 in other years)', () => {
    expect(iso(windowStartMs('YEAR', at('2024-05-20T15:00:00Z')))).toBe('2024-01-01T05:00:00.000Z');
    expect(iso(windowStartMs({ type: 'YEAR', month: 6, day_of_month: 1 }, at('2024-05-20T15:00:00Z')))).toBe('2023-06-01T04:00:00.000Z');
    expect(iso(windowStartMs({ type: 'YEAR', month: 2, day_of_month: 29 }, at('2023-03-01T15:00:00Z')))).toBe('2023-02-28T05:00:00.000Z');
    expect(iso(windowStartMs({ type: 'YEAR', month: 2, day_of_month: 29 }, at('2024-03-01T15:00:00Z')))).toBe('2024-02-29T05:00:00.000Z');
    expect(iso(windowStartMs({ type: 'YEAR', month: 2, day_of_month: 29 }, at('2024-02-28T15:00:00Z')))).toBe('2023-02-28T05:00:00.000Z');
  });

  it('a window contains its start instant and the present', () => {
    const now = at('2024-05-01T04:00:00Z');
    expect(windowStartMs('DAY', now)).toBe(now);
    expect(windowStartMs('DAY', now - 1)).toBe(at('2024-04-30T04:00:00Z'));
  });
});
