import { describe, expect, it } from 'vitest';
import { maskCardNumbers, redactSecrets } from './logger.js';

describe('log redaction', () => {
  it('masks card-number-like digit runs, keeping the last four', () => {
    expect(maskCardNumbers('GET /v1/cards/4111111111111111?x=1')).toBe('GET /v1/cards/************1111?x=1');
    expect(maskCardNumbers('amount 12345')).toBe('amount 12345');
    expect(maskCardNumbers('card-4111111111111111')).toBe('card-************1111');
  });

  it('leaves a token whose last group happens to be all digits as it is', () => {
    expect(maskCardNumbers('/v1/cards/01a204d6-a5d4-7d89-86b9-123456789012')).toBe('/v1/cards/01a204d6-a5d4-7d89-86b9-123456789012');
  });

  it('redacts secret-named fields at any depth and masks card numbers in every string', () => {
    const logged = redactSecrets({
      msg: 'declined 4000123412341234',
      pan: '4000123412341234',
      body: { card: { CVV: '123', pin: '1234', memo: 'ok' }, list: [{ account_number: '12345678901' }] },
      headers: { authorization: 'cw_secret' },
      count: 3,
    });
    expect(logged).toEqual({
      msg: 'declined ************1234',
      pan: '[REDACTED]',
      body: { card: { CVV: '[REDACTED]', pin: '[REDACTED]', memo: 'ok' }, list: [{ account_number: '[REDACTED]' }] },
      headers: { authorization: '[REDACTED]' },
      count: 3,
    });
  });

  it('leaves instances to their serializers', () => {
    class Request {
      get url() {
        return '/v1/status';
      }
    }
    const request = new Request();
    const error = new Error('boom');
    const logged = redactSecrets({ req: request, err: error }) as { req: unknown; err: unknown };
    expect(logged.req).toBe(request);
    expect(logged.err).toBe(error);
  });
});
