/**
 * The one way anything in Cardwright records an event: `emitEvent`, called inside the database
 * transaction of the change it reports, so an event exists exactly when its change committed. The
 * payload is a snapshot taken then (an event never changes afterwards).
 *
 * The events of a transaction are written together just before it commits (`beforeCommitOf`): one
 * INSERT for all of them, and their webhook deliveries queued with one look at the program's
 * subscriptions (event_subscriptions/service.ts `queueDeliveries`). A book transfer records two
 * events; on PostgreSQL each statement is a round trip made while its balance rows are locked.
 */
import { beforeCommitOf, type Tx } from '../db/database.js';
import { insertRows } from '../db/prepared.js';
import { queueDeliveries } from '../event_subscriptions/service.js';
import { newToken } from '../ids.js';
import type { EventsTable } from './tables.js';
import type { EventType } from './types.js';

export interface EmittedEvent {
  token: string;
  event_type: EventType;
  created_ms: number;
}

/** The events a transaction recorded and has not written yet. */
const unwritten = new WeakMap<Tx, EventsTable[]>();

/** Records `eventType` with `payload` (an API object, serialised as JSON now) at program time `nowMs`. */
export async function emitEvent(tx: Tx, programId: string, eventType: EventType, payload: object, nowMs: number): Promise<EmittedEvent> {
  const event: EmittedEvent = { token: newToken(), event_type: eventType, created_ms: nowMs };
  const row: EventsTable = { program_id: programId, token: event.token, event_type: eventType, payload: JSON.stringify(payload), created_ms: nowMs };
  const waiting = unwritten.get(tx);
  if (waiting !== undefined) {
    waiting.push(row);
    return event;
  }
  const rows = [row];
  if (beforeCommitOf(tx, () => writeEvents(tx, rows))) unwritten.set(tx, rows);
  else await writeEvents(tx, rows); // a transaction Db.transaction did not open: at once
  return event;
}

async function writeEvents(tx: Tx, rows: EventsTable[]): Promise<void> {
  unwritten.delete(tx);
  await insertRows(tx, 'events', rows, { deferrable: true });
  await queueDeliveries(tx, rows);
}
