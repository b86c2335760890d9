/**
 * Card transactions answer exactly the SDK 0.119 Transaction type: each transaction a simulation
 * leaves, in every status and with every kind of event, is checked, retrieved and listed, against
 * its shape copied from the type (testing/resource-shapes.ts, itself checked against the SDK by
 * testing/sdk-shapes.unit.test.ts). Each simulation's own answer is checked against its
 * Transaction*Simulate*Response (testing/reply-shapes.ts), approved or declined.
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { fund } from '../testing/money.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { SIMULATED_EVENT, SIMULATED_TRANSACTION } from '../testing/reply-shapes.js';
import { TRANSACTION } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';
import { authorize, cardOnOwnAccount, setRequireFunds } from '../testing/transactions.js';

describeWithDb('card transactions answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });
  /** A card on its own account, with enough for every step. */
  async function fundedCard() {
    const card = await cardOnOwnAccount(client);
    await fund(client, card.funding.token, 10_000);
    return card;
  }

  describeShapeSteps([
    {
      resource: 'simulation that makes a transaction',
      shape: SIMULATED_TRANSACTION,
      steps: {
        'authorize (each status, approved and declined), authorization advice, return, credit authorization advice': async () => {
          const card = await fundedCard();
          const authorized = await client.transactions.simulateAuthorization({ amount: 1_000, descriptor: 'COFFEE SHOP', pan: card.pan });
          const answers = [authorized];
          for (const status of ['BALANCE_INQUIRY', 'CREDIT_AUTHORIZATION', 'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'] as const) {
            answers.push(await client.transactions.simulateAuthorization({ amount: status === 'BALANCE_INQUIRY' ? 0 : 100, descriptor: 'SHOP', pan: card.pan, status }));
          }
          await setRequireFunds(client, true);
          answers.push(await client.transactions.simulateAuthorization({ amount: 1_000_000, descriptor: 'TOO MUCH', pan: card.pan }));
          await setRequireFunds(client, false);
          return [
            ...answers,
            await client.transactions.simulateAuthorizationAdvice({ token: authorized.token as string, amount: 1_200 }),
            await client.transactions.simulateReturn({ amount: 300, descriptor: 'RETURNS', pan: card.pan }),
            await client.transactions.simulateCreditAuthorizationAdvice({ amount: 250, descriptor: 'CREDIT', pan: card.pan }),
          ];
        },
      },
    },
    {
      resource: 'simulation that adds an event',
      shape: SIMULATED_EVENT,
      steps: {
        'clearing, void (reversal and expiry), return reversal': async () => {
          const card = await fundedCard();
          const refund = (await client.transactions.simulateReturn({ amount: 300, descriptor: 'RETURNS', pan: card.pan })).token as string;
          return [
            await client.transactions.simulateClearing({ token: await authorize(client, card, 1_000) }),
            await client.transactions.simulateVoid({ token: await authorize(client, card, 500) }),
            await client.transactions.simulateVoid({ token: await authorize(client, card, 500), type: 'AUTHORIZATION_EXPIRY' }),
            await client.transactions.simulateReturnReversal({ token: refund }),
          ];
        },
      },
    },
    {
      resource: 'transaction',
      shape: TRANSACTION,
      steps: {
        'authorized, advised, cleared; voided; declined; returned and reversed; a credit advice; listed': async () => {
          const card = await fundedCard();
          const cleared = await authorize(client, card, 1_000);
          await client.transactions.simulateAuthorizationAdvice({ token: cleared, amount: 1_200 });
          await client.transactions.simulateClearing({ token: cleared });
          const voided = await authorize(client, card, 500);
          await client.transactions.simulateVoid({ token: voided });
          await setRequireFunds(client, true);
          const declined = await authorize(client, card, 1_000_000);
          await setRequireFunds(client, false);
          const refund = (await client.transactions.simulateReturn({ amount: 300, descriptor: 'RETURNS', pan: card.pan })).token as string;
          await client.transactions.simulateReturnReversal({ token: refund });
          const credit = (await client.transactions.simulateCreditAuthorizationAdvice({ amount: 250, descriptor: 'CREDIT', pan: card.pan })).token as string;
          const tokens = [cleared, voided, declined, refund, credit];
          const retrieved = await Promise.all(tokens.map((token) => client.transactions.retrieve(token)));
          return [...retrieved, ...(await client.transactions.list({ card_token: card.token, page_size: 100 })).data];
        },
      },
    },
  ]);
});
