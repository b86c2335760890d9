import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authRulesEvaluator } from '../auth_rules/evaluator.js';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import {
  ListTransactionsQuery,
  SimulateAuthorizationAdviceBody,
  SimulateAuthorizationBody,
  SimulateClearingBody,
  SimulateCreditAuthorizationAdviceBody,
  SimulatedEventResponse,
  SimulatedTransactionResponse,
  SimulateReturnBody,
  SimulateReturnReversalBody,
  SimulateVoidBody,
  Transaction,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Transactions'];
const simulationTags = ['Simulation'];

/** Runs a simulation in one transaction and answers with the request id (and the transaction's token, if any). */
function simulate(request: FastifyRequest, reply: FastifyReply, work: (op: service.Operation) => Promise<{ token: string } | void>) {
  return commit(request, reply, async (tx) => {
    const created = await work({ db: request.server.deps.db, tx, scope: request.scope });
    // Literals, not { ...created, debugging_request_id }: see money_events/events.ts transactionBase.
    return created ? { token: created.token, debugging_request_id: request.id } : { debugging_request_id: request.id };
  });
}

const declineNote = 'A decline is a DECLINED transaction (200, with its token); 422 only when the message cannot be processed (no card with this PAN in the program).';

export const transactionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.get(
    '/v1/transactions/:transaction_token',
    { schema: { summary: 'Get a card transaction', tags, params: TokenParams('transaction_token'), response: { 200: Transaction } } },
    async (request) => service.get(db, request.scope, request.params.transaction_token),
  );

  app.get(
    '/v1/transactions',
    {
      schema: {
        summary: 'List card transactions',
        description: 'Newest first. result=DECLINED matches every result but APPROVED.',
        tags,
        querystring: ListTransactionsQuery,
        response: { 200: ListOf(Transaction) },
      },
    },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.post(
    '/v1/transactions/:transaction_token/expire_authorization',
    {
      schema: {
        summary: 'Expire an authorization',
        description: 'Releases the whole hold of a PENDING debit authorization now (AUTHORIZATION_EXPIRY, status EXPIRED). 404 for an unknown transaction; 422 when it is not a PENDING debit authorization.',
        tags,
        params: TokenParams('transaction_token'),
        response: { 200: SimulatedEventResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.expireAuthorization(op, request.params.transaction_token)),
  );

  app.post(
    '/v1/simulate/authorize',
    {
      schema: {
        summary: 'Simulate an authorization',
        description: `Every status: AUTHORIZATION (PENDING until cleared), BALANCE_INQUIRY (amount 0), CREDIT_AUTHORIZATION, FINANCIAL_AUTHORIZATION and FINANCIAL_CREDIT_AUTHORIZATION (SETTLED at once). ${declineNote}`,
        tags: simulationTags,
        body: SimulateAuthorizationBody,
        response: { 200: SimulatedTransactionResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.authorize(op, { secrets, evaluator: authRulesEvaluator }, request.body)),
  );

  app.post(
    '/v1/simulate/authorization_advice',
    {
      schema: {
        summary: 'Simulate an authorization advice',
        description: 'The pending amount of a PENDING authorization becomes `amount`.',
        tags: simulationTags,
        body: SimulateAuthorizationAdviceBody,
        response: { 200: SimulatedTransactionResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.authorizationAdvice(op, request.body)),
  );

  app.post(
    '/v1/simulate/clearing',
    {
      schema: {
        summary: 'Simulate a clearing',
        description: 'Settles a PENDING authorization (debit or credit) for `amount` (default: the pending amount; lower or higher allowed). Once cleared, it cannot be cleared again (422).',
        tags: simulationTags,
        body: SimulateClearingBody,
        response: { 200: SimulatedEventResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.clearing(op, request.body)),
  );

  app.post(
    '/v1/simulate/void',
    {
      schema: {
        summary: 'Simulate a void (reversal or expiry)',
        description: 'AUTHORIZATION_REVERSAL releases `amount` (default: all) of a PENDING authorization; AUTHORIZATION_EXPIRY releases all of it, whatever `amount` says (0 too). Not on cleared transactions (422).',
        tags: simulationTags,
        body: SimulateVoidBody,
        response: { 200: SimulatedEventResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.voidAuthorization(op, request.body)),
  );

  app.post(
    '/v1/simulate/return',
    {
      schema: {
        summary: 'Simulate a return',
        description: 'A credit to the card, SETTLED at once, without an authorization.',
        tags: simulationTags,
        body: SimulateReturnBody,
        response: { 200: SimulatedTransactionResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.simulateReturn(op, secrets, request.body)),
  );

  app.post(
    '/v1/simulate/return_reversal',
    {
      schema: {
        summary: 'Simulate a return reversal',
        description: 'Takes back a SETTLED credit (a return, a financial credit authorization, a cleared credit authorization), once.',
        tags: simulationTags,
        body: SimulateReturnReversalBody,
        response: { 200: SimulatedEventResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.returnReversal(op, request.body)),
  );

  app.post(
    '/v1/simulate/credit_authorization_advice',
    {
      schema: {
        summary: 'Simulate a credit authorization advice',
        description: 'A PENDING credit the network approved on the issuer’s behalf.',
        tags: simulationTags,
        body: SimulateCreditAuthorizationAdviceBody,
        response: { 200: SimulatedTransactionResponse },
      },
    },
    async (request, reply) => simulate(request, reply, (op) => service.creditAuthorizationAdvice(op, secrets, request.body)),
  );
};
