/**
 * Auth Rules v2 (spec 2.1, 2.2, 3.4).
 *
 * - `auth_rules`: one row per rule: its type and stream, its scope, its state, and which of its
 *   versions is current (enforced) and which is the draft (shadow). `latest_version` numbers new
 *   versions, so `version` only ever increases.
 * - `auth_rule_versions`: the parameters of each version, immutable once written (the evaluator
 *   caches them compiled by rule and version). The `*_from_ms` / `*_until_ms` columns record when
 *   the version held each role, which is what "null when that version did not exist that day"
 *   in the report reads.
 * - `auth_rule_targets`: the accounts, business accounts or cards a rule applies to, or the cards a
 *   program-level rule excludes. A business account (the account of a BUSINESS holder) stands for
 *   itself and the accounts of its authorized users (holders whose `business_account_token` it is).
 *   Each list keeps the client's order (`position`).
 * - the per-day aggregate the report reads, by *outcome*: an event's whole set of verdicts (which
 *   rule versions ran and how each decided), stored once in `auth_rule_outcomes` (with
 *   `auth_rule_outcome_rules` saying which rules took part); each evaluated event adds one to its
 *   outcome's counter for the day in `auth_rule_outcome_days`, whatever the number of rules. Day
 *   rows are split into a few shards so that concurrent events of one outcome do not all wait on
 *   one row; an event's write locks its row last, just before it commits (the lock order:
 *   evaluator.ts `recordOutcomeLast`).
 */
export type AuthRuleScope = 'PROGRAM' | 'ACCOUNT' | 'CARD' | 'NONE';
export type TargetKind = 'ACCOUNT' | 'BUSINESS_ACCOUNT' | 'CARD' | 'EXCLUDED_CARD';
export type VersionRole = 'CURRENT' | 'DRAFT';

export interface AuthRulesTable {
  program_id: string;
  token: string;
  type: string;
  event_stream: string;
  name: string | null;
  state: 'ACTIVE' | 'INACTIVE';
  /** NONE: detached (`program_level: false` on a program-level rule); it applies to nothing. */
  scope: AuthRuleScope;
  current_version: number | null;
  draft_version: number | null;
  latest_version: number;
  created_ms: number;
  updated_ms: number;
}

export interface AuthRuleVersionsTable {
  program_id: string;
  rule_token: string;
  version: number;
  /** The validated parameters, JSON. Never changes. */
  parameters: string;
  draft_from_ms: number;
  draft_until_ms: number | null;
  current_from_ms: number | null;
  current_until_ms: number | null;
  created_ms: number;
}

export interface AuthRuleTargetsTable {
  program_id: string;
  rule_token: string;
  kind: TargetKind;
  target_token: string;
  /** The token's place in the list the client gave (from 0; migration 0029): lists are answered in that order. */
  position: number;
}

interface AuthRuleOutcomesTable {
  program_id: string;
  /** SHA-256 (hex, 32 characters) of `verdicts`. */
  hash: string;
  /** JSON array of [rule_token, role, version, decision], sorted by rule and role. */
  verdicts: string;
  created_ms: number;
}

interface AuthRuleOutcomeRulesTable {
  program_id: string;
  rule_token: string;
  hash: string;
}

interface AuthRuleOutcomeDaysTable {
  program_id: string;
  hash: string;
  /** UTC `YYYY-MM-DD` of the evaluations, by the program clock. */
  day: string;
  shard: number;
  /** Events with this outcome that day (in this shard). */
  count: number;
  /** The first events of the row, one JSON object `{event_token, timestamp}` per line (at most EXAMPLES_PER_DAY). */
  examples: string;
}

export interface AuthRuleTables {
  auth_rules: AuthRulesTable;
  auth_rule_versions: AuthRuleVersionsTable;
  auth_rule_targets: AuthRuleTargetsTable;
  auth_rule_outcomes: AuthRuleOutcomesTable;
  auth_rule_outcome_rules: AuthRuleOutcomeRulesTable;
  auth_rule_outcome_days: AuthRuleOutcomeDaysTable;
}
