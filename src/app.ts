/**
 * The HTTP application: Fastify with the shared mechanisms wired once for every route, then each
 * resource's routes. Read this file to see the order a request goes through:
 *
 *   onRequest   request id header, then authentication (API key → program scope and its clock),
 *               except on routes marked `config: { public: true }` (/openapi.json)
 *   validation  a body sent to a write that takes none is refused, so is a query parameter sent
 *               to a route that takes none; no U+0000 or lone surrogate
 *               anywhere (PostgreSQL text cannot hold them), no `__proto__`/`constructor` key, no
 *               nesting past 32 levels; tokens lower-cased; comma-separated array queries split;
 *               then the route's TypeBox schema (bodies strict; query strings coerced)
 *   preHandler  POST routes: idempotency claim (Idempotency-Key, or a body token where the route
 *               says so): replay, 400 or 409 happen here
 *   handler     domain code; writes go through `commit` (clock gate, one transaction + idempotency
 *               record)
 *   onSend      POST routes: an unfinished idempotency claim is released (before the answer leaves)
 *   errors      one error shape for everything (http/errors.ts)
 */
import { isUtf8 } from 'node:buffer';
import crypto from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { accountHolderRoutes } from './account_holders/routes.js';
import { accountRoutes } from './accounts/routes.js';
import { authRuleRoutes } from './auth_rules/routes.js';
import { cardRoutes } from './cards/routes.js';
import { bookTransferRoutes } from './book_transfers/routes.js';
import { eventSubscriptionRoutes } from './event_subscriptions/routes.js';
import { externalBankAccountRoutes } from './external_bank_accounts/routes.js';
import { externalPaymentRoutes } from './external_payments/routes.js';
import { eventRoutes } from './events/routes.js';
import { InvalidRequestError } from './errors.js';
import { financialAccountRoutes } from './financial_accounts/routes.js';
import { authenticateRequest, setRequestId } from './http/auth.js';
import type { Deps } from './http/context.js';
import { answerClientError, answerUnroutablePath, registerErrorHandling } from './http/errors.js';
import { claimIdempotencyKey, releaseUnfinishedClaim } from './http/idempotency.js';
import { documentRoute, ErrorBody } from './http/schemas.js';
import { RequestLogController } from './logger.js';
import { managementOperationRoutes } from './management_operations/routes.js';
import { arrayQueryParameters, enumQueryParameters, integerQueryParameters, lowerCaseTokens, refuseBody, refuseEmptyValues, refuseLooseIntegers, refuseQuery, rejectUnsafeInput, splitCommaSeparated, validatorCompiler } from './http/validation.js';
import { programRoutes } from './programs/routes.js';
import { threeDsRoutes } from './three_ds/routes.js';
import { transactionRoutes } from './transactions/routes.js';
import { version } from './version.js';

const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_PATH_PARAMETER_LENGTH = 1024 * 1024;

/** Every resource's routes. A new resource adds one line. */
const resources = [
  programRoutes,
  financialAccountRoutes,
  accountHolderRoutes,
  accountRoutes,
  cardRoutes,
  bookTransferRoutes,
  managementOperationRoutes,
  externalPaymentRoutes,
  externalBankAccountRoutes,
  eventRoutes,
  authRuleRoutes,
  threeDsRoutes,
  transactionRoutes,
  eventSubscriptionRoutes,
];

export interface AppOptions {
  logger: FastifyServerOptions['logger'];
  /** Request logs are written at `info`; above it they could never print, so they are not built. */
  logRequests: boolean;
}

export async function buildApp(deps: Deps, options: AppOptions): Promise<FastifyInstance> {
  const logController = new RequestLogController({ disableRequestLogging: !options.logRequests });
  const app = Fastify({
    logger: options.logger,
    logController,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: 'idle',
    // Requests arriving during a shutdown get the one error shape (server.ts), not Fastify's own 503.
    return503OnClosing: false,
    // Longer than any request line Node reads (its header limit), so that a path parameter of any
    // length reaches its schema, whose 400 names it, instead of the router's own 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: (error, request, reply) => {
      logController.completeOnFinish(request, reply);
      return answerUnroutablePath(error, request, reply);
    },
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('deps', deps);
  app.decorateRequest('scope', null as never);
  app.decorateRequest('idempotency', null);
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);

  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, response: { ...(route.schema?.response as object), '4xx': ErrorBody, '5xx': ErrorBody } };
    if (bodyIsOptional(route.schema?.body)) {
      // No body at all is an empty one; a JSON `null` is a body, and not an object: a 400.
      const defaultBody = async (request: { body: unknown }) => {
        if (request.body === undefined) request.body = {};
      };
      route.preValidation = [...[route.preValidation ?? []].flat(), defaultBody];
    }
    if (route.schema?.body === undefined && ['POST', 'PATCH', 'PUT', 'DELETE'].includes(String(route.method))) {
      route.preValidation = [...[route.preValidation ?? []].flat(), refuseBody];
    }
    if (route.schema?.querystring === undefined && !(route.config as { public?: boolean } | undefined)?.public) {
      route.preValidation = [...[route.preValidation ?? []].flat(), refuseQuery];
    }
    if (!(route.config as { public?: boolean } | undefined)?.public) {
      route.onRequest = [...[route.onRequest ?? []].flat(), authenticateRequest];
    }
    if (route.schema?.body !== undefined || route.schema?.querystring !== undefined) {
      route.preValidation = [...[route.preValidation ?? []].flat(), rejectUnsafeInput];
    }
    if (route.schema?.params !== undefined || route.schema?.body !== undefined || route.schema?.querystring !== undefined) {
      route.preValidation = [...[route.preValidation ?? []].flat(), lowerCaseTokens];
    }
    if (route.method === 'POST') {
      route.preHandler = [...[route.preHandler ?? []].flat(), claimIdempotencyKey];
      route.onSend = [...[route.onSend ?? []].flat(), releaseUnfinishedClaim];
    }
    // Query text before validation, in one hook: arrays split, no empty filter values, integers in decimal digits.
    const arrays = arrayQueryParameters(route.schema);
    const filters = [...arrays, ...enumQueryParameters(route.schema)];
    const integers = integerQueryParameters(route.schema);
    if (filters.length > 0 || integers.length > 0) {
      const prepareQuery = async (request: { query: unknown }) => {
        const query = request.query as Record<string, unknown>;
        splitCommaSeparated(query, arrays);
        refuseEmptyValues(query, filters);
        refuseLooseIntegers(query, integers);
      };
      route.preValidation = [...[route.preValidation ?? []].flat(), prepareQuery];
    }
  });
  app.addHook('onRequest', setRequestId);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cardwright',
        version,
        description: 'Card-issuing platform API, compatible with Lithic’s. Authenticate with `Authorization: <API key>`.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url, route }) => ({ schema: documentRoute({ ...route, schema }) as typeof schema, url }),
  });
  for (const routes of resources) await app.register(routes);
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  return app;
}

/**
 * The SDKs send `Content-Type: application/json` with an empty body on POSTs without parameters
 * (e.g. promoting a rule). That is accepted as "no body"; malformed JSON is still a 400. A key
 * JavaScript gives a meaning of its own (`__proto__`, `constructor`) is kept by `JSON.parse` as
 * plain data and refused, with its path, by `rejectUnsafeInput` before validation (a route without
 * a body schema never reads its body).
 *
 * JSON is UTF-8 (RFC 8259): a body that is not is a 400, not decoded with replacement characters
 * and stored. A `charset` parameter has no effect (RFC 8259 §11): clients that send
 * `charset=ISO-8859-1` with an ASCII body are served. Only JSON is parsed: Fastify's own text/plain
 * parser is removed, so such a body (what `fetch` sends for a string) is a 400 naming the
 * Content-Type, not a body that "must be object".
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(new InvalidRequestError('Request body is not valid UTF-8'), undefined);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(error as SyntaxError, undefined);
    }
    return done(null, parsed);
  });
}

/**
 * A body whose fields are all optional (reverse a transfer with no memo, retry a verification) may
 * be left out entirely, with or without a Content-Type: it is validated as `{}`.
 */
function bodyIsOptional(schema: unknown): boolean {
  const body = schema as { type?: unknown; required?: unknown[] } | undefined;
  return body?.type === 'object' && (body.required === undefined || body.required.length === 0);
}
