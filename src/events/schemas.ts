/** Request and response schemas of events (SDK 0.119 `Event`, `EventListParams`). */
import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, StringEnum, Type, Uuid, type Static } from '../http/schemas.js';
import { EVENT_TYPES } from './types.js';

/** Lithic's documented bound on `event_types` in a list query. */
const MAX_EVENT_TYPE_FILTERS = 10;

export const Event = Type.Object(
  {
    token: Uuid,
    created: DateTime,
    event_type: StringEnum(EVENT_TYPES),
    // Any properties: without `additionalProperties: true` the serializer would drop every one of them.
    payload: Type.Object({}, { additionalProperties: true, description: 'The changed resource (or the documented summary of its type); {} when listed without with_content' }),
  },
  { description: 'Something that happened to a resource of the program' },
);
export type Event = Static<typeof Event>;

export const ListEventsQuery = ListQuery({
  ...CreatedRangeProperties,
  event_types: Type.Optional(
    Type.Array(StringEnum(EVENT_TYPES), { maxItems: MAX_EVENT_TYPE_FILTERS, description: 'Only events of these types (repeated or comma-separated)' }),
  ),
  with_content: Type.Optional(Type.Boolean({ default: false, description: 'Include each event’s payload (default false: payload is {})' })),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;
