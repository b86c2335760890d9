import { describe, expect, it } from 'vitest';
import { planWindow, sinceWindowBounds, utcDayStartOf } from './history.js';

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

  it('reads a window from the creation of its card or account (FOREVER, lifetime) from day buckets alone', () => {
    const createdMs = at('2031-03-15T08:00:00Z');
    const plan = (sinceMs: number) => {
      const bounds = sinceWindowBounds({ since_ms: sinceMs, scope_created_ms: createdMs, now_ms: NOW });
      return planWindow(bounds.since_ms, bounds.until_ms, bounds.now_ms);
    };
    // No raw scan of the creation day: nothing of the card or account lies before its creation.
    expect(plan(createdMs)).toEqual({ raw: [], days: { from_day_ms: at('2031-03-15T00:00:00Z'), until_day_ms: END } });
    expect(plan(createdMs - 5 * DAY)).toEqual({ raw: [], days: { from_day_ms: at('2031-03-10T00:00:00Z'), until_day_ms: END } });
    // A window that begins after the creation is cut where it begins.
    expect(plan(createdMs + 1)).toEqual({
      raw: [{ since_ms: createdMs + 1, until_ms: at('2031-03-16T00:00:00Z') }],
      days: { from_day_ms: at('2031-03-16T00:00:00Z'), until_day_ms: END },
    });
  });
});
