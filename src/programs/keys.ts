/**
 * API keys. A key is shown once, when it is created; only its SHA-256 is stored. Keys are random
 * (192 bits) so a fast hash is enough; keys given in CARDWRIGHT_API_KEYS are hashed the same way.
 */
import crypto from 'node:crypto';

const KEY_PREFIX = 'cw_';
/** What `keys list` shows of a key (and a configured key's program name): at most 8 characters, at most a quarter of the key. */
const DISPLAY_PREFIX_LENGTH = 8;
const DISPLAY_PREFIX_SHARE = 4;

export function generateApiKey(): string {
  return `${KEY_PREFIX}${crypto.randomBytes(24).toString('base64url')}`;
}

/** SHA-256 of the key, hex. One-shot `crypto.hash`: it runs on every request, and is ~3× faster than `createHash`. */
export function hashApiKey(key: string): string {
  return crypto.hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, Math.min(DISPLAY_PREFIX_LENGTH, Math.floor(key.length / DISPLAY_PREFIX_SHARE)));
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}
