import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import { BookTransfer, CreateBookTransferBody, ListBookTransfersQuery, ReverseBookTransferBody } from './schemas.js';
import * as service from './service.js';

const tags = ['Book transfers'];

export const bookTransferRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.post(
    '/v1/book_transfers',
    {
      config: { idempotentBodyToken: true },
      schema: {
        summary: 'Create a book transfer',
        description:
          'Moves available funds between two OPEN financial accounts of the program. Without the funds the transfer is stored DECLINED (FUNDS_INSUFFICIENT) and answered 200.',
        tags,
        body: CreateBookTransferBody,
        response: { 200: BookTransfer },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, request.body)),
  );

  app.get(
    '/v1/book_transfers/:book_transfer_token',
    { schema: { summary: 'Get a book transfer', tags, params: TokenParams('book_transfer_token'), response: { 200: BookTransfer } } },
    async (request) => service.get(db, request.scope, request.params.book_transfer_token),
  );

  app.get(
    '/v1/book_transfers',
    { schema: { summary: 'List book transfers', tags, querystring: ListBookTransfersQuery, response: { 200: ListOf(BookTransfer) } } },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.post(
    '/v1/book_transfers/:book_transfer_token/reverse',
    {
      schema: {
        summary: 'Reverse a book transfer',
        description: 'Moves the funds of a SETTLED transfer back; the transfer becomes REVERSED. Anything else is 422.',
        tags,
        params: TokenParams('book_transfer_token'),
        body: ReverseBookTransferBody,
        response: { 200: BookTransfer },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.reverse(db, tx, request.scope, request.params.book_transfer_token, request.body?.memo)),
  );
};
