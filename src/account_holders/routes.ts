import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import {
  AccountHolder,
  AccountHolderCreated,
  CreateAccountHolderBody,
  EnrollmentReviewBody,
  ListAccountHoldersQuery,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Account holders'];

export const accountHolderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/account_holders',
    {
      schema: {
        summary: 'Enroll an account holder',
        description:
          'Creates the holder, its account and the account’s ISSUING financial account. KYB_BASIC waits for review ' +
          '(PENDING_REVIEW); KYC_BASIC is decided at once; KYB_BYO, KYC_BYO and KYC_EXEMPT are ACCEPTED.',
        tags,
        body: CreateAccountHolderBody,
        response: { 200: AccountHolderCreated },
      },
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
          'Decides a holder pending review (KYB_BASIC): ACCEPTED, or REJECTED with status_reasons. ' +
          'A holder that is not pending review is refused (422).',
        tags: ['Simulation'],
        body: EnrollmentReviewBody,
        response: { 200: AccountHolder },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.simulateEnrollmentReview(db, tx, request.scope, request.body)),
  );
};
