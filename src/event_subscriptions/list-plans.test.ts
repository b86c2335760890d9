/**
 * The delivery attempt lists (GET /v1/event_subscriptions/{token}/attempts and GET
 * /v1/events/{token}/attempts) are a range of one index in list order, newest first, on every
 * status and begin/end and page shape, never a walk of the subscription's history for the attempts
 * of a status, nor a sort of every attempt the filters keep; their rows are those the filters name,
 * checked against the filters applied here to every attempt:
 *
 * - a subscription's attempts are a range of `event_attempts_by_subscription`, those of one status
 *   a range of `event_attempts_by_subscription_status` (migration 0035): its FAILED or PENDING
 *   attempts read every attempt it ever made for the few, on a subscription of mostly successes;
 * - an event's attempts are a range of `event_attempts_by_event`, with a status a condition on
 *   them: an event has a few attempts per subscription (its retries), however many the program has.
 *
 * `GET /v1/event_subscriptions` (cursors only: the list has no filter) pages are a range of
 * `event_subscriptions_by_created` in list order on every page shape, with the rows the cursor
 * names (a deleted subscription's place too), checked against it applied here to every subscription.
 */
import { beforeAll, expect, it } from 'vitest';
import type { EventAttemptsTable, EventSubscriptionsTable } from '../events/tables.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, expectedPage, expectIndexRanges, pageShapes, seedRows, useSeededList } from '../testing/list-plans.js';
import { seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { pagePlan } from '../testing/plans.js';
import { attemptsToRecover, deleteSubscription, listAttempts, listSubscriptions, type AttemptFilters } from './store.js';

const PROGRAM = 'p-attempts';
const ATTEMPTS = 6_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const token = (program: string, i: number) => `${program}-m-${String(i).padStart(5, '0')}`;

/**
 * Attempt `i`, two a millisecond, of event `e-⌊i/3⌋` (three attempts an event): two in three to
 * subscription `s-1`, the others to `s-2`. Most SUCCESS; one in 10 FAILED, one in 100 PENDING, one
 * in 500 SENDING.
 */
function attempt(program: string, i: number): EventAttemptsTable {
  const status = i % 500 === 7 ? 'SENDING' : i % 100 === 3 ? 'PENDING' : i % 20 === 1 || i % 20 === 2 ? 'FAILED' : 'SUCCESS';
  return {
    program_id: program, token: token(program, i), event_token: `e-${Math.floor(i / 3)}`, subscription_token: i % 3 === 2 ? 's-2' : 's-1', status, url: 'https://example.com/hook',
    response: '', response_status_code: status === 'SUCCESS' ? 200 : 0, attempt_number: 1, due_wall_ms: BASE_MS, lease_owner: null, created_ms: BASE_MS + Math.floor(i / 2), updated_ms: BASE_MS,
  };
}

const at = (i: number) => new Date(BASE_MS + i).toISOString();
const owners: AttemptFilters[] = [{ subscription_token: 's-1' }, { subscription_token: 's-2' }, { event_token: 'e-500' }];
const statuses: AttemptFilters[] = [{}, { status: 'SUCCESS' }, { status: 'FAILED' }, { status: 'PENDING' }, { status: 'SENDING' }];
const ranges: AttemptFilters[] = [{}, { begin: at(500), end: at(2_500) }, { end: at(1_200) }];
const cases = owners.flatMap((owner) => statuses.flatMap((status) => ranges.map((range): AttemptFilters => ({ ...owner, ...status, ...range }))));

describeWithDb('delivery attempt list plans', () => {
  const storage = useMigratedDb();
  const rows = Array.from({ length: ATTEMPTS }, (_, i) => attempt(PROGRAM, i));

  beforeAll(async () => {
    const { kysely } = storage.db;
    await seedRows(kysely, 'event_attempts', [...rows, ...['p-other-1', 'p-other-2'].flatMap((program) => Array.from({ length: 2_000 }, (_, i) => attempt(program, i)))]);
    const subscriptions = Array.from({ length: 300 }, (_, i) => ({
      program_id: PROGRAM, token: `s-${String(i).padStart(3, '0')}`, url: 'https://example.com/hook', description: '', disabled: 0, event_types: null, secret_encrypted: 'x', created_ms: BASE_MS + i, updated_ms: BASE_MS,
    }));
    await seedRows(kysely, 'event_subscriptions', subscriptions);
    await analyzed(kysely, ['event_attempts', 'event_subscriptions']);
  }, 60_000);

  /** The filters but begin/end (`expectedPage`'s), applied here. */
  function keeps(filters: AttemptFilters) {
    return (row: EventAttemptsTable) =>
      (filters.subscription_token === undefined || row.subscription_token === filters.subscription_token) &&
      (filters.event_token === undefined || row.event_token === filters.event_token) &&
      (filters.status === undefined || row.status === filters.status);
  }

  function indexFor(filters: AttemptFilters): string {
    if (filters.event_token !== undefined) return 'event_attempts_by_event';
    return filters.status === undefined ? 'event_attempts_by_subscription' : 'event_attempts_by_subscription_status';
  }

  it('ranges over the subscription’s (or its status’s) or the event’s index, with the rows the filters name, on every filter combination and page shape', async () => {
    const { kysely } = storage.db;
    for (const filters of cases) {
      // A cursor the event's attempts hold, for its list; one in the middle of the subscriptions' otherwise.
      const cursor = filters.event_token === undefined ? token(PROGRAM, 3_001) : token(PROGRAM, 1_501);
      for (const shape of pageShapes(cursor, { pageSize: filters.event_token === undefined ? 5 : 1 })) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        const listed = await listAttempts(kysely, PROGRAM, filters, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(rows, keeps(filters), shape.page, filters));
        const plan = await pagePlan(kysely, (watched) => listAttempts(watched, PROGRAM, filters, shape.page));
        expectIndexRanges(plan, 'event_attempts', label, { indexes: [indexFor(filters)], reads: 'some', postgres: null, limited: true });
      }
    }
  });

  it('recover asks, of each failed attempt, for its event’s other attempts (event_attempts_by_event), never for the subscription’s whole history', async () => {
    const { kysely } = storage.db;
    for (const after of [null, { created_ms: BASE_MS + 1_000, token: token(PROGRAM, 2_000) }]) {
      const recover = (watched: typeof kysely) => attemptsToRecover(watched, PROGRAM, 's-1', { untilMs: BASE_MS + 10_000 }, after, 600);
      // Gave up: it FAILED, and so did every other attempt of its event to s-1.
      const gaveUp = (row: EventAttemptsTable) => row.status === 'FAILED' && rows.every((other) => other.event_token !== row.event_token || other.subscription_token !== 's-1' || other.status === 'FAILED');
      const walked = await recover(kysely);
      expect(walked).toHaveLength(600);
      const byToken = new Map(rows.map((row) => [row.token, row]));
      expect(walked.map((row) => [row.token, Boolean(row.gave_up)])).toEqual(walked.map((row) => [row.token, gaveUp(byToken.get(row.token)!)]));
      expect(walked.some((row) => row.gave_up)).toBe(true);
      const plan = await pagePlan(kysely, recover);
      if (engine === 'sqlite') {
        expect(plan[0]).toMatch(/^SEARCH attempt USING INDEX event_attempts_by_subscription \(/);
        for (const step of plan.filter((detail) => /^SEARCH other /.test(detail))) expect(step).toMatch(/^SEARCH other USING INDEX event_attempts_by_event \(program_id=\? AND event_token=\?\)$/);
      }
      // PostgreSQL picks by cost: for a chunk of 600 of this small table's attempts it hashes the subscription's attempts once.
    }
  });
});

const SUBSCRIPTIONS_PROGRAM = 'p-subscriptions';
const SUBSCRIPTIONS = 3_000;
const subscriptionToken = (program: string, i: number) => seededToken(program, 's', i);

/** Subscription `i`, two a millisecond; one in 7 disabled. */
const subscription = (program: string, i: number): EventSubscriptionsTable => ({
  program_id: program, token: subscriptionToken(program, i), url: `https://example.com/hooks/${i}`, description: '', disabled: i % 7 === 0 ? 1 : 0, event_types: null,
  secret_encrypted: 'x', created_ms: seededCreatedMs(i), updated_ms: seededCreatedMs(i),
});

describeWithDb('event subscription list plans', () => {
  const storage = useSeededList('event_subscriptions', SUBSCRIPTIONS_PROGRAM, SUBSCRIPTIONS, subscription);

  it('pages a range of event_subscriptions_by_created, with the rows the cursor names (a deleted subscription too), on every page shape', async () => {
    const { kysely } = storage.db;
    const deleted = storage.rows[2_001] as EventSubscriptionsTable;
    expect(await deleteSubscription(kysely, SUBSCRIPTIONS_PROGRAM, deleted.token, deleted.created_ms + 1)).toBe(true);
    for (const cursor of [subscriptionToken(SUBSCRIPTIONS_PROGRAM, 1_501), deleted.token]) {
      for (const shape of pageShapes(cursor)) {
        const label = `${cursor} ${shape.name}`;
        const listed = await listSubscriptions(kysely, SUBSCRIPTIONS_PROGRAM, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(storage.rows, (row) => row !== deleted, shape.page));
        const plan = await pagePlan(kysely, (watched) => listSubscriptions(watched, SUBSCRIPTIONS_PROGRAM, shape.page));
        expectIndexRanges(plan, 'event_subscriptions', label, { indexes: ['event_subscriptions_by_created'], limited: true });
      }
    }
  });
});
