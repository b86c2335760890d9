/**
 * Example payloads for `POST /v1/simulate/event_subscriptions/{token}/send_example`: enough for a
 * receiver to test its parsing and signature check, marked as examples. Each names a new token in
 * the field its resource's events carry it in; nothing in the program has that token.
 */
import { isoTimestamp } from '../clock.js';
import type { EventType } from '../events/types.js';
import { newToken } from '../ids.js';

/** The resource token field of an event type's payload: `card_token` for card events (as `card.created` carries it), `token` for the rest. */
function tokenField(eventType: EventType): string {
  return eventType.startsWith('card.') ? 'card_token' : 'token';
}

export function exampleFor(eventType: EventType, nowMs: number): Record<string, unknown> {
  return { [tokenField(eventType)]: newToken(), created: isoTimestamp(nowMs), example: true };
}
