/**
 * Helpers for tests that move money: fund an account, read its balance, make accounts, assert a
 * 4xx with its message. They go through the API like any client would.
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { expect } from 'vitest';

export interface Balance {
  available: number;
  pending: number;
  total: number;
}

export async function newAccount(client: Lithic, nickname = 'test'): Promise<string> {
  return (await client.financialAccounts.create({ nickname, type: 'OPERATING' })).token;
}

/** Credits `cents` to the account at once (a management operation dated today by the program clock). */
export async function fund(client: Lithic, financialAccountToken: string, cents: number): Promise<void> {
  const now = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
  const operation = await client.managementOperations.create({
    amount: cents,
    category: 'MANAGEMENT_ADJUSTMENT',
    direction: 'CREDIT',
    effective_date: now.slice(0, 10),
    event_type: 'PROVISIONAL_CREDIT',
    financial_account_token: financialAccountToken,
  });
  expect(operation.status).toBe('SETTLED');
}

/** A book transfer (TRANSFER, ACCOUNT_TO_ACCOUNT, subtype P2P) with any other fields. */
export function bookTransfer(client: Lithic, from: string, to: string, cents: number, extra: Partial<Lithic.BookTransferCreateParams> = {}) {
  return client.bookTransfers.create({
    amount: cents,
    category: 'TRANSFER',
    type: 'ACCOUNT_TO_ACCOUNT',
    subtype: 'P2P',
    from_financial_account_token: from,
    to_financial_account_token: to,
    ...extra,
  });
}

/**
 * A create body of a MANUAL (at once ENABLED) external bank account funded from `financialAccountToken`:
 * each call a new account number ending in 4567 (one owner cannot link the same account twice).
 */
export function manualBankAccount(financialAccountToken: string) {
  return {
    account_number: `${crypto.randomInt(1e12, 1e13)}4567`,
    country: 'USA',
    currency: 'USD',
    owner: 'Ada Lovelace',
    owner_type: 'INDIVIDUAL',
    routing_number: '021000021',
    type: 'CHECKING',
    verification_method: 'MANUAL',
    financial_account_token: financialAccountToken,
  } as const;
}

export async function balanceOf(client: Lithic, financialAccountToken: string): Promise<Balance> {
  const page = await client.financialAccounts.balances.list(financialAccountToken);
  const [balance] = page.data;
  if (!balance) throw new Error(`no balance for ${financialAccountToken}`);
  expect(balance.total_amount).toBe(balance.available_amount + balance.pending_amount);
  return { available: balance.available_amount, pending: balance.pending_amount, total: balance.total_amount };
}

/** Runs `call`, expects it to fail with `status`, and returns the error message. */
export async function expectError(call: Promise<unknown>, status: number): Promise<string> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected a ${status}`).toBeInstanceOf(Lithic.APIError);
  const apiError = error as InstanceType<typeof Lithic.APIError>;
  expect(apiError.status, JSON.stringify(apiError.error)).toBe(status);
  return (apiError.error as { message: string }).message;
}
