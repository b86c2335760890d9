import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListQuery } from '../http/pagination.js';
import { ListOf, StringEnum, TokenParams, Type, Uuid } from '../http/schemas.js';
import { CreateFinancialAccountBody, FinancialAccount } from './schemas.js';
import * as service from './service.js';

const tags = ['Financial accounts'];

export const financialAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.post(
    '/v1/financial_accounts',
    {
      schema: {
        summary: 'Create a financial account',
        description: 'Creates an OPERATING financial account for the program, or for one of its accounts.',
        tags,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Uuid) }),
        body: CreateFinancialAccountBody,
        response: { 200: FinancialAccount },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(tx, request.scope, request.body)),
  );

  app.get(
    '/v1/financial_accounts/:financial_account_token',
    {
      schema: {
        summary: 'Get a financial account',
        tags,
        params: TokenParams('financial_account_token'),
        response: { 200: FinancialAccount },
      },
    },
    async (request) => service.get(db.kysely, request.scope, request.params.financial_account_token),
  );

  app.get(
    '/v1/financial_accounts',
    {
      schema: {
        summary: 'List financial accounts',
        tags,
        querystring: ListQuery({
          account_token: Type.Optional(Uuid),
          type: Type.Optional(StringEnum(['ISSUING', 'OPERATING', 'RESERVE', 'SECURITY'])),
        }),
        response: { 200: ListOf(FinancialAccount) },
      },
    },
    async (request) => {
      const { page_size, starting_after, ending_before, ...filters } = request.query;
      return service.list(db.kysely, request.scope, filters, { page_size, starting_after, ending_before });
    },
  );
};
