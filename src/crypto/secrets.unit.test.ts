import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEncryptionKey, Secrets } from './secrets.js';

describe('secrets at rest', () => {
  const secrets = new Secrets(crypto.randomBytes(32));

  it('round-trips and never stores the plaintext', () => {
    const stored = secrets.encrypt('4111111111111111');
    expect(stored).not.toContain('4111111111111111');
    expect(stored.startsWith('v1.')).toBe(true);
    expect(secrets.decrypt(stored)).toBe('4111111111111111');
  });

  it('uses a fresh nonce per value', () => {
    expect(secrets.encrypt('123')).not.toBe(secrets.encrypt('123'));
  });

  it('detects tampering and wrong keys', () => {
    const stored = secrets.encrypt('secret');
    const parts = stored.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => secrets.decrypt(parts.join('.'))).toThrow();
    expect(() => new Secrets(crypto.randomBytes(32)).decrypt(stored)).toThrow();
    expect(() => secrets.decrypt('plain text')).toThrow(/unknown format/);
  });

  it('gives a stable keyed lookup hash that differs between keys', () => {
    expect(secrets.lookupHash('4111111111111111')).toBe(secrets.lookupHash('4111111111111111'));
    expect(secrets.lookupHash('4111111111111111')).not.toBe(new Secrets(crypto.randomBytes(32)).lookupHash('4111111111111111'));
  });

  it('identifies a key by a check value that does not reveal it', () => {
    const key = crypto.randomBytes(32);
    const check = new Secrets(key).keyCheck;
    expect(check).toMatch(/^[0-9a-f]{64}$/);
    expect(new Secrets(Buffer.from(key)).keyCheck).toBe(check);
    expect(new Secrets(crypto.randomBytes(32)).keyCheck).not.toBe(check);
    expect(check).not.toContain(key.toString('hex'));
  });

  it('creates the key file once (mode 0600) and reads it back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cw-key-'));
    const key = loadEncryptionKey(undefined, dir);
    expect(key).toHaveLength(32);
    expect(fs.statSync(path.join(dir, 'encryption.key')).mode & 0o777).toBe(0o600);
    expect(loadEncryptionKey(undefined, dir)).toEqual(key);
    const configured = crypto.randomBytes(32);
    expect(loadEncryptionKey(configured, dir)).toEqual(configured);
    fs.writeFileSync(path.join(dir, 'encryption.key'), 'short');
    expect(() => loadEncryptionKey(undefined, dir)).toThrow(/32-byte/);
    fs.rmSync(dir, { recursive: true });
  });
});
