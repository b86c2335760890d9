/**
 * One error shape for every failure: `{"debugging_request_id": "<uuid>", "message": "…"}` with the
 * contract's status codes. Domain errors carry their status; Fastify's own errors (validation,
 * body too large, bad JSON, unsupported media type) are mapped here; a database that cannot be
 * reached (or stays busy) is a 503; anything else is a bug, answered 500 with a generic message
 * and logged with its stack. Requests refused before any route sees them (a path that is not
 * percent-encoded UTF-8, a request the HTTP parser cannot read) get the same shape.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.js';
import { isDomainError } from '../errors.js';
import { maskedPath } from '../logger.js';
import { describeValidationError } from './validation.js';

/** The response header that carries a request's id, the `debugging_request_id` of its error body. */
export const REQUEST_ID_HEADER = 'x-request-id';

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

/**
 * Fastify's `frameworkErrors`: a path the router cannot decode (a `%` that starts no UTF-8 escape),
 * refused before any route or hook runs, so the request id header is set here.
 */
export function answerUnroutablePath(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header(REQUEST_ID_HEADER, request.id);
  const reason = error.code === 'FST_ERR_BAD_URL' ? 'is not a valid URL path (each % must start an escape of UTF-8)' : error.message;
  return sendError(request, reply, 400, `path: ${reason}`);
}

/**
 * Node's `clientError`: a request the HTTP parser refused (bad framing, an unknown method, headers
 * past the size limit, too slow). There is no request object; the answer is written to the socket,
 * in the one error shape, with an id of its own. Node's statuses are kept: 408 for a timeout, 431
 * for oversized headers, else 400.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'HTTP: the request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `HTTP: the request headers are larger than ${http.maxHeaderSize} bytes`]
        : [400, `HTTP: not a well-formed HTTP/1.1 request (${error.code ?? error.message})`];
  const id = crypto.randomUUID();
  const body = JSON.stringify({ debugging_request_id: id, message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
