/** SQL for Auth Rules: rules, versions, targets, the per-day aggregate, and the evaluator's query. */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { anyOf, keysetPage, rememberDeleted, type PageParams, type RowKey } from '../db/pagination.js';
import { insertRows, prepared, preparedWrite } from '../db/prepared.js';
import { EVENT_STREAMS } from './attributes.js';
import type {
  AuthRulesTable,
  AuthRuleTargetsTable,
  AuthRuleVersionsTable,
  TargetKind,
  VersionRole,
} from './tables.js';

export type RuleRow = AuthRulesTable;
export type VersionRow = AuthRuleVersionsTable;
export type TargetRow = AuthRuleTargetsTable;

/** The first examples of a row are kept; the report shows at most this many per day and version. */
export const EXAMPLES_PER_DAY = 5;

// ---- rules --------------------------------------------------------------------------------------

export async function insertRule(exec: Executor, row: RuleRow): Promise<void> {
  await exec.insertInto('auth_rules').values(row).execute();
}

export function findRule(exec: Executor, programId: string, token: string): Promise<RuleRow | undefined> {
  return exec.selectFrom('auth_rules').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/** The rule, locked for the rest of the transaction: changes of one rule apply one after another. */
export function lockRule(db: Db, exec: Executor, programId: string, token: string): Promise<RuleRow | undefined> {
  return db.forUpdate(exec.selectFrom('auth_rules').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

export type RuleChanges = Partial<Omit<RuleRow, 'program_id' | 'token' | 'created_ms'>>;

export async function updateRule(exec: Executor, programId: string, token: string, changes: RuleChanges): Promise<void> {
  await exec.updateTable('auth_rules').set(changes).where('program_id', '=', programId).where('token', '=', token).execute();
}

/** Deletes the rule with its versions, targets and statistics; its place in the list is kept for cursors. */
export async function deleteRule(exec: Executor, programId: string, rule: RowKey, nowMs: number): Promise<void> {
  const { token } = rule;
  await exec.deleteFrom('auth_rule_outcome_rules').where('program_id', '=', programId).where('rule_token', '=', token).execute();
  await exec.deleteFrom('auth_rule_targets').where('program_id', '=', programId).where('rule_token', '=', token).execute();
  await exec.deleteFrom('auth_rule_versions').where('program_id', '=', programId).where('rule_token', '=', token).execute();
  await exec.deleteFrom('auth_rules').where('program_id', '=', programId).where('token', '=', token).execute();
  await rememberDeleted(exec, 'auth_rules', programId, rule, nowMs);
}

export interface ListFilters {
  account_token?: string | undefined;
  business_account_token?: string | undefined;
  card_token?: string | undefined;
  event_stream?: string | undefined;
  scope?: string | undefined;
}

function boundTo(exec: Executor, programId: string, kind: TargetKind, token: string) {
  return exec
    .selectFrom('auth_rule_targets')
    .select('rule_token')
    .where('program_id', '=', programId)
    .where('target_token', '=', token)
    .where('kind', '=', kind);
}

/** Whether the rule `auth_rules` has a target of `kind`: a seek into the targets' primary key. */
function hasTarget(eb: ExpressionBuilder<Database, 'auth_rules'>, programId: string, kind: TargetKind) {
  return eb.exists(
    eb
      .selectFrom('auth_rule_targets as t')
      .select('t.rule_token')
      .where('t.program_id', '=', programId)
      .whereRef('t.rule_token', '=', 'auth_rules.token')
      .where('t.kind', '=', kind),
  );
}

/** The list's filters by binding (card_token, account_token, business_account_token), those given. */
function bindingsOf(filters: ListFilters): Array<[TargetKind, string]> {
  const given: Array<[TargetKind, string | undefined]> = [
    ['CARD', filters.card_token],
    ['ACCOUNT', filters.account_token],
    ['BUSINESS_ACCOUNT', filters.business_account_token],
  ];
  return given.filter((binding): binding is [TargetKind, string] => binding[1] !== undefined);
}

/**
 * The program's rules, or those with the binding `driver`: then a seek into
 * `auth_rule_targets_by_target` (the card's or account's few rules), each rule by primary key, so
 * the page sorts those few; `token in (…)` on a page of `auth_rules_by_created` walked every rule
 * of the program in creation order, asking each whether it was bound. CROSS JOIN keeps SQLite's
 * targets the outer loop (an inner join let it walk the rules in list order to save the sort).
 * Either way the rows are the rules' own: typed as such, since the filters after it name only
 * `auth_rules` columns (qualified, as `program_id` is in both tables).
 */
function rulesOf(exec: Executor, programId: string, driver: [TargetKind, string] | undefined) {
  const rules = exec.selectFrom('auth_rules').selectAll('auth_rules');
  if (driver === undefined) return rules.where('auth_rules.program_id', '=', programId);
  const [kind, token] = driver;
  const bound = exec
    .selectFrom('auth_rule_targets as bound')
    .crossJoin('auth_rules')
    .selectAll('auth_rules')
    .where('bound.program_id', '=', programId)
    .where('bound.target_token', '=', token)
    .where('bound.kind', '=', kind)
    .where('auth_rules.program_id', '=', programId)
    .whereRef('auth_rules.token', '=', 'bound.rule_token');
  return bound as unknown as typeof rules;
}

/** Every state a rule can be in: the rules of a stream and scope are one range of `auth_rules_applying` per state. */
const RULE_STATES: ReadonlyArray<RuleRow['state']> = ['ACTIVE', 'INACTIVE'];

/** The `scope` column of the rules a list's `scope` names (undefined: any): business-bound rules are account-level. */
function scopeColumnOf(scope: string | undefined): RuleRow['scope'] | undefined {
  if (scope === undefined || scope === 'ANY') return undefined;
  return scope === 'BUSINESS_ACCOUNT' ? 'ACCOUNT' : (scope as RuleRow['scope']);
}

/**
 * `scope` is the binding the SDK documents ("bound to the provided scope"): BUSINESS_ACCOUNT, rules
 * with business_account_tokens (only account-level rules have them); ACCOUNT, account-level rules
 * but those bound only to business accounts (a rule with both lists is under both; one whose lists
 * were emptied stays ACCOUNT, as an emptied card-level rule stays CARD). The first binding filter
 * given drives the query (`rulesOf`); any other is a condition on its rules. Without one, a scope
 * is one range of `auth_rules_by_scope`, a stream one range of `auth_rules_by_stream` (migration
 * 0034), and both one range of `auth_rules_applying` per state (`anyOf`), in list order: it reads
 * only the scope's (and stream's) rules, never the program's others. ACCOUNT and BUSINESS_ACCOUNT then ask each
 * account-level rule read for its targets (a seek into their primary key): a page of
 * BUSINESS_ACCOUNT reads account-level rules, newest first, until it has a page of business-bound
 * ones.
 */
export function listRules(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  const [driver, ...others] = bindingsOf(filters);
  let query = rulesOf(exec, programId, driver);
  if (filters.event_stream !== undefined) query = query.where('auth_rules.event_stream', '=', filters.event_stream);
  const scope = scopeColumnOf(filters.scope);
  if (scope !== undefined) query = query.where('auth_rules.scope', '=', scope);
  if (filters.scope === 'BUSINESS_ACCOUNT') query = query.where((eb) => hasTarget(eb, programId, 'BUSINESS_ACCOUNT'));
  if (filters.scope === 'ACCOUNT') query = query.where((eb) => eb.or([hasTarget(eb, programId, 'ACCOUNT'), eb.not(hasTarget(eb, programId, 'BUSINESS_ACCOUNT'))]));
  for (const [kind, token] of others) query = query.where('auth_rules.token', 'in', boundTo(exec, programId, kind, token));
  const byState = driver === undefined && scope !== undefined && filters.event_stream !== undefined;
  return keysetPage(exec, byState ? anyOf(query, ['auth_rules.state'], RULE_STATES) : query, 'auth_rules', programId, page);
}

// ---- versions -----------------------------------------------------------------------------------

export async function insertVersion(exec: Executor, row: VersionRow): Promise<void> {
  await exec.insertInto('auth_rule_versions').values(row).execute();
}

/** Records when a version stopped holding a role (a draft replaced, cleared or promoted; a current version replaced). */
export async function endRole(exec: Executor, programId: string, ruleToken: string, version: number, role: VersionRole, atMs: number): Promise<void> {
  const column = role === 'DRAFT' ? 'draft_until_ms' : 'current_until_ms';
  await exec
    .updateTable('auth_rule_versions')
    .set({ [column]: atMs })
    .where('program_id', '=', programId)
    .where('rule_token', '=', ruleToken)
    .where('version', '=', version)
    .execute();
}

export async function startCurrent(exec: Executor, programId: string, ruleToken: string, version: number, atMs: number): Promise<void> {
  await exec
    .updateTable('auth_rule_versions')
    .set({ current_from_ms: atMs })
    .where('program_id', '=', programId)
    .where('rule_token', '=', ruleToken)
    .where('version', '=', version)
    .execute();
}

/** Every version of a rule with the periods it held each role (the report's "did it exist that day"). */
export function versionPeriods(exec: Executor, programId: string, ruleToken: string) {
  return exec
    .selectFrom('auth_rule_versions')
    .select(['version', 'draft_from_ms', 'draft_until_ms', 'current_from_ms', 'current_until_ms'])
    .where('program_id', '=', programId)
    .where('rule_token', '=', ruleToken)
    .execute();
}

// ---- targets ------------------------------------------------------------------------------------

/** The targets of some rules, in one query: each rule's lists in the order the client gave them. */
export function targetsOf(exec: Executor, programId: string, ruleTokens: readonly string[]): Promise<TargetRow[]> {
  if (ruleTokens.length === 0) return Promise.resolve([]);
  return exec
    .selectFrom('auth_rule_targets')
    .selectAll()
    .where('program_id', '=', programId)
    .where('rule_token', 'in', ruleTokens)
    .orderBy('rule_token')
    .orderBy('kind')
    .orderBy('position')
    .orderBy('target_token')
    .execute();
}

/** Replaces the rule's targets of the given kinds with `tokens` per kind, each at its place in `tokens`. */
export async function replaceTargets(
  exec: Executor,
  programId: string,
  ruleToken: string,
  targets: ReadonlyArray<{ kind: TargetKind; tokens: readonly string[] }>,
): Promise<void> {
  if (targets.length === 0) return;
  await exec
    .deleteFrom('auth_rule_targets')
    .where('program_id', '=', programId)
    .where('rule_token', '=', ruleToken)
    .where(
      'kind',
      'in',
      targets.map((target) => target.kind),
    )
    .execute();
  const rows = targets.flatMap(({ kind, tokens }) => tokens.map((target_token, position) => ({ program_id: programId, rule_token: ruleToken, kind, target_token, position })));
  if (rows.length > 0) await exec.insertInto('auth_rule_targets').values(rows).execute();
}

/** Which of `tokens` are cards (or accounts) of the program: one query for the whole list. */
export async function existingTokens(exec: Executor, programId: string, table: 'cards' | 'accounts', tokens: readonly string[]): Promise<Set<string>> {
  if (tokens.length === 0) return new Set();
  const rows = await exec.selectFrom(table).select('token').where('program_id', '=', programId).where('token', 'in', tokens).execute();
  return new Set(rows.map((row) => row.token));
}

/** Which of `accountTokens` are accounts of a BUSINESS holder of the program. */
export async function businessAccounts(exec: Executor, programId: string, accountTokens: readonly string[]): Promise<Set<string>> {
  if (accountTokens.length === 0) return new Set();
  const rows = await accountHolders(exec, programId).select('a.token').where('a.token', 'in', accountTokens).where('h.user_type', '=', 'BUSINESS').execute();
  return new Set(rows.map((row) => row.token));
}

/** The program's accounts `a` joined to their holders `h` (by primary keys). */
function accountHolders(exec: Executor, programId: string) {
  return exec
    .selectFrom('accounts as a')
    .innerJoin('account_holders as h', (join) => join.onRef('h.program_id', '=', 'a.program_id').onRef('h.token', '=', 'a.account_holder_token'))
    .where('a.program_id', '=', programId);
}

// ---- which rules apply (card and account responses) ---------------------------------------------

/** The business account each of `accountTokens` belongs to (its holder is an authorized user of it), for those that have one. */
export async function businessAccountsOf(exec: Executor, programId: string, accountTokens: readonly string[]): Promise<Map<string, string>> {
  if (accountTokens.length === 0) return new Map();
  const rows = await accountHolders(exec, programId)
    .select(['a.token', 'h.business_account_token'])
    .where('a.token', 'in', accountTokens)
    .where('h.business_account_token', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.token, row.business_account_token as string]));
}

/**
 * The program's ACTIVE program-level rules: a covering index seek per stream (`auth_rules_applying`).
 * Unordered: asked to order by creation, SQLite walks every rule of the program in creation order
 * instead, to save the sort (`activeProgramRules` sorts the few it finds).
 */
export function activeProgramRulesQuery(exec: Executor, programId: string) {
  return exec
    .selectFrom('auth_rules')
    .select(['token', 'created_ms'])
    .where('program_id', '=', programId)
    .where('event_stream', 'in', EVENT_STREAMS)
    .where('state', '=', 'ACTIVE')
    .where('scope', '=', 'PROGRAM');
}

/** Tokens of the program's ACTIVE program-level rules, oldest first. */
export async function activeProgramRules(exec: Executor, programId: string): Promise<Array<{ token: string }>> {
  const rules = await activeProgramRulesQuery(exec, programId).execute();
  return rules.sort((a, b) => a.created_ms - b.created_ms || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

/** The targets naming any of `targetTokens` (cards, accounts, exclusions) of ACTIVE rules, oldest rule first. */
export function activeTargetsNaming(exec: Executor, programId: string, targetTokens: readonly string[]) {
  if (targetTokens.length === 0) return Promise.resolve([]);
  return exec
    .selectFrom('auth_rule_targets as t')
    .innerJoin('auth_rules as r', (join) => join.onRef('r.program_id', '=', 't.program_id').onRef('r.token', '=', 't.rule_token'))
    .select(['t.rule_token', 't.kind', 't.target_token'])
    .where('t.program_id', '=', programId)
    .where('t.target_token', 'in', targetTokens)
    .where('r.state', '=', 'ACTIVE')
    .orderBy('r.created_ms')
    .orderBy('r.token')
    .execute();
}

// ---- the evaluator's query ----------------------------------------------------------------------

export interface ApplicableRuleRow {
  token: string;
  name: string | null;
  type: string;
  current_version: number | null;
  draft_version: number | null;
  created_ms: number;
}

/**
 * The parameters of some rule versions (a response's current and draft versions, the evaluator's
 * versions not compiled yet), by `rule_token/version`: the versions named, never "the rule's
 * current one", so that they match the rule rows the caller read, even if the rule changed since
 * (versions never change). One query; it may also return other versions of these rules.
 */
export async function versionParameters(
  exec: Executor,
  programId: string,
  versions: ReadonlyArray<{ rule_token: string; version: number }>,
): Promise<Map<string, string>> {
  if (versions.length === 0) return new Map();
  const rows = await exec
    .selectFrom('auth_rule_versions')
    .select(['rule_token', 'version', 'parameters'])
    .where('program_id', '=', programId)
    .where('rule_token', 'in', [...new Set(versions.map((version) => version.rule_token))])
    .where('version', 'in', [...new Set(versions.map((version) => version.version))])
    .execute();
  return new Map(rows.map((row) => [`${row.rule_token}/${row.version}`, row.parameters]));
}

/**
 * The ACTIVE rules of a stream that apply to a card, with their current and draft version numbers
 * (parameters are read only for versions not compiled yet, see `versionParameters`): ONE query per
 * event, whatever the number of rules. The rules come from index seeks (the program-level rules of
 * the stream; the rules bound to the card; those bound to its account; those bound to it as a
 * business account, or to the business account its holder is an authorized user of, found by
 * primary key), never a scan of the program's rules. UNION ALL, computed first (a MATERIALIZED
 * common table expression, so that no planner folds it into a walk of every rule), then joined to
 * the rules by primary key; an account-level rule bound both to the account and to its business
 * comes twice and is kept once (`applicableRules`).
 * Program-level rules excluding the card drop out: the card's exclusions are one more index seek,
 * read once (a NOT IN subquery), not a lookup per rule.
 */
const selectApplicable = prepared((db, programId: string, stream: string, cardToken: string, accountToken: string) => {
  const bound = (kind: TargetKind, token: string) =>
    db.selectFrom('auth_rule_targets').select('rule_token').where('program_id', '=', programId).where('target_token', '=', token).where('kind', '=', kind);
  const programLevel = db
    .selectFrom('auth_rules')
    .select('token as rule_token')
    .where('program_id', '=', programId)
    .where('event_stream', '=', stream)
    .where('state', '=', 'ACTIVE')
    .where('scope', '=', 'PROGRAM');
  return db
    .with(
      (cte) => cte('c').materialized(),
      () =>
        programLevel
          .unionAll(bound('CARD', cardToken))
          .unionAll(bound('ACCOUNT', accountToken))
          .unionAll(bound('BUSINESS_ACCOUNT', accountToken))
          .unionAll(
            db
              .selectFrom('auth_rule_targets')
              .select('rule_token')
              .where('program_id', '=', programId)
              .where('kind', '=', 'BUSINESS_ACCOUNT')
              .where('target_token', 'in', accountHolders(db, programId).select('h.business_account_token').where('a.token', '=', accountToken)),
          ),
    )
    .selectFrom('c')
    // CROSS JOIN: SQLite keeps `c` as the outer loop (each candidate, then the rule by primary key).
    .crossJoin('auth_rules as r')
    .select([
      'r.token',
      'r.name',
      'r.type',
      'r.current_version',
      'r.draft_version',
      'r.created_ms',
    ])
    .where('r.program_id', '=', programId)
    .whereRef('r.token', '=', 'c.rule_token')
    .where('r.event_stream', '=', stream)
    .where('r.state', '=', 'ACTIVE')
    .where('r.token', 'not in', bound('EXCLUDED_CARD', cardToken));
});

const selectRulesVersion = prepared((db, programId: string) => db.selectFrom('programs').select('rules_version').where('id', '=', programId));

/** The program's rules version (migration 0010): equal values mean the same rules and targets. */
export async function rulesVersion(exec: Executor, programId: string): Promise<string> {
  const [row] = await selectRulesVersion(exec, programId);
  return row?.rules_version ?? '';
}

/** Oldest rule first, each once. Sorted here, not in SQL: an ORDER BY led SQLite to walk all the program's rules in creation order. */
export async function applicableRules(exec: Executor, programId: string, stream: string, cardToken: string, accountToken: string): Promise<ApplicableRuleRow[]> {
  const rows = await selectApplicable(exec, programId, stream, cardToken, accountToken);
  const once = [...new Map(rows.map((row) => [row.token, row])).values()];
  return once.sort((a, b) => a.created_ms - b.created_ms || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

// ---- the per-day aggregate, by outcome ------------------------------------------------------------

/** Adds one event to its outcome's counter for the day; returns the counter afterwards. */
const upsertOutcomeDay = prepared((db, programId: string, hash: string, day: string, shard: number, example: string) =>
  db
    .insertInto('auth_rule_outcome_days')
    .values({ program_id: programId, hash, day, shard, count: 1, examples: example })
    .onConflict((conflict) =>
      conflict.columns(['program_id', 'hash', 'day', 'shard']).doUpdateSet((eb) => ({
        count: eb('auth_rule_outcome_days.count', '+', 1),
        examples: eb
          .case()
          .when(sql<boolean>`auth_rule_outcome_days.count < ${EXAMPLES_PER_DAY}`)
          .then(sql<string>`auth_rule_outcome_days.examples || excluded.examples`)
          .else(eb.ref('auth_rule_outcome_days.examples'))
          .end(),
      })),
    )
    .returning('count'),
);

const insertOutcome = preparedWrite((db, programId: string, hash: string, verdicts: string, createdMs: number) =>
  db
    .insertInto('auth_rule_outcomes')
    .values({ program_id: programId, hash, verdicts, created_ms: createdMs })
    .onConflict((conflict) => conflict.columns(['program_id', 'hash']).doNothing()),
);

const OUTCOME_RULES_PER_STATEMENT = 500;

export interface OutcomeEvent {
  programId: string;
  hash: string;
  /** JSON of the verdicts (see tables.ts). */
  verdicts: string;
  ruleTokens: readonly string[];
  day: string;
  shard: number;
  /** One line `{"event_token":…,"timestamp":…}\n`. */
  example: string;
  nowMs: number;
}

/**
 * Records one evaluated event: ONE statement in the usual case (the outcome's day counter already
 * exists), whatever the number of rules. The first event of an outcome on a day also makes sure
 * the outcome is stored; the very first event of an outcome stores which rules took part.
 */
export async function addOutcomeEvent(exec: Executor, event: OutcomeEvent): Promise<void> {
  const [counter] = await upsertOutcomeDay(exec, event.programId, event.hash, event.day, event.shard, event.example);
  if (counter !== undefined && Number(counter.count) > 1) return;
  const inserted = await insertOutcome(exec, event.programId, event.hash, event.verdicts, event.nowMs);
  if (inserted === 0) return;
  for (let start = 0; start < event.ruleTokens.length; start += OUTCOME_RULES_PER_STATEMENT) {
    const tokens = event.ruleTokens.slice(start, start + OUTCOME_RULES_PER_STATEMENT);
    await insertRows(
      exec,
      'auth_rule_outcome_rules',
      tokens.map((ruleToken) => ({ program_id: event.programId, rule_token: ruleToken, hash: event.hash })),
    );
  }
}

/** The day counters, for `begin`..`end` (inclusive), of every outcome a rule took part in. */
export function outcomeDaysOfRule(exec: Executor, programId: string, ruleToken: string, begin: string, end: string) {
  return exec
    .selectFrom('auth_rule_outcome_rules as r')
    .innerJoin('auth_rule_outcome_days as d', (join) => join.onRef('d.program_id', '=', 'r.program_id').onRef('d.hash', '=', 'r.hash'))
    .select(['d.hash', 'd.day', 'd.count', 'd.examples'])
    .where('r.program_id', '=', programId)
    .where('r.rule_token', '=', ruleToken)
    .where('d.day', '>=', begin)
    .where('d.day', '<=', end)
    .execute();
}

export async function outcomeVerdicts(exec: Executor, programId: string, hashes: readonly string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await exec
    .selectFrom('auth_rule_outcomes')
    .select(['hash', 'verdicts'])
    .where('program_id', '=', programId)
    .where('hash', 'in', hashes)
    .execute();
  return new Map(rows.map((row) => [row.hash, row.verdicts]));
}
