/**
 * The Auth Rules evaluator the authorization engine calls (engine/rules-seam.ts), and the shared
 * evaluation the 3DS stream uses (three_ds/service.ts).
 *
 * For one event: ONE query loads the ACTIVE rules of the stream that apply to the card with their
 * current and draft parameters (store.applicableRules). It is skipped when the program's rules
 * version (one primary-key read, or none when the caller read it with the card) is the one this
 * process last loaded them at for the card: every change to rules or targets, by any process,
 * gives a new version. Each (rule, version) is
 * compiled once and kept (versions are immutable, so the cache can never be stale). Every current
 * version is evaluated and enforced, every draft version evaluated in shadow; then the event's
 * verdicts, as one *outcome*, add one to that outcome's counter for the day (the per-day aggregate
 * the report reads; see tables.ts), as the transaction's last write: the verdicts are answered at
 * once, the counter is upserted just before the commit, after every lock the caller takes (the
 * lock order, docs/architecture.md; `recordOutcomeLast`). History (velocity sums, transaction
 * counts) is read only through the engine's indexed `AuthorizationHistory`, each distinct query at
 * most once per event.
 * So an event costs 2 statements (1 when the caller gives the version) plus its distinct history
 * queries: neither grows with past transactions, and the writes do not grow with the number of
 * rules.
 */
import crypto from 'node:crypto';
import { isoTimestamp } from '../clock.js';
import { GenerationalMap } from '../generational-map.js';
import { afterCommitOf, beforeCommitOf, type Executor, type Tx } from '../db/database.js';
import type { AuthorizationFacts, AuthorizationHistory, AuthRulesEvaluator, RuleResult } from '../engine/rules-seam.js';
import { TRANSACTION_COUNT_WINDOWS_MS, type AuthRuleType, type EventStream } from './attributes.js';
import type { AttributeValue } from './conditions.js';
import type { AuthRuleParameters } from './parameters.js';
import { exampleLine, type StoredVerdict } from './report.js';
import { compileRule, type CompiledRule, type RuleInput, type Verdict } from './rules.js';
import * as store from './store.js';
import type { VersionRole } from './tables.js';

/** An outcome's day counter is split over this many shards (by event), against row-lock contention. */
export const STAT_SHARDS = 8;
const CACHE_GENERATION = 10_000;

export interface RuleEvaluation {
  rule_token: string;
  name: string | null;
  role: VersionRole;
  version: number;
  verdict: Verdict;
}

/**
 * Compiled rule versions by (program, rule, version). Safe to share across requests and databases:
 * a version's parameters never change and tokens are unique.
 */
export class CompiledRuleCache {
  readonly #compiled: GenerationalMap<CompiledRule>;
  constructor(generationSize: number = CACHE_GENERATION) {
    this.#compiled = new GenerationalMap(generationSize);
  }

  /**
   * The compiled version; `parameters` (its JSON, read through `exec`) is asked for only if it is
   * not compiled yet. Read inside a transaction, it is kept once that transaction commits: until
   * then the version may not exist for good (with SQLite's group commit a transaction sees the
   * uncommitted draft of another write of its group; if their COMMIT fails, the next draft of the
   * rule takes the same number with other parameters).
   */
  get(exec: Executor, programId: string, ruleToken: string, version: number, type: string, parameters: () => string): CompiledRule {
    const key = `${programId}/${ruleToken}/${version}`;
    const cached = this.#compiled.get(key);
    if (cached !== undefined) return cached;
    const compiled = compileRule(type as AuthRuleType, JSON.parse(parameters()) as AuthRuleParameters);
    const keep = () => this.#compiled.set(key, compiled);
    if (!afterCommitOf(exec as Tx, keep)) keep();
    return compiled;
  }

  /** The version compiled already (so its parameters need not be read), or undefined. */
  compiled(programId: string, ruleToken: string, version: number): CompiledRule | undefined {
    return this.#compiled.get(`${programId}/${ruleToken}/${version}`);
  }
}

/** One version of one rule to run on an event. */
interface RuleRun {
  rule_token: string;
  name: string | null;
  role: VersionRole;
  version: number;
  rule: CompiledRule;
}

/**
 * What runs for the events of one card, at one rules version: the runs (oldest rule first, its
 * current version then its draft), the order of their verdicts in an outcome (by rule token, then
 * role), and the rules' tokens.
 */
interface ApplicableRuns {
  rules_version: string;
  runs: readonly RuleRun[];
  outcome_order: readonly number[];
  rule_tokens: readonly string[];
}

function applicableRuns(rulesVersion: string, runs: RuleRun[]): ApplicableRuns {
  const outcomeOrder = runs
    .map((_, index) => index)
    .sort((i, j) => {
      const a = runs[i] as RuleRun;
      const b = runs[j] as RuleRun;
      return a.rule_token < b.rule_token ? -1 : a.rule_token > b.rule_token ? 1 : a.role < b.role ? -1 : a.role > b.role ? 1 : 0;
    });
  return Object.freeze({ rules_version: rulesVersion, runs, outcome_order: outcomeOrder, rule_tokens: [...new Set(runs.map((run) => run.rule_token))] });
}

interface StreamEvent {
  programId: string;
  stream: EventStream;
  card_token: string;
  account_token: string;
  event_token: string;
  now_ms: number;
  input: RuleInput;
  /** The program's rules version, when the caller read it in this transaction already (else read here). */
  rules_version?: string | undefined;
}

/** Which shard of the aggregate an event's verdicts go to: stable per event, spread across events. */
function shardOf(eventToken: string): number {
  let hash = 0;
  for (let index = eventToken.length - 4; index < eventToken.length; index++) hash = (hash * 31 + eventToken.charCodeAt(Math.max(index, 0))) >>> 0;
  return hash % STAT_SHARDS;
}

/**
 * Adds the event's verdicts, as one outcome, to the per-day aggregate, as the last write of the
 * event's transaction (`beforeCommitOf`, once its work is done): the day counter's upsert locks a
 * row shared by every event of that outcome, shard and day, on any card or account, so it is taken
 * after every row, balance and spend bucket the write locks (the documented lock order). Counted
 * earlier, an authorization that expired another account's hold, holding that balance, would wait
 * for the counter held by an authorization on that account which then needs its own balance.
 * At once when `exec` is not a transaction `Db.transaction` opened.
 */
async function recordOutcomeLast(exec: Executor, event: StreamEvent, applicable: ApplicableRuns, evaluations: readonly RuleEvaluation[]): Promise<void> {
  const record = () => recordOutcome(exec, event, applicable, evaluations);
  if (!beforeCommitOf(exec as Tx, record)) await record();
}

/** Adds the event's verdicts, as one outcome, to the per-day aggregate. */
async function recordOutcome(exec: Executor, event: StreamEvent, applicable: ApplicableRuns, evaluations: readonly RuleEvaluation[]): Promise<void> {
  if (evaluations.length === 0) return;
  const verdicts = applicable.outcome_order.map((index): StoredVerdict => {
    const evaluation = evaluations[index] as RuleEvaluation;
    return [evaluation.rule_token, evaluation.role, evaluation.version, evaluation.verdict.decision];
  });
  const json = JSON.stringify(verdicts);
  const timestamp = isoTimestamp(event.now_ms);
  await store.addOutcomeEvent(exec, {
    programId: event.programId,
    // One-shot crypto.hash: it runs for every evaluated event, and costs a third of createHash's.
    hash: crypto.hash('sha256', json, 'hex').slice(0, 32),
    verdicts: json,
    ruleTokens: applicable.rule_tokens,
    day: timestamp.slice(0, 'YYYY-MM-DD'.length), // isoDate(event.now_ms), from the timestamp formatted anyway
    shard: shardOf(event.event_token),
    example: exampleLine({ event_token: event.event_token, timestamp }),
    nowMs: event.now_ms,
  });
}

class RuleEngine {
  readonly #applicable = new GenerationalMap<ApplicableRuns>(CACHE_GENERATION);
  constructor(readonly cache: CompiledRuleCache = new CompiledRuleCache()) {}

  /**
   * What runs for the event's card: from memory while the program's rules version is the one it was
   * read at (every change to rules or targets, by any process, gives a new version).
   */
  async #applicableRuns(exec: Executor, event: StreamEvent): Promise<ApplicableRuns> {
    const rulesVersion = event.rules_version ?? (await store.rulesVersion(exec, event.programId));
    const key = `${event.programId}|${event.stream}|${event.card_token}|${event.account_token}`;
    const cached = this.#applicable.get(key);
    if (cached?.rules_version === rulesVersion) return cached;
    const rows = await store.applicableRules(exec, event.programId, event.stream, event.card_token, event.account_token);
    const applicable = applicableRuns(rulesVersion, await this.#runs(exec, event.programId, rows));
    this.#applicable.set(key, applicable);
    return applicable;
  }

  /**
   * The versions to run for each applicable rule: the current one (enforced), then the draft
   * (shadow). Versions are immutable, so a compiled one is reused; parameters are read (one query)
   * only for versions this process has not compiled yet.
   *
   * A version neither compiled nor found belongs to a rule deleted since `rows` were read: on
   * PostgreSQL each statement of the transaction sees what committed before it, and a version is
   * only ever deleted with its rule. That rule no longer exists, so it does not run.
   */
  async #runs(exec: Executor, programId: string, rows: readonly store.ApplicableRuleRow[]): Promise<RuleRun[]> {
    const wanted = rows.flatMap((row) =>
      ([['CURRENT', row.current_version], ['DRAFT', row.draft_version]] as const)
        .filter((run): run is readonly [VersionRole, number] => run[1] !== null)
        .map(([role, version]) => ({ row, role, version, compiled: this.cache.compiled(programId, row.token, version) })),
    );
    const parameters = await store.versionParameters(
      exec,
      programId,
      wanted.filter(({ compiled }) => compiled === undefined).map(({ row, version }) => ({ rule_token: row.token, version })),
    );
    return wanted.flatMap(({ row, role, version, compiled }) => {
      const text = parameters.get(`${row.token}/${version}`);
      const rule = compiled ?? (text === undefined ? undefined : this.cache.get(exec, programId, row.token, version, row.type, () => text));
      return rule === undefined ? [] : [{ rule_token: row.token, name: row.name, role, version, rule }];
    });
  }

  /** Evaluates and records every applicable rule version for one event; returns every evaluation. */
  async evaluate(exec: Executor, event: StreamEvent): Promise<RuleEvaluation[]> {
    const applicable = await this.#applicableRuns(exec, event);
    const evaluations: RuleEvaluation[] = [];
    for (const { rule_token, name, role, version, rule } of applicable.runs) {
      evaluations.push({ rule_token, name, role, version, verdict: await rule(event.input) });
    }
    await recordOutcomeLast(exec, event, applicable, evaluations);
    return evaluations;
  }

  async evaluateAuthorization(input: Parameters<AuthRulesEvaluator['evaluateAuthorization']>[0]): Promise<RuleResult[]> {
    const { tx, scope, facts, history, rules_version } = input;
    const evaluations = await this.evaluate(tx, {
      programId: scope.programId,
      stream: 'AUTHORIZATION',
      card_token: facts.card.token,
      account_token: facts.card.account_token,
      event_token: facts.event_token,
      now_ms: facts.now_ms,
      input: authorizationInput(facts, history),
      rules_version,
    });
    return enforcedDeclines(evaluations);
  }
}

/**
 * The rule_results of the enforced declines, in evaluation order (shadow verdicts never appear).
 * A challenge declines the authorization too, but only when no rule declines it outright: the
 * cardholder is not asked to confirm a purchase that would be declined anyway.
 */
function enforcedDeclines(evaluations: readonly RuleEvaluation[]): RuleResult[] {
  const enforced = evaluations.filter((evaluation) => evaluation.role === 'CURRENT');
  const declining = enforced.filter((evaluation) => evaluation.verdict.decision === 'DECLINED');
  return (declining.length > 0 ? declining : enforced.filter((evaluation) => evaluation.verdict.decision === 'CHALLENGED'))
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
      counts_as_spend: facts.counts_as_spend,
      now_ms: facts.now_ms,
      merchant: facts.merchant,
      pan_entry_mode: facts.pan_entry_mode,
      approvedSpend: memoized((query) => history.approvedSpend(query)),
    },
  };
}

/** One engine per process: its cache of compiled versions is shared by every request. */
export const ruleEngine = new RuleEngine();

export const authRulesEvaluator: AuthRulesEvaluator = {
  evaluateAuthorization: (input) => ruleEngine.evaluateAuthorization(input),
};
