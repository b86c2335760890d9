/**
 * Benchmark scenarios. Each names the request autocannon sends, which reference its target is
 * measured against, and the target from the issue that set it. `prepare` runs once before the
 * scenario (through the API, or directly on the database for bulk seeding) and returns the request.
 * Later issues add their scenarios to this list.
 */
import type Lithic from 'lithic';
import type { BenchContext } from './context.js';
import { financialTransactionScenarios } from './financial-transactions.js';
import { cardTransactionScenarios } from './transactions.js';

export interface ScenarioRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: object;
  /** Called before each request, for bodies that must differ (e.g. unique tokens). */
  makeBody?: () => object;
}

export interface Scenario {
  name: string;
  /** Reference for the target ratio: `a` (no-op route) or `b` (one write transaction). */
  reference: 'a' | 'b';
  /**
   * Minimum throughput as a fraction of the reference, maximum p99 in ms, and maximum p99 as a
   * multiple of an earlier scenario's p99 (flat latency as a table grows), from the issues.
   */
  target: {
    minRatio?: number;
    maxP99Ms?: number;
    /** p99 at most `ratio` times an earlier scenario's (e.g. a list at 1M rows against 1k). */
    maxP99RatioTo?: { scenario: string; ratio: number };
    /** Throughput at least `ratio` times an earlier scenario's (e.g. 100 rules against 1). */
    minThroughputRatioTo?: { scenario: string; ratio: number };
    note?: string;
  };
  /** Engines this scenario runs on (default: all). */
  engines?: readonly ('sqlite' | 'postgres')[];
  prepare(context: BenchContext): Promise<ScenarioRequest>;
}

/**
 * A card with `rules` enforced CONDITIONAL_3DS_ACTION rules bound to it (every other one also with
 * a draft in shadow), none matching, and a 3DS simulation on it: the Auth Rules evaluation path
 * (one query, the verdicts, one aggregate upsert) at 1 and at 100 rules.
 */
async function threeDsWithRules(context: BenchContext, rules: number): Promise<ScenarioRequest> {
  const card = await context.client.cards.create({ type: 'VIRTUAL' });
  const conditions = [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1_000_000_000 }];
  for (let index = 0; index < rules; index++) {
    const parameters = { action: index % 2 === 0 ? 'DECLINE' : 'CHALLENGE', conditions };
    const body = { type: 'CONDITIONAL_3DS_ACTION', parameters, card_tokens: [card.token] };
    const rule = await context.client.authRules.v2.create(body as unknown as Lithic.AuthRules.V2CreateParams);
    await context.client.authRules.v2.promote(rule.token);
    if (index % 2 === 0) await context.client.authRules.v2.draft(rule.token, { parameters } as unknown as Lithic.AuthRules.V2DraftParams);
  }
  return {
    method: 'POST',
    path: '/v1/three_ds_authentication/simulate',
    body: { pan: card.pan, merchant: { id: 'BENCH-1', country: 'USA', mcc: '5411', name: 'BENCH SHOP' }, transaction: { amount: 1_000, currency: 'USD' } },
  };
}

export const scenarios: Scenario[] = [
  {
    name: 'GET /v1/status',
    reference: 'a',
    target: { minRatio: 0.6 },
    prepare: async () => ({ method: 'GET', path: '/v1/status' }),
  },
  {
    name: 'POST /v1/financial_accounts',
    reference: 'b',
    target: { minRatio: 0.6, maxP99Ms: 25 },
    prepare: async () => ({ method: 'POST', path: '/v1/financial_accounts', body: { nickname: 'bench', type: 'OPERATING' } }),
  },
  {
    name: 'GET /v1/financial_accounts',
    reference: 'a',
    target: { note: 'no target; reported for reference' },
    prepare: async () => ({ method: 'GET', path: '/v1/financial_accounts?page_size=50' }),
  },
  {
    name: 'POST /v1/book_transfers (between two accounts)',
    reference: 'b',
    target: { minRatio: 0.6, maxP99Ms: 25, note: 'PostgreSQL: reported, no target' },
    prepare: async ({ client, engine }) => {
      const from = await client.financialAccounts.create({ nickname: `bench from (${engine})`, type: 'OPERATING' });
      const to = await client.financialAccounts.create({ nickname: `bench to (${engine})`, type: 'OPERATING' });
      await client.managementOperations.create({
        amount: 1_000_000_000,
        category: 'MANAGEMENT_ADJUSTMENT',
        direction: 'CREDIT',
        effective_date: new Date().toISOString().slice(0, 10),
        event_type: 'CASH_BACK',
        financial_account_token: from.token,
      });
      return {
        method: 'POST',
        path: '/v1/book_transfers',
        body: {
          amount: 1,
          category: 'TRANSFER',
          type: 'TRANSFER',
          subtype: 'bench',
          from_financial_account_token: from.token,
          to_financial_account_token: to.token,
        },
      };
    },
  },
  {
    name: 'POST /v1/three_ds_authentication/simulate, 1 rule',
    reference: 'b',
    target: { note: 'baseline of the 100-rule line' },
    prepare: (context) => threeDsWithRules(context, 1),
  },
  {
    name: 'POST /v1/three_ds_authentication/simulate, 100 rules',
    reference: 'b',
    target: { note: 'reported: the cost of 100 rules on a light path (the issue-4 target is measured on authorize)' },
    prepare: (context) => threeDsWithRules(context, 100),
  },
  ...cardTransactionScenarios,
  ...financialTransactionScenarios,
];
