/**
 * 3-D Secure authentications answer exactly the SDK 0.119 ThreeDS.AuthenticationRetrieveResponse:
 * each one a simulation leaves, succeeded, pending a challenge, approved or declined by its
 * answer, is checked against its shape copied from the type (testing/resource-shapes.ts, itself
 * checked against the SDK by testing/sdk-shapes.unit.test.ts). The simulation's own answer is
 * checked against ThreeDS.AuthenticationSimulateResponse (testing/reply-shapes.ts), the decisioning
 * secret against ThreeDS.DecisioningRetrieveSecretResponse.
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { newCard } from '../testing/auth_rules.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { SIMULATED_THREE_DS_AUTHENTICATION, SUBSCRIPTION_SECRET } from '../testing/reply-shapes.js';
import { THREE_DS_AUTHENTICATION } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';
import { simulateChallenge } from '../testing/transactions.js';

describeWithDb('3DS authentications answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });

  describeShapeSteps([
    {
      resource: '3DS Decisioning secret',
      shape: SUBSCRIPTION_SECRET,
      steps: {
        'first retrieval, rotated': async () => {
          const first = await client.threeDS.decisioning.retrieveSecret();
          await client.threeDS.decisioning.rotateSecret();
          return [first, await client.threeDS.decisioning.retrieveSecret()];
        },
      },
    },
    {
      resource: '3DS authentication simulation',
      shape: SIMULATED_THREE_DS_AUTHENTICATION,
      steps: {
        'succeeded, challenged, declined by a paused card': async () => {
          const card = (await newCard(client)) as Lithic.Card & { pan: string };
          const simulate = (name: string) =>
            client.threeDS.authentication.simulate({ pan: card.pan, merchant: { id: 'M-1', country: 'USA', mcc: '5411', name }, transaction: { amount: 2_500, currency: 'USD' } });
          const answers = [await simulate('GROCER'), await simulate('SHOP CHALLENGE')];
          await client.cards.update(card.token, { state: 'PAUSED' });
          return [...answers, await simulate('GROCER')];
        },
      },
    },
    {
      resource: '3DS authentication',
      shape: THREE_DS_AUTHENTICATION,
      steps: {
        'succeeded; pending a challenge; the challenge approved and declined': async () => {
          const card = (await newCard(client)) as Lithic.Card & { pan: string };
          const { token } = await client.threeDS.authentication.simulate({
            pan: card.pan,
            merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'GROCER' },
            transaction: { amount: 2_500, currency: 'USD' },
          });
          const [pending, approved, declined] = [await simulateChallenge(client, card), await simulateChallenge(client, card), await simulateChallenge(client, card)];
          const retrievedPending = await client.threeDS.authentication.retrieve(pending);
          await client.threeDS.decisioning.challengeResponse({ token: approved, challenge_response: 'APPROVE' });
          await client.threeDS.decisioning.challengeResponse({ token: declined, challenge_response: 'DECLINE_BY_CUSTOMER' });
          const tokens = [token as string, approved, declined];
          return [retrievedPending, ...(await Promise.all(tokens.map((each) => client.threeDS.authentication.retrieve(each))))];
        },
      },
    },
  ]);
});
