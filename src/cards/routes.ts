import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ListOf, TokenParams } from '../http/schemas.js';
import { Card, CardListItem, CardSpendLimits, CreateCardBody, ListCardsQuery, UpdateCardBody } from './schemas.js';
import * as service from './service.js';
import { spendLimits } from './spend-limits.js';

const tags = ['Cards'];

export const cardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/cards',
    {
      schema: {
        summary: 'Create a card',
        description:
          'Issues a card on an account (the program’s default account when account_token is omitted). The response ' +
          'carries the PAN and CVV.',
        tags,
        body: CreateCardBody,
        response: { 200: Card },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(db, tx, request.scope, secrets, request.body)),
  );

  // SDK 0.119's `cards.aggregateBalances.list()` (GET /v1/cards/aggregate_balances) is not served. Its path would
  // otherwise reach GET /v1/cards/:card_token and answer a 400 about a malformed card token; it answers as any path
  // no route serves (404 "No route", with or without a key), and stays out of /openapi.json.
  app.get('/v1/cards/aggregate_balances', { config: { public: true }, schema: { hide: true } }, (_request, reply) => reply.callNotFound());

  app.get(
    '/v1/cards/:card_token',
    { schema: { summary: 'Get a card', tags, params: TokenParams('card_token'), response: { 200: Card } } },
    async (request) => service.retrieve(db, request.scope, secrets, request.params.card_token),
  );

  app.get(
    '/v1/cards/:card_token/spend_limits',
    {
      schema: {
        summary: 'Get a card’s available spend limit',
        description:
          'The card’s spend limit under its duration (annually, forever or monthly), the approved spend in that window (as the ' +
          'authorizations are checked against it) and what is left, never below 0. A card without a limit, or with a TRANSACTION ' +
          'limit (no window), answers three empty objects.',
        tags,
        params: TokenParams('card_token'),
        response: { 200: CardSpendLimits },
      },
    },
    async (request) => spendLimits(db, request.scope, request.params.card_token),
  );

  app.get(
    '/v1/cards',
    {
      schema: {
        summary: 'List cards',
        description: 'Newest first. Items carry last_four but not the PAN or CVV.',
        tags,
        querystring: ListCardsQuery,
        response: { 200: ListOf(CardListItem) },
      },
    },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.patch(
    '/v1/cards/:card_token',
    {
      schema: {
        summary: 'Update a card',
        description:
          'Only the supplied properties change. State: OPEN ⇄ PAUSED, either → CLOSED; CLOSED is final (422). ' +
          'A new pin (PHYSICAL and VIRTUAL only) or pin_status OK unblocks the PIN.',
        tags,
        params: TokenParams('card_token'),
        body: UpdateCardBody,
        response: { 200: Card },
      },
    },
    async (request, reply) =>
      commit(request, reply, (tx) => service.update(db, tx, request.scope, secrets, request.params.card_token, request.body)),
  );
};
