import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MS_PER_HOUR } from '../clock.js';
import { planWindow, sinceWindowBounds, utcDayStartOf, utcHourStartOf, type Range, type WindowPlan } from './history.js';

const at = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;
const NOW = at('2031-03-15T10:30:00Z');
const END = Number.MAX_SAFE_INTEGER;

/** Every range of a plan, with what reads it. */
function pieces(plan: WindowPlan): Array<Range & { kind: 'raw' | 'hour' | 'day' }> {
  return [
    ...plan.raw.map((range) => ({ ...range, kind: 'raw' as const })),
    ...plan.hours.map((range) => ({ ...range, kind: 'hour' as const })),
    ...(plan.days ? [{ ...plan.days, kind: 'day' as const }] : []),
  ].sort((a, b) => a.since_ms - b.since_ms);
}

describe('spend windows: day buckets in the middle, hour buckets beside them, raw index ranges at the cut ends', () => {
  it('reads the trailing 24 hours as a raw part of an hour, the hours left that day, and today', () => {
    expect(planWindow(NOW - DAY, NOW + 1, NOW)).toEqual({
      raw: [{ since_ms: NOW - DAY, until_ms: at('2031-03-14T11:00:00Z') }],
      hours: [{ since_ms: at('2031-03-14T11:00:00Z'), until_ms: at('2031-03-15T00:00:00Z') }],
      days: { since_ms: at('2031-03-15T00:00:00Z'), until_ms: END },
    });
    expect(planWindow(at('2031-02-21T00:00:00Z'), NOW + 1, NOW)).toEqual({ raw: [], hours: [], days: { since_ms: at('2031-02-21T00:00:00Z'), until_ms: END } });
  });

  it('cuts both ends of a window that ends before now', () => {
    expect(planWindow(at('2031-03-10T06:15:00Z'), at('2031-03-12T18:45:00Z'), NOW)).toEqual({
      raw: [
        { since_ms: at('2031-03-10T06:15:00Z'), until_ms: at('2031-03-10T07:00:00Z') },
        { since_ms: at('2031-03-12T18:00:00Z'), until_ms: at('2031-03-12T18:45:00Z') },
      ],
      hours: [
        { since_ms: at('2031-03-10T07:00:00Z'), until_ms: at('2031-03-11T00:00:00Z') },
        { since_ms: at('2031-03-12T00:00:00Z'), until_ms: at('2031-03-12T18:00:00Z') },
      ],
      days: { since_ms: at('2031-03-11T00:00:00Z'), until_ms: at('2031-03-12T00:00:00Z') },
    });
    expect(planWindow(at('2031-03-12T06:30:00Z'), at('2031-03-12T08:10:00Z'), NOW)).toEqual({
      raw: [
        { since_ms: at('2031-03-12T06:30:00Z'), until_ms: at('2031-03-12T07:00:00Z') },
        { since_ms: at('2031-03-12T08:00:00Z'), until_ms: at('2031-03-12T08:10:00Z') },
      ],
      hours: [{ since_ms: at('2031-03-12T07:00:00Z'), until_ms: at('2031-03-12T08:00:00Z') }],
      days: null,
    });
    expect(planWindow(at('2031-03-12T06:10:00Z'), at('2031-03-12T06:50:00Z'), NOW)).toEqual({
      raw: [{ since_ms: at('2031-03-12T06:10:00Z'), until_ms: at('2031-03-12T06:50:00Z') }],
      hours: [],
      days: null,
    });
    expect(planWindow(NOW, NOW - 1, NOW)).toEqual({ raw: [], hours: [], days: null });
  });

  it('covers every window exactly once, with buckets only where they are whole and short raw ranges', () => {
    const base = at('2031-01-01T00:00:00Z');
    const instant = fc.integer({ min: 0, max: 120 * DAY }).map((offset) => base + offset);
    const aligned = fc.integer({ min: 0, max: 120 * 24 }).map((hours) => base + hours * MS_PER_HOUR);
    const time = fc.oneof(instant, aligned);
    fc.assert(
      fc.property(time, time, instant, (since, until, now) => {
        const plan = planWindow(since, until, now);
        const open = until > now;
        const end = open ? END : until;
        const parts = pieces(plan);
        if (since >= until) {
          expect(parts).toEqual([]);
          return;
        }
        // Contiguous, from since to the end, no overlap and no gap.
        expect(parts[0]?.since_ms).toBe(since);
        expect(parts.at(-1)?.until_ms).toBe(end);
        parts.forEach((part, index) => {
          expect(part.since_ms).toBeLessThan(part.until_ms);
          if (index > 0) expect(part.since_ms).toBe(parts[index - 1]?.until_ms);
          if (part.kind === 'hour') {
            expect(utcHourStartOf(part.since_ms)).toBe(part.since_ms);
            if (part.until_ms !== END) expect(utcHourStartOf(part.until_ms)).toBe(part.until_ms);
          }
          if (part.kind === 'day') {
            expect(utcDayStartOf(part.since_ms)).toBe(part.since_ms);
            if (part.until_ms !== END) expect(utcDayStartOf(part.until_ms)).toBe(part.until_ms);
          }
        });
        // Raw ranges: under an hour at each end of the buckets; a window with no whole hour is one
        // raw range over at most two partial hours (open windows: nothing after now).
        const rawLimitMs = plan.hours.length > 0 || plan.days ? MS_PER_HOUR : 2 * MS_PER_HOUR;
        for (const range of plan.raw) if (range.until_ms !== END) expect(range.until_ms - range.since_ms).toBeLessThan(rawLimitMs);
        expect(plan.hours.length).toBeLessThanOrEqual(2);
        const hourBuckets = plan.hours.reduce((total, range) => total + (range.until_ms - range.since_ms) / MS_PER_HOUR, 0);
        expect(hourBuckets).toBeLessThanOrEqual(46);
      }),
      { numRuns: 5_000 },
    );
  });

  it('numbers days from 00:00 UTC and hours from :00', () => {
    expect(utcDayStartOf(NOW)).toBe(at('2031-03-15T00:00:00Z'));
    expect(utcDayStartOf(at('2031-03-15T00:00:00Z'))).toBe(at('2031-03-15T00:00:00Z'));
    expect(utcHourStartOf(NOW)).toBe(at('2031-03-15T10:00:00Z'));
  });

  it('reads a window from the creation of its card or account (FOREVER, lifetime) from day buckets alone', () => {
    const createdMs = at('2031-03-15T08:20:00Z');
    const plan = (sinceMs: number) => {
      const bounds = sinceWindowBounds({ since_ms: sinceMs, scope_created_ms: createdMs, now_ms: NOW });
      return planWindow(bounds.since_ms, bounds.until_ms, bounds.now_ms);
    };
    // No raw scan of the creation hour and no hour buckets: nothing of the card or account lies before its creation.
    expect(plan(createdMs)).toEqual({ raw: [], hours: [], days: { since_ms: at('2031-03-15T00:00:00Z'), until_ms: END } });
    expect(plan(createdMs - 5 * DAY)).toEqual({ raw: [], hours: [], days: { since_ms: at('2031-03-10T00:00:00Z'), until_ms: END } });
    // A window that begins after the creation is cut where it begins.
    expect(plan(createdMs + 1)).toEqual({
      raw: [{ since_ms: createdMs + 1, until_ms: at('2031-03-15T09:00:00Z') }],
      hours: [{ since_ms: at('2031-03-15T09:00:00Z'), until_ms: at('2031-03-16T00:00:00Z') }],
      days: { since_ms: at('2031-03-16T00:00:00Z'), until_ms: END },
    });
  });
});
