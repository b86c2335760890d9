/**
 * Structured logs (pino). Logs must never contain an API key, a PAN, a CVV or a PIN:
 * - request logs carry request id, method, path, status and duration only (no headers, no bodies,
 *   no query string: a query value can be anything a client puts there, a key included);
 * - anything that looks like a card number (12–19 digits) is masked in URLs and error messages;
 * - fields named like secrets are redacted at any depth of a log object.
 * The redaction runs when a line is written (`formatters.log`), not when a request's child logger
 * is made: pino's path-based `redact` costs ~3 µs per request even when nothing is logged.
 */
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

/**
 * 12–19 digits, except exactly 12 after a `-`: the last group of a UUID token whose hex digits
 * happen to be all decimal (one token in ~280) is not a card number.
 */
const CARD_NUMBER_LIKE = /(?<!-)\d{12,19}|(?<=-)\d{13,19}/g;

export function maskCardNumbers(text: string): string {
  return text.replace(CARD_NUMBER_LIKE, (digits) => `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`);
}

/** A request URL's path without its query string, card numbers masked: what logs and error messages may show of it. */
export function maskedPath(url: string): string {
  const query = url.indexOf('?');
  return maskCardNumbers(query === -1 ? url : url.slice(0, query));
}

const SECRET_FIELDS = new Set(['pan', 'cvv', 'pin', 'api_key', 'key', 'account_number', 'government_id', 'authorization']);
const REDACTED = '[REDACTED]';
const MAX_DEPTH = 6;

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * A copy of a log object with every secret-named field redacted and card-number-like strings
 * masked. Only plain objects and arrays are walked: instances (a request, an error) are left to
 * their serializers below, which log only safe fields.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskCardNumbers(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(value)) {
    copy[field] = SECRET_FIELDS.has(field.toLowerCase()) ? REDACTED : redactSecrets(item, depth + 1);
  }
  return copy;
}

export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    formatters: {
      log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown>,
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: maskedPath(request.url) };
      },
      err(error: Error & { code?: string; statusCode?: number }) {
        return {
          type: error.name,
          code: error.code,
          message: maskCardNumbers(String(error.message)),
          stack: maskCardNumbers(String(error.stack)),
        };
      },
    },
  };
}

/**
 * Fastify's request logs, with method and path on the completion line too, so that one line says
 * which request ended how and how fast (`request completed`: reqId, req, res.statusCode, responseTime).
 */
export class RequestLogController extends LogController {
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  /**
   * Fastify answers a path its router cannot decode (`frameworkErrors`) without the listeners that
   * log a completion, so this logs it once the answer is sent (its `responseTime` reads 0: Fastify
   * started no timer for it, and it is answered at once).
   */
  completeOnFinish(request: FastifyRequest, reply: FastifyReply): void {
    reply.raw.once('finish', () => this.requestCompleted(null, request, reply));
  }
}

/** Whether request logs (written at `info`) can print at this level. */
export function logsRequests(level: string): boolean {
  return ['trace', 'debug', 'info'].includes(level);
}
