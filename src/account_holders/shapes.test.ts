/**
 * Enrollments answer exactly the SDK 0.119 AccountHolderCreateResponse, and holders as retrieved
 * or listed its AccountHolder: each workflow's holder, accepted, rejected or waiting for review,
 * is checked against the shapes copied from the types (testing/resource-shapes.ts, themselves
 * checked against the SDK by testing/sdk-shapes.unit.test.ts). A PATCH answers one variant of
 * AccountHolderUpdateResponse (the KYB and KYC patches KYBKYCPatchResponse, the legacy patch
 * PatchResponse) and an enrollment review AccountHolderSimulateEnrollmentReviewResponse
 * (testing/reply-shapes.ts).
 */
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { enroll, fullKybDelegatedBody, kybBody, kybDelegatedBody, kycBody, kycExemptBody, US_ADDRESS, withField } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { ACCOUNT_HOLDER_PATCHED, ACCOUNT_HOLDER_REPLY } from '../testing/reply-shapes.js';
import { ACCOUNT_HOLDER, ACCOUNT_HOLDER_CREATED } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';

describeWithDb('enrollments and account holders answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });
  const retrieve = (holder: { token: string }) => client.accountHolders.retrieve(holder.token);
  /** The KYB patch of every role of a business holder, naming each entity as retrieve shows it. */
  async function kybPatch(holder: { token: string }) {
    const { business_entity: business, control_person: control, beneficial_owner_individuals: owners = [], beneficial_owner_entities: entities = [] } = await retrieve(holder);
    return client.accountHolders.update(holder.token, {
      business_entity: { entity_token: business?.entity_token as string, dba_business_name: 'Renamed' },
      ...(control ? { control_person: { entity_token: control.entity_token, first_name: 'Tomas' } } : {}),
      beneficial_owner_individuals: owners.map((owner) => ({ entity_token: owner.entity_token, last_name: 'Smith' })),
      beneficial_owner_entities: entities.map((entity) => ({ entity_token: (entity as { entity_token: string }).entity_token, legal_business_name: 'Holding 2' })),
      external_id: 'x-2',
      nature_of_business: 'Software',
      website_url: 'https://www.example.org',
    });
  }
  /** The KYC patch of an individual holder. */
  async function kycPatch(holder: { token: string }) {
    const { individual } = await retrieve(holder);
    return client.accountHolders.update(holder.token, { individual: { entity_token: individual?.entity_token as string, first_name: 'Janet' }, external_id: 'x-2' });
  }
  const holding = { ...kybBody().business_entity, legal_business_name: 'Holding' };

  /** KYC_EXEMPT holders take the legacy patch, and only a KYB_BASIC holder is reviewed: neither answer carries them. */
  const exemptFields = { exemption_type: 'a KYC_EXEMPT holder’s: it takes the legacy patch', business_account_token: 'the same' };

  describeShapeSteps([
    {
      resource: 'account holder PATCH: KYB and KYC patches',
      shape: ACCOUNT_HOLDER_REPLY,
      unanswered: exemptFields,
      steps: {
        'KYB patch of each business workflow, pending review too': async () => {
          const businesses = await Promise.all(
            [{ ...kybBody(), beneficial_owner_entities: [holding] }, kybBody('KYB_BYO'), kybDelegatedBody(), fullKybDelegatedBody()].map((body) => enroll(client, body)),
          );
          return Promise.all(businesses.map(kybPatch));
        },
        'KYC patch of each individual workflow, unchanged too': async () => {
          const individuals = await Promise.all([kycBody(), kycBody('KYC_BYO')].map((body) => enroll(client, body)));
          return [...(await Promise.all(individuals.map(kycPatch))), await client.accountHolders.update(individuals[0]!.token, { external_id: 'x-2' })];
        },
      },
    },
    {
      resource: 'account holder PATCH: legacy patch',
      shape: ACCOUNT_HOLDER_PATCHED,
      steps: {
        'of a KYC_EXEMPT authorized user, a KYC_BYO holder and a KYB_BYO business': async () => {
          const business = await enroll(client, kybBody('KYB_BYO'));
          const exempt = await enroll(client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token });
          const individual = await enroll(client, kycBody('KYC_BYO'));
          const address = { ...US_ADDRESS, address2: 'Apt 2' };
          return [
            await client.accountHolders.update(exempt.token, { email: 'pat.lee@example.com', phone_number: '+15555550103', first_name: 'Patricia', last_name: 'Li', address, business_account_token: business.account_token }),
            await client.accountHolders.update(individual.token, { first_name: 'Janet', last_name: 'Yellen', address }),
            await client.accountHolders.update(business.token, { legal_business_name: 'Renamed, Inc.', address, email: 'boss@example.com' }),
          ];
        },
      },
    },
    {
      resource: 'enrollment review',
      shape: ACCOUNT_HOLDER_REPLY,
      unanswered: { ...exemptFields, individual: 'an individual’s: only KYB_BASIC holders are reviewed' },
      steps: {
        'accepted; rejected with business reasons': async () => {
          const [accepted, rejected] = await Promise.all([enroll(client, { ...kybBody(), beneficial_owner_entities: [holding], external_id: 'x-1' }), enroll(client, kybBody())]);
          return [
            await client.accountHolders.simulateEnrollmentReview({ account_holder_token: accepted.token, status: 'ACCEPTED' }),
            await client.accountHolders.simulateEnrollmentReview({
              account_holder_token: rejected.token,
              status: 'REJECTED',
              status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED', 'CONTROL_PERSON_ID_VERIFICATION_FAILURE', 'BENEFICIAL_OWNER_INDIVIDUAL_DOB_VERIFICATION_FAILURE'],
            }),
          ];
        },
      },
    },
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
