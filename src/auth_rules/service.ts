/**
 * Auth Rules v2 (spec 2.1, 3.4, 4.1, 4.2; reference 01): create, read, list, update (seed 4.1),
 * draft, promote, delete, and the performance report (seed 4.2). Evaluation is evaluator.ts.
 *
 * A rule has exactly one scope: program-level (minus excluded cards), account-level (accounts
 * and, SDK 0.119, business accounts) or card-level (`NONE` once a program-level rule is given
 * `program_level: false`: it then applies to nothing until a scope is given again). Its
 * parameters live in immutable versions numbered by `latest_version`: a new rule holds version 1
 * as its draft (shadow) and no current version; each new draft takes the next number; promoting
 * makes the draft the current (enforced) version and activates the rule. Every change locks the
 * rule row first, so changes of one rule apply one after another.
 */
import { isoDate } from '../clock.js';
import { changedColumns, isEmpty } from '../db/changes.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import { newToken } from '../ids.js';
import type { ListResponse } from '../http/schemas.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { STREAM_OF_TYPE, type AuthRuleType, type EventStream } from './attributes.js';
import { parseParameters } from './parameters.js';
import { checkReportRange, dailyStatistics, ruleDailyRows } from './report.js';
import type { AuthRule, CreateAuthRuleBody, DraftAuthRuleBody, ListAuthRulesQuery, Report, ReportQuery, RuleVersion, UpdateAuthRuleBody } from './schemas.js';
import * as store from './store.js';
import type { AuthRuleScope, TargetKind } from './tables.js';

// ---- responses ----------------------------------------------------------------------------------

function versionOf(parameters: Map<string, string>, token: string, version: number | null): RuleVersion | null {
  if (version === null) return null;
  const text = parameters.get(`${token}/${version}`);
  return text === undefined ? null : { parameters: JSON.parse(text) as Record<string, unknown>, version };
}

function toApi(row: store.RuleRow, targets: readonly store.TargetRow[], parameters: Map<string, string>): AuthRule {
  const tokensOf = (kind: TargetKind) => targets.filter((target) => target.kind === kind).map((target) => target.target_token);
  return {
    token: row.token,
    state: row.state,
    type: row.type as AuthRule['type'],
    event_stream: row.event_stream as AuthRule['event_stream'],
    name: row.name,
    account_tokens: tokensOf('ACCOUNT'),
    business_account_tokens: tokensOf('BUSINESS_ACCOUNT'),
    card_tokens: tokensOf('CARD'),
    program_level: row.scope === 'PROGRAM',
    ...(row.scope === 'PROGRAM' ? { excluded_card_tokens: tokensOf('EXCLUDED_CARD') } : {}),
    current_version: versionOf(parameters, row.token, row.current_version),
    draft_version: versionOf(parameters, row.token, row.draft_version),
    lithic_managed: false,
  };
}

/**
 * Rules with their targets and the versions their rows name: two queries for any number of rules.
 * Its statements and the one that read `rows` must see one state of the rules: run them in one
 * snapshot (`db.snapshot`: GET and list) or in the transaction that locked the rule (a write's
 * response); otherwise a change committed between them pairs the old scope with the new targets.
 * The versions are those the rows name, never "the rule's current one" (versions never change).
 */
async function render(exec: Executor, programId: string, rows: readonly store.RuleRow[]): Promise<AuthRule[]> {
  const targets = await store.targetsOf(exec, programId, rows.map((row) => row.token));
  const named = rows.flatMap((row) => [row.current_version, row.draft_version].flatMap((version) => (version === null ? [] : [{ rule_token: row.token, version }])));
  const parameters = await store.versionParameters(exec, programId, named);
  return rows.map((row) => toApi(row, targets.filter((target) => target.rule_token === row.token), parameters));
}

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<AuthRule> {
  const row = await store.findRule(exec, scope.programId, token);
  if (!row) throw notFound('auth rule', token);
  const [rule] = await render(exec, scope.programId, [row]);
  return rule as AuthRule;
}

/** Newest first. `scope` ACCOUNT: rules with account_tokens; BUSINESS_ACCOUNT: rules with business_account_tokens (a rule with both is under both); ANY: every rule. */
export async function list(exec: Executor, scope: ProgramScope, query: ListAuthRulesQuery): Promise<ListResponse<AuthRule>> {
  const { page_size, starting_after, ending_before, ...filters } = query;
  const { rows, has_more } = await store.listRules(exec, scope.programId, filters, { page_size, starting_after, ending_before });
  return { data: await render(exec, scope.programId, rows), has_more };
}

// ---- scope and targets --------------------------------------------------------------------------

const RESOURCE_OF_FIELD = { account_tokens: 'account', business_account_tokens: 'account', card_tokens: 'card', excluded_card_tokens: 'card' } as const;
type TokenField = keyof typeof RESOURCE_OF_FIELD;

/**
 * A token list as given: no duplicates (400), every token a card or account of this program (404,
 * naming the first unknown one), every business account the account of a BUSINESS holder (422).
 * One query per list (two for business accounts).
 */
async function checkTokens(exec: Executor, programId: string, field: TokenField, tokens: readonly string[]): Promise<void> {
  const firstIndex = new Map<string, number>();
  tokens.forEach((token, index) => {
    const seen = firstIndex.get(token);
    if (seen !== undefined) throw new InvalidRequestError(`${field}[${index}]: duplicate of ${field}[${seen}] ('${token}')`);
    firstIndex.set(token, index);
  });
  const resource = RESOURCE_OF_FIELD[field];
  const found = await store.existingTokens(exec, programId, resource === 'card' ? 'cards' : 'accounts', tokens);
  const missing = tokens.findIndex((token) => !found.has(token));
  if (missing >= 0) throw notFound(resource, tokens[missing] as string, `${field}[${missing}]`);
  if (field !== 'business_account_tokens') return;
  const businesses = await store.businessAccounts(exec, programId, tokens);
  const notBusiness = tokens.findIndex((token) => !businesses.has(token));
  if (notBusiness >= 0) {
    throw new UnprocessableError(`${field}[${notBusiness}]: account '${tokens[notBusiness]}' is not the account of a BUSINESS account holder`);
  }
}

/** The scope and targets a rule gets; `kinds` lists the target kinds it replaces. */
interface ScopeAssignment {
  scope: AuthRuleScope;
  targets: Array<{ kind: TargetKind; field: TokenField; tokens: readonly string[] }>;
}

const ALL_KINDS: ReadonlyArray<{ kind: TargetKind; field: TokenField }> = [
  { kind: 'ACCOUNT', field: 'account_tokens' },
  { kind: 'BUSINESS_ACCOUNT', field: 'business_account_tokens' },
  { kind: 'CARD', field: 'card_tokens' },
  { kind: 'EXCLUDED_CARD', field: 'excluded_card_tokens' },
];

/** Every target kind: those given get their tokens, the others are emptied. */
function assignment(scope: AuthRuleScope, given: Partial<Record<TokenField, readonly string[]>>): ScopeAssignment {
  return { scope, targets: ALL_KINDS.map(({ kind, field }) => ({ kind, field, tokens: given[field] ?? [] })) };
}

async function applyAssignment(exec: Executor, programId: string, ruleToken: string, change: ScopeAssignment): Promise<void> {
  for (const target of change.targets) await checkTokens(exec, programId, target.field, target.tokens);
  await store.replaceTargets(exec, programId, ruleToken, change.targets);
}

/** The fields of the account-level variant: either or both may be given. */
const ACCOUNT_LEVEL_FIELDS = ['account_tokens', 'business_account_tokens'] as const;

/** The account-level variant's lists that `body` gives. */
function accountLevelGiven(body: Partial<Record<(typeof ACCOUNT_LEVEL_FIELDS)[number], string[]>>) {
  return Object.fromEntries(ACCOUNT_LEVEL_FIELDS.filter((field) => body[field] !== undefined).map((field) => [field, body[field] as string[]]));
}

/**
 * Create: exactly one variant (reference 01): account-level (account_tokens and/or
 * business_account_tokens, naming at least one), card_tokens, or program_level: true.
 */
function createAssignment(body: CreateAuthRuleBody): ScopeAssignment {
  const given = (['account_tokens', 'business_account_tokens', 'card_tokens', 'program_level'] as const).filter((field) => body[field] !== undefined);
  const variants = new Set(given.map((field) => (field === 'business_account_tokens' ? 'account_tokens' : field)));
  if (variants.size > 1) {
    throw new InvalidRequestError(`${given.join(', ')}: a rule has one scope; give only one of account_tokens (and business_account_tokens), card_tokens or program_level`);
  }
  if (given.length === 0) throw new InvalidRequestError('account_tokens: give the rule a scope: account_tokens, card_tokens or program_level: true');
  if (body.excluded_card_tokens !== undefined && body.program_level !== true) {
    throw new InvalidRequestError('excluded_card_tokens: only applies to program-level rules (program_level: true)');
  }
  if (body.program_level === false) throw new InvalidRequestError('program_level: must be true (or give account_tokens or card_tokens)');
  if (body.program_level === true) return assignment('PROGRAM', { excluded_card_tokens: body.excluded_card_tokens ?? [] });
  const field = given[0] as 'account_tokens' | 'business_account_tokens' | 'card_tokens';
  const lists = field === 'card_tokens' ? { card_tokens: body.card_tokens ?? [] } : accountLevelGiven(body);
  if (Object.values(lists).every((tokens) => tokens.length === 0)) throw new InvalidRequestError(`${field}: must name at least one ${RESOURCE_OF_FIELD[field]}`);
  return assignment(field === 'card_tokens' ? 'CARD' : 'ACCOUNT', lists);
}

const VARIANTS = {
  'account-level': ACCOUNT_LEVEL_FIELDS,
  'card-level': ['card_tokens'],
  'program-level': ['program_level', 'excluded_card_tokens'],
} as const;

/** PATCH (seed 4.1): the variant's scope fields replace the stored association; null when none is given. */
function updateAssignment(row: store.RuleRow, body: UpdateAuthRuleBody): ScopeAssignment | null {
  const used = Object.entries(VARIANTS).filter(([, fields]) => fields.some((field) => body[field] !== undefined));
  if (used.length > 1) {
    const fields = used.flatMap(([, names]) => names.filter((name) => body[name] !== undefined));
    throw new InvalidRequestError(`${fields.join(', ')}: fields of the ${used.map(([variant]) => variant).join(' and ')} variants cannot be mixed in one update`);
  }
  const accountLists = accountLevelGiven(body);
  if (Object.keys(accountLists).length > 0) {
    // An account-level rule keeps the list not given; a rule moving to this variant starts without it.
    if (row.scope !== 'ACCOUNT') return assignment('ACCOUNT', accountLists);
    return { scope: 'ACCOUNT', targets: ALL_KINDS.filter(({ field }) => field in accountLists).map(({ kind, field }) => ({ kind, field, tokens: accountLists[field] ?? [] })) };
  }
  if (body.card_tokens !== undefined) return assignment('CARD', { card_tokens: body.card_tokens });
  if (body.program_level === undefined && body.excluded_card_tokens === undefined) return null;
  const programLevel = body.program_level ?? row.scope === 'PROGRAM';
  if (!programLevel) {
    if (body.excluded_card_tokens !== undefined) throw new InvalidRequestError('excluded_card_tokens: only applies to program-level rules');
    return row.scope === 'PROGRAM' ? assignment('NONE', {}) : null;
  }
  if (body.excluded_card_tokens !== undefined) return assignment('PROGRAM', { excluded_card_tokens: body.excluded_card_tokens });
  // program_level: true alone keeps the exclusions of a rule that already was program-level.
  return row.scope === 'PROGRAM' ? null : assignment('PROGRAM', {});
}

// ---- create, update, draft, promote, delete -----------------------------------------------------

/** The stream a rule of `type` runs on; a contradicting `event_stream` is a 400. */
function streamOf(type: AuthRuleType, requested: EventStream | undefined): EventStream {
  if (type === 'CONDITIONAL_ACTION') return requested ?? 'AUTHORIZATION';
  const stream = STREAM_OF_TYPE[type];
  if (requested !== undefined && requested !== stream) throw new InvalidRequestError(`event_stream: rules of type ${type} run on the ${stream} stream`);
  return stream;
}

async function insertDraft(exec: Executor, programId: string, ruleToken: string, version: number, parameters: unknown, nowMs: number): Promise<void> {
  await store.insertVersion(exec, {
    program_id: programId,
    rule_token: ruleToken,
    version,
    parameters: JSON.stringify(parameters),
    draft_from_ms: nowMs,
    draft_until_ms: null,
    current_from_ms: null,
    current_until_ms: null,
    created_ms: nowMs,
  });
}

/** A new rule: ACTIVE, its parameters as draft version 1 (shadow), no current version. */
export async function create(tx: Tx, scope: ProgramScope, body: CreateAuthRuleBody): Promise<AuthRule> {
  const stream = streamOf(body.type, body.event_stream);
  const parameters = parseParameters(body.type, stream, body.parameters);
  const placement = createAssignment(body);
  const token = newToken();
  await store.insertRule(tx, {
    program_id: scope.programId,
    token,
    type: body.type,
    event_stream: stream,
    name: body.name ?? null,
    state: 'ACTIVE',
    scope: placement.scope,
    current_version: null,
    draft_version: 1,
    latest_version: 1,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  });
  await applyAssignment(tx, scope.programId, token, placement);
  await insertDraft(tx, scope.programId, token, 1, parameters, scope.nowMs);
  return get(tx, scope, token);
}

/**
 * The rule, locked, and the scope of a write on it: the program clock, but never before the rule's
 * last change (a request that saw a moved clock may have made it; the row is locked, so one
 * committing meanwhile is seen), so no version's role starts or ends before that change.
 */
async function lockExisting(db: Db, tx: Tx, requestScope: ProgramScope, token: string): Promise<{ row: store.RuleRow; scope: ProgramScope }> {
  const row = await store.lockRule(db, tx, requestScope.programId, token);
  if (!row) throw notFound('auth rule', token);
  return { row, scope: actingOn(requestScope, row.updated_ms) };
}

async function saveChanges(tx: Tx, scope: ProgramScope, row: store.RuleRow, changes: store.RuleChanges): Promise<void> {
  const changed = changedColumns(row, changes);
  if (!isEmpty(changed)) await store.updateRule(tx, scope.programId, row.token, { ...changed, updated_ms: scope.nowMs });
}

/** Seed 4.1: name, state INACTIVE, and the variant's scope fields, which replace the association. */
export async function update(db: Db, tx: Tx, requestScope: ProgramScope, token: string, body: UpdateAuthRuleBody): Promise<AuthRule> {
  if (body.state === 'ACTIVE') throw new InvalidRequestError('state: only INACTIVE can be set; promote a draft to activate the rule');
  const { row, scope } = await lockExisting(db, tx, requestScope, token);
  const placement = updateAssignment(row, body);
  const changes: store.RuleChanges = {};
  if (placement !== null) {
    await applyAssignment(tx, scope.programId, token, placement);
    changes.scope = placement.scope;
  }
  if (body.name !== undefined) changes.name = body.name;
  if (body.state === 'INACTIVE') changes.state = 'INACTIVE';
  await saveChanges(tx, scope, row, changes);
  return get(tx, scope, token);
}

/** A new draft version (shadow) with the next version number, or no draft (`parameters` null or absent). */
export async function draft(db: Db, tx: Tx, requestScope: ProgramScope, token: string, body: DraftAuthRuleBody): Promise<AuthRule> {
  const { row, scope } = await lockExisting(db, tx, requestScope, token);
  const raw = body.parameters ?? null;
  const parameters = raw === null ? null : parseParameters(row.type as AuthRuleType, row.event_stream as EventStream, raw);
  if (row.draft_version !== null) await store.endRole(tx, scope.programId, token, row.draft_version, 'DRAFT', scope.nowMs);
  const changes: store.RuleChanges = { draft_version: null };
  if (parameters !== null) {
    const version = row.latest_version + 1;
    await insertDraft(tx, scope.programId, token, version, parameters, scope.nowMs);
    Object.assign(changes, { draft_version: version, latest_version: version });
  }
  await saveChanges(tx, scope, row, changes);
  return get(tx, scope, token);
}

/** The draft becomes the current, enforced version; the rule is ACTIVE. No draft → 422. */
export async function promote(db: Db, tx: Tx, requestScope: ProgramScope, token: string): Promise<AuthRule> {
  const { row, scope } = await lockExisting(db, tx, requestScope, token);
  if (row.draft_version === null) {
    throw new UnprocessableError(`auth rule '${token}' has no draft version to promote; create one with POST /v2/auth_rules/${token}/draft`);
  }
  if (row.current_version !== null) await store.endRole(tx, scope.programId, token, row.current_version, 'CURRENT', scope.nowMs);
  await store.endRole(tx, scope.programId, token, row.draft_version, 'DRAFT', scope.nowMs);
  await store.startCurrent(tx, scope.programId, token, row.draft_version, scope.nowMs);
  await saveChanges(tx, scope, row, { current_version: row.draft_version, draft_version: null, state: 'ACTIVE' });
  return get(tx, scope, token);
}

export async function remove(db: Db, tx: Tx, requestScope: ProgramScope, token: string): Promise<void> {
  const { row, scope } = await lockExisting(db, tx, requestScope, token);
  await store.deleteRule(tx, scope.programId, row, scope.nowMs);
}

// ---- the report ---------------------------------------------------------------------------------

/** Seed 4.2: one entry per day from the per-day aggregate; limits on the program clock (422). */
export async function report(exec: Executor, scope: ProgramScope, token: string, query: ReportQuery): Promise<Report> {
  const row = await store.findRule(exec, scope.programId, token);
  if (!row) throw notFound('auth rule', token);
  checkReportRange(query.begin, query.end, isoDate(scope.nowMs));
  const counters = await store.outcomeDaysOfRule(exec, scope.programId, token, query.begin, query.end);
  const verdicts = await store.outcomeVerdicts(exec, scope.programId, [...new Set(counters.map((counter) => counter.hash))]);
  const rows = ruleDailyRows(token, counters, verdicts);
  const periods = await store.versionPeriods(exec, scope.programId, token);
  return { auth_rule_token: token, begin: query.begin, end: query.end, daily_statistics: dailyStatistics(query.begin, query.end, rows, periods) };
}
