/**
 * Card transactions answer exactly the SDK 0.119 Transaction type: each transaction a simulation
 * leaves, in every status and with every kind of event, is checked, retrieved and listed, against
 * its shape copied from the type (testing/resource-shapes.ts, itself checked against the SDK by
 * testing/sdk-shapes.unit.test.ts).
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { fund } from '../testing/money.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { TRANSACTION } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';
import { authorize, cardOnOwnAccount, setRequireFunds } from '../testing/transactions.js';

describeWithDb('card transactions answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });

  describeShapeSteps([
    {
      resource: 'transaction',
      shape: TRANSACTION,
      steps: {
        'authorized, advised, cleared; voided; declined; returned and reversed; a credit advice; listed': async () => {
          const card = await cardOnOwnAccount(client);
          await fund(client, card.funding.token, 10_000);
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
