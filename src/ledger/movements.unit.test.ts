/**
 * Every movement the money resources post balances (ledger invariant 1) and moves the buckets the
 * lifecycle tables in their services describe.
 */
import { describe, expect, it } from 'vitest';
import { transferMovement } from '../book_transfers/service.js';
import type { BookTransferRow } from '../book_transfers/store.js';
import { stepMovement } from '../external_payments/service.js';
import type { ExternalPaymentRow } from '../external_payments/store.js';
import { amountsOf, eventAmount, financialEventType, statusOf } from '../financial_accounts/financial_transactions.js';
import { operationMovement, reversalEventType } from '../management_operations/service.js';
import type { ManagementOperationRow } from '../management_operations/store.js';
import { assertBalanced, SystemAccount, type Movement } from './ledger.js';

const FA = 'fa-1';

/** Net change per account and bucket. */
function effect(movement: Movement): Record<string, number> {
  assertBalanced(movement);
  const net: Record<string, number> = {};
  for (const posting of movement.postings) {
    const key = posting.account === FA ? posting.bucket : posting.account.startsWith('system:') ? posting.account : `${posting.account}.${posting.bucket}`;
    net[key] = (net[key] ?? 0) + posting.amount_cents;
  }
  return net;
}

const payment = (payment_type: 'DEPOSIT' | 'WITHDRAWAL') =>
  ({ token: 'p', financial_account_token: FA, payment_type, amount_cents: 100 }) as ExternalPaymentRow;

describe('external payment steps', () => {
  it.each([
    ['DEPOSIT', 'INITIATED', { pending: 100, [SystemAccount.EXTERNAL_BANKS]: -100 }],
    ['DEPOSIT', 'RELEASED', { pending: -100, available: 100 }],
    ['DEPOSIT', 'CANCELED', { pending: -100, [SystemAccount.EXTERNAL_BANKS]: 100 }],
    ['DEPOSIT', 'REVERSED', { available: -100, [SystemAccount.EXTERNAL_BANKS]: 100 }],
    ['WITHDRAWAL', 'INITIATED', { available: -100, pending: 100 }],
    ['WITHDRAWAL', 'RELEASED', { pending: -100, [SystemAccount.EXTERNAL_BANKS]: 100 }],
    ['WITHDRAWAL', 'CANCELED', { pending: -100, available: 100 }],
    ['WITHDRAWAL', 'REVERSED', { available: 100, [SystemAccount.EXTERNAL_BANKS]: -100 }],
  ] as const)('%s %s', (type, step, expected) => {
    const movement = stepMovement(payment(type), step, 'e');
    expect(movement && effect(movement)).toEqual(expected);
    expect(movement?.kind).toBe(`EXTERNAL_PAYMENT_${step}`);
  });

  it('SETTLED moves no money', () => {
    expect(stepMovement(payment('DEPOSIT'), 'SETTLED', 'e')).toBeNull();
  });
});

describe('management operations', () => {
  const operation = (direction: 'CREDIT' | 'DEBIT') => ({ token: 'o', financial_account_token: FA, direction, amount_cents: 7 }) as ManagementOperationRow;
  it.each([
    ['CREDIT', false, 7],
    ['DEBIT', false, -7],
    ['CREDIT', true, -7],
    ['DEBIT', true, 7],
  ] as const)('%s (reversal %s) moves the account by %i against PROGRAM', (direction, reversal, cents) => {
    expect(effect(operationMovement(operation(direction), 'e', reversal))).toEqual({ available: cents, [SystemAccount.PROGRAM]: -cents });
  });

  it('holds a credit in suspense instead of the account when the operation says so, and takes it back on reversal', () => {
    const held = { ...operation('CREDIT'), credit_in_suspense: 1 };
    expect(effect(operationMovement(held, 'e', false))).toEqual({ [SystemAccount.SUSPENSE]: 7, [SystemAccount.PROGRAM]: -7 });
    expect(effect(operationMovement(held, 'e', true))).toEqual({ [SystemAccount.SUSPENSE]: -7, [SystemAccount.PROGRAM]: 7 });
  });

  it.each([
    ['CASH_BACK', 'CASH_BACK_REVERSAL'],
    ['CASH_BACK_REVERSAL', 'CASH_BACK'],
    ['DISBURSE', 'DISBURSE_REVERSAL'],
    ['LOSS_WRITE_OFF', 'LOSS_WRITE_OFF'],
  ] as const)('reverses %s with %s', (type, partner) => {
    expect(reversalEventType(type)).toBe(partner);
  });
});

describe('book transfers', () => {
  it('moves available from one account to the other, and back on reversal', () => {
    const row = { token: 't', from_financial_account_token: FA, to_financial_account_token: 'fa-2', amount_cents: 30 } as BookTransferRow;
    expect(effect(transferMovement(row, 'e', false))).toEqual({ available: -30, 'fa-2.available': 30 });
    expect(effect(transferMovement(row, 'e', true))).toEqual({ available: 30, 'fa-2.available': -30 });
  });

  it('credits suspense instead of the receiving account when the transfer holds it there', () => {
    const row = { token: 't', from_financial_account_token: FA, to_financial_account_token: 'fa-2', amount_cents: 30, credit_in_suspense: 1 } as BookTransferRow;
    expect(effect(transferMovement(row, 'e', false))).toEqual({ available: -30, [SystemAccount.SUSPENSE]: 30 });
    expect(effect(transferMovement(row, 'e', true))).toEqual({ available: 30, [SystemAccount.SUSPENSE]: -30 });
  });
});

describe('financial transaction status', () => {
  const journal = (available_cents: number, pending_cents: number) => ({
    journal_token: 'j',
    kind: 'K',
    transaction_token: 't',
    event_token: 'e',
    created_ms: 0,
    available_cents,
    pending_cents,
  });
  it.each([
    [[journal(0, 100)], 'PENDING'],
    [[journal(-5, 0)], 'SETTLED'],
    [[journal(0, 100), journal(0, -100)], 'VOIDED'],
    [[journal(-5, 0), journal(5, 0)], 'RETURNED'],
    [[journal(-100, 100)], 'PENDING'],
    [[journal(-100, 100), journal(100, -100)], 'VOIDED'],
    [[journal(-100, 100), journal(0, -100)], 'SETTLED'],
    [[journal(-100, 100), journal(0, -100), journal(100, 0)], 'RETURNED'],
  ] as const)('%j → %s', (journals, status) => {
    expect(statusOf(journals)).toBe(status);
  });

  it.each([
    [[journal(0, 100)], { pending_amount: 100, settled_amount: 0 }],
    [[journal(0, 100), journal(100, -100)], { pending_amount: 0, settled_amount: 100 }],
    [[journal(-100, 100)], { pending_amount: -100, settled_amount: 0 }],
    [[journal(-100, 100), journal(-20, -100)], { pending_amount: 0, settled_amount: -120 }],
    [[journal(-5, 0)], { pending_amount: 0, settled_amount: -5 }],
  ] as const)('%j: held money going out is negative pending, not settled', (journals, amounts) => {
    expect(amountsOf(journals)).toEqual(amounts);
  });

  it.each([
    ['a hold', journal(-500, 500), true, -500],
    ['its release', journal(500, -500), true, 500],
    ['a partial clearing', journal(200, -500), true, -300],
    ['a clearing above the hold', journal(-100, -500), true, -600],
    ['a withdrawal leaving', journal(0, -30), true, -30],
    ['a deposit arriving', journal(0, 70), false, 70],
    ['a deposit released', journal(70, -70), false, 70],
    ['a transfer', journal(-5, 0), false, -5],
  ] as const)('%s', (_name, moved, hold, amount) => {
    expect(eventAmount(moved, hold)).toBe(amount);
  });
});

describe('financial transaction event types', () => {
  it.each([
    ['BOOK_TRANSFER', 'TRANSFER', 'TRANSFER'],
    ['BOOK_TRANSFER', 'MONTHLY', 'TRANSFER'],
    ['BOOK_TRANSFER', 'TRANSFER', 'TRANSFER_INSUFFICIENT_FUNDS', 'DECLINED'],
    ['MANAGEMENT_OPERATION', 'CASH_BACK', 'CASH_BACK', 'DECLINED'],
    ['BOOK_TRANSFER_REVERSAL', 'ATM_WITHDRAWAL', 'TRANSFER'],
    ['MANAGEMENT_OPERATION', 'CASH_BACK', 'CASH_BACK'],
    ['MANAGEMENT_OPERATION', 'DISBURSE', 'INTERNAL_ADJUSTMENT'],
    ['MANAGEMENT_OPERATION_REVERSAL', 'DISPUTE_WON_REVERSAL', 'INTERNAL_ADJUSTMENT'],
    ['EXTERNAL_PAYMENT_INITIATED', 'EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_INITIATED'],
    ['CARD_CLEARING', 'CLEARING', 'CLEARING'],
    ['MICRO_DEPOSIT', 'MICRO_DEPOSIT_WITHDRAWAL', 'MICRO_DEPOSIT_WITHDRAWAL'],
  ] as Array<[string, string, string, ('APPROVED' | 'DECLINED')?]>)('%s / %s → %s', (kind, type, expected, result) => {
    expect(financialEventType(kind, type, result)).toBe(expected);
  });
});
