/**
 * SQL for event subscriptions, their delivery attempts and the example events of send_example.
 * The dispatcher's queries (due attempts, leases, completion) work across programs: they run
 * outside any request, by the partial index of attempts still to send (migration 0022).
 */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import { anyOfUnindexed, chunkAfter, createdBetween, createdBetweenCondition, keysetPage, rememberDeleted, type PageParams, type RowKey } from '../db/pagination.js';
import type { Database } from '../db/schema.js';
import { insertRows, prepared, preparedWrite } from '../db/prepared.js';
import type { EventAttemptsTable, EventsTable, EventSubscriptionsTable } from '../events/tables.js';

export type SubscriptionRow = EventSubscriptionsTable;
export type AttemptRow = EventAttemptsTable;
export type EventRow = EventsTable;

export async function insertSubscription(exec: Executor, row: SubscriptionRow): Promise<void> {
  await insertRows(exec, 'event_subscriptions', [row]);
}

function subscription(exec: Executor, programId: string, token: string) {
  return exec.selectFrom('event_subscriptions').selectAll().where('program_id', '=', programId).where('token', '=', token);
}

export function findSubscription(exec: Executor, programId: string, token: string): Promise<SubscriptionRow | undefined> {
  return subscription(exec, programId, token).executeTakeFirst();
}

/** The subscription, its row locked until `tx` ends (PostgreSQL; a SQLite write transaction holds the database). */
export function lockSubscription(db: Db, tx: Tx, programId: string, token: string): Promise<SubscriptionRow | undefined> {
  return db.forUpdate(subscription(tx, programId, token)).executeTakeFirst();
}

export type SubscriptionChanges = Partial<Pick<SubscriptionRow, 'url' | 'description' | 'disabled' | 'event_types' | 'secret_encrypted'>> & {
  updated_ms: number;
};

export async function updateSubscription(exec: Executor, programId: string, token: string, changes: SubscriptionChanges): Promise<number> {
  const result = await exec.updateTable('event_subscriptions').set(changes).where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes the subscription and the secrets it retired, keeping its place in the list for cursors; false when there was none. */
export async function deleteSubscription(exec: Executor, programId: string, token: string, nowMs: number): Promise<boolean> {
  const deleted = await exec
    .deleteFrom('event_subscriptions')
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .returning(['created_ms', 'token'])
    .executeTakeFirst();
  if (deleted === undefined) return false;
  await exec.deleteFrom('event_subscription_secrets').where('program_id', '=', programId).where('subscription_token', '=', token).execute();
  await rememberDeleted(exec, 'event_subscriptions', programId, deleted, nowMs);
  return true;
}

/**
 * Retires a subscription's secret until `untilWallMs`, then keeps only the newest `keptCount` it
 * retired that still sign at `nowWallMs` (the others are deleted).
 */
export async function retireSecret(exec: Executor, programId: string, subscriptionToken: string, secretEncrypted: string, nowWallMs: number, untilWallMs: number, keptCount: number): Promise<void> {
  await insertRows(exec, 'event_subscription_secrets', [
    { program_id: programId, subscription_token: subscriptionToken, until_ms: untilWallMs, secret_encrypted: secretEncrypted },
  ]);
  await exec
    .deleteFrom('event_subscription_secrets')
    .where('program_id', '=', programId)
    .where('subscription_token', '=', subscriptionToken)
    .where((eb) =>
      eb.or([
        eb('until_ms', '<=', nowWallMs),
        eb(
          eb.refTuple('until_ms', 'secret_encrypted'),
          'not in',
          eb
            .selectFrom('event_subscription_secrets as newest')
            .select(['newest.until_ms', 'newest.secret_encrypted'])
            .where('newest.program_id', '=', programId)
            .where('newest.subscription_token', '=', subscriptionToken)
            .orderBy('newest.until_ms', 'desc')
            .orderBy('newest.secret_encrypted', 'desc')
            .limit(keptCount)
            .$asTuple('until_ms', 'secret_encrypted'),
        ),
      ]),
    )
    .execute();
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
  await insertRows(exec, 'event_attempts', rows, { deferrable: true });
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
  return keysetPage(exec, query, 'event_attempts', programId, page, filters);
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

/** The range of a recover or replay_missing: `begin`/`end` (exclusive) and, inclusive, the time of the request (what is recorded while it runs is not chased). */
export interface RequeueRange {
  begin?: string | undefined;
  end?: string | undefined;
  untilMs: number;
}

function createdIn<O>(query: SelectQueryBuilder<Database, never, O>, range: RequeueRange, alias: string): SelectQueryBuilder<Database, never, O> {
  return createdBetween(query, range, alias).where(sql<boolean>`${sql.ref(`${alias}.created_ms`)} <= ${range.untilMs}`);
}

/**
 * recover, one chunk: the next `limit` attempts to the subscription made from `begin` through the
 * time of the request, after `after` (on `event_attempts_by_subscription`), each with `gave_up`: its
 * event (or example event) was created in the range, it FAILED, and its event has no attempt to the
 * subscription that succeeded or is under way (PENDING, SENDING). The range is the events' (Lithic:
 * failed messages, "entries created after `begin`"), not the attempts': an event created before
 * `begin` is left alone though its retries failed after it, and one created before `end` is
 * recovered though they failed after it. No attempt is made before its event was created, so the
 * walk starts at `begin`. The event's other attempts are a seek into `event_attempts_by_event` (its
 * few), the subscription a condition on them (`anyOfUnindexed`: SQLite took
 * `event_attempts_by_subscription` and read the subscription's whole history for each attempt).
 */
export function attemptsToRecover(exec: Executor, programId: string, subscriptionToken: string, range: RequeueRange, after: RowKey | null, limit: number) {
  const eventCreatedIn = createdBetweenCondition('created.created_ms', range);
  const attempts = exec
    .selectFrom('event_attempts as attempt')
    .select(['attempt.created_ms', 'attempt.token', 'attempt.event_token'])
    .select((eb) =>
      eb
        .and([
          eb('attempt.status', '=', 'FAILED'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('event_attempts as other')
                .select(sql`1`.as('one'))
                .where('other.program_id', '=', programId)
                .whereRef('other.event_token', '=', 'attempt.event_token')
                .where(anyOfUnindexed(exec, 'other.subscription_token', [subscriptionToken]))
                .where('other.status', '<>', 'FAILED'),
            ),
          ),
          ...(eventCreatedIn === undefined
            ? []
            : [
                eb.or(
                  (['events', 'example_events'] as const).map((table) =>
                    eb.exists(
                      eb
                        .selectFrom(`${table} as created`)
                        .select(sql`1`.as('one'))
                        .where('created.program_id', '=', programId)
                        .whereRef('created.token', '=', 'attempt.event_token')
                        .where(eventCreatedIn),
                    ),
                  ),
                ),
              ]),
        ])
        .as('gave_up'),
    )
    .where('attempt.program_id', '=', programId)
    .where('attempt.subscription_token', '=', subscriptionToken);
  return chunkAfter(createdIn(attempts, { begin: range.begin, untilMs: range.untilMs }, 'attempt'), 'attempt', after, limit).execute();
}

/**
 * replay_missing, one chunk: the next `limit` events of the program of `eventType` (null: of any
 * type) created in the range, after `after` (on `events_by_type`, or `events_by_created`), each
 * with `attempted`: the subscription has an attempt of it.
 */
export function eventsToReplay(exec: Executor, programId: string, subscriptionToken: string, eventType: string | null, range: RequeueRange, after: RowKey | null, limit: number) {
  let events = exec
    .selectFrom('events')
    .select(['events.created_ms', 'events.token'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('event_attempts')
            .select(sql`1`.as('one'))
            .where('event_attempts.program_id', '=', programId)
            .whereRef('event_attempts.event_token', '=', 'events.token')
            .where('event_attempts.subscription_token', '=', subscriptionToken),
        )
        .as('attempted'),
    )
    .where('events.program_id', '=', programId);
  if (eventType !== null) events = events.where('events.event_type', '=', eventType);
  return chunkAfter(createdIn(events, range, 'events'), 'events', after, limit).execute();
}

// ---- The dispatcher's queries ----

/**
 * The attempts still to send, as index `event_attempts_due_by_subscription` (migration 0022) holds
 * them. Written as a literal, as the index's predicate is: SQLite uses a partial index only then.
 */
const toSend = sql<boolean>`event_attempts.status in ('PENDING', 'SENDING')`;

/**
 * The `limit` subscriptions whose first due attempt comes first (by due time, then token). The
 * subscriptions with attempts to send (due now or retrying later) are found by a skip scan over the
 * index (a few seeks each, not a read of every attempt), so the cost follows the number of such
 * subscriptions, not the backlog: a few ms per poll at 10,000 of them.
 */
const subscriptionsDue = prepared((db, nowWallMs: number, limit: number) =>
  db
    .withRecursive('pending(subscription_token)', (qb) =>
      qb
        .selectNoFrom((eb) => eb.selectFrom('event_attempts').select('subscription_token').where(toSend).orderBy('subscription_token').limit(1).as('subscription_token'))
        .unionAll((union) =>
          union
            .selectFrom('pending')
            .select((eb) =>
              eb
                .selectFrom('event_attempts')
                .select('event_attempts.subscription_token')
                .where(toSend)
                .whereRef('event_attempts.subscription_token', '>', 'pending.subscription_token')
                .orderBy('event_attempts.subscription_token')
                .limit(1)
                .as('subscription_token'),
            )
            .where('pending.subscription_token', 'is not', null),
        ),
    )
    .selectFrom((eb) =>
      eb
        .selectFrom('pending')
        .select('pending.subscription_token')
        .select((inner) => firstToSend(inner, 'event_attempts.due_wall_ms').as('first_due_wall_ms'))
        .select((inner) => firstToSend(inner, 'event_attempts.token').as('first_token'))
        .where('pending.subscription_token', 'is not', null)
        .as('firsts'),
    )
    .select(['firsts.subscription_token'])
    .where('firsts.first_due_wall_ms', '<=', nowWallMs)
    .orderBy('firsts.first_due_wall_ms')
    .orderBy('firsts.first_token')
    .limit(limit),
);

/** A column of the first attempt to send of `pending.subscription_token`, by due time then token: one seek. */
function firstToSend(eb: ExpressionBuilder<Database & { pending: { subscription_token: string | null } }, 'pending'>, column: 'event_attempts.due_wall_ms' | 'event_attempts.token') {
  return eb
    .selectFrom('event_attempts')
    .select(column)
    .where(toSend)
    .whereRef('event_attempts.subscription_token', '=', 'pending.subscription_token')
    .orderBy('event_attempts.due_wall_ms')
    .orderBy('event_attempts.token')
    .limit(1);
}

/** One subscription's oldest `limit` due attempts: one range of the index. */
const dueOfSubscription = prepared((db, subscriptionToken: string, nowWallMs: number, limit: number) =>
  db
    .selectFrom('event_attempts')
    .select(['program_id', 'token', 'subscription_token', 'due_wall_ms'])
    .where(toSend)
    .where('subscription_token', '=', subscriptionToken)
    .where('due_wall_ms', '<=', nowWallMs)
    .orderBy('due_wall_ms')
    .orderBy('token')
    .limit(limit),
);

export interface DueAttempt {
  program_id: string;
  token: string;
  subscription_token: string;
}

/**
 * Attempts due by `nowWallMs`: PENDING ones, and SENDING ones whose lease expired (a leased attempt
 * is due when its lease ends). Taken in turns: every subscription's oldest due attempt first, then
 * every subscription's second, and so on, at most `perSubscription` of each, so that one
 * subscription's backlog (a receiver that hangs, a replay of thousands of events) cannot fill the
 * batch while another subscription's attempt waits. Within a turn, oldest due first.
 *
 * Only the `limit` subscriptions with the oldest first attempts can appear: each has one in the
 * first turn. So: those subscriptions, then up to `perSubscription` of each, ranked by turn.
 */
export async function dueAttempts(exec: Executor, nowWallMs: number, perSubscription: number, limit: number): Promise<DueAttempt[]> {
  const subscriptions = await subscriptionsDue(exec, nowWallMs, limit);
  const ranked: { turn: number; due_wall_ms: number; attempt: DueAttempt }[] = [];
  // At most `limit` small range reads, each of at most `perSubscription` rows.
  for (const { subscription_token } of subscriptions) {
    const due = await dueOfSubscription(exec, subscription_token as string, nowWallMs, perSubscription);
    due.forEach(({ due_wall_ms, ...attempt }, turn) => ranked.push({ turn, due_wall_ms: Number(due_wall_ms), attempt }));
  }
  ranked.sort((a, b) => a.turn - b.turn || a.due_wall_ms - b.due_wall_ms || (a.attempt.token < b.attempt.token ? -1 : a.attempt.token > b.attempt.token ? 1 : 0));
  return ranked.slice(0, limit).map((each) => each.attempt);
}

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

/**
 * A leased attempt with what sending it needs: its subscription (null once deleted) with the
 * secrets its rotations retired (`retired`: each until when it signs, wall time; the newest
 * first). One query: the retired secrets are joined, a row each.
 */
export async function leasedDelivery(exec: Executor, programId: string, token: string) {
  const rows = await exec
    .selectFrom('event_attempts')
    .leftJoin('event_subscriptions', (join) =>
      join.onRef('event_subscriptions.program_id', '=', 'event_attempts.program_id').onRef('event_subscriptions.token', '=', 'event_attempts.subscription_token'),
    )
    .leftJoin('event_subscription_secrets as retired', (join) =>
      join.onRef('retired.program_id', '=', 'event_subscriptions.program_id').onRef('retired.subscription_token', '=', 'event_subscriptions.token'),
    )
    .select([
      'event_attempts.program_id',
      'event_attempts.token',
      'event_attempts.event_token',
      'event_attempts.subscription_token',
      'event_attempts.attempt_number',
      'event_attempts.url as attempt_url',
      'event_subscriptions.url',
      'event_subscriptions.disabled',
      'event_subscriptions.secret_encrypted',
      'retired.secret_encrypted as retired_secret_encrypted',
      'retired.until_ms as retired_until_ms',
    ])
    .where('event_attempts.program_id', '=', programId)
    .where('event_attempts.token', '=', token)
    .orderBy('retired.until_ms', 'desc')
    .execute();
  const [first] = rows;
  if (first === undefined) return undefined;
  const { retired_secret_encrypted: _secret, retired_until_ms: _until, ...delivery } = first;
  const retired = rows.flatMap((row) =>
    row.retired_secret_encrypted === null || row.retired_until_ms === null ? [] : [{ secret_encrypted: row.retired_secret_encrypted, until_ms: Number(row.retired_until_ms) }],
  );
  return { ...delivery, retired };
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
