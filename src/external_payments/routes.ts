import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import { CreateExternalPaymentBody, ExternalPayment, ListExternalPaymentsQuery, PaymentActionBody, SettleExternalPaymentBody } from './schemas.js';
import * as service from './service.js';

const tags = ['External payments'];
const params = TokenParams('external_payment_token');

const actions: { action: service.Action; summary: string; description: string; body: typeof PaymentActionBody | typeof SettleExternalPaymentBody }[] = [
  {
    action: 'settle',
    summary: 'Settle an external payment',
    description: 'PENDING and not yet settled: appends the SETTLED event; the payment stays PENDING (progress_to RELEASED also releases it).',
    body: SettleExternalPaymentBody,
  },
  {
    action: 'release',
    summary: 'Release an external payment',
    description: 'PENDING only (else 422): appends the RELEASED event; the payment becomes SETTLED and a deposit’s funds become available.',
    body: PaymentActionBody,
  },
  { action: 'cancel', summary: 'Cancel an external payment', description: 'PENDING only (else 422): the pending funds go back.', body: PaymentActionBody },
  { action: 'reverse', summary: 'Reverse an external payment', description: 'SETTLED only (else 422): the released funds go back.', body: PaymentActionBody },
];

export const externalPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.post(
    '/v1/external_payments',
    {
      config: { idempotentBodyToken: true },
      schema: {
        summary: 'Create an external payment',
        description: 'A DEPOSIT waits in pending until released; a WITHDRAWAL holds the funds, or is DECLINED (INSUFFICIENT_FUNDS) without them.',
        tags,
        body: CreateExternalPaymentBody,
        response: { 200: ExternalPayment },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, request.body)),
  );

  app.get(
    '/v1/external_payments/:external_payment_token',
    { schema: { summary: 'Get an external payment', tags, params, response: { 200: ExternalPayment } } },
    async (request) => service.get(db, request.scope, request.params.external_payment_token),
  );

  app.get(
    '/v1/external_payments',
    { schema: { summary: 'List external payments', tags, querystring: ListExternalPaymentsQuery, response: { 200: ListOf(ExternalPayment) } } },
    async (request) => service.list(db, request.scope, request.query),
  );

  for (const { action, summary, description, body } of actions) {
    app.post(
      `/v1/external_payments/:external_payment_token/${action}`,
      { schema: { summary, description, tags, params, body, response: { 200: ExternalPayment } } },
      async (request, reply) =>
        commit(request, reply, (tx) => service.act(db, tx, request.scope, request.params.external_payment_token, action, request.body)),
    );
  }
};
