import { describe, expect, it } from 'vitest';
import { advise, clear, open, release, reverseReturn, type Effect } from './lifecycle.js';

const APPROVED = { approved: true, result: 'APPROVED', detailed_results: ['APPROVED'], rule_results: [] };
const NOW = Date.parse('2031-03-15T12:00:00Z');

/** A transaction as `open` left it, to apply the next message to. */
function opened(kind: Parameters<typeof open>[0], cents: number) {
  return { token: 't-1', kind, ...open(kind, cents, APPROVED, NOW).amounts };
}

/** Net change per bucket (FA available, FA pending, network); each movement sums to zero. */
function net(effect: Effect): { available: number; pending: number; network: number } {
  const sums = { available: 0, pending: 0, network: 0 };
  for (const posting of effect.movement?.postings ?? []) {
    expect(posting.amount_cents).not.toBe(0);
    sums[posting.bucket] += posting.amount_cents;
  }
  expect(sums.available + sums.pending + sums.network).toBe(0);
  return sums;
}

describe('card transaction lifecycle and its ledger postings', () => {
  it('opens each kind with its status, signs and movement', () => {
    const cases: Array<[Parameters<typeof open>[0], string, { hold: number; settled: number; spend: number }, ReturnType<typeof net>]> = [
      ['AUTHORIZATION', 'PENDING', { hold: 100, settled: 0, spend: 100 }, { available: -100, pending: 100, network: 0 }],
      ['FINANCIAL_AUTHORIZATION', 'SETTLED', { hold: 0, settled: 100, spend: 100 }, { available: -100, pending: 0, network: 100 }],
      ['CREDIT_AUTHORIZATION', 'PENDING', { hold: -100, settled: 0, spend: 0 }, { available: 0, pending: 100, network: -100 }],
      ['CREDIT_AUTHORIZATION_ADVICE', 'PENDING', { hold: -100, settled: 0, spend: 0 }, { available: 0, pending: 100, network: -100 }],
      ['FINANCIAL_CREDIT_AUTHORIZATION', 'SETTLED', { hold: 0, settled: -100, spend: 0 }, { available: 100, pending: 0, network: -100 }],
      ['RETURN', 'SETTLED', { hold: 0, settled: -100, spend: 0 }, { available: 100, pending: 0, network: -100 }],
    ];
    for (const [kind, status, amounts, movement] of cases) {
      const effect = open(kind, 100, APPROVED, NOW);
      expect(effect.amounts, kind).toMatchObject({ status, hold_cents: amounts.hold, settled_cents: amounts.settled, spend_cents: amounts.spend });
      expect(net(effect), kind).toEqual(movement);
      expect(effect.event.effective_polarity, kind).toBe(amounts.hold + amounts.settled > 0 ? 'DEBIT' : 'CREDIT');
    }
    expect(open('AUTHORIZATION', 100, APPROVED, NOW).amounts.expires_ms).toBe(NOW + 7 * 86_400_000);
    expect(open('BALANCE_INQUIRY', 0, APPROVED, NOW)).toMatchObject({ amounts: { status: 'SETTLED', hold_cents: 0 }, movement: null });
  });

  it('records a decline with nothing held and no movement', () => {
    const declined = open('AUTHORIZATION', 100, { approved: false, result: 'CARD_PAUSED', detailed_results: ['CARD_PAUSED'], rule_results: [] }, NOW);
    expect(declined.amounts).toMatchObject({ status: 'DECLINED', hold_cents: 0, spend_cents: 0, authorization_amount_cents: 100 });
    expect(declined.movement).toBeNull();
    expect(declined.event).toMatchObject({ result: 'CARD_PAUSED', amount_cents: 100, settlement_cents: null });
  });

  it('clears a debit: pending −hold, available −(cleared − hold), network +cleared', () => {
    for (const cleared of [0, 60, 100, 130]) {
      const effect = clear(opened('AUTHORIZATION', 100), cleared);
      expect(net(effect)).toEqual({ available: 100 - cleared, pending: -100, network: cleared });
      expect(effect.amounts).toMatchObject({ status: 'SETTLED', hold_cents: 0, settled_cents: cleared, spend_cents: cleared });
      expect(effect.event).toMatchObject({ type: 'CLEARING', amount_cents: cleared, settlement_cents: cleared });
    }
    expect(net(clear(opened('CREDIT_AUTHORIZATION', 100), 130))).toEqual({ available: 130, pending: -100, network: -30 });
  });

  it('releases holds partly or wholly, and refuses what is not pending or more than it', () => {
    const partly = release(opened('AUTHORIZATION', 100), 'AUTHORIZATION_REVERSAL', 30);
    expect(net(partly)).toEqual({ available: 30, pending: -30, network: 0 });
    expect(partly.amounts).toMatchObject({ status: 'PENDING', hold_cents: 70, spend_cents: 70 });
    expect(partly.event).toMatchObject({ amount_cents: -30, effective_polarity: 'CREDIT' });
    expect(release(opened('AUTHORIZATION', 100), 'AUTHORIZATION_EXPIRY', 1).amounts).toMatchObject({ status: 'EXPIRED', hold_cents: 0, spend_cents: 0, expires_ms: null });
    expect(net(release(opened('CREDIT_AUTHORIZATION', 100), 'AUTHORIZATION_REVERSAL', undefined))).toEqual({ available: 0, pending: -100, network: 100 });
    expect(() => release(opened('AUTHORIZATION', 100), 'AUTHORIZATION_REVERSAL', 101)).toThrow(/exceeds the pending amount/);
    expect(() => release(opened('CREDIT_AUTHORIZATION', 100), 'AUTHORIZATION_EXPIRY', undefined)).toThrow(/credit/);
    expect(() => release(opened('FINANCIAL_AUTHORIZATION', 100), 'AUTHORIZATION_REVERSAL', undefined)).toThrow(/dual-message/);
    expect(() => clear({ ...opened('AUTHORIZATION', 100), status: 'VOIDED' }, undefined)).toThrow(/VOIDED/);
  });

  it('clears an EXPIRED debit authorization for the amount given, from available (its hold is gone)', () => {
    const expired = { token: 't-1', kind: 'AUTHORIZATION', ...release(opened('AUTHORIZATION', 100), 'AUTHORIZATION_EXPIRY', undefined).amounts };
    const late = clear(expired, 120);
    expect(net(late)).toEqual({ available: -120, pending: 0, network: 120 });
    expect(late.amounts).toMatchObject({ status: 'SETTLED', hold_cents: 0, settled_cents: 120, spend_cents: 120 });
    expect(() => clear(expired, undefined)).toThrow(/needs its amount/);
    expect(() => clear({ ...expired, kind: 'CREDIT_AUTHORIZATION' }, 10)).toThrow(/only a PENDING transaction/);
  });

  it('sets the pending amount with an advice, and reverses a settled credit once', () => {
    const advice = advise(opened('AUTHORIZATION', 100), 250);
    expect(net(advice)).toEqual({ available: -150, pending: 150, network: 0 });
    expect(advice.amounts).toMatchObject({ authorization_amount_cents: 250, hold_cents: 250, spend_cents: 250 });
    expect(() => advise(opened('CREDIT_AUTHORIZATION', 100), 50)).toThrow(/AUTHORIZATION/);
    const reversal = reverseReturn(opened('RETURN', 100));
    expect(net(reversal)).toEqual({ available: -100, pending: 0, network: 100 });
    expect(reversal.amounts).toMatchObject({ status: 'SETTLED', settled_cents: 0, return_reversed: 1 });
    expect(() => reverseReturn({ ...opened('RETURN', 100), ...reversal.amounts })).toThrow(/already reversed/);
    expect(() => reverseReturn(opened('FINANCIAL_AUTHORIZATION', 100))).toThrow(/credit/);
  });
});
