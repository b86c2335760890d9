/**
 * Helpers for tests of Auth Rules: request bodies for each rule type, creating rules through the
 * SDK, and evaluating authorizations directly with the evaluator (facts plus a fake history), the
 * way the authorization engine does inside its transaction.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { authRulesEvaluator } from '../auth_rules/evaluator.js';
import type { AuthorizationFacts, AuthorizationHistory, RuleResult } from '../engine/rules-seam.js';
import type { TestProgram, TestServer } from './harness.js';

export type AuthRule = Lithic.AuthRules.V2CreateResponse;

/** A rule's scope as a create body part. */
export type RuleScope = { program_level: true; excluded_card_tokens?: string[] } | { account_tokens?: string[]; business_account_tokens?: string[] } | { card_tokens: string[] };
const PROGRAM: RuleScope = { program_level: true };

export interface ConditionInput {
  attribute: string;
  operation: string;
  value: string | number | string[];
}

export function conditionalBlock(conditions: ConditionInput[], scope: RuleScope = PROGRAM, name = 'block') {
  return { type: 'CONDITIONAL_BLOCK', name, parameters: { conditions }, ...scope };
}

export function velocityLimit(parameters: Record<string, unknown>, scope: RuleScope = PROGRAM, name = 'velocity') {
  return { type: 'VELOCITY_LIMIT', name, parameters: { scope: 'CARD', period: { type: 'DAY' }, filters: {}, ...parameters }, ...scope };
}

export function merchantLock(merchants: Array<{ merchant_id?: string; descriptor?: string; comment?: string }>, scope: RuleScope = PROGRAM, name = 'lock') {
  return { type: 'MERCHANT_LOCK', name, parameters: { merchants }, ...scope };
}

export function threeDsAction(action: 'DECLINE' | 'CHALLENGE', conditions: ConditionInput[], scope: RuleScope = PROGRAM, name = '3ds') {
  return { type: 'CONDITIONAL_3DS_ACTION', name, parameters: { action, conditions }, ...scope };
}

/** Creates a rule from any body above (the SDK's types name the 0.119 enums; the server takes both eras). */
export function createRule(client: Lithic, body: object): Promise<AuthRule> {
  return client.authRules.v2.create(body as Lithic.AuthRules.V2CreateParams);
}

/** Creates a rule and promotes its draft, so that it is enforced. */
export async function enforcedRule(client: Lithic, body: object): Promise<AuthRule> {
  const rule = await createRule(client, body);
  return client.authRules.v2.promote(rule.token);
}

/** A VIRTUAL card on the program's default account (or the given one). */
export function newCard(client: Lithic, accountToken?: string): Promise<Lithic.Card> {
  return client.cards.create({ type: 'VIRTUAL', ...(accountToken ? { account_token: accountToken } : {}) });
}

/** An authorization's facts on a card: a $10 e-commerce purchase in the US unless overridden. */
export function authorizationFacts(card: { token: string; account_token: string }, nowMs: number, overrides: Partial<AuthorizationFacts> = {}): AuthorizationFacts {
  return {
    event_token: crypto.randomUUID(),
    transaction_token: crypto.randomUUID(),
    card: { token: card.token, account_token: card.account_token, state: 'OPEN', pin_status: 'NOT_SET' },
    amount_cents: 1_000,
    counts_as_spend: true,
    cash_amount_cents: 0,
    merchant: { acceptor_id: 'ACME-1', descriptor: 'ACME STORE', mcc: '5411', country: 'USA', currency: 'USD' },
    pan_entry_mode: 'ECOMMERCE',
    pin_entered: false,
    risk_score: null,
    wallet_type: 'NONE',
    liability_shift: 'NONE',
    transaction_initiator: 'CARDHOLDER',
    now_ms: nowMs,
    ...overrides,
  };
}

type SpendQuery = Parameters<AuthorizationHistory['approvedSpend']>[0];

/** A history with fixed answers that records the queries it was asked. */
export function fakeHistory(spend: { amount_cents: number; count: number } = { amount_cents: 0, count: 0 }, transactionCount = 0) {
  const spendQueries: SpendQuery[] = [];
  const countQueries: Array<{ card: string; since_ms: number; until_ms: number }> = [];
  const history: AuthorizationHistory = {
    approvedSpend: async (query) => {
      spendQueries.push(query);
      return spend;
    },
    cardTransactionCount: async (card, since_ms, until_ms) => {
      countQueries.push({ card, since_ms, until_ms });
      return transactionCount;
    },
  };
  return { history, spendQueries, countQueries };
}

/** The program's clock now, in epoch ms. */
export async function programNow(client: Lithic): Promise<number> {
  return Date.parse((await client.get<unknown, { now: string }>('/v1/simulate/clock')).now);
}

/** Moves the program's clock to `iso`. */
export async function moveClock(client: Lithic, iso: string): Promise<void> {
  await client.post('/v1/simulate/clock', { body: { now: iso } });
}

/**
 * Evaluates an authorization as the engine would: in one transaction of the server's database,
 * with the program's scope at `facts.now_ms`.
 */
export function evaluate(server: TestServer, program: TestProgram, facts: AuthorizationFacts, history: AuthorizationHistory = fakeHistory().history): Promise<RuleResult[]> {
  const db = server.server.db;
  const scope = { programId: program.programId, clockOffsetMs: 0, nowMs: facts.now_ms };
  return db.transaction((tx) => authRulesEvaluator.evaluateAuthorization({ db, tx, scope, facts, history }));
}

