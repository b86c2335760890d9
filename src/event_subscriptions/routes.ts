import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { EmptyBody, ListOf, TokenParams, Type } from '../http/schemas.js';
import {
  CreateSubscriptionBody,
  EventSubscription,
  ListAttemptsQuery,
  ListSubscriptionsQuery,
  MessageAttempt,
  ResendParams,
  SendExampleBody,
  SubscriptionSecret,
  TimeRangeQuery,
  UpdateSubscriptionBody,
} from './schemas.js';
import { exampleFor } from './examples.js';
import * as service from './service.js';

const tags = ['Events'];
const params = TokenParams('event_subscription_token');
const voidAnswer = 'Answers 200 with an empty body.';
const urlRule =
  'url: an absolute https:// URL, or http:// (allowed so that a local sandbox can deliver to a receiver on localhost; Lithic itself requires HTTPS), without user name or password, whitespace or control characters, at most 2048 characters.';
const onDisabled = 'A disabled subscription is a 422 (nothing would be sent).';

export const eventSubscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets, wall } = app.deps;

  app.post(
    '/v1/event_subscriptions',
    {
      schema: {
        summary: 'Create an event subscription',
        description: `Events of the given types (all when event_types is omitted, null or empty) are POSTed to url, signed (Standard Webhooks). ${urlRule}`,
        tags,
        body: CreateSubscriptionBody,
        response: { 200: EventSubscription },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(tx, request.scope, secrets, request.body)),
  );

  app.get(
    '/v1/event_subscriptions/:event_subscription_token',
    { schema: { summary: 'Get an event subscription', tags, params, response: { 200: EventSubscription } } },
    async (request) => service.get(db.kysely, request.scope, request.params.event_subscription_token),
  );

  app.patch(
    '/v1/event_subscriptions/:event_subscription_token',
    {
      schema: {
        summary: 'Update an event subscription',
        description: `url is required; an omitted description, disabled or event_types keeps its value (null or empty event_types: all types). ${urlRule}`,
        tags,
        params,
        body: UpdateSubscriptionBody,
        response: { 200: EventSubscription },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.update(tx, request.scope, request.params.event_subscription_token, request.body)),
  );

  app.get(
    '/v1/event_subscriptions',
    { schema: { summary: 'List event subscriptions', tags, querystring: ListSubscriptionsQuery, response: { 200: ListOf(EventSubscription) } } },
    async (request) => service.list(db.kysely, request.scope, request.query),
  );

  app.delete(
    '/v1/event_subscriptions/:event_subscription_token',
    {
      schema: {
        summary: 'Delete an event subscription',
        description: `Its PENDING attempts are FAILED at once ("event subscription deleted"); its attempts stay listed under their events. Answers 204 with no body.`,
        tags,
        params,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      reply.code(204);
      return commit(request, reply, (tx) => service.remove(tx, request.scope, request.params.event_subscription_token));
    },
  );

  app.get(
    '/v1/event_subscriptions/:event_subscription_token/secret',
    { schema: { summary: "Get an event subscription's secret", tags, params, response: { 200: SubscriptionSecret } } },
    async (request) => service.secret(db.kysely, request.scope, secrets, request.params.event_subscription_token),
  );

  app.post(
    '/v1/event_subscriptions/:event_subscription_token/secret/rotate',
    {
      schema: {
        summary: "Rotate an event subscription's secret",
        description: `A new secret signs from now on; the previous one also signs (another v1 signature) for the next ${service.ROTATION_OVERLAP_HOURS} hours, as do those earlier rotations retired until their own end (the newest ${service.RETIRED_SECRETS_KEPT} of them: an older one stops signing early). ${voidAnswer}`,
        tags,
        params,
        response: { 200: EmptyBody },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.rotateSecret(db, tx, request.scope, secrets, request.params.event_subscription_token, wall.nowMs())),
  );

  app.get(
    '/v1/event_subscriptions/:event_subscription_token/attempts',
    {
      schema: {
        summary: "List an event subscription's message attempts",
        tags,
        params,
        querystring: ListAttemptsQuery,
        response: { 200: ListOf(MessageAttempt) },
      },
    },
    async (request) => service.listAttempts(db.kysely, request.scope, { subscription_token: request.params.event_subscription_token }, request.query),
  );

  app.get(
    '/v1/events/:event_token/attempts',
    {
      schema: {
        summary: "List an event's message attempts",
        description: 'Also answers for an example event sent by send_example (which GET /v1/events does not list).',
        tags,
        params: TokenParams('event_token'),
        querystring: ListAttemptsQuery,
        response: { 200: ListOf(MessageAttempt) },
      },
    },
    async (request) => service.listAttempts(db.kysely, request.scope, { event_token: request.params.event_token }, request.query),
  );

  app.post(
    '/v1/events/:event_token/event_subscriptions/:event_subscription_token/resend',
    {
      schema: {
        summary: 'Resend an event to an event subscription',
        description: `Queues a new attempt, due at once, whatever the earlier ones did. ${onDisabled} ${voidAnswer}`,
        tags,
        params: ResendParams,
        response: { 200: EmptyBody },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.resend(db, tx, request.scope, request.params.event_token, request.params.event_subscription_token)),
  );

  const requeues = [
    {
      action: 'recover',
      summary: 'Recover failed messages of an event subscription',
      description: 'Queues again every event created in the range whose delivery to this subscription gave up: a FAILED attempt (whenever it was made), and none that succeeded or is still under way.',
      requeue: service.recover,
    },
    {
      action: 'replay_missing',
      summary: 'Replay missing messages of an event subscription',
      description: "Queues the program's events of the subscription's types created in the range that were never attempted for it, also those from before it existed.",
      requeue: service.replayMissing,
    },
  ];
  for (const { action, summary, description, requeue } of requeues) {
    app.post(
      `/v1/event_subscriptions/:event_subscription_token/${action}`,
      {
        schema: {
          summary,
          description:
            `${description} begin/end (query string, as the SDK sends them): strictly after/before. ` +
            `Queued in transactions of at most ${service.REQUEUE_CHUNK_SIZE} events, each committed on its own: a call that fails part-way keeps what it queued, and its retry queues the rest. ` +
            `${onDisabled} ${voidAnswer}`,
          tags,
          params,
          querystring: TimeRangeQuery,
          response: { 200: EmptyBody },
        },
      },
      async (request, reply) => {
        // Not one transaction: the events are queued in chunks, each committed on its own (service.REQUEUE_CHUNK_SIZE).
        // The answer is recorded under the Idempotency-Key once all are queued; a request that fails part-way
        // leaves what it queued, and its retry queues only what is still missing.
        await requeue(db, request.scope, request.params.event_subscription_token, request.query);
        return commit(request, reply, async () => undefined);
      },
    );
  }

  app.post(
    '/v1/simulate/event_subscriptions/:event_subscription_token/send_example',
    {
      schema: {
        summary: 'Send an example event to an event subscription',
        description:
          `Queues, to this subscription only, an example event of event_type (default: the subscription's first type, or card.created), whatever types it subscribes to. ` +
          `The example is not an event of the program: GET /v1/events does not list it, but its attempts are listed (by subscription, and under /v1/events/{token}/attempts). ${onDisabled} ${voidAnswer}`,
        tags,
        params,
        body: SendExampleBody,
        response: { 200: EmptyBody },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.sendExample(db, tx, request.scope, request.params.event_subscription_token, request.body, exampleFor)),
  );
};
