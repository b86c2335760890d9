/**
 * Reading events: `GET /v1/events` and `GET /v1/events/{token}`. An event is immutable; its
 * payload is the snapshot `emitEvent` stored. Listing answers `payload: {}` unless
 * `with_content=true` (Lithic: "whether to include the event payload content"; the SDK type
 * always has a payload, so an empty one); getting one event always carries its payload.
 */
import { isoTimestamp } from '../clock.js';
import { catchUpEverything } from '../clock-jobs.js';
import type { Db, Executor } from '../db/database.js';
import { notFound } from '../errors.js';
import type { ListResponse } from '../http/schemas.js';
import type { ProgramScope } from '../programs/scope.js';
import type { Event, ListEventsQuery } from './schemas.js';
import * as store from './store.js';

function toApi(row: store.EventRow, withContent: boolean): Event {
  return {
    token: row.token,
    created: isoTimestamp(Number(row.created_ms)),
    event_type: row.event_type as Event['event_type'],
    payload: withContent ? (JSON.parse(row.payload) as Event['payload']) : {},
  };
}

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<Event> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('event', token);
  return toApi(row, true);
}

/** A page of the events, after what has fallen due by the program's clock was recorded (`catchUpEverything`). */
export async function list(db: Db, scope: ProgramScope, query: ListEventsQuery): Promise<ListResponse<Event>> {
  await catchUpEverything(db, scope);
  const { page_size, starting_after, ending_before, with_content, ...filters } = query;
  const withContent = with_content === true;
  const { rows, has_more } = await store.list(db.kysely, scope.programId, filters, { page_size, starting_after, ending_before }, withContent);
  return { data: rows.map((row) => toApi(row, withContent)), has_more };
}
