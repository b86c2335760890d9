/** SQL for events (reads; the one write is `emitEvent` in emit.ts). */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { keysetPage, type PageParams } from '../db/pagination.js';
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
 * A page of events, newest first: on `events_by_created`, or `events_by_type` when filtered by type.
 * Without `withContent` the payloads are not read (each row's `payload` is '').
 */
export function list(exec: Executor, programId: string, filters: ListFilters, page: PageParams, withContent: boolean) {
  let query = exec
    .selectFrom('events')
    .select(['program_id', 'token', 'event_type', 'created_ms', withContent ? 'payload' : sql<string>`''`.as('payload')])
    .where('program_id', '=', programId);
  if (filters.event_types !== undefined && filters.event_types.length > 0) query = query.where('event_type', 'in', [...filters.event_types]);
  return keysetPage(exec, query, 'events', programId, page, filters);
}
