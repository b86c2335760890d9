/**
 * One error shape for every failure: `{"debugging_request_id": "<uuid>", "message": "…"}` with the
 * contract's status codes. Domain errors carry their status; Fastify's own errors (validation,
 * body too large, bad JSON, unsupported media type) are mapped here; a database that cannot be
 * reached (or stays busy) is a 503; anything else is a bug, answered 500 with a generic message
 * and logged with its stack.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.js';
import { isDomainError } from '../errors.js';
import { maskedPath } from '../logger.js';
import { describeValidationError } from './validation.js';

interface ErrorResponse {
  status: number;
  message: string;
}

function toErrorResponse(error: FastifyError): ErrorResponse {
  if (isDomainError(error)) return { status: error.status, message: error.message };
  if (error.validation && error.validation.length > 0) {
    return { status: 400, message: describeValidationError(error.validation[0] as never, error.validationContext) };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'Request body is larger than the 1 MiB limit' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Missing or not JSON: a bad request like any other (the contract has no 415).
      return { status: 400, message: 'Content-Type: must be application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Content-Length does not match the request body' };
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { status: 400, message: 'Request body is not valid JSON' };
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { status, message: error.message };
  // Not a bug: the request could not be served now. The SDKs retry a 503; a connection lost during
  // COMMIT leaves the outcome unknown, which a retry with the same Idempotency-Key resolves.
  if (isDatabaseUnavailable(error)) {
    return { status: 503, message: 'Database unavailable: retry shortly (a retry with the same Idempotency-Key never applies a request twice)' };
  }
  return { status: 500, message: 'Internal server error' };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  return reply.code(status).type('application/json; charset=utf-8').send({ debugging_request_id: request.id, message });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const response = toErrorResponse(error);
    if (response.status >= 500) request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, response.status, response.message);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, 404, `No route for ${request.method} ${maskedPath(request.url)}`),
  );
}
