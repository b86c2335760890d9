/**
 * What a 3DS step sends a program's webhook subscription: `three_ds_authentication.created` for each
 * simulated authentication, `.updated` for each resolution of its challenge, the timeout included,
 * each carrying the authentication as GET answers it then; nothing for a refused request or a replay.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { moveClock, newCard } from '../testing/auth_rules.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { pause, receivedAt, startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { CHALLENGE_TTL_MS } from './service.js';

const FAST = { retryScheduleMs: [50], pollIntervalMs: 20 };
const START = '2031-06-01T12:00:00.000Z';

describeWithDb('3DS webhooks', () => {
  const context = useTestServer({ delivery: FAST });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => receiver?.close());

  it('delivers created for each authentication and updated for each resolution (an answer, an OTP, a timeout), each with the authentication as it then reads; nothing for a refusal or a replay', async () => {
    const { client } = await context.server.newProgram('3ds webhooks');
    await moveClock(client, START);
    await client.events.subscriptions.create({ url: `${receiver.url}/3ds`, event_types: ['three_ds_authentication.created', 'three_ds_authentication.updated'] });
    const card = await newCard(client);
    const simulate = async (name: string, options?: Lithic.RequestOptions) =>
      (await client.threeDS.authentication.simulate({ pan: card.pan as string, merchant: { id: 'M-1', country: 'USA', mcc: '5411', name }, transaction: { amount: 2_500, currency: 'USD' } }, options)).token as string;
    const retrieve = (token: string) => client.threeDS.authentication.retrieve(token);

    const frictionless = await simulate('GROCER');
    const answered = await simulate('SHOP CHALLENGE');
    const entered = await simulate('SHOP CHALLENGE');
    const timedOut = await simulate('SHOP CHALLENGE');
    const asCreated = await Promise.all([frictionless, answered, entered, timedOut].map(retrieve));
    await client.threeDS.decisioning.challengeResponse({ token: answered, challenge_response: 'DECLINE_BY_CUSTOMER' });
    await client.threeDS.authentication.simulateOtpEntry({ token: entered, otp: '123456' });
    await moveClock(client, new Date(Date.parse(asCreated[3]!.created) + CHALLENGE_TTL_MS).toISOString());
    const asUpdated = await Promise.all([answered, entered, timedOut].map(retrieve));
    expect(asUpdated.map((authentication) => [authentication.authentication_result, authentication.challenge_metadata?.status])).toEqual([
      ['DECLINE', 'CANCELED_OOB'],
      ['SUCCESS', 'SUCCESS'],
      ['DECLINE', 'CARDHOLDER_TIMEOUT'],
    ]);

    // Refused or replayed: nothing more is sent.
    await expectError(client.threeDS.decisioning.challengeResponse({ token: answered, challenge_response: 'APPROVE' }), 422);
    await expectError(client.threeDS.authentication.simulateOtpEntry({ token: timedOut, otp: '123456' }), 422);
    await expectError(client.threeDS.authentication.simulate({ pan: card.pan as string, merchant: { id: 'M-1', country: 'ZZZ', mcc: '5411', name: 'X' }, transaction: { amount: 1, currency: 'USD' } }), 400);
    const once = { headers: { 'Idempotency-Key': crypto.randomUUID() } };
    const replayed = await simulate('GROCER', once);
    expect(await simulate('GROCER', once)).toBe(replayed);

    const expected = [
      ...asCreated.map((authentication) => ['three_ds_authentication.created', authentication]),
      ...asUpdated.map((authentication) => ['three_ds_authentication.updated', authentication]),
      ['three_ds_authentication.created', await retrieve(replayed)],
    ];
    await receivedAt(receiver, '/3ds', expected.length);
    await pause(200);
    const received = receiver.at('/3ds').map((request) => {
      const { event_type, ...payload } = JSON.parse(request.body) as { event_type: string };
      return [event_type, payload];
    });
    expect(received).toHaveLength(expected.length);
    expect(received).toEqual(expect.arrayContaining(expected));
  });
});
