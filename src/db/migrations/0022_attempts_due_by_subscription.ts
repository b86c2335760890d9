/**
 * `event_attempts_due_by_subscription`: the attempts still to send (PENDING, or SENDING under a
 * lease that may run out), by subscription and due time. The dispatcher takes due attempts in
 * turns between subscriptions (event_subscriptions/store.ts `dueAttempts`); with this index it
 * finds the subscriptions that have attempts to send by a few seeks each, and each one's oldest
 * due attempts by one range: a poll's cost follows the number of subscriptions with attempts
 * waiting (due or retrying later), not the number of attempts. Its
 * predicate is written with literals, as the queries state it (SQLite uses a partial index only
 * when the query states its terms as written). It replaces 0017's `event_attempts_due (status,
 * due_wall_ms)`, which only the old query, ranking every due attempt, read.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX event_attempts_due_by_subscription ON event_attempts (subscription_token, due_wall_ms, token)
    WHERE status IN ('PENDING', 'SENDING')`.execute(db);
  await db.schema.dropIndex('event_attempts_due').execute();
}
