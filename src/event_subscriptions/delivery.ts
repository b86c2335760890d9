/**
 * The webhook dispatcher: sends due delivery attempts to their subscription's URL and records the
 * outcome. One runs in each server process (started and stopped by server.ts).
 *
 * Decisions:
 * - Attempts are rows (`event_attempts`); a PENDING one is due at `due_wall_ms` (wall time: a
 *   delivery happens in the real world, whatever a program's clock says; 0 means "at once"). The
 *   dispatcher polls the due ones (in turns between subscriptions, by a partial index of the attempts
 *   still to send, so a poll costs the same whatever the backlog) every `pollIntervalMs`, and at
 *   once when a transaction that queued attempts in this process commits (`nudgeAfterCommit`).
 * - Before sending, it leases the attempt (SENDING, `lease_owner`, due again at the lease's end) with a
 *   conditional update, so that of several processes on one PostgreSQL exactly one sends it. A
 *   lease outlives the request timeout; a lease left by a process that died expires and the attempt
 *   is due again (delivery is at least once, as with every webhook sender; `webhook-id` lets a
 *   receiver drop a repeat). On stop, in-flight requests are aborted: those not answered yet give
 *   their lease back; one whose status was answered (its body may still have been coming) is
 *   recorded, so a 2xx is not sent again.
 * - The body is the event's payload with its `event_type` (eventBody); headers are Standard Webhooks'
 *   (signature.ts), signed with the current secret and each secret a rotation retired, for 24
 *   hours after that rotation (wall time).
 *   Redirects are not followed. A 2xx status is SUCCESS (whether or not its body ends in time);
 *   anything else (a status, a timeout, a refused connection) is FAILED with the first KiB of the
 *   answer or the error, and a new PENDING attempt is queued after the next delay of the retry
 *   schedule, until the schedule runs out.
 * - A subscription deleted or disabled since the attempt was queued gets nothing: the attempt is
 *   FAILED and not retried (`recover` re-queues such events later); one deleted or disabled while
 *   its attempt was under way gets no retry, and one deleted while its failure is being recorded
 *   waits for the retry (the subscription is locked first) and fails it at once.
 * - Nothing escapes the loop: errors are logged (attempt and subscription tokens, never a secret
 *   or a payload) and the attempt is retried when its lease expires.
 */
import type { FastifyBaseLogger } from 'fastify';
import { MS_PER_HOUR, MS_PER_SECOND, programNowMs, type WallClock } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import { afterCommitOf, type Db, type Tx } from '../db/database.js';
import { newToken } from '../ids.js';
import { clockOffsetMs } from '../programs/store.js';
import { signatureHeader } from './signature.js';
import * as store from './store.js';

const MINUTE_MS = 60 * MS_PER_SECOND;

export interface DispatcherOptions {
  /** Delays before each retry after a failed attempt (Lithic's / Svix's schedule); then it gives up. */
  retryScheduleMs: readonly number[];
  /** How often due attempts are looked for (at most 1 s, so a retry is never late by more). */
  pollIntervalMs: number;
  /** How long a receiver has to answer. */
  requestTimeoutMs: number;
  /** How long a lease holds an attempt: longer than a request can take. */
  leaseMs: number;
  /** Deliveries in flight at once, per process. */
  maxInFlight: number;
  /** Deliveries in flight at once to one subscription, per process: a receiver that hangs holds no more slots than this. */
  maxInFlightPerSubscription: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  retryScheduleMs: [5 * MS_PER_SECOND, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * MS_PER_HOUR, 5 * MS_PER_HOUR, 10 * MS_PER_HOUR, 10 * MS_PER_HOUR],
  pollIntervalMs: 500,
  requestTimeoutMs: 10 * MS_PER_SECOND,
  leaseMs: 60 * MS_PER_SECOND,
  maxInFlight: 16,
  maxInFlightPerSubscription: 4,
};

/** The first characters of a receiver's answer kept on the attempt. */
export const RESPONSE_KEPT_CHARS = 1024;
/** How long a secret still signs after the rotation that retired it. */
export const PREVIOUS_SECRET_VALID_MS = 24 * MS_PER_HOUR;
/**
 * How many retired secrets a subscription keeps (the newest): a rotation beyond them drops the
 * oldest before its 24 hours end, so that many rotations in a day cannot grow the
 * `webhook-signature` header (and the dispatcher's query) without bound.
 */
export const RETIRED_SECRETS_KEPT = 10;

const POLL_ERROR_LOG_INTERVAL_MS = 30 * MS_PER_SECOND;

/** The running dispatchers of this process, woken when a transaction that queued attempts commits. */
const running = new Set<Dispatcher>();

/** After `tx` commits, wakes this process's dispatchers (its attempts are then due at once). */
export function nudgeAfterCommit(tx: Tx): void {
  afterCommitOf(tx, () => {
    for (const dispatcher of running) dispatcher.nudge();
  });
}

/**
 * The JSON an event is delivered as, Lithic's webhook body: the event's payload with its
 * `event_type` (e.g. `{"event_type": "card.created", "card_token": …}`, as Lithic's SDKs parse
 * webhooks); the event's token is the `webhook-id` header.
 */
function eventBody(event: store.EventRow): string {
  return JSON.stringify({ event_type: event.event_type, ...(JSON.parse(event.payload) as object) });
}

/**
 * The start of an answer's body, read no further than the RESPONSE_KEPT_CHARS kept: a receiver may
 * answer a body of any size, or never end it, and its 2xx is a success all the same. A body cut
 * short (the request's time ran out, the connection dropped) is what arrived of it: the status was
 * answered, and a 2xx is not sent again.
 */
async function bodyStart(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < RESPONSE_KEPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // Cut short: the answer is its status and what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** What an attempt keeps of a text: its first RESPONSE_KEPT_CHARS characters, a NUL as U+FFFD (PostgreSQL text cannot hold a NUL). */
function kept(text: string): string {
  return text.slice(0, RESPONSE_KEPT_CHARS).replaceAll('\u0000', '\uFFFD');
}

interface SendResult {
  ok: boolean;
  /** The answer's status; 0 when no answer came (an error, a timeout, an abort). */
  statusCode: number;
  response: string;
}

type Delivery = NonNullable<Awaited<ReturnType<typeof store.leasedDelivery>>>;

export class Dispatcher {
  readonly #owner = newToken();
  readonly #options: DispatcherOptions;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /** Deliveries in flight per subscription token (absent: none). */
  readonly #inFlightTo = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #pollAgain = false;
  /** When a failed poll was last logged (wall ms): a database that is down is reported every POLL_ERROR_LOG_INTERVAL_MS, not every poll. */
  #pollErrorLoggedMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly secrets: Secrets,
    private readonly wall: WallClock,
    private readonly log: FastifyBaseLogger,
    options: Partial<DispatcherOptions> = {},
  ) {
    this.#options = { ...DEFAULT_DISPATCHER_OPTIONS, ...options };
  }

  start(): void {
    running.add(this);
    this.nudge();
  }

  /** Looks for due attempts now (or right after the poll under way). */
  nudge(): void {
    if (this.#stopping.signal.aborted) return;
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#polling = this.#poll().finally(() => {
      this.#polling = undefined;
      if (this.#stopping.signal.aborted) return;
      if (this.#pollAgain) {
        this.#pollAgain = false;
        this.nudge();
      } else {
        this.#timer = setTimeout(() => this.nudge(), this.#options.pollIntervalMs);
        this.#timer.unref();
      }
    });
  }

  /** Stops polling, aborts the requests in flight (those not answered yet give their lease back) and waits for them. */
  async stop(): Promise<void> {
    running.delete(this);
    this.#stopping.abort();
    clearTimeout(this.#timer);
    await this.#polling;
    await Promise.all([...this.#inFlight]);
  }

  async #poll(): Promise<void> {
    try {
      const free = this.#options.maxInFlight - this.#inFlight.size;
      if (free <= 0) return;
      const perSubscription = this.#options.maxInFlightPerSubscription;
      // Room for the turns of the subscriptions already at their limit, which are passed over.
      const limit = free + perSubscription * [...this.#inFlightTo.values()].filter((count) => count >= perSubscription).length;
      const due = await store.dueAttempts(this.db.kysely, this.wall.nowMs(), perSubscription, limit);
      let started = 0;
      for (const { program_id, token, subscription_token: subscription } of due) {
        if (this.#stopping.signal.aborted || started === free) return;
        if ((this.#inFlightTo.get(subscription) ?? 0) >= perSubscription) continue;
        const nowWallMs = this.wall.nowMs();
        const leased = await store.leaseAttempt(this.db.kysely, program_id, token, this.#owner, nowWallMs, nowWallMs + this.#options.leaseMs);
        if (leased === 1) {
          started += 1;
          this.#track(subscription, this.#deliver(program_id, token));
        }
      }
      // A full batch of which another dispatcher took some may have left more due behind.
      if (due.length === limit && started < free) this.#pollAgain = true;
    } catch (error) {
      const nowWallMs = this.wall.nowMs();
      if (nowWallMs - this.#pollErrorLoggedMs < POLL_ERROR_LOG_INTERVAL_MS) return;
      this.#pollErrorLoggedMs = nowWallMs;
      this.log.error({ err: error, component: 'webhook-dispatcher' }, 'looking for due webhook deliveries failed');
    }
  }

  #track(subscription: string, delivery: Promise<void>): void {
    this.#inFlight.add(delivery);
    this.#inFlightTo.set(subscription, (this.#inFlightTo.get(subscription) ?? 0) + 1);
    void delivery.finally(() => {
      this.#inFlight.delete(delivery);
      const left = (this.#inFlightTo.get(subscription) ?? 1) - 1;
      if (left === 0) this.#inFlightTo.delete(subscription);
      else this.#inFlightTo.set(subscription, left);
      this.nudge();
    });
  }

  /** Sends one leased attempt and records its outcome; never throws. */
  async #deliver(programId: string, attemptToken: string): Promise<void> {
    try {
      const delivery = await store.leasedDelivery(this.db.kysely, programId, attemptToken);
      if (!delivery) return;
      const event = await store.findEventOrExample(this.db.kysely, programId, delivery.event_token);
      // A deleted subscription leaves no row to join: no url, no secret.
      const { url, secret_encrypted: secret } = delivery;
      const refusal = url === null || secret === null ? 'event subscription deleted' : delivery.disabled ? 'event subscription disabled' : event ? undefined : 'event not found';
      if (refusal !== undefined || !event || url === null || secret === null) {
        await this.#record(delivery, { ok: false, statusCode: 0, response: refusal ?? '' }, false);
        return;
      }
      const result = await this.#send({ ...delivery, url, secret_encrypted: secret }, eventBody(event), event.token);
      if (result.statusCode === 0 && this.#stopping.signal.aborted) {
        await store.releaseLease(this.db.kysely, programId, attemptToken, this.#owner);
        return;
      }
      await this.#record(delivery, result, true);
    } catch (error) {
      this.log.error({ err: error, component: 'webhook-dispatcher', attempt: attemptToken }, 'webhook delivery failed; it is retried when its lease expires');
    }
  }

  /** POSTs the body, signed; the answer or the error as a SendResult. */
  async #send(delivery: Delivery & { url: string; secret_encrypted: string }, body: string, eventToken: string): Promise<SendResult> {
    const nowWallMs = this.wall.nowMs();
    const timestampSeconds = Math.floor(nowWallMs / MS_PER_SECOND);
    const secrets = [delivery.secret_encrypted, ...delivery.retired.filter((retired) => retired.until_ms > nowWallMs).map((retired) => retired.secret_encrypted)].map((secret) =>
      this.secrets.decrypt(secret),
    );
    const signal = AbortSignal.any([AbortSignal.timeout(this.#options.requestTimeoutMs), this.#stopping.signal]);
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Cardwright-Webhooks',
          'webhook-id': eventToken,
          'webhook-timestamp': String(timestampSeconds),
          'webhook-signature': signatureHeader(secrets, eventToken, timestampSeconds, body),
        },
        body,
      });
      return { ok: response.status >= 200 && response.status < 300, statusCode: response.status, response: kept(await bodyStart(response)) };
    } catch (error) {
      return { ok: false, statusCode: 0, response: this.#describeFailure(error) };
    }
  }

  #describeFailure(error: unknown): string {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return this.#stopping.signal.aborted ? 'aborted: the server is stopping' : `no answer within ${this.#options.requestTimeoutMs / MS_PER_SECOND} s`;
    }
    const cause = error instanceof Error ? (error.cause as { message?: unknown } | undefined) : undefined;
    const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
    return kept(message);
  }

  /**
   * Records the outcome and, for a failure that may be retried, queues the next attempt, in one
   * transaction, dated by the program's clock as it is then (not as it was when the request left:
   * a move may have committed while the receiver took its time). Before a retry is queued the
   * subscription is locked, first, as deleting or updating it locks it before its attempts: a
   * deletion under way then waits for the retry and fails it with the other pending attempts.
   */
  async #record(delivery: Delivery, result: SendResult, mayRetry: boolean): Promise<void> {
    const delayMs = this.#options.retryScheduleMs[delivery.attempt_number - 1];
    const retryFollows = !result.ok && mayRetry && delayMs !== undefined;
    await this.db.transaction(async (tx) => {
      const subscription = retryFollows ? await store.lockSubscription(this.db, tx, delivery.program_id, delivery.subscription_token) : undefined;
      const nowMs = programNowMs(this.wall, await clockOffsetMs(tx, delivery.program_id));
      const outcome: store.AttemptOutcome = {
        status: result.ok ? 'SUCCESS' : 'FAILED',
        url: delivery.url ?? delivery.attempt_url,
        response: result.response,
        response_status_code: result.statusCode,
        updated_ms: nowMs,
      };
      const recorded = await store.completeAttempt(tx, delivery.program_id, delivery.token, this.#owner, outcome);
      if (recorded !== 1 || !retryFollows || delayMs === undefined) return;
      // Deleted or disabled while the request was under way: nothing more is sent to it (recover re-queues the event once it is enabled again).
      if (subscription === undefined || subscription.disabled === 1) return;
      await store.insertAttempts(tx, [
        {
          ...newAttempt(delivery.program_id, delivery.event_token, { token: delivery.subscription_token, url: outcome.url }, nowMs),
          attempt_number: delivery.attempt_number + 1,
          due_wall_ms: this.wall.nowMs() + delayMs,
        },
      ]);
    });
  }
}

/** A first attempt to deliver an event to a subscription, due at once, created at program time `createdMs`. */
export function newAttempt(programId: string, eventToken: string, subscription: { token: string; url: string }, createdMs: number): store.AttemptRow {
  return {
    program_id: programId,
    token: newToken(),
    event_token: eventToken,
    subscription_token: subscription.token,
    status: 'PENDING',
    url: subscription.url,
    response: '',
    response_status_code: 0,
    attempt_number: 1,
    due_wall_ms: 0,
    lease_owner: null,
    created_ms: createdMs,
    updated_ms: createdMs,
  };
}
