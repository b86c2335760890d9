/**
 * The one way anything in Cardwright records an event: `emitEvent`, called inside the database
 * transaction of the change it reports, so an event exists exactly when its change committed. The
 * payload is a snapshot taken then (an event never changes afterwards). Its webhook deliveries are
 * queued in the same transaction (event_subscriptions/service.ts `queueDeliveries`).
 */
import type { Tx } from '../db/database.js';
import { preparedWrite } from '../db/prepared.js';
import { queueDeliveries } from '../event_subscriptions/service.js';
import { newToken } from '../ids.js';
import type { EventType } from './types.js';

export interface EmittedEvent {
  token: string;
  event_type: EventType;
  created_ms: number;
}

const insertEvent = preparedWrite((db, programId: string, token: string, eventType: string, payload: string, createdMs: number) =>
  db.insertInto('events').values({ program_id: programId, token, event_type: eventType, payload, created_ms: createdMs }),
);

/** Records `eventType` with `payload` (an API object, serialised as JSON) at program time `nowMs`. */
export async function emitEvent(tx: Tx, programId: string, eventType: EventType, payload: object, nowMs: number): Promise<EmittedEvent> {
  const event: EmittedEvent = { token: newToken(), event_type: eventType, created_ms: nowMs };
  await insertEvent(tx, programId, event.token, eventType, JSON.stringify(payload), nowMs);
  await queueDeliveries(tx, programId, event);
  return event;
}
