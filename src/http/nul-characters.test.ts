import { expect, it } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';

/**
 * What a schema cannot catch: U+0000 (PostgreSQL text cannot store it), a lone UTF-16 surrogate (no
 * engine stores it as sent) and nesting deep enough to exhaust a recursive walk. Each must be a 400 naming the field, never a 500.
 */
describeWithDb('NUL characters and deep nesting in requests', () => {
  const context = useTestServer();

  it.each([
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"a\\u0000b"}', 'nickname: must not contain the NUL character (U+0000)'],
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"x","\\u0000":1}', '\u0000: must not contain the NUL character (U+0000)'],
    ['GET', '/v1/financial_accounts?type=%00', undefined, 'type: must not contain the NUL character (U+0000)'],
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"a\\ud800b"}', 'nickname: must be valid Unicode text (it contains a lone UTF-16 surrogate)'],
    ['POST', '/v1/cards', '{"type":"VIRTUAL","memo":"\\udc00"}', 'memo: must be valid Unicode text (it contains a lone UTF-16 surrogate)'],
    ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"x","k\\ud800":1}', 'k\ud800: must be valid Unicode text (it contains a lone UTF-16 surrogate)'],
    ['POST', '/v1/simulate/clock', `{"now":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'now[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: is nested more than 32 levels deep'],
    ['POST', '/v1/cards', `{"type":"VIRTUAL","memo":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`, 'memo.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: is nested more than 32 levels deep'],
  ])('%s %s is refused with 400', async (method, path, body, message) => {
    const response = await context.server.request(method, path, { apiKey: context.program.apiKey, ...(body ? { body } : {}) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(message);
  });

  it('stores text with characters outside the BMP (surrogate pairs) as sent', async () => {
    const nickname = 'café 💳 𝄞';
    const created = await context.program.client.financialAccounts.create({ type: 'OPERATING', nickname });
    expect((await context.program.client.financialAccounts.retrieve(created.token)).nickname).toBe(nickname);
  });
});
