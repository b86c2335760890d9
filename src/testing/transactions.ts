/**
 * Helpers for tests of card transactions: a card with its own funding account, the simulations
 * as one-liners, and what a transaction or its card's ISSUING balance looks like now. Everything
 * goes through the API with the SDK, as a client would.
 */
import type Lithic from 'lithic';
import { expect } from 'vitest';
import { acceptedAccountToken } from './enrollment.js';
import { balanceOf, type Balance } from './money.js';

export type Card = Lithic.Card & { pan: string };
export type Transaction = Lithic.Transaction;

/**
 * Account limits no test reaches, for a test that is not about them: a new account's $5,000 a day
 * and a month would decline its spend (and a limit of 0 is a limit for these two: accounts/spend.ts).
 */
export const LIMITS_OUT_OF_REACH = { daily_spend_limit: Number.MAX_SAFE_INTEGER, monthly_spend_limit: Number.MAX_SAFE_INTEGER } as const;

/**
 * A card on a fresh account of its own (an enrolled holder's), so that its ISSUING balance and
 * account limits start at zero and belong to this card alone.
 */
export async function cardOnOwnAccount(client: Lithic, params: Partial<Lithic.CardCreateParams> = {}): Promise<Card> {
  const account_token = await acceptedAccountToken(client);
  return (await client.cards.create({ type: 'VIRTUAL', account_token, ...params })) as Card;
}

export async function authorize(client: Lithic, card: Pick<Card, 'pan'>, amount: number, extra: Partial<Lithic.TransactionSimulateAuthorizationParams> = {}): Promise<string> {
  const response = await client.transactions.simulateAuthorization({ amount, descriptor: 'COFFEE SHOP', pan: card.pan, ...extra });
  expect(response.token).toMatch(/^[0-9a-f-]{36}$/);
  return response.token as string;
}

/** A 3-D Secure authentication whose merchant asks for a challenge: PENDING_CHALLENGE until answered or timed out. */
export async function simulateChallenge(client: Lithic, card: Pick<Card, 'pan'>): Promise<string> {
  const { token } = await client.threeDS.authentication.simulate({
    pan: card.pan, merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'SHOP CHALLENGE' }, transaction: { amount: 2_500, currency: 'USD' },
  });
  return token as string;
}

/** Authorizes and returns the stored transaction. */
export async function authorized(client: Lithic, card: Pick<Card, 'pan'>, amount: number, extra: Partial<Lithic.TransactionSimulateAuthorizationParams> = {}): Promise<Transaction> {
  return client.transactions.retrieve(await authorize(client, card, amount, extra));
}

export function issuingBalance(client: Lithic, card: Pick<Card, 'funding'>): Promise<Balance> {
  return balanceOf(client, card.funding.token);
}

export async function setRequireFunds(client: Lithic, required: boolean): Promise<void> {
  const answer = await client.post<unknown, { require_funds: boolean }>('/v1/simulate/program', { body: { require_funds: required } });
  expect(answer).toEqual({ require_funds: required });
}

export async function moveClock(client: Lithic, iso: string): Promise<void> {
  await client.post('/v1/simulate/clock', { body: { now: iso } });
}

/** The first event's result and detailed results, and the transaction's status: what a decision left. */
export function decisionOf(transaction: Transaction) {
  const first = transaction.events?.[0];
  return { status: transaction.status, result: transaction.result, detailed_results: first?.detailed_results, event_result: first?.result };
}
