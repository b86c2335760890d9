/** Events, event subscriptions and delivery attempts (migration 0017 says what each column holds). */
export interface EventsTable {
  program_id: string;
  token: string;
  event_type: string;
  /** The event's payload, as JSON text. */
  payload: string;
  created_ms: number;
}

export interface EventSubscriptionsTable {
  program_id: string;
  token: string;
  url: string;
  description: string;
  /** 1 when the subscription is inactive. */
  disabled: number;
  /** JSON array of event types; null: every type. */
  event_types: string | null;
  /** The current signing secret; those a rotation retired are in `event_subscription_secrets` (migration 0031). */
  secret_encrypted: string;
  created_ms: number;
  updated_ms: number;
}

export interface EventAttemptsTable {
  program_id: string;
  token: string;
  event_token: string;
  subscription_token: string;
  /** PENDING, SENDING, SUCCESS or FAILED. */
  status: string;
  url: string;
  response: string;
  response_status_code: number;
  attempt_number: number;
  due_wall_ms: number;
  lease_owner: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface EventTables {
  events: EventsTable;
  event_subscriptions: EventSubscriptionsTable;
  event_attempts: EventAttemptsTable;
}
