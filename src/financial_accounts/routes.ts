import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ErrorBody, ListOf, TokenParams, Type, Uuid } from '../http/schemas.js';
import * as balances from './balances.js';
import * as financialTransactions from './financial_transactions.js';
import {
  AccountBalancesQuery,
  CreateFinancialAccountBody,
  FinancialAccount,
  FinancialAccountBalance,
  FinancialTransaction,
  FinancialTransactionsQuery,
  ListFinancialAccountsQuery,
  ProgramBalance,
  ProgramBalancesQuery,
  UpdateFinancialAccountBody,
  UpdateFinancialAccountStatusBody,
} from './schemas.js';
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
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, request.body)),
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
        description: 'Newest first. Without page_size or a cursor, every account (has_more false): the SDK reads this list as one page.',
        querystring: ListFinancialAccountsQuery,
        response: { 200: ListOf(FinancialAccount) },
      },
    },
    async (request) => {
      const { page_size, starting_after, ending_before, ...filters } = request.query;
      return service.list(db.kysely, request.scope, filters, { page_size, starting_after, ending_before });
    },
  );

  app.patch(
    '/v1/financial_accounts/:financial_account_token',
    {
      schema: {
        summary: 'Update a financial account',
        tags,
        params: TokenParams('financial_account_token'),
        body: UpdateFinancialAccountBody,
        response: { 200: FinancialAccount },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.update(db, tx, request.scope, request.params.financial_account_token, request.body ?? {})),
  );

  app.post(
    '/v1/financial_accounts/:financial_account_token/update_status',
    {
      schema: {
        summary: 'Update the status of a financial account',
        description: 'CLOSED is final and needs a zero balance; PENDING cannot be set by a client. Refusals are 422.',
        tags,
        params: TokenParams('financial_account_token'),
        body: UpdateFinancialAccountStatusBody,
        response: { 200: FinancialAccount },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.updateStatus(db, tx, request.scope, request.params.financial_account_token, request.body)),
  );

  app.get(
    '/v1/financial_accounts/:financial_account_token/balances',
    {
      schema: {
        summary: 'Get the balance of a financial account',
        description:
          'Current, or as of `balance_date`, or right after the event `last_transaction_event_token`. A `balance_date` before the account was created is a 422.',
        tags,
        params: TokenParams('financial_account_token'),
        querystring: AccountBalancesQuery,
        response: { 200: ListOf(FinancialAccountBalance), 422: ErrorBody },
      },
    },
    async (request) => balances.accountBalances(db, request.scope, request.params.financial_account_token, request.query),
  );

  app.get(
    '/v1/balances',
    {
      schema: {
        summary: 'List the balances of the program’s financial accounts',
        description: 'With `balance_date`, the accounts that existed then, with their balances then.',
        tags: ['Balances'],
        querystring: ProgramBalancesQuery,
        response: { 200: ListOf(ProgramBalance) },
      },
    },
    async (request) => balances.programBalances(db, request.scope, request.query),
  );

  app.get(
    '/v1/financial_accounts/:financial_account_token/financial_transactions',
    {
      schema: {
        summary: 'List the financial transactions of a financial account',
        description: 'Read from the ledger: every transaction that moved money on the account, and those declined on it (movements and card transactions), newest first; paged with page_size, else whole (as Lithic answers it).',
        tags,
        params: TokenParams('financial_account_token'),
        querystring: FinancialTransactionsQuery,
        response: { 200: ListOf(FinancialTransaction) },
      },
    },
    async (request) => financialTransactions.list(db, request.scope, request.params.financial_account_token, request.query),
  );

  app.get(
    '/v1/financial_accounts/:financial_account_token/financial_transactions/:financial_transaction_token',
    {
      schema: {
        summary: 'Get a financial transaction of a financial account',
        tags,
        params: Type.Object({ financial_account_token: Uuid, financial_transaction_token: Uuid }, { additionalProperties: false }),
        response: { 200: FinancialTransaction },
      },
    },
    async (request) =>
      financialTransactions.get(db, request.scope, request.params.financial_account_token, request.params.financial_transaction_token),
  );
};
