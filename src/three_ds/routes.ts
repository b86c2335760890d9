import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { TokenParams } from '../http/schemas.js';
import { EmptyBody } from '../http/schemas.js';
import { ChallengeResponseBody, DecisioningSecret, SimulateAuthenticationBody, SimulateAuthenticationResponse, SimulateOtpEntryBody, ThreeDsAuthentication } from './schemas.js';
import * as decisioningSecret from './decisioning-secret.js';
import * as service from './service.js';

const tags = ['3DS'];
const resolvesOnce =
  'Only a PENDING_CHALLENGE authentication of the calling program can be resolved, once (a SUCCESS or DECLINE one, or one already resolved, is a 422 naming ' +
  'its authentication_result). The challenge stays in challenge_metadata with its outcome as status; decision_made_by and the Auth Rules report (which counted ' +
  "the rule's CHALLENGE when it was evaluated) do not change. " +
  `A challenge not resolved within ${service.CHALLENGE_TTL_MS / 60_000} minutes of the program clock times out (DECLINE, challenge status CARDHOLDER_TIMEOUT); ` +
  'a resolution arriving then is the 422, naming the timeout. Answers 200 with an empty body.';

/** The 3DS Decisioning HMAC secret (decisioning-secret.ts). */
const SECRET_RETRIEVAL = {
  summary: 'Get the 3DS Decisioning HMAC secret',
  description:
    "The program's secret; the first retrieval makes one, as Lithic's does. Lithic signs its 3DS Decisioning requests with it; Cardwright sends none, so it is only kept and shown.",
  tags,
  response: { 200: DecisioningSecret },
};
const SECRET_ROTATION = {
  summary: 'Rotate the 3DS Decisioning HMAC secret',
  description: "A new secret replaces the program's (or is its first); the next retrieval shows it. Answers 200 with an empty body.",
  tags,
  response: { 200: EmptyBody },
};

export const threeDsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, secrets } = app.deps;

  app.post(
    '/v1/three_ds_authentication/simulate',
    {
      schema: {
        summary: 'Simulate a 3DS authentication',
        description:
          'Decided by the card (closed, paused, expired, expiry mismatch → DECLINE) and its account (PAUSED or CLOSED, or its ISSUING financial account not OPEN → DECLINE), then the Auth Rules of the ' +
          'THREE_DS_AUTHENTICATION stream (DECLINE or CHALLENGE), then a merchant name containing CHALLENGE, else SUCCESS. ' +
          'No card with this PAN in the program is a 422 (the message cannot be processed), as in the other simulations.',
        tags,
        body: SimulateAuthenticationBody,
        response: { 200: SimulateAuthenticationResponse },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.simulate(db, tx, request.scope, secrets, request.body)),
  );

  app.post(
    '/v1/three_ds_decisioning/challenge_response',
    {
      schema: {
        summary: 'Respond to a 3DS challenge',
        description: `The program relays the cardholder's answer: APPROVE → SUCCESS (challenge status SUCCESS), DECLINE_BY_CUSTOMER → DECLINE (CANCELED_OOB). An unknown token is a 404. ${resolvesOnce}`,
        tags,
        body: ChallengeResponseBody,
        response: { 200: EmptyBody },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.respondToChallenge(db, tx, request.scope, request.body)),
  );

  app.post(
    '/v1/three_ds_decisioning/simulate/enter_otp',
    {
      schema: {
        summary: 'Simulate entering the OTP of a 3DS challenge',
        description:
          `The cardholder's single attempt: the sandbox's OTP is ${service.SANDBOX_OTP} → SUCCESS (challenge status SUCCESS); any other 4 to 8 digits → DECLINE (ATTEMPTS_EXCEEDED). ` +
          `An unknown token is a 422 (the message cannot be processed), as in the other simulations. ${resolvesOnce}`,
        tags,
        body: SimulateOtpEntryBody,
        response: { 200: EmptyBody },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.simulateOtpEntry(db, tx, request.scope, request.body)),
  );

  app.get('/v1/three_ds_decisioning/secret', { schema: SECRET_RETRIEVAL }, async (request, reply) =>
    commit(request, reply, (tx) => decisioningSecret.retrieveSecret(tx, request.scope, secrets)),
  );
  app.post('/v1/three_ds_decisioning/secret/rotate', { schema: SECRET_ROTATION }, async (request, reply) =>
    commit(request, reply, (tx) => decisioningSecret.rotateSecret(tx, request.scope, secrets)),
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
    async (request) => service.retrieve(db, request.scope, request.params.three_ds_authentication_token),
  );
};
