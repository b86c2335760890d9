import { describe, expect, it } from 'vitest';
import {
  accountSpendWindows,
  accountUsability,
  fundingUsability,
  checkAccountSpendLimits,
  DEFAULT_ACCOUNT_SPEND_LIMITS,
  exceedsLimit,
  monthlyWindowStartMs,
  storedLifetimeSpendLimit,
  trailingYearStartMs,
  type AccountForSpend,
} from './spend.js';

const at = (iso: string) => Date.parse(iso);

const account: AccountForSpend = {
  state: 'ACTIVE',
  daily_spend_limit_cents: 1000,
  monthly_spend_limit_cents: 5000,
  lifetime_spend_limit_cents: 9000,
  created_ms: at('2024-01-01T00:00:00Z'),
};
const nothingSpent = { daily_cents: 0, monthly_cents: 0, lifetime_cents: 0 };

describe('monthly window (spec 2.7: 6 days after today one month earlier)', () => {
  it.each([
    ['2024-03-15T10:30:00Z', '2024-02-21T00:00:00.000Z'],
    ['2024-03-01T00:00:00Z', '2024-02-07T00:00:00.000Z'],
    ['2024-03-31T23:59:59Z', '2024-03-06T00:00:00.000Z'],
    ['2023-03-30T12:00:00Z', '2023-03-06T00:00:00.000Z'],
    ['2024-01-10T08:00:00Z', '2023-12-16T00:00:00.000Z'],
    ['2024-12-31T08:00:00Z', '2024-12-06T00:00:00.000Z'],
    ['2024-05-31T08:00:00Z', '2024-05-06T00:00:00.000Z'],
  ])('on %s starts at %s', (now, start) => {
    expect(new Date(monthlyWindowStartMs(at(now))).toISOString()).toBe(start);
  });
});

describe('trailing year', () => {
  it.each([
    ['2024-03-15T10:30:00.250Z', '2023-03-15T10:30:00.250Z'],
    ['2024-02-29T12:00:00.000Z', '2023-02-28T12:00:00.000Z'],
    ['2025-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
  ])('on %s starts at %s', (now, start) => {
    expect(new Date(trailingYearStartMs(at(now))).toISOString()).toBe(start);
  });
});

describe('limits', () => {
  it('treats null as no limit and never limits credits or zero amounts', () => {
    expect(exceedsLimit(null, 10 ** 12, 1)).toBe(false);
    expect(exceedsLimit(100, 500, -50)).toBe(false);
    expect(exceedsLimit(100, 500, 0)).toBe(false);
  });

  it('treats 0 as a limit of 0: any debit exceeds it (spent + amount > 0), $0 and credits do not', () => {
    expect(exceedsLimit(0, 0, 1)).toBe(true);
    expect(exceedsLimit(0, 10 ** 12, 1)).toBe(true);
    expect(exceedsLimit(0, 0, 0)).toBe(false);
    expect(exceedsLimit(0, 500, 0)).toBe(false);
    expect(exceedsLimit(0, 0, -50)).toBe(false);
  });

  it('allows reaching a limit exactly and declines one cent over', () => {
    expect(exceedsLimit(100, 60, 40)).toBe(false);
    expect(exceedsLimit(100, 60, 41)).toBe(true);
    expect(exceedsLimit(1, 0, 1)).toBe(false);
    expect(exceedsLimit(1, 0, 2)).toBe(true);
  });
});

describe('account seam', () => {
  it('declines for a PAUSED or CLOSED account', () => {
    expect(accountUsability({ state: 'ACTIVE' })).toEqual({ approved: true });
    expect(accountUsability({ state: 'PAUSED' })).toEqual({ approved: false, result: 'ACCOUNT_STATE_TRANSACTION_FAIL', detailed_results: ['ACCOUNT_PAUSED'] });
    expect(accountUsability({ state: 'CLOSED' })).toEqual({ approved: false, result: 'INACTIVE_ACCOUNT', detailed_results: ['ACCOUNT_INACTIVE'] });
  });

  it('declines unless its ISSUING financial account is OPEN: CLOSED as a closed account, SUSPENDED or PENDING as a paused one', () => {
    expect(fundingUsability('OPEN')).toEqual({ approved: true });
    for (const status of ['SUSPENDED', 'PENDING']) {
      expect(fundingUsability(status)).toEqual({ approved: false, result: 'ACCOUNT_STATE_TRANSACTION_FAIL', detailed_results: ['ACCOUNT_PAUSED'] });
    }
    expect(fundingUsability('CLOSED')).toEqual({ approved: false, result: 'INACTIVE_ACCOUNT', detailed_results: ['ACCOUNT_INACTIVE'] });
  });

  it('gives the daily (24 h), monthly and lifetime windows from the program clock', () => {
    const now = at('2024-03-15T10:30:00Z');
    expect(accountSpendWindows(account, now)).toEqual({
      daily_start_ms: at('2024-03-14T10:30:00Z'),
      monthly_start_ms: at('2024-02-21T00:00:00Z'),
      lifetime_start_ms: account.created_ms,
    });
  });

  it('names the limit that would be exceeded, daily first', () => {
    expect(checkAccountSpendLimits(account, 1000, nothingSpent)).toEqual({ approved: true });
    const over = (detail: string) => ({ approved: false, result: 'USER_TRANSACTION_LIMIT', detailed_results: [detail] });
    expect(checkAccountSpendLimits(account, 1001, nothingSpent)).toEqual(over('ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED'));
    expect(checkAccountSpendLimits(account, 500, { daily_cents: 0, monthly_cents: 4600, lifetime_cents: 0 })).toEqual(
      over('ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED'),
    );
    expect(checkAccountSpendLimits(account, 500, { daily_cents: 0, monthly_cents: 0, lifetime_cents: 8600 })).toEqual(
      over('ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED'),
    );
    const noLifetimeLimit = { ...account, daily_spend_limit_cents: 10 ** 13, monthly_spend_limit_cents: 10 ** 13, lifetime_spend_limit_cents: null };
    expect(checkAccountSpendLimits(noLifetimeLimit, 10 ** 12, { daily_cents: 10 ** 12, monthly_cents: 10 ** 12, lifetime_cents: 10 ** 12 })).toEqual({
      approved: true,
    });
  });

  it('declines every debit under a daily or monthly limit of 0, daily first; $0 and credits pass', () => {
    const over = (detail: string) => ({ approved: false, result: 'USER_TRANSACTION_LIMIT', detailed_results: [detail] });
    const zeroDaily = { ...account, daily_spend_limit_cents: 0 };
    const zeroMonthly = { ...account, monthly_spend_limit_cents: 0 };
    expect(checkAccountSpendLimits(zeroDaily, 1, nothingSpent)).toEqual(over('ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED'));
    expect(checkAccountSpendLimits({ ...zeroDaily, monthly_spend_limit_cents: 0 }, 1, nothingSpent)).toEqual(over('ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED'));
    expect(checkAccountSpendLimits(zeroMonthly, 1, nothingSpent)).toEqual(over('ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED'));
    for (const limited of [zeroDaily, zeroMonthly]) {
      expect(checkAccountSpendLimits(limited, 0, { daily_cents: 100, monthly_cents: 100, lifetime_cents: 100 })).toEqual({ approved: true });
      expect(checkAccountSpendLimits(limited, -100, nothingSpent)).toEqual({ approved: true });
    }
  });

  it('stores a lifetime limit of 0 as no limit (SDK AccountUpdateParams)', () => {
    expect(storedLifetimeSpendLimit(0)).toBeNull();
    expect(storedLifetimeSpendLimit(1)).toBe(1);
  });

  it('gives a new account $5,000 a day and $5,000 a month, and no lifetime limit', () => {
    expect(DEFAULT_ACCOUNT_SPEND_LIMITS).toEqual({ daily_spend_limit_cents: 500_000, monthly_spend_limit_cents: 500_000, lifetime_spend_limit_cents: null });
  });
});
