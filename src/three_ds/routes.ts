import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { TokenParams } from '../http/schemas.js';
import { SimulateAuthenticationBody, SimulateAuthenticationResponse, ThreeDsAuthentication } from './schemas.js';
import * as service from './service.js';

const tags = ['3DS'];

export const threeDsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/three_ds_authentication/simulate',
    {
      schema: {
        summary: 'Simulate a 3DS authentication',
        description:
          'Decided by the card (closed, paused, expired, expiry mismatch → DECLINE) and its account (PAUSED or CLOSED, or its ISSUING financial account not OPEN → DECLINE), then the Auth Rules of the ' +
          'THREE_DS_AUTHENTICATION stream (DECLINE or CHALLENGE), then a merchant name containing CHALLENGE, else SUCCESS.',
        tags,
        body: SimulateAuthenticationBody,
        response: { 200: SimulateAuthenticationResponse },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.simulate(tx, request.scope, secrets, request.body)),
  );

  app.get(
    '/v1/three_ds_authentication/:three_ds_authentication_token',
    {
      schema: {
        summary: 'Get a 3DS authentication',
        tags,
        params: TokenParams('three_ds_authentication_token'),
        response: { 200: ThreeDsAuthentication },
      },
    },
    async (request) => service.get(db.kysely, request.scope, request.params.three_ds_authentication_token),
  );
};
