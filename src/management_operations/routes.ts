import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import {
  CreateManagementOperationBody,
  ListManagementOperationsQuery,
  ManagementOperation,
  ReverseManagementOperationBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Management operations'];

export const managementOperationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.post(
    '/v1/management_operations',
    {
      config: { idempotentBodyToken: true },
      schema: {
        summary: 'Create a management operation',
        description:
          'Credits or debits a financial account. It settles on its effective date by the program clock (PENDING until then); a DEBIT without the funds is DECLINED.',
        tags,
        body: CreateManagementOperationBody,
        response: { 200: ManagementOperation },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, request.body)),
  );

  app.get(
    '/v1/management_operations/:management_operation_token',
    {
      schema: {
        summary: 'Get a management operation',
        tags,
        params: TokenParams('management_operation_token'),
        response: { 200: ManagementOperation },
      },
    },
    async (request) => service.get(db, request.scope, request.params.management_operation_token),
  );

  app.get(
    '/v1/management_operations',
    {
      schema: {
        summary: 'List management operations',
        tags,
        querystring: ListManagementOperationsQuery,
        response: { 200: ListOf(ManagementOperation) },
      },
    },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.post(
    '/v1/management_operations/:management_operation_token/reverse',
    {
      schema: {
        summary: 'Reverse a management operation',
        description: 'Undoes a SETTLED operation, or withdraws a PENDING one; appends the _REVERSAL partner event. Anything else is 422.',
        tags,
        params: TokenParams('management_operation_token'),
        body: ReverseManagementOperationBody,
        response: { 200: ManagementOperation },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.reverse(db, tx, request.scope, request.params.management_operation_token, request.body)),
  );
};
