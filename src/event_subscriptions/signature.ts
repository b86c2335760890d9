/**
 * Webhook signing as Standard Webhooks defines it (and Lithic's SDK `webhooks.verifySignature`
 * checks): a secret is `whsec_` + base64 of 24 random bytes; a delivery carries `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature`, one `v1,<base64 HMAC-SHA256>` of
 * `${id}.${timestamp}.${body}` per valid secret (keyed with the secret's decoded bytes),
 * space-separated, so a receiver holding any of them during a rotation's overlap verifies.
 */
import crypto from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${crypto.randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** One `v1,<base64>` signature of a delivery with `secret`. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/** The `webhook-signature` header: a signature for each secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => webhookSignature(secret, id, timestampSeconds, body)).join(' ');
}
