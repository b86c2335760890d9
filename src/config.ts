/**
 * Configuration comes from the environment only (the README's Configuration table lists each variable).
 * Parsing is strict: a bad value stops the server at start with a message naming the variable,
 * instead of surfacing later as a confusing runtime error.
 */
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** `undefined` means the default SQLite file under `dataDir`. */
  databaseUrl: string | undefined;
  /** Keys from CARDWRIGHT_API_KEYS; each distinct key is its own program. */
  apiKeys: string[];
  /** 32 raw bytes, or `undefined` to use (or create) the key file in `dataDir`. */
  encryptionKey: Buffer | undefined;
  dataDir: string;
  logLevel: string;
  /** Upper bound on PostgreSQL pool connections. */
  pgPoolSize: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: parsePort(env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    apiKeys: parseApiKeys(env.CARDWRIGHT_API_KEYS),
    encryptionKey: parseEncryptionKey(env.CARDWRIGHT_ENCRYPTION_KEY),
    dataDir: path.resolve(env.CARDWRIGHT_DATA_DIR?.trim() || 'data'),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    pgPoolSize: parsePositiveInt('CARDWRIGHT_PG_POOL_SIZE', env.CARDWRIGHT_PG_POOL_SIZE, 10),
  };
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 8080;
  // Decimal digits only: Number() would also read "1e3", "0x50" or "0b1" as a port.
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parsePositiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  // Decimal digits only, as PORT: Number() would also read "1e1", "0x10" or "0b11".
  const value = /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

/**
 * Comma-separated keys, each trimmed, of any length (CONTRACT.md sets none: a test harness's "test"
 * is a key). Empty items ("a,,b", a trailing comma) are no keys and are skipped. A key with
 * whitespace or control characters inside (a list separated by spaces or new lines, which no
 * Authorization header could carry as one key) is refused, naming the item.
 */
function parseApiKeys(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const items = raw.split(',').map((key) => key.trim());
  items.forEach((key, index) => {
    if (key !== '' && !/^[\x21-\x7e]+$/.test(key)) {
      throw new ConfigError(`CARDWRIGHT_API_KEYS: item ${index + 1} of ${items.length} holds whitespace or a character outside printable ASCII; separate keys with commas`);
    }
  });
  return [...new Set(items.filter((key) => key !== ''))];
}

function parseEncryptionKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return decodeEncryptionKey(raw);
  } catch (error) {
    throw new ConfigError(`CARDWRIGHT_ENCRYPTION_KEY must be 32 bytes encoded as base64 (${(error as Error).message})`);
  }
}

/**
 * An encryption key's text (the variable, or the key file): base64 of exactly 32 bytes, else an
 * Error saying what is wrong. Node's base64 decoder skips characters outside the alphabet, so the
 * text is checked first.
 */
export function decodeEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) throw new Error('it holds characters that are not base64');
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error(`got ${key.length} bytes`);
  return key;
}

function parseLogLevel(raw: string | undefined): string {
  const level = raw?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}
