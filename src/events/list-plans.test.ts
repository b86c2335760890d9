/**
 * The event list (GET /v1/events) is a range of `events_by_created` (no type filter, or
 * begin/end alone) or one range of `events_by_type` per type asked for (`anyOf`, at most
 * MAX_EVENT_TYPE_FILTERS pages merged), in list order, on every page shape: never a walk of the
 * program's events for those of the types, nor a sort of every event of the types. Its rows are
 * those the filters name, checked against the filters applied here to every event.
 */
import { expect, it } from 'vitest';
import { describeWithDb } from '../testing/harness.js';
import { expectedPage, expectIndexRanges, pageShapes, useSeededList } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { list, type ListFilters } from './store.js';
import type { EventsTable } from './tables.js';

const PROGRAM = 'p-events';
const EVENTS = 6_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const token = (program: string, i: number) => `${program}-e-${String(i).padStart(5, '0')}`;

/** Event `i`, two a millisecond: mostly balance.updated and card_transaction.updated, one in 50 card.created, one in 500 dispute.updated. */
function event(program: string, i: number): EventsTable {
  const type = i % 500 === 3 ? 'dispute.updated' : i % 50 === 1 ? 'card.created' : i % 2 === 0 ? 'balance.updated' : 'card_transaction.updated';
  return { program_id: program, token: token(program, i), event_type: type, payload: '{}', created_ms: BASE_MS + Math.floor(i / 2) };
}

const at = (i: number) => new Date(BASE_MS + i).toISOString();
const selections: ListFilters[] = [
  {},
  { event_types: ['dispute.updated'] },
  { event_types: ['card.created'] },
  { event_types: ['balance.updated'] },
  { event_types: ['card.created', 'dispute.updated'] },
  { event_types: ['card.created', 'dispute.updated', 'balance.updated', 'account_holder.created'] },
];
const cases: ListFilters[] = [{}, { begin: at(500), end: at(2_500) }, { begin: at(2_000) }].flatMap((range) => selections.map((selection) => ({ ...selection, ...range })));

describeWithDb('event list plans', () => {
  const storage = useSeededList('events', PROGRAM, EVENTS, event);
  const rows = storage.rows;

  /** The type filter (begin/end are `expectedPage`'s), applied here. */
  const keeps = (filters: ListFilters) => (row: EventsTable) => filters.event_types === undefined || filters.event_types.includes(row.event_type);

  it('ranges over events_by_created, or events_by_type per type, with the rows the filters name, on every filter combination and page shape', async () => {
    const { kysely } = storage.db;
    for (const filters of cases) {
      for (const shape of pageShapes(token(PROGRAM, 3_001))) {
        const label = `${JSON.stringify(filters)} ${shape.name}`;
        for (const withContent of [false, true]) {
          const listed = await list(kysely, PROGRAM, filters, shape.page, withContent);
          expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, label).toEqual(expectedPage(rows, keeps(filters), shape.page, filters));
          const plan = await pagePlan(kysely, (watched) => list(watched, PROGRAM, filters, shape.page, withContent));
          expectIndexRanges(plan, 'events', label, { indexes: [filters.event_types === undefined ? 'events_by_created' : 'events_by_type'], reads: 'some', postgres: null, limited: true });
        }
      }
    }
  });
});
