/**
 * `GET /v1/event_subscriptions` (cursors only: the list has no filter) pages are a range of
 * `event_subscriptions_by_created` in list order on every page shape, with the rows the cursor
 * names (a deleted subscription's place too), checked against it applied here to every subscription. (Message attempts, the other lists
 * here, are another test's.)
 */
import { expect, it } from 'vitest';
import type { EventSubscriptionsTable } from '../events/tables.js';
import { describeWithDb, engine } from '../testing/harness.js';
import { seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { expectedPage, expectIndexRanges, pageShapes, useSeededList } from '../testing/list-pages.js';
import { pagePlan } from '../testing/plans.js';
import { deleteSubscription, listSubscriptions } from './store.js';

const PROGRAM = 'p-subscriptions';
const SUBSCRIPTIONS = 3_000;
const token = (program: string, i: number) => seededToken(program, 's', i);

/** Subscription `i`, two a millisecond; one in 7 disabled. */
const subscription = (program: string, i: number): EventSubscriptionsTable => ({
  program_id: program, token: token(program, i), url: `https://example.com/hooks/${i}`, description: '', disabled: i % 7 === 0 ? 1 : 0, event_types: null,
  secret_encrypted: 'x', created_ms: seededCreatedMs(i), updated_ms: seededCreatedMs(i),
});

describeWithDb('event subscription list plans', () => {
  const storage = useSeededList('event_subscriptions', PROGRAM, SUBSCRIPTIONS, subscription);

  it('pages a range of event_subscriptions_by_created, with the rows the cursor names (a deleted subscription too), on every page shape', async () => {
    const { kysely } = storage.db;
    const deleted = storage.rows[2_001] as EventSubscriptionsTable;
    expect(await deleteSubscription(kysely, PROGRAM, deleted.token, deleted.created_ms + 1)).toBe(true);
    const kept = storage.rows.filter((row) => row !== deleted);
    for (const cursor of [token(PROGRAM, 1_501), deleted.token]) {
      for (const shape of pageShapes(cursor)) {
        const label = `${cursor} ${shape.name}`;
        const listed = await listSubscriptions(kysely, PROGRAM, shape.page);
        expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(
          expectedPage(kept, storage.rows.find((row) => row.token === cursor), shape.page, {}),
        );
        const plan = await pagePlan(kysely, (watched) => listSubscriptions(watched, PROGRAM, shape.page));
        expectIndexRanges(engine, plan, 'event_subscriptions', label, { indexes: ['event_subscriptions_by_created'] });
      }
    }
  });
});
