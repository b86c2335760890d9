import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import { Account, AccountSpendLimits, UpdateAccountBody } from './schemas.js';
import * as service from './service.js';

const tags = ['Accounts'];

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.get(
    '/v1/accounts/:account_token',
    {
      schema: { summary: 'Get an account', tags, params: TokenParams('account_token'), response: { 200: Account } },
    },
    async (request) => service.retrieve(db, request.scope, request.params.account_token),
  );

  app.get(
    '/v1/accounts/:account_token/spend_limits',
    {
      schema: {
        summary: 'Get an account’s available spend limits',
        description:
          'The configured limits (cents; a daily or monthly limit of 0 declines every debit, a lifetime limit of 0 is no limit) and, ' +
          'for each limit that is set (daily and monthly always, lifetime unless 0), the approved spend in its window ' +
          '(daily: the trailing 24 hours; monthly: the spec’s monthly window; lifetime: since the account was created) and what is left.',
        tags,
        params: TokenParams('account_token'),
        response: { 200: AccountSpendLimits },
      },
    },
    async (request) => service.spendLimits(db, request.scope, request.params.account_token),
  );

  app.get(
    '/v1/accounts',
    {
      schema: { summary: 'List accounts', tags, querystring: ListQuery(CreatedRangeProperties), response: { 200: ListOf(Account) } },
    },
    async (request) => {
      const { page_size, starting_after, ending_before, ...range } = request.query;
      return service.list(db, request.scope, range, { page_size, starting_after, ending_before });
    },
  );

  app.patch(
    '/v1/accounts/:account_token',
    {
      schema: {
        summary: 'Update an account',
        description: 'State (ACTIVE ⇄ PAUSED, either → CLOSED; CLOSED is final) and spend limits in cents (0 = no limit).',
        tags,
        params: TokenParams('account_token'),
        body: UpdateAccountBody,
        response: { 200: Account },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.update(db, tx, request.scope, request.params.account_token, request.body)),
  );
};
