/**
 * Encryption at rest for card numbers, CVVs, bank account numbers, government ids and stored
 * idempotent responses; keyed hashes for what is only compared (a PAN to find its card, a PIN).
 *
 * AES-256-GCM with a random 96-bit nonce per value; stored as `v1.<nonce>.<tag>.<ciphertext>`
 * (base64url parts). `lookupHash` is a keyed HMAC (a sub-key derived from the same key) so that a
 * value such as a PAN can be found by equality without storing it in the clear.
 *
 * The key comes from CARDWRIGHT_ENCRYPTION_KEY, or else from `<dataDir>/encryption.key`, which is
 * created (mode 0600) on first start. Losing the key makes the encrypted columns unreadable.
 * `keyCheck` identifies the key without revealing it: the database stores it so that a start with
 * another key is refused (key-check.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, decodeEncryptionKey } from '../config.js';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const FORMAT_VERSION = 'v1';

export class Secrets {
  readonly #encryptionKey: Buffer;
  readonly #lookupKey: Buffer;
  /** HMAC of a constant under a sub-key (hex): equal for equal keys, and says nothing of the key. */
  readonly keyCheck: string;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`encryption key must be ${KEY_BYTES} bytes`);
    this.#encryptionKey = Buffer.from(key);
    this.#lookupKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'cardwright lookup hash', KEY_BYTES));
    const checkKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'cardwright key check', KEY_BYTES));
    this.keyCheck = crypto.createHmac('sha256', checkKey).update('cardwright encryption key check v1').digest('hex');
  }

  encrypt(plaintext: string): string {
    const nonce = crypto.randomBytes(NONCE_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#encryptionKey, nonce);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [FORMAT_VERSION, nonce, tag, ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  decrypt(stored: string): string {
    const [version, nonce, tag, ciphertext] = stored.split('.');
    if (version !== FORMAT_VERSION || nonce === undefined || tag === undefined || ciphertext === undefined) {
      throw new Error('encrypted value has an unknown format');
    }
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#encryptionKey, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Deterministic keyed hash (hex) for equality lookups of a secret value. */
  lookupHash(value: string): string {
    return crypto.createHmac('sha256', this.#lookupKey).update(value, 'utf8').digest('hex');
  }
}

export function keyFile(dataDir: string): string {
  return path.join(dataDir, 'encryption.key');
}

/** The configured key, or the key file in `dataDir` (created on first use). */
export function loadEncryptionKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = keyFile(dataDir);
  try {
    return readOrCreateKeyFile(file, dataDir);
  } catch (error) {
    // Unreadable, not creatable (a folder it cannot write), or not a key: the operator must act.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`CARDWRIGHT_ENCRYPTION_KEY: unset, and the key file ${file} cannot be used (${reason}); set CARDWRIGHT_ENCRYPTION_KEY or CARDWRIGHT_DATA_DIR`);
  }
}

function readOrCreateKeyFile(file: string, dataDir: string): Buffer {
  try {
    return decodeKeyFile(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = crypto.randomBytes(KEY_BYTES);
  try {
    fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return decodeKeyFile(fs.readFileSync(file, 'utf8'));
    throw error;
  }
}

function decodeKeyFile(content: string): Buffer {
  try {
    return decodeEncryptionKey(content);
  } catch (error) {
    throw new Error(`it does not hold a ${KEY_BYTES}-byte base64 key (${(error as Error).message})`);
  }
}
