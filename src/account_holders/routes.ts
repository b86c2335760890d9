import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidRequestError } from '../errors.js';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams, Type } from '../http/schemas.js';
import {
  AccountHolder,
  AccountHolderCreated,
  AccountHolderPatched,
  AccountHolderReply,
  CreateAccountHolderBody,
  EnrollmentReviewBody,
  ListAccountHoldersQuery,
  UpdateAccountHolderBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Account holders'];

/**
 * A create body without `workflow` is KYB_DELEGATED (the one variant whose SDK type leaves it
 * optional). A body with a KYC or KYC_EXEMPT variant's own fields and no business has only forgotten its workflow:
 * saying so is clearer than the delegated shape's "business_entity: is required".
 */
async function requireWorkflowOfIndividuals(request: { body: unknown }): Promise<void> {
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.hasOwn(body, 'workflow') || Object.hasOwn(body, 'business_entity')) return;
  if (Object.hasOwn(body, 'individual') || Object.hasOwn(body, 'kyc_exemption_type')) {
    throw new InvalidRequestError('workflow: is required for a KYC or KYC_EXEMPT body (a body without workflow is KYB_DELEGATED)');
  }
}

export const accountHolderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/account_holders',
    {
      schema: {
        summary: 'Enroll an account holder',
        description:
          'Creates the holder, its account and the account’s ISSUING financial account. KYB_BASIC waits for review ' +
          '(PENDING_REVIEW); KYC_BASIC is decided at once; KYB_BYO, KYB_DELEGATED, KYC_BYO and KYC_EXEMPT are ACCEPTED. ' +
          'A body without workflow is KYB_DELEGATED (the SDK declares it optional there).',
        tags,
        body: CreateAccountHolderBody,
        response: { 200: AccountHolderCreated },
      },
      preValidation: requireWorkflowOfIndividuals,
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(tx, request.scope, secrets, request.body)),
  );

  app.get(
    '/v1/account_holders/:account_holder_token',
    {
      schema: { summary: 'Get an account holder', tags, params: TokenParams('account_holder_token'), response: { 200: AccountHolder } },
    },
    async (request) => service.get(db.kysely, request.scope, request.params.account_holder_token),
  );

  app.patch(
    '/v1/account_holders/:account_holder_token',
    {
      schema: {
        summary: 'Update an account holder',
        description:
          'The holder decides which body applies: a BUSINESS holder (KYB workflows, KYB_DELEGATED) takes the KYB patch ' +
          '(business_entity, control_person, beneficial_owner_individuals, beneficial_owner_entities, each naming one of the ' +
          'holder’s entity_token in that role; external_id, nature_of_business, website_url); a KYC_BASIC / KYC_BYO holder ' +
          'the KYC patch (individual with its entity_token, external_id); a KYC_EXEMPT holder the legacy patch (address, ' +
          'email, phone_number, first_name, last_name, business_account_token). A body of legacy fields alone is the legacy ' +
          'patch for every holder, with the fields SDK PatchRequest allows it (email and phone_number for all; names and ' +
          'address for KYC_BYO; legal_business_name and address for KYB_BYO; a business’s e-mail and phone are its control ' +
          'person’s). A field of another variant, or of two at once, is a 400 naming it. ' +
          'Only the given fields change; a given address replaces the fields it gives and keeps the others. Every value is ' +
          'checked as on create (400 naming the path, nothing changed); an entity_token that is not one of the holder’s in that ' +
          'role is a 422. Only ACCEPTED and PENDING_REVIEW holders can be updated (a REJECTED one is final: 422). No ' +
          'verification runs again: the information changes, the status stays; verification_application.updated moves to the ' +
          'program clock when something changed. The KYB and KYC patches answer the whole holder as retrieve shows it but ' +
          'without entity_token in its people and businesses (SDK KYBKYCPatchResponse), the legacy patch the PatchResponse.',
        tags,
        params: TokenParams('account_holder_token'),
        body: UpdateAccountHolderBody,
        response: { 200: Type.Union([AccountHolderReply, AccountHolderPatched]) },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.update(db, tx, request.scope, secrets, request.params.account_holder_token, request.body)),
  );

  app.get(
    '/v1/account_holders',
    {
      schema: { summary: 'List account holders', tags, querystring: ListAccountHoldersQuery, response: { 200: ListOf(AccountHolder) } },
    },
    async (request) => service.list(db.kysely, request.scope, request.query),
  );

  app.post(
    '/v1/simulate/account_holders/enrollment_review',
    {
      schema: {
        summary: 'Simulate an enrollment review',
        description:
          'Decides a holder pending review (KYB_BASIC): ACCEPTED (status_reasons taken, not recorded), or REJECTED with status_reasons. ' +
          'A holder that is not pending review is refused (422). Answers the holder as retrieve shows it but without ' +
          'entity_token in its people and businesses (SDK AccountHolderSimulateEnrollmentReviewResponse).',
        tags: ['Simulation'],
        body: EnrollmentReviewBody,
        response: { 200: AccountHolderReply },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.simulateEnrollmentReview(db, tx, request.scope, request.body)),
  );
};
