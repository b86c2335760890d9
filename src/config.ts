/**
 * Configuration comes from the environment only (see CONTRACT.md and the README's table).
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
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parsePositiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function parseApiKeys(raw: string | undefined): string[] {
  if (!raw) return [];
  const keys = raw.split(',').map((key) => key.trim()).filter((key) => key.length > 0);
  for (const key of keys) {
    if (key.length < 8) {
      throw new ConfigError('CARDWRIGHT_API_KEYS: every key must be at least 8 characters long');
    }
  }
  return [...new Set(keys)];
}

function parseEncryptionKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const key = Buffer.from(raw.trim(), 'base64');
  if (key.length !== 32) {
    throw new ConfigError(
      `CARDWRIGHT_ENCRYPTION_KEY must be 32 bytes encoded as base64 (got ${key.length} bytes)`,
    );
  }
  return key;
}

function parseLogLevel(raw: string | undefined): string {
  const level = raw?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}
