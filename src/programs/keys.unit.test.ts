import { describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey, sameHash } from './keys.js';

describe('API keys', () => {
  it('are random, made with the cw_ prefix, and hashed to a SHA-256 hex digest that holds nothing of the key', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^cw_[A-Za-z0-9_-]{32}$/);
    expect(generateApiKey()).not.toBe(key);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toContain(key.slice(3, 11));
  });

  it('compare hashes in constant time: equal digests only, never throwing on a digest of another length', () => {
    const digest = hashApiKey('key-one-1234');
    expect(sameHash(digest, hashApiKey('key-one-1234'))).toBe(true);
    expect(sameHash(digest, hashApiKey('key-one-1235'))).toBe(false);
    // crypto.timingSafeEqual throws on buffers of different lengths; the length is checked first.
    expect(sameHash(digest, digest.slice(0, 62))).toBe(false);
    expect(sameHash(digest, '')).toBe(false);
  });

  it('show at most 8 characters, and at most a quarter, of a key', () => {
    expect(displayPrefix('cw_abcdefghijklmnopqrstuvwxyz012')).toBe('cw_abcde');
    expect(displayPrefix('k8secret')).toBe('k8');
    expect(displayPrefix('abc')).toBe('');
  });
});
