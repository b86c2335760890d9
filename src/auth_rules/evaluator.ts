/**
 * The Auth Rules evaluator the authorization engine calls (engine/rules-seam.ts), and the shared
 * evaluation the 3DS stream uses (three_ds/service.ts).
 *
 * For one event: ONE query loads the ACTIVE rules of the stream that apply to the card with their
 * current and draft parameters (store.applicableRules); each (rule, version) is compiled once and
 * kept (versions are immutable, so the cache can never be stale); every current version is
 * evaluated and enforced, every draft version evaluated in shadow; then ONE multi-row upsert adds
 * all the verdicts to the per-day aggregate the report reads. History (velocity sums, transaction
 * counts) is read only through the engine's indexed `AuthorizationHistory`, each distinct query at
 * most once per event. So the statements per event are 2 plus the distinct history queries, and
 * neither grows with past transactions.
 */
import { isoDate, isoTimestamp } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { AuthorizationFacts, AuthorizationHistory, AuthRulesEvaluator, RuleResult } from '../engine/rules-seam.js';
import { TRANSACTION_COUNT_WINDOWS_MS, type AuthRuleType, type EventStream } from './attributes.js';
import type { AttributeValue } from './conditions.js';
import type { AuthRuleParameters } from './parameters.js';
import { exampleLine } from './report.js';
import { compileRule, type CompiledRule, type RuleInput, type Verdict } from './rules.js';
import * as store from './store.js';
import type { VersionRole } from './tables.js';

/** Aggregate rows per rule and day are split over this many shards (by event), against row-lock contention. */
export const STAT_SHARDS = 8;
const COMPILED_CACHE_LIMIT = 10_000;

export interface RuleEvaluation {
  rule_token: string;
  name: string | null;
  role: VersionRole;
  version: number;
  verdict: Verdict;
}

/**
 * Compiled rule versions by (program, rule, version), least recently used dropped first. Safe to
 * share across requests and databases: a version's parameters never change and tokens are unique.
 */
export class CompiledRuleCache {
  readonly #entries = new Map<string, CompiledRule>();
  constructor(readonly limit: number = COMPILED_CACHE_LIMIT) {}

  get(programId: string, ruleToken: string, version: number, type: string, parameters: string): CompiledRule {
    const key = `${programId}/${ruleToken}/${version}`;
    let compiled = this.#entries.get(key);
    if (compiled) {
      this.#entries.delete(key);
    } else {
      compiled = compileRule(type as AuthRuleType, JSON.parse(parameters) as AuthRuleParameters);
      if (this.#entries.size >= this.limit) this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(key, compiled);
    return compiled;
  }

  get size(): number {
    return this.#entries.size;
  }
}

export interface StreamEvent {
  programId: string;
  stream: EventStream;
  card_token: string;
  account_token: string;
  event_token: string;
  now_ms: number;
  input: RuleInput;
}

/** Which shard of the aggregate an event's verdicts go to: stable per event, spread across events. */
export function shardOf(eventToken: string): number {
  let hash = 0;
  for (let index = eventToken.length - 4; index < eventToken.length; index++) hash = (hash * 31 + eventToken.charCodeAt(Math.max(index, 0))) >>> 0;
  return hash % STAT_SHARDS;
}

function statsRow(event: StreamEvent, evaluation: RuleEvaluation): store.DailyStatsRow {
  const { decision } = evaluation.verdict;
  return {
    program_id: event.programId,
    rule_token: evaluation.rule_token,
    day: isoDate(event.now_ms),
    role: evaluation.role,
    version: evaluation.version,
    shard: shardOf(event.event_token),
    approved: decision === 'APPROVED' ? 1 : 0,
    challenged: decision === 'CHALLENGED' ? 1 : 0,
    declined: decision === 'DECLINED' ? 1 : 0,
    examples: exampleLine({ decision, event_token: event.event_token, timestamp: isoTimestamp(event.now_ms) }),
  };
}

export class RuleEngine {
  constructor(readonly cache: CompiledRuleCache = new CompiledRuleCache()) {}

  /** The versions to run for each applicable rule: the current one (enforced), then the draft (shadow). */
  #versions(event: StreamEvent, rows: readonly store.ApplicableRuleRow[]) {
    const runs: Array<{ row: store.ApplicableRuleRow; role: VersionRole; version: number; rule: CompiledRule }> = [];
    for (const row of rows) {
      if (row.current_version !== null && row.current_parameters !== null) {
        const rule = this.cache.get(event.programId, row.token, row.current_version, row.type, row.current_parameters);
        runs.push({ row, role: 'CURRENT', version: row.current_version, rule });
      }
      if (row.draft_version !== null && row.draft_parameters !== null) {
        const rule = this.cache.get(event.programId, row.token, row.draft_version, row.type, row.draft_parameters);
        runs.push({ row, role: 'DRAFT', version: row.draft_version, rule });
      }
    }
    return runs;
  }

  /** Evaluates and records every applicable rule version for one event; returns every evaluation. */
  async evaluate(exec: Executor, event: StreamEvent): Promise<RuleEvaluation[]> {
    const rows = await store.applicableRules(exec, event.programId, event.stream, event.card_token, event.account_token);
    const evaluations: RuleEvaluation[] = [];
    for (const { row, role, version, rule } of this.#versions(event, rows)) {
      evaluations.push({ rule_token: row.token, name: row.name, role, version, verdict: await rule(event.input) });
    }
    const statsRows = evaluations.map((evaluation) => statsRow(event, evaluation));
    statsRows.sort((a, b) => a.rule_token.localeCompare(b.rule_token) || a.role.localeCompare(b.role));
    await store.addDailyStats(exec, statsRows);
    return evaluations;
  }

  async evaluateAuthorization(input: Parameters<AuthRulesEvaluator['evaluateAuthorization']>[0]): Promise<RuleResult[]> {
    const { tx, scope, facts, history } = input;
    const evaluations = await this.evaluate(tx, {
      programId: scope.programId,
      stream: 'AUTHORIZATION',
      card_token: facts.card.token,
      account_token: facts.card.account_token,
      event_token: facts.event_token,
      now_ms: facts.now_ms,
      input: authorizationInput(facts, history),
    });
    return enforcedDeclines(evaluations);
  }
}

/** The rule_results of the enforced declines, in evaluation order (shadow verdicts never appear). */
export function enforcedDeclines(evaluations: readonly RuleEvaluation[]): RuleResult[] {
  return evaluations
    .filter((evaluation) => evaluation.role === 'CURRENT' && evaluation.verdict.decision !== 'APPROVED')
    .map((evaluation) => ({
      auth_rule_token: evaluation.rule_token,
      name: evaluation.name,
      result: evaluation.verdict.result,
      explanation: evaluation.verdict.explanation,
    }));
}

/** Runs each distinct query once per event: many rules over the same window cost one sum. */
function memoized<Args extends unknown[], T>(run: (...args: Args) => Promise<T>): (...args: Args) => Promise<T> {
  const results = new Map<string, Promise<T>>();
  return (...args) => {
    const key = JSON.stringify(args);
    let result = results.get(key);
    if (!result) {
      result = run(...args);
      results.set(key, result);
    }
    return result;
  };
}

/** The attributes of an authorization (reference 01), read from the engine's facts and history. */
export function authorizationInput(facts: AuthorizationFacts, history: AuthorizationHistory): RuleInput {
  const countSince = memoized((windowMs: number) => history.cardTransactionCount(facts.card.token, facts.now_ms - windowMs, facts.now_ms + 1));
  const values: Readonly<Record<string, AttributeValue>> = {
    MCC: facts.merchant.mcc,
    COUNTRY: facts.merchant.country,
    CURRENCY: facts.merchant.currency,
    MERCHANT_ID: facts.merchant.acceptor_id,
    DESCRIPTOR: facts.merchant.descriptor,
    LIABILITY_SHIFT: facts.liability_shift,
    PAN_ENTRY_MODE: facts.pan_entry_mode,
    TRANSACTION_AMOUNT: facts.amount_cents,
    CASH_AMOUNT: facts.cash_amount_cents,
    RISK_SCORE: facts.risk_score,
    CARD_STATE: facts.card.state,
    PIN_ENTERED: facts.pin_entered ? 'TRUE' : 'FALSE',
    PIN_STATUS: facts.card.pin_status,
    WALLET_TYPE: facts.wallet_type,
    TRANSACTION_INITIATOR: facts.transaction_initiator,
  };
  return {
    valueOf: (attribute) => {
      const windowMs = TRANSACTION_COUNT_WINDOWS_MS[attribute];
      return windowMs === undefined ? (values[attribute] ?? null) : countSince(windowMs);
    },
    authorization: {
      card_token: facts.card.token,
      account_token: facts.card.account_token,
      amount_cents: facts.amount_cents,
      now_ms: facts.now_ms,
      merchant: facts.merchant,
      approvedSpend: memoized((query) => history.approvedSpend(query)),
    },
  };
}

/** One engine per process: its cache of compiled versions is shared by every request. */
export const ruleEngine = new RuleEngine();

export const authRulesEvaluator: AuthRulesEvaluator = {
  evaluateAuthorization: (input) => ruleEngine.evaluateAuthorization(input),
};
