import { describe, expect, it } from 'vitest';
import { UnprocessableError } from '../errors.js';
import { addMonths, checkReportRange, dailyStatistics, exampleLine, ruleDailyRows, versionHolding, type VersionPeriods } from './report.js';

const ms = (iso: string) => Date.parse(iso);

describe('report limits', () => {
  const refusal = (begin: string, end: string, today: string) => {
    try {
      checkReportRange(begin, end, today);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(UnprocessableError);
      return (error as Error).message.split(':')[0];
    }
  };

  it('adds calendar months, clamped to shorter months', () => {
    expect(addMonths('2031-03-31', -1)).toBe('2031-02-28');
    expect(addMonths('2032-03-31', -1)).toBe('2032-02-29');
    expect(addMonths('2031-01-31', 1)).toBe('2031-02-28');
    expect(addMonths('2031-11-15', 3)).toBe('2032-02-15');
    expect(addMonths('2031-02-15', -3)).toBe('2030-11-15');
  });

  it('accepts ranges at the limits and refuses one day beyond each', () => {
    const today = '2031-05-31';
    expect(refusal('2031-05-30', '2031-05-30', today)).toBeNull();
    expect(refusal('2031-05-30', '2031-05-31', today)).toBe('end');
    expect(refusal('2031-02-28', '2031-03-27', today)).toBeNull();
    expect(refusal('2031-02-27', '2031-03-01', today)).toBe('begin');
    expect(refusal('2031-04-01', '2031-04-30', today)).toBeNull();
    expect(refusal('2031-04-01', '2031-05-01', today)).toBe('end');
    expect(refusal('2031-05-02', '2031-05-01', today)).toBe('begin');
  });
});

describe('daily statistics', () => {
  const periods: VersionPeriods[] = [
    { version: 1, draft_from_ms: ms('2031-03-10T10:00:00Z'), draft_until_ms: ms('2031-03-11T09:00:00Z'), current_from_ms: ms('2031-03-11T09:00:00Z'), current_until_ms: null },
    { version: 2, draft_from_ms: ms('2031-03-11T09:00:00Z'), draft_until_ms: ms('2031-03-11T09:00:00Z'), current_from_ms: null, current_until_ms: null },
    { version: 3, draft_from_ms: ms('2031-03-11T09:00:00Z'), draft_until_ms: null, current_from_ms: null, current_until_ms: null },
  ];

  it('finds the latest version that held a role at some moment of a day', () => {
    const day = (date: string) => [ms(`${date}T00:00:00Z`), ms(`${date}T00:00:00Z`) + 86_400_000] as const;
    expect(versionHolding(periods, 'DRAFT', ...day('2031-03-09'))).toBeNull();
    expect(versionHolding(periods, 'DRAFT', ...day('2031-03-10'))).toBe(1);
    expect(versionHolding(periods, 'CURRENT', ...day('2031-03-10'))).toBeNull();
    expect(versionHolding(periods, 'DRAFT', ...day('2031-03-11'))).toBe(3);
    expect(versionHolding(periods, 'CURRENT', ...day('2031-03-12'))).toBe(1);
  });

  it("expands a rule's outcomes into its counts: every shard of one version per role, the 5 earliest examples", () => {
    const examples = (prefix: string, times: string[]) => times.map((timestamp, index) => exampleLine({ event_token: `${prefix}-${index}`, timestamp })).join('');
    const verdicts = new Map([
      ['declines', JSON.stringify([['other', 'CURRENT', 7, 'APPROVED'], ['r', 'DRAFT', 1, 'DECLINED']])],
      ['approves', JSON.stringify([['r', 'DRAFT', 3, 'APPROVED']])],
      ['declines3', JSON.stringify([['r', 'DRAFT', 3, 'DECLINED']])],
      ['challenges', JSON.stringify([['r', 'DRAFT', 3, 'CHALLENGED']])],
    ]);
    const counters = [
      { hash: 'declines', day: '2031-03-11', count: 2, examples: examples('d0', ['2031-03-11T08:00:00.000Z', '2031-03-11T08:30:00.000Z']) },
      { hash: 'declines', day: '2031-03-11', count: 1, examples: examples('d5', ['2031-03-11T08:40:00.000Z']) },
      { hash: 'declines3', day: '2031-03-11', count: 2, examples: examples('v3d', ['2031-03-11T09:30:00.000Z']) },
      { hash: 'declines3', day: '2031-03-11', count: 1, examples: examples('v3e', ['2031-03-11T09:45:00.000Z']) },
      { hash: 'approves', day: '2031-03-11', count: 3, examples: examples('a', ['2031-03-11T07:00:00.000Z', '2031-03-11T10:00:00.000Z', '2031-03-11T12:00:00.000Z']) },
      { hash: 'challenges', day: '2031-03-11', count: 1, examples: examples('c', ['2031-03-11T11:00:00.000Z']) },
      { hash: 'approves', day: '2031-03-12', count: 4, examples: examples('next', ['2031-03-12T07:00:00.000Z']) },
    ];
    const rows = ruleDailyRows('r', counters, verdicts);
    expect(rows.filter((row) => row.day === '2031-03-12')).toEqual([
      { day: '2031-03-12', role: 'DRAFT', version: 3, approved: 4, challenged: 0, declined: 0, examples: [expect.objectContaining({ event_token: 'next-0' })] },
    ]);
    const [entry] = dailyStatistics('2031-03-11', '2031-03-11', rows, periods);
    expect(entry?.current_version_statistics).toEqual({ approved: 0, challenged: 0, declined: 0, examples: [], version: 1 });
    const draft = entry?.draft_version_statistics;
    // Versions 1 and 3 both ran as the draft that day: only version 3's events count (v1's 3 declines do not).
    expect(draft).toMatchObject({ approved: 3, challenged: 1, declined: 3, version: 3 });
    expect(draft?.examples.map((example) => example.timestamp)).toEqual([
      '2031-03-11T07:00:00.000Z',
      '2031-03-11T09:30:00.000Z',
      '2031-03-11T09:45:00.000Z',
      '2031-03-11T10:00:00.000Z',
      '2031-03-11T11:00:00.000Z',
    ]);
    expect(draft?.examples[0]).toEqual({ approved: true, decision: 'APPROVED', event_token: 'a-0', timestamp: '2031-03-11T07:00:00.000Z' });
    expect(draft?.examples[1]).toEqual({ approved: false, decision: 'DECLINED', event_token: 'v3d-0', timestamp: '2031-03-11T09:30:00.000Z' });
  });

  it('reports the latest version that ran in a role that day, else the latest that held it (zeros)', () => {
    const verdicts = new Map([['v1', JSON.stringify([['r', 'DRAFT', 1, 'DECLINED']])]]);
    // On the 11th only version 1 ran as the draft, though versions 2 and 3 held the role later that day.
    const rows = ruleDailyRows('r', [{ hash: 'v1', day: '2031-03-11', count: 2, examples: '' }], verdicts);
    const [eleventh, twelfth] = dailyStatistics('2031-03-11', '2031-03-12', rows, periods);
    expect(eleventh?.draft_version_statistics).toEqual({ approved: 0, challenged: 0, declined: 2, examples: [], version: 1 });
    expect(twelfth?.draft_version_statistics).toEqual({ approved: 0, challenged: 0, declined: 0, examples: [], version: 3 });
  });

  it('has one entry per day, inclusive, across month ends', () => {
    const days = dailyStatistics('2031-02-27', '2031-03-02', [], periods).map((entry) => entry.date);
    expect(days).toEqual(['2031-02-27', '2031-02-28', '2031-03-01', '2031-03-02']);
  });
});
