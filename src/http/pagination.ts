/**
 * The one pagination mechanism of list endpoints: `page_size` (1–100, default 50) and the cursors
 * `starting_after` / `ending_before` (item tokens), answering `{data, has_more}` newest first.
 * The SQL side (keyset on `(created, token)`) is `db/pagination.ts`.
 */
import { StrictObject, Type, type TSchema } from './schemas.js';

export const PageQueryProperties = {
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Items per page, 1 to 100' })),
  starting_after: Type.Optional(Type.String({ format: 'uuid', description: 'Token of the item after which the page begins (older items)' })),
  ending_before: Type.Optional(Type.String({ format: 'uuid', description: 'Token of the item before which the page ends (newer items)' })),
};

/** Query schema of a list endpoint: its own filters plus the page parameters. */
export function ListQuery<T extends Record<string, TSchema>>(filters: T) {
  return StrictObject({ ...filters, ...PageQueryProperties });
}

/** `begin` / `end` filters: items created strictly after / before an RFC 3339 time. */
export const CreatedRangeProperties = {
  begin: Type.Optional(Type.String({ format: 'date-time', description: 'Only items created after this time' })),
  end: Type.Optional(Type.String({ format: 'date-time', description: 'Only items created before this time' })),
};
