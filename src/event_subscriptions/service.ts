/**
 * Event subscriptions (Lithic's `/v1/event_subscriptions`): where a program wants its events POSTed,
 * their signing secrets, and the queueing of delivery attempts (sent by delivery.ts).
 *
 * Decisions:
 * - `url`: an absolute http:// or https:// URL without credentials, whitespace or control
 *   characters, at most 2048 characters (the schema; 400 naming `url` otherwise). Lithic demands
 *   HTTPS; a local sandbox must reach receivers on http://localhost, so http is allowed.
 * - `event_types`: omitted, null or empty means every type (answered as null); repeats are dropped.
 *   PATCH takes Lithic's body (`url` required); a field it omits keeps its value.
 * - Every event is queued, in the transaction that emits it, for each enabled subscription of its
 *   program whose types include it (`queueDeliveries`); disabling a subscription stops new
 *   attempts and fails the queued ones when they come due; deleting one fails its PENDING attempts
 *   at once ("event subscription deleted"). Its attempts stay listable by event.
 * - The secret is created with the subscription and stored encrypted; a rotation keeps the previous
 *   one signing for 24 hours (wall time), and those earlier rotations retired until their own end:
 *   two rotations within a day sign with three secrets. Only the newest `RETIRED_SECRETS_KEPT` (10)
 *   retired secrets are kept, so rotations in a loop cannot grow the signature header without bound. Secrets are never logged.
 * - resend, recover, replay_missing and send_example queue attempts due at once; on a disabled
 *   subscription they are a 422 (nothing would be sent).
 * - An example event (send_example) is not an event of the program (nothing happened): it is kept
 *   apart (`example_events`), so `GET /v1/events` never lists it, but its attempts are real and are
 *   listed (by subscription, and by its token under /v1/events/{token}/attempts), retried and resent.
 */
import { isoTimestamp, MS_PER_HOUR } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { RowKey } from '../db/pagination.js';
import { InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import type { EventsTable } from '../events/tables.js';
import type { EventType } from '../events/types.js';
import type { ListResponse } from '../http/schemas.js';
import { newToken } from '../ids.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { newAttempt, nudgeAfterCommit, PREVIOUS_SECRET_VALID_MS, RETIRED_SECRETS_KEPT } from './delivery.js';
import type { CreateSubscriptionBody, EventSubscription, ListAttemptsQuery, ListSubscriptionsQuery, MessageAttempt, SendExampleBody, TimeRangeQuery, UpdateSubscriptionBody } from './schemas.js';
import { newWebhookSecret } from './signature.js';
import * as store from './store.js';

const SUBSCRIPTION = 'event subscription';

function toApi(row: store.SubscriptionRow): EventSubscription {
  return {
    token: row.token,
    url: row.url,
    description: row.description,
    disabled: row.disabled === 1,
    event_types: eventTypesOf(row),
  };
}

function attemptToApi(row: store.AttemptRow): MessageAttempt {
  return {
    token: row.token,
    created: isoTimestamp(Number(row.created_ms)),
    event_subscription_token: row.subscription_token,
    event_token: row.event_token,
    response: row.response,
    response_status_code: row.response_status_code,
    status: row.status as MessageAttempt['status'],
    url: row.url,
  };
}

/** What a URL never holds as such: whitespace and control characters (a URL parser drops or encodes them without a word). */
const NOT_IN_URL = /[\s\p{Cc}]/u;

/** The URL rule (see the module comment); returns the URL as given. */
function checkUrl(url: string): string {
  if (NOT_IN_URL.test(url)) throw new InvalidRequestError('url: must not contain whitespace or control characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidRequestError('url: must be an absolute http:// or https:// URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new InvalidRequestError('url: must be an http:// or https:// URL');
  if (parsed.hostname === '') throw new InvalidRequestError('url: must name a host');
  if (parsed.username !== '' || parsed.password !== '') throw new InvalidRequestError('url: must not contain a user name or password');
  return url;
}

/** event_types as stored: null for every type, else the distinct types as a JSON array. */
function storedEventTypes(eventTypes: readonly EventType[] | null | undefined): string | null {
  return eventTypes === undefined || eventTypes === null || eventTypes.length === 0 ? null : JSON.stringify([...new Set(eventTypes)]);
}

/** The types a subscription takes: null for every type. */
function eventTypesOf(subscription: Pick<store.SubscriptionRow, 'event_types'>): EventType[] | null {
  return subscription.event_types === null ? null : (JSON.parse(subscription.event_types) as EventType[]);
}

async function findOrThrow(exec: Executor, scope: ProgramScope, token: string): Promise<store.SubscriptionRow> {
  const row = await store.findSubscription(exec, scope.programId, token);
  if (!row) throw notFound(SUBSCRIPTION, token);
  return row;
}

/** The subscription found: 404 without one, 422 when it is disabled (nothing would be sent to it). */
function enabledOrThrow(row: store.SubscriptionRow | undefined, token: string): store.SubscriptionRow {
  if (!row) throw notFound(SUBSCRIPTION, token);
  if (row.disabled === 1) throw new UnprocessableError(`${SUBSCRIPTION} '${token}' is disabled: nothing would be sent to it`);
  return row;
}

async function findEnabledOrThrow(exec: Executor, scope: ProgramScope, token: string): Promise<store.SubscriptionRow> {
  return enabledOrThrow(await store.findSubscription(exec, scope.programId, token), token);
}

/**
 * The subscription a write queues attempts to, locked (404 if gone, 422 if disabled): a deletion,
 * which fails its pending attempts, then waits for this write and fails the attempt it queued too,
 * instead of committing first and leaving it PENDING (the lock order: subscription, then attempts).
 */
async function lockEnabledOrThrow(db: Db, tx: Tx, scope: ProgramScope, token: string): Promise<store.SubscriptionRow> {
  return enabledOrThrow(await store.lockSubscription(db, tx, scope.programId, token), token);
}

export async function create(tx: Tx, scope: ProgramScope, secrets: Secrets, body: CreateSubscriptionBody): Promise<EventSubscription> {
  const row: store.SubscriptionRow = {
    program_id: scope.programId,
    token: newToken(),
    url: checkUrl(body.url),
    description: body.description ?? '',
    disabled: body.disabled ? 1 : 0,
    event_types: storedEventTypes(body.event_types),
    secret_encrypted: secrets.encrypt(newWebhookSecret()),
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  };
  await store.insertSubscription(tx, row);
  return toApi(row);
}

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<EventSubscription> {
  return toApi(await findOrThrow(exec, scope, token));
}

export async function update(tx: Tx, scope: ProgramScope, token: string, body: UpdateSubscriptionBody): Promise<EventSubscription> {
  const url = checkUrl(body.url);
  const changes: store.SubscriptionChanges = { url, updated_ms: scope.nowMs };
  if (body.description !== undefined) changes.description = body.description;
  if (body.disabled !== undefined) changes.disabled = body.disabled ? 1 : 0;
  if (body.event_types !== undefined) changes.event_types = storedEventTypes(body.event_types);
  if ((await store.updateSubscription(tx, scope.programId, token, changes)) === 0) throw notFound(SUBSCRIPTION, token);
  return get(tx, scope, token);
}

export async function list(exec: Executor, scope: ProgramScope, query: ListSubscriptionsQuery): Promise<ListResponse<EventSubscription>> {
  const page = await store.listSubscriptions(exec, scope.programId, query);
  return { data: page.rows.map(toApi), has_more: page.has_more };
}

export async function remove(tx: Tx, scope: ProgramScope, token: string): Promise<void> {
  if (!(await store.deleteSubscription(tx, scope.programId, token, scope.nowMs))) throw notFound(SUBSCRIPTION, token);
  await store.failPendingAttempts(tx, scope.programId, token, `${SUBSCRIPTION} deleted`, scope.nowMs);
}

export async function secret(exec: Executor, scope: ProgramScope, secrets: Secrets, token: string): Promise<{ secret: string }> {
  return { secret: secrets.decrypt((await findOrThrow(exec, scope, token)).secret_encrypted) };
}

/**
 * A new secret; the current one keeps signing until `nowWallMs` + 24 hours, as every secret an
 * earlier rotation retired keeps signing until its own end (those past it are deleted now), the
 * newest `RETIRED_SECRETS_KEPT` of them only (an older one is deleted before its end). The
 * subscription is locked: concurrent rotations take turns, and each retires the secret the other
 * made.
 */
export async function rotateSecret(db: Db, tx: Tx, scope: ProgramScope, secrets: Secrets, token: string, nowWallMs: number): Promise<void> {
  const row = await store.lockSubscription(db, tx, scope.programId, token);
  if (!row) throw notFound(SUBSCRIPTION, token);
  await store.retireSecret(tx, scope.programId, token, row.secret_encrypted, nowWallMs, nowWallMs + PREVIOUS_SECRET_VALID_MS, RETIRED_SECRETS_KEPT);
  await store.updateSubscription(tx, scope.programId, token, {
    secret_encrypted: secrets.encrypt(newWebhookSecret()),
    updated_ms: actingOn(scope, Number(row.updated_ms)).nowMs,
  });
}

/**
 * Called by `emitEvent` in the transaction of the events it writes: one PENDING attempt, due at
 * once, per event and enabled subscription of its program that takes the event's type. One
 * indexed query per program (a transaction's events are one program's); nothing more when the
 * program has no subscription.
 */
export async function queueDeliveries(tx: Tx, events: readonly EventsTable[]): Promise<void> {
  const attempts: store.AttemptRow[] = [];
  for (const programId of new Set(events.map((event) => event.program_id))) {
    const subscriptions = (await store.enabledSubscriptions(tx, programId)).map((subscription) => ({ subscription, types: eventTypesOf(subscription) }));
    for (const event of events) {
      if (event.program_id !== programId) continue;
      for (const { subscription, types } of subscriptions) {
        if (types === null || types.includes(event.event_type as EventType)) attempts.push(newAttempt(programId, event.token, subscription, event.created_ms));
      }
    }
  }
  if (attempts.length === 0) return;
  await store.insertAttempts(tx, attempts);
  nudgeAfterCommit(tx);
}

/** Queues one attempt, due at once, per event token to the subscription. */
async function queueTo(tx: Tx, scope: ProgramScope, subscription: store.SubscriptionRow, eventTokens: readonly string[]): Promise<void> {
  if (eventTokens.length === 0) return;
  await store.insertAttempts(
    tx,
    eventTokens.map((eventToken) => newAttempt(scope.programId, eventToken, subscription, scope.nowMs)),
  );
  nudgeAfterCommit(tx);
}

export async function listAttempts(exec: Executor, scope: ProgramScope, of: { event_token: string } | { subscription_token: string }, query: ListAttemptsQuery): Promise<ListResponse<MessageAttempt>> {
  if ('event_token' in of && !(await store.findEventOrExample(exec, scope.programId, of.event_token))) throw notFound('event', of.event_token);
  if ('subscription_token' in of) await findOrThrow(exec, scope, of.subscription_token);
  const { page_size, starting_after, ending_before, ...filters } = query;
  const page = await store.listAttempts(exec, scope.programId, { ...filters, ...of }, { page_size, starting_after, ending_before });
  return { data: page.rows.map(attemptToApi), has_more: page.has_more };
}

export async function resend(db: Db, tx: Tx, scope: ProgramScope, eventToken: string, subscriptionToken: string): Promise<void> {
  const event = await store.findEventOrExample(tx, scope.programId, eventToken);
  if (!event) throw notFound('event', eventToken);
  await queueTo(tx, scope, await lockEnabledOrThrow(db, tx, scope, subscriptionToken), [eventToken]);
}

/**
 * At most this many rows are read, and events queued, in one transaction of recover or
 * replay_missing: a program may have very many events, and one transaction over all of them would
 * hold its locks (on SQLite, the database) and grow its write without bound.
 */
export const REQUEUE_CHUNK_SIZE = 1_000;

/**
 * Walks a range in chunks, each in a transaction of its own that first locks the subscription
 * (404 once it is gone, 422 once it is disabled: nothing more would be sent; concurrent walks of
 * one subscription take turns, so none queues what another just queued). `step` queues what one
 * chunk holds and returns the cursor of the next, or undefined at the end.
 */
async function walkInChunks(
  db: Db,
  scope: ProgramScope,
  token: string,
  step: (tx: Tx, subscription: store.SubscriptionRow, after: RowKey | null) => Promise<RowKey | undefined>,
): Promise<void> {
  for (let after: RowKey | null | undefined = null; after !== undefined; ) {
    const from: RowKey | null = after;
    after = await db.transaction(async (tx) => {
      const subscription = await store.lockSubscription(db, tx, scope.programId, token);
      return step(tx, enabledOrThrow(subscription, token), from);
    });
  }
}

/** The cursor after a chunk of `chunkSize` rows: its last row's, or undefined when it was the last chunk. */
function nextCursor(rows: readonly RowKey[], chunkSize: number): RowKey | undefined {
  const last = rows[rows.length - 1];
  return rows.length < chunkSize || last === undefined ? undefined : { created_ms: last.created_ms, token: last.token };
}

/**
 * Queues again every event created in the range (Lithic's "entries created after `begin`": the
 * failed messages, not their attempts) whose delivery to the subscription gave up: a FAILED
 * attempt, and none that succeeded or is under way. The subscription's attempts are walked in
 * chunks (`REQUEUE_CHUNK_SIZE`). An event one chunk queues has an attempt under way from then on (a
 * failed attempt's retry is queued in the transaction that records the failure), so a later chunk
 * that meets another of its failed attempts leaves it alone.
 */
export async function recover(db: Db, scope: ProgramScope, token: string, range: TimeRangeQuery, chunkSize = REQUEUE_CHUNK_SIZE): Promise<void> {
  const within = { ...range, untilMs: scope.nowMs };
  await walkInChunks(db, scope, token, async (tx, subscription, after) => {
    const attempts = await store.attemptsToRecover(tx, scope.programId, token, within, after, chunkSize);
    const gaveUp = new Set(attempts.filter((attempt) => attempt.gave_up).map((attempt) => attempt.event_token));
    await queueTo(tx, scope, subscription, [...gaveUp]);
    return nextCursor(attempts, chunkSize);
  });
}

/**
 * Queues the program's events of the subscription's types created in the range that were never
 * attempted for it, also those from before it existed: the events are walked in chunks
 * (`REQUEUE_CHUNK_SIZE`), one type after another on the events' type index (all of them at once
 * for a subscription to every type), oldest first within each.
 */
export async function replayMissing(db: Db, scope: ProgramScope, token: string, range: TimeRangeQuery, chunkSize = REQUEUE_CHUNK_SIZE): Promise<void> {
  const within = { ...range, untilMs: scope.nowMs };
  const eventTypes = eventTypesOf(await findEnabledOrThrow(db.kysely, scope, token));
  for (const eventType of eventTypes ?? [null]) {
    await walkInChunks(db, scope, token, async (tx, subscription, after) => {
      const events = await store.eventsToReplay(tx, scope.programId, token, eventType, within, after, chunkSize);
      await queueTo(tx, scope, subscription, events.filter((event) => !event.attempted).map((event) => event.token));
      return nextCursor(events, chunkSize);
    });
  }
}

/** The payload of an example event of a type (examples.ts `exampleFor`, given by the route: it is made by the resources' modules, which record events through this one). */
export type ExamplePayload = (eventType: EventType, scope: ProgramScope) => object;

/** An example event of the type asked (default: the subscription's first type, or card.created), queued to this subscription only. */
export async function sendExample(db: Db, tx: Tx, scope: ProgramScope, token: string, body: SendExampleBody, examplePayload: ExamplePayload): Promise<void> {
  const subscription = await lockEnabledOrThrow(db, tx, scope, token);
  const eventType = body.event_type ?? eventTypesOf(subscription)?.[0] ?? 'card.created';
  const example: store.EventRow = {
    program_id: scope.programId,
    token: newToken(),
    event_type: eventType,
    payload: JSON.stringify(examplePayload(eventType, scope)),
    created_ms: scope.nowMs,
  };
  await store.insertExampleEvent(tx, example);
  await queueTo(tx, scope, subscription, [example.token]);
}

export const ROTATION_OVERLAP_HOURS = PREVIOUS_SECRET_VALID_MS / MS_PER_HOUR;
export { RETIRED_SECRETS_KEPT };
