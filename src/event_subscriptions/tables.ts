/** The example events of send_example (migration 0018); the subscriptions and attempts are in events/tables.ts. */
import type { EventsTable } from '../events/tables.js';

export type ExampleEventsTable = EventsTable;

export interface ExampleEventTables {
  example_events: ExampleEventsTable;
}
