/**
 * The Auth Rules list never walks every rule of the program in creation order
 * (`auth_rules_by_created`) to keep those a filter names; its rows are those the filters name, in
 * list order, on every page shape (first page, after or before a rule, after or before a deleted
 * rule), checked against the filters applied here to every rule:
 *
 * - the rules of one card, account or business account start from `auth_rule_targets_by_target`
 *   (that card's few rules, then each rule by primary key);
 * - a scope alone is one range of `auth_rules_by_scope`, a stream alone (or with scope ANY) one range
 *   of `auth_rules_by_stream` (migration 0034), a scope and a stream one range of
 *   `auth_rules_applying` per state, in list order; the ACCOUNT and BUSINESS_ACCOUNT
 *   conditions, which ask whether a rule has targets of a kind, are seeks into the targets' primary
 *   key per rule on SQLite (PostgreSQL picks those by cost).
 */
import { beforeAll, expect, it } from 'vitest';
import { rememberDeleted, type PageParams } from '../db/pagination.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, expectedPage, pageShapes, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { listRules, type ListFilters, type RuleRow, type TargetRow } from './store.js';

const PROGRAM = 'p-bound';
const RULES = 4_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const ruleToken = (i: number) => `r-${String(i).padStart(5, '0')}`;

/**
 * Rule `i`, two a millisecond: an even one is card-level, bound to a card of its own; an odd one
 * account-level, bound to an account of its own. One in 250 of each is bound to `c-1` (card) or
 * `a-1` (account), and one in 500 of the odd ones to the business account `b-1` too. A few are
 * program-level (one in 1,000, excluding a card), detached (scope NONE, one in 1,000), account-level
 * bound only to the business account `b-2` (one in 500), or account-level with their lists emptied
 * (one in 500); one in 7 is INACTIVE.
 */
function rule(i: number): { row: RuleRow; targets: TargetRow[] } {
  const scope = i % 1_000 === 10 ? 'PROGRAM' : i % 1_000 === 20 ? 'NONE' : i % 2 === 0 ? 'CARD' : 'ACCOUNT';
  const row: RuleRow = {
    program_id: PROGRAM, token: ruleToken(i), type: 'CONDITIONAL_BLOCK', event_stream: i % 3 === 0 ? 'THREE_DS_AUTHENTICATION' : 'AUTHORIZATION', name: null,
    state: i % 7 === 0 ? 'INACTIVE' : 'ACTIVE', scope, current_version: 1, draft_version: null, latest_version: 1, created_ms: BASE_MS + Math.floor(i / 2), updated_ms: BASE_MS,
  };
  const target = (kind: TargetRow['kind'], target_token: string): TargetRow => ({ program_id: PROGRAM, rule_token: row.token, kind, target_token, position: 0 });
  const shared = i % 250 < 2;
  if (scope === 'PROGRAM') return { row, targets: [target('EXCLUDED_CARD', `card-${i}`)] };
  if (scope === 'NONE') return { row, targets: [] };
  if (scope === 'CARD') return { row, targets: [target('CARD', shared ? 'c-1' : `card-${i}`)] };
  if (i % 500 === 3) return { row, targets: [target('BUSINESS_ACCOUNT', 'b-2')] };
  if (i % 500 === 5) return { row, targets: [] };
  const targets = [target('ACCOUNT', shared ? 'a-1' : `acct-${i}`)];
  if (i % 500 === 1) targets.push(target('BUSINESS_ACCOUNT', 'b-1'));
  return { row, targets };
}

const filterCases: ListFilters[] = [
  { card_token: 'c-1' },
  { card_token: 'c-1', scope: 'CARD', event_stream: 'AUTHORIZATION' },
  { card_token: 'c-1', scope: 'ACCOUNT' },
  { account_token: 'a-1' },
  { account_token: 'a-1', scope: 'ACCOUNT', event_stream: 'THREE_DS_AUTHENTICATION' },
  { business_account_token: 'b-1' },
  { business_account_token: 'b-1', scope: 'BUSINESS_ACCOUNT' },
  { account_token: 'a-1', business_account_token: 'b-1' },
  { card_token: 'c-1', account_token: 'a-1' },
];

/** Each scope alone and with each stream, without a binding filter. */
const scopeCases: ListFilters[] = ['PROGRAM', 'CARD', 'ACCOUNT', 'BUSINESS_ACCOUNT'].flatMap((scope) => [
  { scope },
  { scope, event_stream: 'AUTHORIZATION' },
  { scope, event_stream: 'THREE_DS_AUTHENTICATION' },
]);

/** Each stream alone and with scope ANY (every rule of the stream, detached ones too), without a binding filter. */
const streamCases: ListFilters[] = ['AUTHORIZATION', 'THREE_DS_AUTHENTICATION'].flatMap((event_stream) => [{ event_stream }, { event_stream, scope: 'ANY' }]);

const DELETED = ruleToken(RULES + 1);
/** A cursor in the middle of the program's rules (not one of the filtered rules), and one naming a deleted rule. */
const DELETED_PLACE = { token: DELETED, created_ms: BASE_MS + 1_000 };
const PAGE_SHAPES: Array<{ name: string; page: PageParams }> = [
  ...pageShapes(ruleToken(2_001)),
  { name: 'after a deleted rule', page: { page_size: 5, starting_after: DELETED } },
  { name: 'before a deleted rule', page: { page_size: 5, ending_before: DELETED } },
];

/** SQLite: only the merge of the ranges' pages reads its pages again and sorts them, each a page long. */
function expectOnlyTheMergeScans(plan: string[], label: string): void {
  plan.forEach((step, i) => {
    if (/^SCAN/.test(step)) expect(step, label).toMatch(/^SCAN page_\d+$/);
    if (/TEMP B-TREE/.test(step)) expect(plan[i - 1], label).toMatch(/^SCAN page_\d+$/);
  });
}

describeWithDb('auth rule list plans', () => {
  const storage = useMigratedDb();
  const rules = Array.from({ length: RULES }, (_, i) => rule(i));

  beforeAll(async () => {
    const { kysely } = storage.db;
    await seedRows(kysely, 'auth_rules', rules.map((r) => r.row));
    await seedRows(kysely, 'auth_rule_targets', rules.flatMap((r) => r.targets));
    // A rule deleted from the middle of the list: its place is kept for cursors.
    await rememberDeleted(kysely, 'auth_rules', PROGRAM, DELETED_PLACE, BASE_MS + RULES);
    await analyzed(kysely, ['auth_rules', 'auth_rule_targets']);
  }, 60_000);

  /** The page the list must answer, from every rule (and the deleted rule's place, for cursors): the old filters, applied here. */
  function expected(filters: ListFilters, page: PageParams): { tokens: string[]; has_more: boolean } {
    const bound = (r: (typeof rules)[number], kind: TargetRow['kind'], token: string | undefined) =>
      token === undefined || r.targets.some((t) => t.kind === kind && t.target_token === token);
    const hasKind = (r: (typeof rules)[number], kind: TargetRow['kind']) => r.targets.some((t) => t.kind === kind);
    const matching = rules.filter(
      (r) =>
        bound(r, 'CARD', filters.card_token) &&
        bound(r, 'ACCOUNT', filters.account_token) &&
        bound(r, 'BUSINESS_ACCOUNT', filters.business_account_token) &&
        (filters.event_stream === undefined || r.row.event_stream === filters.event_stream) &&
        (filters.scope === undefined ||
          filters.scope === 'ANY' ||
          (filters.scope === 'BUSINESS_ACCOUNT' ? hasKind(r, 'BUSINESS_ACCOUNT') : r.row.scope === filters.scope && (filters.scope !== 'ACCOUNT' || hasKind(r, 'ACCOUNT') || !hasKind(r, 'BUSINESS_ACCOUNT')))),
    );
    const kept = new Set(matching.map((r) => r.row.token));
    return expectedPage([...rules.map((r) => r.row), DELETED_PLACE], (row) => kept.has(row.token), page);
  }

  /**
   * Lists each of `cases` on every page shape: the rows and has_more must be `expected`'s, and
   * the page never a walk of `auth_rules_by_created`; then `check` reads the page's plan.
   * `walkAllowed`: where PostgreSQL may walk by creation, by cost (a stream of most rules: it reads
   * little more than a page).
   */
  async function onEveryPage(cases: ListFilters[], check: (filters: ListFilters, plan: string[], label: string) => void, walkAllowed = (_filters: ListFilters) => false): Promise<void> {
    const { kysely } = storage.db;
    for (const filters of cases) {
      for (const shape of PAGE_SHAPES) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const listed = await listRules(kysely, PROGRAM, filters, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expected(filters, shape.page));
        const plan = await pagePlan(kysely, (watched) => listRules(watched, PROGRAM, filters, shape.page));
        if (engine === 'sqlite' || !walkAllowed(filters)) expect(plan.join('\n'), label).not.toMatch(/auth_rules_by_created/);
        check(filters, plan, label);
      }
    }
  }

  it('starts from auth_rule_targets_by_target, never a walk of the program’s rules, with the rows the filters name, on every page shape', async () => {
    await onEveryPage(filterCases, (_filters, plan, label) => {
      const text = plan.join('\n');
      if (engine === 'sqlite') {
        // The card's (or account's) targets first: their rules, or, with a second binding, the other binding's targets of each.
        expect(plan[0], label).toMatch(/^SEARCH \w+ USING COVERING INDEX auth_rule_targets_by_target \(program_id=\? AND target_token=\? AND kind=\?( AND rule_token=\?)?\)$/);
        for (const step of plan.filter((detail) => / auth_rules /.test(`${detail} `))) expect(step, label).toBe('SEARCH auth_rules USING PRIMARY KEY (program_id=? AND token=?)');
        expect(text, label).not.toMatch(/SCAN/);
      } else {
        expect(text, label).toMatch(/Index Only Scan (Backward )?using auth_rule_targets_by_target/);
        expect(text, label).not.toMatch(/Seq Scan/);
      }
    });
  });

  it('starts a scope from auth_rules_by_scope (with a stream, from auth_rules_applying, a range per state), never a walk of the program’s rules, with the rows the filters name, on every page shape', async () => {
    await onEveryPage(scopeCases, (filters, plan, label) => {
      const text = plan.join('\n');
      const byStream = filters.event_stream !== undefined;
      if (engine === 'sqlite') {
        const reads = plan.filter((step) => /^(SEARCH|SCAN) auth_rules /.test(step));
        expect(reads, label).toHaveLength(byStream ? 2 : 1);
        const index = byStream ? 'auth_rules_applying \\(program_id=\\? AND event_stream=\\? AND state=\\? AND scope=\\?' : 'auth_rules_by_scope \\(program_id=\\? AND scope=\\?';
        for (const read of reads) expect(read, label).toMatch(new RegExp(`^SEARCH auth_rules USING INDEX ${index}( AND created_ms[<>]\\?)?\\)$`));
        for (const step of plan.filter((detail) => / t /.test(`${detail} `))) expect(step, label).toMatch(/^SEARCH t (EXISTS )?USING PRIMARY KEY \(program_id=\? AND rule_token=\? AND kind=\?\)$/);
        expectOnlyTheMergeScans(plan, label);
      } else {
        // BUSINESS_ACCOUNT: with this program's few business targets, PostgreSQL may rather read those and sort their rules.
        if (filters.scope !== 'BUSINESS_ACCOUNT') expect(text, label).toMatch(byStream ? /using auth_rules_applying on auth_rules/ : /Index Scan (Backward )?using auth_rules_by_scope on auth_rules/);
        expect(text, label).not.toMatch(/Seq Scan on auth_rules\s/);
      }
    });
  });

  it('starts a stream alone (or with scope ANY) from auth_rules_by_stream, never a walk of the program’s rules (PostgreSQL may walk by creation for the stream of most rules, by cost), with the rows the filters name, on every page shape', async () => {
    const dense = (filters: ListFilters) => filters.event_stream === 'AUTHORIZATION'; // two rules in three
    await onEveryPage(streamCases, (filters, plan, label) => {
      const text = plan.join('\n');
      if (engine === 'sqlite') {
        const reads = plan.filter((step) => /^(SEARCH|SCAN) auth_rules /.test(step));
        expect(reads, label).toHaveLength(1);
        expect(reads[0], label).toMatch(/^SEARCH auth_rules USING INDEX auth_rules_by_stream \(program_id=\? AND event_stream=\?( AND created_ms[<>]\?)?\)$/);
        expectOnlyTheMergeScans(plan, label);
      } else {
        if (!dense(filters)) expect(text, label).toMatch(/using auth_rules_by_stream on auth_rules/);
        expect(text, label).not.toMatch(/Seq Scan on auth_rules\s/);
      }
    }, dense);
  });
});
