import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import {
  CreateExternalBankAccountBody,
  ExternalBankAccount,
  ListExternalBankAccountsQuery,
  MicroDepositsBody,
  RetryBody,
  UpdateExternalBankAccountBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['External bank accounts'];
const params = TokenParams('external_bank_account_token');
const response = { 200: ExternalBankAccount };

export const externalBankAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/external_bank_accounts',
    {
      schema: {
        summary: 'Create an external bank account',
        description:
          'By its numbers, or by a Plaid processor token (PLAID: the sandbox derives the numbers from it). MANUAL, EXTERNALLY_VERIFIED, UNVERIFIED and PLAID accounts are ENABLED at once; MICRO_DEPOSIT and PRENOTE start PENDING. An owner (the account_token, or the program) links one bank account once: the same routing_number and account_number again is a 422 naming the existing one. A financial_account_token must be an OPEN OPERATING account of the program itself or of the account_token (another account’s: 400). The micro-deposit amounts are the last two MICRO_DEPOSIT events of the funding financial account’s financial transaction with this account’s token (each round: MICRO_DEPOSIT, MICRO_DEPOSIT, MICRO_DEPOSIT_WITHDRAWAL).',
        tags,
        body: CreateExternalBankAccountBody,
        response,
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, secrets, request.body)),
  );

  app.get(
    '/v1/external_bank_accounts/:external_bank_account_token',
    { schema: { summary: 'Get an external bank account', tags, params, response } },
    async (request) => service.get(db, request.scope, request.params.external_bank_account_token),
  );

  app.get(
    '/v1/external_bank_accounts',
    {
      schema: {
        summary: 'List external bank accounts',
        description: 'Array filters take repeated keys or one comma-separated value; a filter matches any of its values.',
        tags,
        querystring: ListExternalBankAccountsQuery,
        response: { 200: ListOf(ExternalBankAccount) },
      },
    },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.patch(
    '/v1/external_bank_accounts/:external_bank_account_token',
    { schema: { summary: 'Update an external bank account', tags, params, body: UpdateExternalBankAccountBody, response } },
    async (request, reply) =>
      commit(request, reply, (tx) => service.update(db, tx, request.scope, request.params.external_bank_account_token, request.body ?? {})),
  );

  app.post(
    '/v1/external_bank_accounts/:external_bank_account_token/micro_deposits',
    {
      schema: {
        summary: 'Verify an external bank account with its micro-deposit amounts',
        description: 'Right amounts, in either order: ENABLED. Wrong amounts count as an attempt (200); the third wrong attempt fails the verification. A bank account whose account_token is CLOSED takes none (422).',
        tags,
        params,
        body: MicroDepositsBody,
        response,
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.verifyMicroDeposits(db, tx, request.scope, secrets, request.params.external_bank_account_token, request.body)),
  );

  for (const [path, method] of [
    ['retry_micro_deposits', 'MICRO_DEPOSIT'],
    ['retry_prenote', 'PRENOTE'],
  ] as const) {
    app.post(
      `/v1/external_bank_accounts/:external_bank_account_token/${path}`,
      {
        schema: {
          summary: `Retry the ${method} verification of an external bank account`,
          description: `Only a ${method} account whose verification is PENDING, FAILED_VERIFICATION or INSUFFICIENT_FUNDS (else 422). Micro-deposits: a new pair of amounts, never the previous one, sent once the funding account can pay them (else INSUFFICIENT_FUNDS again). Not for a bank account whose account_token is CLOSED (422).`,
          tags,
          params,
          body: RetryBody,
          response,
        },
      },
      async (request, reply) =>
        commit(request, reply, (tx) =>
          service.retry(db, tx, request.scope, secrets, request.params.external_bank_account_token, method, request.body ?? {}),
        ),
    );
  }
};
