/**
 * Benchmark scenarios. Each names the request autocannon sends, which reference its target is
 * measured against, and the target from the issue that set it. `prepare` runs once before the
 * scenario (through the API, or directly on the database for bulk seeding) and returns the request.
 * Later issues add their scenarios to this list.
 */
import type { BenchContext } from './context.js';
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
  target: { minRatio?: number; maxP99Ms?: number; maxP99RatioTo?: { scenario: string; ratio: number }; note?: string };
  /** Engines this scenario runs on (default: all). */
  engines?: readonly ('sqlite' | 'postgres')[];
  prepare(context: BenchContext): Promise<ScenarioRequest>;
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
  ...cardTransactionScenarios,
];
