/**
 * Enrollments answer exactly the SDK 0.119 AccountHolderCreateResponse, and holders as retrieved
 * or listed its AccountHolder: each workflow's holder, accepted, rejected or waiting for review,
 * is checked against the shapes copied from the types (testing/resource-shapes.ts, themselves
 * checked against the SDK by testing/sdk-shapes.unit.test.ts).
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { enroll, fullKybDelegatedBody, kybBody, kybDelegatedBody, kycBody, kycExemptBody, withField } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { ACCOUNT_HOLDER, ACCOUNT_HOLDER_CREATED } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';

describeWithDb('enrollments and account holders answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });

  describeShapeSteps([
    {
      resource: 'enrollment',
      shape: ACCOUNT_HOLDER_CREATED,
      steps: {
        'each workflow, with an external id': async () =>
          Promise.all(
            [kycBody(), kycBody('KYC_BYO'), kybBody(), kybBody('KYB_BYO'), kybDelegatedBody(), kycExemptBody()].map((body) => enroll(client, withField(body, 'external_id', 'x-1'))),
          ),
        'rejected by a sandbox government id': async () => [await enroll(client, withField(kycBody(), 'individual.government_id', '000-00-0001'))],
      },
    },
    {
      resource: 'account holder',
      shape: ACCOUNT_HOLDER,
      steps: {
        'each workflow retrieved, listed': async () => {
          const business = await enroll(client, { ...kybBody('KYB_BYO'), beneficial_owner_entities: [{ ...kybBody().business_entity, legal_business_name: 'Holding' }] });
          const bodies = [kycBody(), kybBody(), kybDelegatedBody(), fullKybDelegatedBody(), kycExemptBody()];
          const created = await Promise.all(bodies.map((body) => enroll(client, withField(body, 'external_id', 'x-1'))));
          created.push(await enroll(client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token }));
          const retrieved = await Promise.all([business, ...created].map((holder) => client.accountHolders.retrieve(holder.token)));
          return [...retrieved, ...(await client.accountHolders.list({ limit: 100 })).data];
        },
        'rejected on enrollment and by a review': async () => {
          const rejected = await enroll(client, withField(kycBody(), 'individual.government_id', '000-00-0001'));
          const reviewed = await enroll(client, kybBody());
          await client.accountHolders.simulateEnrollmentReview({
            account_holder_token: reviewed.token,
            status: 'REJECTED',
            status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED', 'CONTROL_PERSON_ID_VERIFICATION_FAILURE'],
          });
          return Promise.all([rejected, reviewed].map((holder) => client.accountHolders.retrieve(holder.token)));
        },
      },
    },
  ]);
});
