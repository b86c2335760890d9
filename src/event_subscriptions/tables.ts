/**
 * The example events of send_example (migration 0018) and the secrets rotations retired (migration
 * 0031); the subscriptions and attempts are in events/tables.ts.
 */
import type { EventsTable } from '../events/tables.js';

type ExampleEventsTable = EventsTable;

/** A secret a rotation retired: it still signs until `until_ms` (wall time). */
interface EventSubscriptionSecretsTable {
  program_id: string;
  subscription_token: string;
  until_ms: number;
  secret_encrypted: string;
}

export interface EventSubscriptionTables {
  example_events: ExampleEventsTable;
  event_subscription_secrets: EventSubscriptionSecretsTable;
}
