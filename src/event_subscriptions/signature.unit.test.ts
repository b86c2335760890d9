/** Webhook signatures: Standard Webhooks' published example, and the SDK's verifySignature. */
import Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader, webhookSignature } from './signature.js';

const sdk = new Lithic({ apiKey: 'unused' });

describe('webhook signatures', () => {
  it("match Standard Webhooks' example", () => {
    expect(webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('are what the SDK verifies, with every secret of the header, and nothing else', () => {
    const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ token: 'e', payload: { amount: 1 } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'e', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([current, previous], 'e', timestamp, body) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => sdk.webhooks.verifySignature(body, headers, current)).not.toThrow();
    expect(() => sdk.webhooks.verifySignature(body, headers, previous)).not.toThrow();
    expect(() => sdk.webhooks.verifySignature(body, headers, other)).toThrow(/None of the given webhook signatures match/);
    expect(() => sdk.webhooks.verifySignature(`${body} `, headers, current)).toThrow(/None of the given webhook signatures match/);
    expect(() => sdk.webhooks.verifySignature(body, { ...headers, 'webhook-id': 'f' }, current)).toThrow(/None of the given webhook signatures match/);
  });
});
