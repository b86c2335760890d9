/**
 * SQL for event subscriptions, their delivery attempts and the example events of send_example.
 * The dispatcher's queries (due attempts, leases, completion) work across programs: they run
 * outside any request, by the `(status, due_wall_ms)` index.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { createdBetween, keysetPage, type PageParams } from '../db/pagination.js';
import { insertRows, prepared, preparedWrite } from '../db/prepared.js';
import type { EventAttemptsTable, EventsTable, EventSubscriptionsTable } from '../events/tables.js';

export type SubscriptionRow = EventSubscriptionsTable;
export type AttemptRow = EventAttemptsTable;
export type EventRow = EventsTable;

export async function insertSubscription(exec: Executor, row: SubscriptionRow): Promise<void> {
  await insertRows(exec, 'event_subscriptions', [row]);
}

export function findSubscription(exec: Executor, programId: string, token: string): Promise<SubscriptionRow | undefined> {
  return exec.selectFrom('event_subscriptions').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

export type SubscriptionChanges = Partial<Pick<SubscriptionRow, 'url' | 'description' | 'disabled' | 'event_types' | 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_until_ms'>> & {
  updated_ms: number;
};

export async function updateSubscription(exec: Executor, programId: string, token: string, changes: SubscriptionChanges): Promise<number> {
  const result = await exec.updateTable('event_subscriptions').set(changes).where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteSubscription(exec: Executor, programId: string, token: string): Promise<number> {
  const result = await exec.deleteFrom('event_subscriptions').where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function listSubscriptions(exec: Executor, programId: string, page: PageParams) {
  const query = exec.selectFrom('event_subscriptions').selectAll().where('program_id', '=', programId);
  return keysetPage(exec, query, 'event_subscriptions', programId, page);
}

/** The enabled subscriptions of a program, for every emitted event: one primary-key range scan. */
export const enabledSubscriptions = prepared((db, programId: string) =>
  db.selectFrom('event_subscriptions').select(['token', 'url', 'event_types']).where('program_id', '=', programId).where('disabled', '=', 0),
);

export async function insertAttempts(exec: Executor, rows: readonly AttemptRow[]): Promise<void> {
  await insertRows(exec, 'event_attempts', rows);
}

/** Ends the PENDING attempts to a subscription (it was deleted): FAILED with `response`, never sent. */
export async function failPendingAttempts(exec: Executor, programId: string, subscriptionToken: string, response: string, nowMs: number): Promise<void> {
  await exec
    .updateTable('event_attempts')
    .set({ status: 'FAILED', response, response_status_code: 0, updated_ms: nowMs })
    .where('program_id', '=', programId)
    .where('subscription_token', '=', subscriptionToken)
    .where('status', '=', 'PENDING')
    .execute();
}

export interface AttemptFilters {
  event_token?: string | undefined;
  subscription_token?: string | undefined;
  status?: string | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

export function listAttempts(exec: Executor, programId: string, filters: AttemptFilters, page: PageParams) {
  let query = exec.selectFrom('event_attempts').selectAll().where('program_id', '=', programId);
  if (filters.event_token !== undefined) query = query.where('event_token', '=', filters.event_token);
  if (filters.subscription_token !== undefined) query = query.where('subscription_token', '=', filters.subscription_token);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  return keysetPage(exec, createdBetween(query, filters, 'event_attempts'), 'event_attempts', programId, page);
}

/** An event of the program, or one of its example events (`example: true`). */
export async function findEventOrExample(exec: Executor, programId: string, token: string): Promise<(EventRow & { example: boolean }) | undefined> {
  const event = await exec.selectFrom('events').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  if (event) return { ...event, example: false };
  const example = await exec.selectFrom('example_events').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  return example && { ...example, example: true };
}

export async function insertExampleEvent(exec: Executor, row: EventRow): Promise<void> {
  await insertRows(exec, 'example_events', [row]);
}

/**
 * recover: the events that have a FAILED attempt to the subscription created in the range, and no
 * attempt that succeeded or is still under way (PENDING, SENDING): their delivery gave up.
 */
export async function eventsToRecover(exec: Executor, programId: string, subscriptionToken: string, range: { begin?: string | undefined; end?: string | undefined }) {
  const failed = exec
    .selectFrom('event_attempts')
    .select('event_token')
    .distinct()
    .where('program_id', '=', programId)
    .where('subscription_token', '=', subscriptionToken)
    .where('status', '=', 'FAILED')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('event_attempts as other')
            .select(sql`1`.as('one'))
            .where('other.program_id', '=', programId)
            .where('other.subscription_token', '=', subscriptionToken)
            .whereRef('other.event_token', '=', 'event_attempts.event_token')
            .where('other.status', '<>', 'FAILED'),
        ),
      ),
    );
  const rows = await createdBetween(failed, range, 'event_attempts').execute();
  return rows.map((row) => row.event_token);
}

/** replay_missing: the program's events in the range, of `eventTypes` (null: all), never attempted for the subscription. */
export async function eventsNeverAttempted(
  exec: Executor,
  programId: string,
  subscriptionToken: string,
  eventTypes: readonly string[] | null,
  range: { begin?: string | undefined; end?: string | undefined },
) {
  let query = exec.selectFrom('events').select(['token', 'created_ms']).where('program_id', '=', programId);
  if (eventTypes !== null) query = query.where('event_type', 'in', eventTypes);
  const unattempted = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('event_attempts')
            .select(sql`1`.as('one'))
            .where('event_attempts.program_id', '=', programId)
            .whereRef('event_attempts.event_token', '=', 'events.token')
            .where('event_attempts.subscription_token', '=', subscriptionToken),
        ),
      ),
    );
  const rows = await createdBetween(unattempted, range, 'events').orderBy(sql`created_ms`).orderBy(sql`token`).execute();
  return rows.map((row) => row.token);
}

// ---- The dispatcher's queries ----

/** Attempts due by `nowWallMs`: PENDING ones, and SENDING ones whose lease expired (a leased attempt is due when its lease ends). */
export const dueAttempts = prepared((db, nowWallMs: number, limit: number) =>
  db
    .selectFrom('event_attempts')
    .select(['program_id', 'token'])
    .where('status', 'in', ['PENDING', 'SENDING'])
    .where('due_wall_ms', '<=', nowWallMs)
    .orderBy('due_wall_ms')
    .limit(limit),
);

/**
 * Takes the lease of a due attempt for `owner` until `leaseExpiresWallMs` (also its new due time).
 * A conditional update: of several dispatchers only one changes the row (on PostgreSQL the others
 * wait for its row lock and then find it no longer due). Returns rows changed (0 or 1).
 */
export const leaseAttempt = preparedWrite((db, programId: string, token: string, owner: string, nowWallMs: number, leaseExpiresWallMs: number) =>
  db
    .updateTable('event_attempts')
    .set({ status: 'SENDING', lease_owner: owner, due_wall_ms: leaseExpiresWallMs })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('status', 'in', ['PENDING', 'SENDING'])
    .where('due_wall_ms', '<=', nowWallMs),
);

/** A leased attempt with what sending it needs: its subscription (null once deleted) and its program's clock. */
export async function leasedDelivery(exec: Executor, programId: string, token: string) {
  return exec
    .selectFrom('event_attempts')
    .innerJoin('programs', 'programs.id', 'event_attempts.program_id')
    .leftJoin('event_subscriptions', (join) =>
      join.onRef('event_subscriptions.program_id', '=', 'event_attempts.program_id').onRef('event_subscriptions.token', '=', 'event_attempts.subscription_token'),
    )
    .select([
      'event_attempts.program_id',
      'event_attempts.token',
      'event_attempts.event_token',
      'event_attempts.subscription_token',
      'event_attempts.attempt_number',
      'event_attempts.url as attempt_url',
      'programs.clock_offset_ms',
      'event_subscriptions.url',
      'event_subscriptions.disabled',
      'event_subscriptions.secret_encrypted',
      'event_subscriptions.previous_secret_encrypted',
      'event_subscriptions.previous_secret_until_ms',
    ])
    .where('event_attempts.program_id', '=', programId)
    .where('event_attempts.token', '=', token)
    .executeTakeFirst();
}

export interface AttemptOutcome {
  status: 'SUCCESS' | 'FAILED';
  url: string;
  response: string;
  response_status_code: number;
  updated_ms: number;
}

/** Records the outcome of an attempt this owner still leases. Returns rows changed (0: the lease was lost). */
export async function completeAttempt(exec: Executor, programId: string, token: string, owner: string, outcome: AttemptOutcome): Promise<number> {
  const result = await exec
    .updateTable('event_attempts')
    .set({ ...outcome, lease_owner: null })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'SENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Gives back a lease without an outcome (the dispatcher is stopping): the attempt is PENDING and due at once. */
export async function releaseLease(exec: Executor, programId: string, token: string, owner: string): Promise<void> {
  await exec
    .updateTable('event_attempts')
    .set({ status: 'PENDING', lease_owner: null, due_wall_ms: 0 })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'SENDING')
    .execute();
}
