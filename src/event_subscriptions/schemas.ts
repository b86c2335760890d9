/** Request and response schemas of event subscriptions and message attempts (SDK 0.119's events/subscriptions types). */
import { EVENT_TYPES } from '../events/types.js';
import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, EmptyOrVisibleText, FREE_TEXT_MAX_LENGTH, Nullable, StrictObject, StringEnum, Type, Uuid, type Static } from '../http/schemas.js';

const URL_MAX_LENGTH = 2048;
const ATTEMPT_STATUSES = ['FAILED', 'PENDING', 'SENDING', 'SUCCESS'] as const;

const EventType = StringEnum(EVENT_TYPES);

const subscriptionFields = {
  url: Type.String({
    minLength: 1,
    maxLength: URL_MAX_LENGTH,
    description:
      'Where events are POSTed: an absolute https:// URL (Lithic requires HTTPS), or http:// so that a local sandbox can reach a receiver on localhost. No user name or password in it.',
  }),
  description: Type.Optional(EmptyOrVisibleText(FREE_TEXT_MAX_LENGTH, 'Default "" (none); otherwise not blank and without control characters')),
  disabled: Type.Optional(Type.Boolean({ description: 'true: nothing is sent to it. Default false' })),
  event_types: Type.Optional(
    Nullable(Type.Array(EventType, { maxItems: EVENT_TYPES.length, description: 'The event types sent to it; omitted, null or empty: every type' })),
  ),
};

/** SDK 0.119's SubscriptionCreateParams. */
export const CreateSubscriptionBody = StrictObject(subscriptionFields);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

/** SDK 0.119's SubscriptionUpdateParams: `url` is required; an omitted field keeps its value. */
export const UpdateSubscriptionBody = StrictObject(subscriptionFields);
export type UpdateSubscriptionBody = Static<typeof UpdateSubscriptionBody>;

export const EventSubscription = Type.Object({
  token: Uuid,
  url: Type.String(),
  description: Type.String(),
  disabled: Type.Boolean(),
  event_types: Nullable(Type.Array(EventType)),
});
export type EventSubscription = Static<typeof EventSubscription>;

export const SubscriptionSecret = Type.Object({ secret: Type.String({ description: '`whsec_` + base64 of 24 random bytes (Standard Webhooks)' }) });

export const ListSubscriptionsQuery = ListQuery({});
export type ListSubscriptionsQuery = Static<typeof ListSubscriptionsQuery>;

export const ListAttemptsQuery = ListQuery({ ...CreatedRangeProperties, status: Type.Optional(StringEnum(ATTEMPT_STATUSES)) });
export type ListAttemptsQuery = Static<typeof ListAttemptsQuery>;

export const MessageAttempt = Type.Object({
  token: Uuid,
  created: DateTime,
  event_subscription_token: Uuid,
  event_token: Uuid,
  response: Type.String({ description: 'The first KiB of the answer, or why there was none' }),
  response_status_code: Type.Integer({ description: '0 when there was no answer' }),
  status: StringEnum(ATTEMPT_STATUSES),
  url: Type.String(),
});
export type MessageAttempt = Static<typeof MessageAttempt>;

/** SDK 0.119's SubscriptionRecoverParams and SubscriptionReplayMissingParams (sent in the query string). */
export const TimeRangeQuery = StrictObject(CreatedRangeProperties);
export type TimeRangeQuery = Static<typeof TimeRangeQuery>;

export const SendExampleBody = StrictObject({ event_type: Type.Optional(EventType) });
export type SendExampleBody = Static<typeof SendExampleBody>;

export const ResendParams = Type.Object({ event_token: Uuid, event_subscription_token: Uuid }, { additionalProperties: false });
