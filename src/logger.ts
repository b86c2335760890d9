/**
 * Structured logs (pino). Logs must never contain an API key, a PAN, a CVV or a PIN:
 * - request logs carry method, path and request id only (no headers, no bodies);
 * - anything that looks like a card number (12–19 digits) is masked in URLs and error messages;
 * - fields named like secrets are redacted wherever they appear near the top of a log object.
 */
import type { FastifyBaseLogger, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

const CARD_NUMBER_LIKE = /\d{12,19}/g;

export function maskCardNumbers(text: string): string {
  return text.replace(CARD_NUMBER_LIKE, (digits) => `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`);
}

const SECRET_FIELDS = ['pan', 'cvv', 'pin', 'api_key', 'key', 'account_number', 'government_id', 'authorization'];

export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        ...SECRET_FIELDS,
        ...SECRET_FIELDS.map((field) => `*.${field}`),
        ...SECRET_FIELDS.map((field) => `*.*.${field}`),
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: maskCardNumbers(request.url) };
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

export type Logger = FastifyBaseLogger;
