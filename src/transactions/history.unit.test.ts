import { describe, expect, it } from 'vitest';
import { planWindow, utcDayStartOf } from './history.js';

const at = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;
const NOW = at('2031-03-15T10:30:00Z');
const END = Number.MAX_SAFE_INTEGER;

describe('spend windows: raw index ranges for cut days, day buckets between', () => {
  it('reads a window that reaches now from whole day buckets, with the cut first day raw', () => {
    expect(planWindow(NOW - DAY, NOW + 1, NOW)).toEqual({
      raw: [{ since_ms: NOW - DAY, until_ms: at('2031-03-15T00:00:00Z') }],
      days: { from_day_ms: at('2031-03-15T00:00:00Z'), until_day_ms: END },
    });
    expect(planWindow(at('2031-02-21T00:00:00Z'), NOW + 1, NOW)).toEqual({ raw: [], days: { from_day_ms: at('2031-02-21T00:00:00Z'), until_day_ms: END } });
  });

  it('cuts both ends of a window that ends before now', () => {
    expect(planWindow(at('2031-03-10T06:00:00Z'), at('2031-03-12T18:00:00Z'), NOW)).toEqual({
      raw: [
        { since_ms: at('2031-03-10T06:00:00Z'), until_ms: at('2031-03-11T00:00:00Z') },
        { since_ms: at('2031-03-12T00:00:00Z'), until_ms: at('2031-03-12T18:00:00Z') },
      ],
      days: { from_day_ms: at('2031-03-11T00:00:00Z'), until_day_ms: at('2031-03-12T00:00:00Z') },
    });
    expect(planWindow(at('2031-03-12T06:00:00Z'), at('2031-03-12T08:00:00Z'), NOW)).toEqual({
      raw: [{ since_ms: at('2031-03-12T06:00:00Z'), until_ms: at('2031-03-12T08:00:00Z') }],
      days: null,
    });
    expect(planWindow(NOW, NOW - 1, NOW)).toEqual({ raw: [], days: null });
  });

  it('numbers days from 00:00 UTC', () => {
    expect(utcDayStartOf(NOW)).toBe(at('2031-03-15T00:00:00Z'));
    expect(utcDayStartOf(at('2031-03-15T00:00:00Z'))).toBe(at('2031-03-15T00:00:00Z'));
  });
});
