/**
 * Seed 4.2, the performance report: its range limits and its daily statistics, assembled from the
 * per-day aggregate by outcome (store.addOutcomeEvent: each event's verdicts counted per outcome
 * and day) and the periods each version held its role. Pure.
 *
 * Limits, on the program clock (spec 8): data through the previous UTC day only; the past 3 months
 * only (begin on or after today minus 3 calendar months); at most 1 month (end before begin plus
 * 1 calendar month).
 *
 * Statistics are per version (the SDK's RuleStats has one `version`), yet a rule may have several
 * current or draft versions in one UTC day (promote, then draft again). A day's statistics for a
 * role are those of ONE version — only its counts and examples, never a sum over versions: the
 * latest version that evaluated an event in that role that day; if none did, the latest version
 * that held the role at some moment of the day (zeros); null when no version held it that day. An
 * earlier version's evaluations that day are left out of that day's report (the SDK's shape has no
 * place for a second version of a role).
 */
import { MS_PER_DAY, utcDayStartMs } from '../clock.js';
import { UnprocessableError } from '../errors.js';
import type { ReportExample, RuleStats } from './schemas.js';
import { EXAMPLES_PER_DAY } from './store.js';
import type { VersionRole } from './tables.js';

const HISTORY_MONTHS = 3;
const MAX_SPAN_MONTHS = 1;

/** `YYYY-MM-DD` plus whole months, clamped to the end of a shorter month (Mar 31 − 1 month = Feb 28/29). */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(year, month - 1 + months, 1));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(day, lastDay));
  return first.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return new Date(utcDayStartMs(date) + days * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Throws a 422 naming the limit a range breaks; `today` is the program clock's UTC date. */
export function checkReportRange(begin: string, end: string, today: string): void {
  if (begin > end) throw new UnprocessableError(`begin: must be on or before end (${begin} is after ${end})`);
  const lastDay = addDays(today, -1);
  if (end > lastDay) {
    throw new UnprocessableError(`end: report data is available through the previous UTC day only; the latest end is ${lastDay}`);
  }
  const earliest = addMonths(today, -HISTORY_MONTHS);
  if (begin < earliest) throw new UnprocessableError(`begin: reports cover the past ${HISTORY_MONTHS} months only; the earliest begin is ${earliest}`);
  const latestEnd = addDays(addMonths(begin, MAX_SPAN_MONTHS), -1);
  if (end > latestEnd) {
    throw new UnprocessableError(`end: a report covers at most ${MAX_SPAN_MONTHS} month; from begin ${begin} the latest end is ${latestEnd}`);
  }
}

export interface VersionPeriods {
  version: number;
  draft_from_ms: number;
  draft_until_ms: number | null;
  current_from_ms: number | null;
  current_until_ms: number | null;
}

/** The latest version that held `role` at some moment of [dayStartMs, dayEndMs), or null. */
export function versionHolding(periods: readonly VersionPeriods[], role: VersionRole, dayStartMs: number, dayEndMs: number): number | null {
  let latest: number | null = null;
  for (const period of periods) {
    const from = role === 'CURRENT' ? period.current_from_ms : period.draft_from_ms;
    const until = role === 'CURRENT' ? period.current_until_ms : period.draft_until_ms;
    const held = from !== null && from < dayEndMs && (until === null || until > dayStartMs);
    if (held && (latest === null || period.version > latest)) latest = period.version;
  }
  return latest;
}

/** One example line as stored in an outcome's day counter (store.addOutcomeEvent). */
export function exampleLine(example: { event_token: string; timestamp: string }): string {
  return `${JSON.stringify({ event_token: example.event_token, timestamp: example.timestamp })}\n`;
}

/** A rule's counts for one day, role and version: what its outcomes add up to. */
export interface DailyStatsRow {
  day: string;
  role: VersionRole;
  version: number;
  approved: number;
  challenged: number;
  declined: number;
  examples: ReportExample[];
}

/** An outcome's verdicts as stored: [rule_token, role, version, decision]. */
export type StoredVerdict = [string, VersionRole, number, ReportExample['decision']];

/**
 * Expands the outcome day counters of one rule into its per-day, per-role, per-version counts:
 * each counter adds its events to the rule's decision in that outcome, and lends its example
 * events with that decision.
 */
export function ruleDailyRows(
  ruleToken: string,
  counters: ReadonlyArray<{ hash: string; day: string; count: number; examples: string }>,
  verdictsByHash: ReadonlyMap<string, string>,
): DailyStatsRow[] {
  const rows = new Map<string, DailyStatsRow>();
  const parsed = new Map<string, StoredVerdict[]>();
  for (const counter of counters) {
    let verdicts = parsed.get(counter.hash);
    if (!verdicts) {
      verdicts = (JSON.parse(verdictsByHash.get(counter.hash) ?? '[]') as StoredVerdict[]).filter(([token]) => token === ruleToken);
      parsed.set(counter.hash, verdicts);
    }
    for (const [, role, version, decision] of verdicts) {
      const key = `${counter.day}|${role}|${version}`;
      const row = rows.get(key) ?? { day: counter.day, role, version, approved: 0, challenged: 0, declined: 0, examples: [] };
      if (decision === 'APPROVED') row.approved += Number(counter.count);
      else if (decision === 'CHALLENGED') row.challenged += Number(counter.count);
      else row.declined += Number(counter.count);
      row.examples.push(...parseExamples(counter.examples, decision));
      rows.set(key, row);
    }
  }
  return [...rows.values()];
}

function parseExamples(text: string, decision: ReportExample['decision']): ReportExample[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const example = JSON.parse(line) as { event_token: string; timestamp: string };
      return { approved: decision === 'APPROVED', decision, event_token: example.event_token, timestamp: example.timestamp };
    });
}

/** One version's statistics for a day: the sum of its aggregate rows (every shard). */
function statistics(rows: readonly DailyStatsRow[], version: number): RuleStats {
  const stats: RuleStats = { approved: 0, challenged: 0, declined: 0, examples: [], version };
  for (const row of rows) {
    if (row.version !== version) continue;
    stats.approved += row.approved;
    stats.challenged += row.challenged;
    stats.declined += row.declined;
    stats.examples.push(...row.examples);
  }
  stats.examples.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.event_token.localeCompare(b.event_token));
  stats.examples = stats.examples.slice(0, EXAMPLES_PER_DAY);
  return stats;
}

/** The role's statistics for the day: of the latest version that ran in it, else of the latest that held it (header). */
function roleStatistics(rows: readonly DailyStatsRow[], periods: readonly VersionPeriods[], role: VersionRole, date: string): RuleStats | null {
  const dayStart = utcDayStartMs(date);
  const ofRole = rows.filter((row) => row.role === role);
  const evaluated = ofRole.reduce<number | null>((max, row) => (max === null || row.version > max ? row.version : max), null);
  const version = evaluated ?? versionHolding(periods, role, dayStart, dayStart + MS_PER_DAY);
  return version === null ? null : statistics(ofRole, version);
}

export function dailyStatistics(begin: string, end: string, rows: readonly DailyStatsRow[], periods: readonly VersionPeriods[]) {
  const byDay = new Map<string, DailyStatsRow[]>();
  for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  const days = [];
  for (let date = begin; date <= end; date = addDays(date, 1)) {
    const dayRows = byDay.get(date) ?? [];
    days.push({
      date,
      current_version_statistics: roleStatistics(dayRows, periods, 'CURRENT', date),
      draft_version_statistics: roleStatistics(dayRows, periods, 'DRAFT', date),
    });
  }
  return days;
}
