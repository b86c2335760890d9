/**
 * Enrollments answer exactly the SDK 0.119 AccountHolderCreateResponse: each workflow's answer,
 * accepted, rejected or waiting for review, is checked against its shape copied from the type
 * (testing/resource-shapes.ts, itself checked against the SDK by testing/sdk-shapes.unit.test.ts).
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { enroll, kybBody, kybDelegatedBody, kycBody, kycExemptBody, withField } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { ACCOUNT_HOLDER_CREATED } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';

describeWithDb('enrollments answer the SDK 0.119 types', () => {
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
  ]);
});
