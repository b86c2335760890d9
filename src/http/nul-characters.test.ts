import { expect, it } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';

/** U+0000 cannot be stored in PostgreSQL text: it must be a 400 naming the field, never a 500. */
describeWithDb('NUL characters in requests', () => {
  const context = useTestServer();

  it.each([
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"a\\u0000b"}', 'nickname: must not contain the NUL character (U+0000)'],
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"x","\\u0000":1}', '\u0000: must not contain the NUL character (U+0000)'],
    ['GET', '/v1/financial_accounts?type=%00', undefined, 'type: must not contain the NUL character (U+0000)'],
  ])('%s %s is refused with 400', async (method, path, body, message) => {
    const response = await context.server.request(method, path, { apiKey: context.program.apiKey, ...(body ? { body } : {}) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(message);
  });
});
