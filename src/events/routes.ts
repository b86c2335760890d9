import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ListOf, TokenParams } from '../http/schemas.js';
import { Event, ListEventsQuery } from './schemas.js';
import * as service from './service.js';

const tags = ['Events'];

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.get(
    '/v1/events',
    {
      schema: {
        summary: 'List events',
        description:
          'Newest first. Every change of a resource records its event in the same transaction (a refused request or an idempotent replay records none). ' +
          'What has fallen due by the program clock (a hold expiry, a card shipment, an operation date) is recorded first, dated when it fell due. ' +
          '`with_content=true` includes each payload (else `{}`).',
        tags,
        querystring: ListEventsQuery,
        response: { 200: ListOf(Event) },
      },
    },
    async (request) => service.list(db, request.scope, request.query),
  );

  app.get(
    '/v1/events/:event_token',
    {
      schema: { summary: 'Get an event', tags, params: TokenParams('event_token'), response: { 200: Event } },
    },
    async (request) => service.get(db.kysely, request.scope, request.params.event_token),
  );
};
