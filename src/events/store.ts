/** SQL for events (reads; the one write is `emitEvent` in emit.ts). */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { anyOf, keysetPage, type PageParams } from '../db/pagination.js';
import type { EventsTable } from './tables.js';

export type EventRow = EventsTable;

export interface ListFilters {
  begin?: string | undefined;
  end?: string | undefined;
  event_types?: readonly string[] | undefined;
}

export function find(exec: Executor, programId: string, token: string): Promise<EventRow | undefined> {
  return exec.selectFrom('events').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/**
 * A page of events, newest first: a range of `events_by_created`, or, filtered by types, one range
 * of `events_by_type` per type (`anyOf`; at most MAX_EVENT_TYPE_FILTERS pages merged): with one
 * `in` condition, SQLite walked every event of the program for those of the types, and PostgreSQL
 * sorted every event of the types. Without `withContent` the payloads are not read (each row's `payload` is '').
 */
export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams, withContent: boolean) {
  let query = exec
    .selectFrom('events')
    .select(['program_id', 'token', 'event_type', 'created_ms', withContent ? 'payload' : sql<string>`''`.as('payload')])
    .where('program_id', '=', programId);
  const types = filters.event_types ?? [];
  return keysetPage(exec, types.length > 0 ? anyOf(query, ['event_type'], types) : query, 'events', programId, page, filters);
}
