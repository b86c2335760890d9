import fc from 'fast-check';
import { expect, it } from 'vitest';
import { exclusiveEndMs, isoSecondTimestamp, isoTimestamp, MS_PER_DAY } from './clock.js';

const DATE_RANGE_MS = 8.64e15; // the range a Date can hold

it('formats every timestamp exactly as Date#toISOString does', () => {
  const near = (ms: number) => fc.integer({ min: ms - 3 * MS_PER_DAY, max: ms + 3 * MS_PER_DAY });
  const epochMs = fc.oneof(
    fc.integer({ min: -DATE_RANGE_MS, max: DATE_RANGE_MS }),
    near(Date.UTC(2026, 11, 31, 23, 59, 59, 999)),
    near(0),
    near(Date.UTC(10_000, 0, 1)),
    fc.double({ min: -1e13, max: 1e13, noNaN: true }),
  );
  fc.assert(fc.property(epochMs, (ms) => {
        expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
      }), { numRuns: 20_000 });
});

it('alternates between days without mixing their dates', () => {
  const days = [Date.UTC(2026, 10, 22, 7, 47, 0, 123), Date.UTC(2024, 1, 29, 0, 0, 0, 0), Date.UTC(1969, 11, 31, 23, 59, 59, 999)];
  for (let round = 0; round < 3; round++) for (const ms of days) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
});

it('formats to the whole second, dropping the millisecond (not rounding it)', () => {
  expect(isoSecondTimestamp(Date.UTC(2026, 10, 22, 7, 47, 0, 999))).toBe('2026-11-22T07:47:00Z');
  expect(isoSecondTimestamp(Date.UTC(1969, 11, 31, 23, 59, 59, 500))).toBe('1969-12-31T23:59:59Z');
});

it('throws on an impossible time, as Date#toISOString does', () => {
  expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  expect(() => isoTimestamp(DATE_RANGE_MS + 1)).toThrow(RangeError);
});

it('reads an exclusive end rounded up past the millisecond, so an item of that millisecond is before it', () => {
  const noon = Date.UTC(2031, 5, 1, 12);
  expect(exclusiveEndMs('2031-06-01T12:00:00Z')).toBe(noon);
  expect(exclusiveEndMs('2031-06-01T12:00:00.5Z')).toBe(noon + 500);
  expect(exclusiveEndMs('2031-06-01T12:00:00.000000Z')).toBe(noon);
  expect(exclusiveEndMs('2031-06-01T12:00:00.000001Z')).toBe(noon + 1);
  expect(exclusiveEndMs('2031-06-01T14:00:00.1234+02:00')).toBe(noon + 124);
  expect(exclusiveEndMs('1969-12-31T23:59:59.9995Z')).toBe(0);
});
