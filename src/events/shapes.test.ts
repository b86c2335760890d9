/**
 * Events, event subscriptions and their message attempts answer exactly the SDK 0.119 types: each answer that makes,
 * changes or reads one is checked against its shape copied from the type
 * (testing/resource-shapes.ts, itself checked against the SDK by testing/sdk-shapes.unit.test.ts);
 * a subscription's secret against Events.SubscriptionRetrieveSecretResponse (testing/reply-shapes.ts).
 */
import Lithic from 'lithic';
import { afterAll, beforeAll, expect } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { SUBSCRIPTION_SECRET } from '../testing/reply-shapes.js';
import { EVENT, EVENT_SUBSCRIPTION, MESSAGE_ATTEMPT } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';
import { receivedAt, startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';

describeWithDb('events, event subscriptions and message attempts answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    client = context.program.client;
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => receiver?.close());

  describeShapeSteps([
    {
      resource: 'event',
      shape: EVENT,
      steps: {
        'listed with and without content, retrieved': async () => {
          await client.cards.create({ type: 'VIRTUAL' });
          await client.financialAccounts.create({ nickname: 'events', type: 'OPERATING' });
          const withContent = (await client.events.list({ with_content: true, page_size: 100 })).data;
          const [first] = withContent;
          return [...withContent, ...(await client.events.list({ page_size: 100 })).data, await client.events.retrieve(first?.token as string)];
        },
      },
    },
    {
      resource: 'event subscription',
      shape: EVENT_SUBSCRIPTION,
      steps: {
        'create for all types and for some, update, retrieve, list': async () => {
          const all = await client.events.subscriptions.create({ url: `${receiver.url}/all`, description: 'all' });
          const some = await client.events.subscriptions.create({ url: `${receiver.url}/some`, event_types: ['card.created'], disabled: true });
          return [
            all,
            some,
            await client.events.subscriptions.update(all.token, { url: `${receiver.url}/renamed`, disabled: true, event_types: ['card.created', 'card.shipped'] }),
            await client.events.subscriptions.retrieve(some.token),
            ...(await client.events.subscriptions.list({ page_size: 100 })).data,
          ];
        },
      },
    },
    {
      resource: 'event subscription secret',
      shape: SUBSCRIPTION_SECRET,
      steps: {
        'new, rotated, of a disabled subscription': async () => {
          const subscription = await client.events.subscriptions.create({ url: `${receiver.url}/secret` });
          const first = await client.events.subscriptions.retrieveSecret(subscription.token);
          await client.events.subscriptions.rotateSecret(subscription.token);
          const rotated = await client.events.subscriptions.retrieveSecret(subscription.token);
          expect(rotated.secret).not.toBe(first.secret);
          await client.events.subscriptions.update(subscription.token, { url: `${receiver.url}/secret`, disabled: true });
          return [first, rotated, await client.events.subscriptions.retrieveSecret(subscription.token)];
        },
      },
    },
    {
      resource: 'message attempt',
      shape: MESSAGE_ATTEMPT,
      steps: {
        'delivered and refused, listed by event and by subscription': async () => {
          receiver.answer = (request) => (request.path === '/refused' ? { status: 500, body: 'no' } : { status: 200, body: 'ok' });
          const delivered = await client.events.subscriptions.create({ url: `${receiver.url}/delivered`, event_types: ['card.created'] });
          const refused = await client.events.subscriptions.create({ url: `${receiver.url}/refused`, event_types: ['card.created'] });
          await client.cards.create({ type: 'VIRTUAL' });
          const [request] = await receivedAt(receiver, '/delivered', 1);
          await receivedAt(receiver, '/refused', 1);
          return [
            ...(await client.events.listAttempts(request?.event.token as string)).data,
            ...(await client.events.subscriptions.listAttempts(delivered.token)).data,
            ...(await client.events.subscriptions.listAttempts(refused.token)).data,
          ];
        },
      },
    },
  ]);
});
