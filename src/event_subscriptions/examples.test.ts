/**
 * send_example's payloads against the real events: in one program, real requests record every type
 * of event Cardwright emits (creations and updates of each resource); then an example of each type is
 * sent to a receiver. An example must have the structure (keys, JSON types, nulls, recursively) of a
 * real event of its type, besides its `example: true` mark, so that a receiver that parses the real
 * events parses it too.
 */
import type Lithic from 'lithic';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enroll, kycBody, US_ADDRESS } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, manualBankAccount, newAccount } from '../testing/money.js';
import { threeDsBody } from '../testing/owned.js';
import { jsonStructure, type JsonStructure } from '../testing/shapes.js';
import { authorize, cardOnOwnAccount, moveClock } from '../testing/transactions.js';
import { receivedAt, startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';

type EventType = Lithic.Events.Event['event_type'];

const START = '2031-03-10T12:00:00.000Z';
const TODAY = START.slice(0, 10);
/** The next midnight: the daily fulfilment ships the PHYSICAL cards created today. */
const TOMORROW = '2031-03-11T00:00:01.000Z';

/** Every type of event Cardwright records (the callers of events/emit.ts), as the README lists them; the requests below record each. */
const EMITTED_TYPES = [
  ...['account_holder.created', 'account_holder.updated', 'account_holder.verification', 'card.created', 'card.shipped', 'card_transaction.updated'],
  ...['financial_account', 'external_bank_account', 'external_payment', 'management_operation', 'three_ds_authentication'].flatMap((resource) => [`${resource}.created`, `${resource}.updated`]),
  'book_transfer_transaction.created',
  'balance.updated',
] as EventType[];

/** Real requests that record every type of EMITTED_TYPES (each commented with what it records besides the obvious). */
async function recordEveryType(client: Lithic): Promise<void> {
  await moveClock(client, START);
  const holder = await enroll(client, kycBody()); // its verification and ISSUING financial account too
  const { individual } = await client.accountHolders.retrieve(holder.token);
  await client.accountHolders.update(holder.token, { individual: { entity_token: individual!.entity_token, phone_number: '+15555550199' } });
  const card = await cardOnOwnAccount(client);
  await authorize(client, card, 1_500); // balance.updated too
  const operating = await newAccount(client);
  await client.financialAccounts.update(operating, { nickname: 'renamed' });
  await fund(client, operating, 10_000);
  await fund(client, operating, 300);
  const [lastFunding] = (await client.managementOperations.list({ financial_account_token: operating, page_size: 1 })).data;
  await client.managementOperations.reverse(lastFunding!.token, { effective_date: TODAY });
  await bookTransfer(client, operating, card.funding.token, 1_000);
  const bankAccount = await client.externalBankAccounts.create(manualBankAccount(operating) as never);
  await client.externalBankAccounts.update(bankAccount.token, { owner: 'Ada King' });
  const payment = await client.externalPayments.create({ amount: 500, category: 'EXTERNAL_ACH', effective_date: TODAY, financial_account_token: operating, payment_type: 'DEPOSIT' });
  await client.externalPayments.settle(payment.token, { effective_date: TODAY });
  await client.threeDS.authentication.simulate(threeDsBody(card.pan));
  const challenged = await client.threeDS.authentication.simulate(threeDsBody(card.pan, 'SHOP CHALLENGE'));
  await client.threeDS.decisioning.challengeResponse({ token: challenged.token as string, challenge_response: 'APPROVE' });
  await client.cards.create({ type: 'PHYSICAL', shipping_address: { ...US_ADDRESS, first_name: 'Janet', last_name: 'Yellen' } });
  await moveClock(client, TOMORROW);
}

describeWithDb('send_example payloads', () => {
  const context = useTestServer();
  let receiver: WebhookReceiver;
  /** The structures of the real events of each type. */
  const realStructures = new Map<string, JsonStructure[]>();
  /** The example of each type as its receiver got it (without `event_type`, which the body adds to every payload). */
  const examples = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const { client } = await context.server.newProgram();
    await recordEveryType(client);
    for await (const event of client.events.list({ with_content: true, page_size: 100 })) {
      realStructures.set(event.event_type, [...(realStructures.get(event.event_type) ?? []), jsonStructure(event.payload)]);
    }
    const subscription = await client.events.subscriptions.create({ url: `${receiver.url}/examples` });
    for (const eventType of EMITTED_TYPES) await client.events.subscriptions.sendSimulatedExample(subscription.token, { event_type: eventType });
    for (const request of await receivedAt(receiver, '/examples', EMITTED_TYPES.length)) {
      const { event_type, ...payload } = JSON.parse(request.body) as Record<string, unknown>;
      examples.set(event_type as string, payload);
    }
  });
  afterAll(async () => receiver?.close());

  it('records every type of EMITTED_TYPES, and no other, with the requests above', () => {
    expect([...realStructures.keys()].sort()).toEqual([...EMITTED_TYPES].sort());
  });

  it.each(EMITTED_TYPES)('sends an example %s with the structure of a real one', (eventType) => {
    const { example, ...payload } = examples.get(eventType) ?? {};
    expect(example, 'the example mark').toBe(true);
    expect(realStructures.get(eventType), `no real ${eventType} event has the structure of the example`).toContainEqual(jsonStructure(payload));
  });
});
