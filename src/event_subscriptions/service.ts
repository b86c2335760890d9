/**
 * Event subscriptions (Lithic's `/v1/event_subscriptions`): where a program wants its events POSTed,
 * their signing secrets, and the queueing of delivery attempts (sent by delivery.ts).
 *
 * Decisions:
 * - `url`: an absolute http:// or https:// URL without credentials, at most 2048 characters (the schema; 400
 *   naming `url` otherwise). Lithic demands HTTPS; a local sandbox must reach receivers on
 *   http://localhost, so http is allowed.
 * - `event_types`: omitted, null or empty means every type (answered as null); repeats are dropped.
 *   PATCH takes Lithic's body (`url` required); a field it omits keeps its value.
 * - Every event is queued, in the transaction that emits it, for each enabled subscription of its
 *   program whose types include it (`queueDeliveries`); disabling a subscription stops new
 *   attempts and fails the queued ones when they come due; deleting one fails its PENDING attempts
 *   at once ("event subscription deleted"). Its attempts stay listable by event.
 * - The secret is created with the subscription and stored encrypted; a rotation keeps the previous
 *   one signing for 24 hours (wall time). Secrets are never logged.
 * - resend, recover, replay_missing and send_example queue attempts due at once; on a disabled
 *   subscription they are a 422 (nothing would be sent).
 * - An example event (send_example) is not an event of the program (nothing happened): it is kept
 *   apart (`example_events`), so `GET /v1/events` never lists it, but its attempts are real and are
 *   listed (by subscription, and by its token under /v1/events/{token}/attempts), retried and resent.
 */
import { isoTimestamp, MS_PER_HOUR } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Executor, Tx } from '../db/database.js';
import { InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import type { EventsTable } from '../events/tables.js';
import type { EventType } from '../events/types.js';
import type { ListResponse } from '../http/schemas.js';
import { newToken } from '../ids.js';
import type { ProgramScope } from '../programs/scope.js';
import { newAttempt, nudgeAfterCommit, PREVIOUS_SECRET_VALID_MS } from './delivery.js';
import { exampleFor } from './examples.js';
import type { CreateSubscriptionBody, EventSubscription, ListAttemptsQuery, ListSubscriptionsQuery, MessageAttempt, SendExampleBody, TimeRangeQuery, UpdateSubscriptionBody } from './schemas.js';
import { newWebhookSecret } from './signature.js';
import * as store from './store.js';

const SUBSCRIPTION = 'event subscription';

export function toApi(row: store.SubscriptionRow): EventSubscription {
  return {
    token: row.token,
    url: row.url,
    description: row.description,
    disabled: row.disabled === 1,
    event_types: eventTypesOf(row),
  };
}

export function attemptToApi(row: store.AttemptRow): MessageAttempt {
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

/** The URL rule (see the module comment); returns the URL as given. */
export function checkUrl(url: string): string {
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

async function findEnabledOrThrow(exec: Executor, scope: ProgramScope, token: string): Promise<store.SubscriptionRow> {
  const row = await findOrThrow(exec, scope, token);
  if (row.disabled === 1) throw new UnprocessableError(`${SUBSCRIPTION} '${token}' is disabled: nothing would be sent to it`);
  return row;
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
    previous_secret_encrypted: null,
    previous_secret_until_ms: null,
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
  if ((await store.deleteSubscription(tx, scope.programId, token)) === 0) throw notFound(SUBSCRIPTION, token);
  await store.failPendingAttempts(tx, scope.programId, token, `${SUBSCRIPTION} deleted`, scope.nowMs);
}

export async function secret(exec: Executor, scope: ProgramScope, secrets: Secrets, token: string): Promise<{ secret: string }> {
  return { secret: secrets.decrypt((await findOrThrow(exec, scope, token)).secret_encrypted) };
}

/** A new secret; the current one keeps signing until `nowWallMs` + 24 hours. */
export async function rotateSecret(tx: Tx, scope: ProgramScope, secrets: Secrets, token: string, nowWallMs: number): Promise<void> {
  const row = await findOrThrow(tx, scope, token);
  await store.updateSubscription(tx, scope.programId, token, {
    secret_encrypted: secrets.encrypt(newWebhookSecret()),
    previous_secret_encrypted: row.secret_encrypted,
    previous_secret_until_ms: nowWallMs + PREVIOUS_SECRET_VALID_MS,
    updated_ms: scope.nowMs,
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

export async function resend(tx: Tx, scope: ProgramScope, eventToken: string, subscriptionToken: string): Promise<void> {
  const event = await store.findEventOrExample(tx, scope.programId, eventToken);
  if (!event) throw notFound('event', eventToken);
  await queueTo(tx, scope, await findEnabledOrThrow(tx, scope, subscriptionToken), [eventToken]);
}

export async function recover(tx: Tx, scope: ProgramScope, token: string, range: TimeRangeQuery): Promise<void> {
  const subscription = await findEnabledOrThrow(tx, scope, token);
  await queueTo(tx, scope, subscription, await store.eventsToRecover(tx, scope.programId, token, range));
}

export async function replayMissing(tx: Tx, scope: ProgramScope, token: string, range: TimeRangeQuery): Promise<void> {
  const subscription = await findEnabledOrThrow(tx, scope, token);
  await queueTo(tx, scope, subscription, await store.eventsNeverAttempted(tx, scope.programId, token, eventTypesOf(subscription), range));
}

/** An example event of the type asked (default: the subscription's first type, or card.created), queued to this subscription only. */
export async function sendExample(tx: Tx, scope: ProgramScope, token: string, body: SendExampleBody): Promise<void> {
  const subscription = await findEnabledOrThrow(tx, scope, token);
  const eventType = body.event_type ?? eventTypesOf(subscription)?.[0] ?? 'card.created';
  const example: store.EventRow = {
    program_id: scope.programId,
    token: newToken(),
    event_type: eventType,
    payload: JSON.stringify(exampleFor(eventType, scope.nowMs)),
    created_ms: scope.nowMs,
  };
  await store.insertExampleEvent(tx, example);
  await queueTo(tx, scope, subscription, [example.token]);
}

export const ROTATION_OVERLAP_HOURS = PREVIOUS_SECRET_VALID_MS / MS_PER_HOUR;
