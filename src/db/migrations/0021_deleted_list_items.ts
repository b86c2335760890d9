/**
 * `deleted_list_items`: where a deleted row stood in its list, so that a cursor naming it still
 * pages on. The SDKs page by the token of the last item they were given; a client that lists auth
 * rules or event subscriptions and deletes each (`for await (…) delete(item.token)`) asks for the
 * next page after a row that no longer exists. The row's `(created_ms, token)` place is kept here
 * when it is deleted (db/pagination.ts), and nothing else of it. One small row per deleted rule or
 * subscription, kept as events are (no retention).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('deleted_list_items')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('list_table', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('deleted_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('deleted_list_items_pk', ['program_id', 'list_table', 'token'])
    .execute();
}
