import crypto from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({ port: 8080, host: '127.0.0.1', databaseUrl: undefined, apiKeys: [], encryptionKey: undefined, dataDir: path.resolve('data'), logLevel: 'info', pgPoolSize: 10 });
    // An empty or blank variable is an unset one.
    const blank = { PORT: '', HOST: '  ', DATABASE_URL: ' ', CARDWRIGHT_API_KEYS: '', CARDWRIGHT_ENCRYPTION_KEY: ' ', CARDWRIGHT_DATA_DIR: ' ', LOG_LEVEL: ' ', CARDWRIGHT_PG_POOL_SIZE: '' };
    expect(loadConfig(blank)).toEqual(config);
  });

  it('reads every variable', () => {
    const key = crypto.randomBytes(32);
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://localhost/cw',
      CARDWRIGHT_API_KEYS: ' key-one-1234 ,key-two-1234,key-one-1234 ',
      CARDWRIGHT_ENCRYPTION_KEY: key.toString('base64'),
      CARDWRIGHT_DATA_DIR: 'var/cardwright',
      LOG_LEVEL: 'warn',
      CARDWRIGHT_PG_POOL_SIZE: '4',
    });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', databaseUrl: 'postgres://localhost/cw', apiKeys: ['key-one-1234', 'key-two-1234'], logLevel: 'warn', pgPoolSize: 4 });
    // Relative to the folder the server starts in.
    expect(config.dataDir).toBe(path.resolve('var/cardwright'));
    expect(config.encryptionKey).toEqual(key);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ CARDWRIGHT_ENCRYPTION_KEY: 'abc' })).toThrow(/CARDWRIGHT_ENCRYPTION_KEY/);
    expect(() => loadConfig({ CARDWRIGHT_API_KEYS: 'two keys' })).toThrow(/CARDWRIGHT_API_KEYS/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  it('reads PORT as decimal digits only', () => {
    expect(loadConfig({ PORT: ' 9001 ' }).port).toBe(9001);
    for (const port of ['1e3', '0x50', '0b1', '80.0', '+80', '-1', '65536', 'eighty']) {
      expect(() => loadConfig({ PORT: port }), port).toThrow(/^PORT must be an integer between 0 and 65535/);
    }
  });

  it('reads CARDWRIGHT_PG_POOL_SIZE as decimal digits only', () => {
    expect(loadConfig({ CARDWRIGHT_PG_POOL_SIZE: ' 16 ' }).pgPoolSize).toBe(16);
    for (const size of ['0x10', '1e1', '0b11', '10.0', '+10', '0', '-1', 'ten']) {
      expect(() => loadConfig({ CARDWRIGHT_PG_POOL_SIZE: size }), size).toThrow(/^CARDWRIGHT_PG_POOL_SIZE must be a positive integer/);
    }
  });

  it('takes keys of any length and skips empty items in CARDWRIGHT_API_KEYS; refuses a key with whitespace inside, naming the item', () => {
    expect(loadConfig({ CARDWRIGHT_API_KEYS: '   ' }).apiKeys).toEqual([]);
    expect(loadConfig({ CARDWRIGHT_API_KEYS: 'test' }).apiKeys).toEqual(['test']);
    expect(loadConfig({ CARDWRIGHT_API_KEYS: 'k1,k2' }).apiKeys).toEqual(['k1', 'k2']);
    expect(loadConfig({ CARDWRIGHT_API_KEYS: 'key-one-1234,,key-two-1234' }).apiKeys).toEqual(['key-one-1234', 'key-two-1234']);
    expect(loadConfig({ CARDWRIGHT_API_KEYS: 'key-one-1234,' }).apiKeys).toEqual(['key-one-1234']);
    expect(loadConfig({ CARDWRIGHT_API_KEYS: ',' }).apiKeys).toEqual([]);
    expect(() => loadConfig({ CARDWRIGHT_API_KEYS: 'key-one-1234 key-two-1234' })).toThrow(/^CARDWRIGHT_API_KEYS: item 1 of 1 holds whitespace/);
    expect(() => loadConfig({ CARDWRIGHT_API_KEYS: 'key-one-1234\nkey-two-1234' })).toThrow(/^CARDWRIGHT_API_KEYS: item 1 of 1 holds whitespace/);
    expect(() => loadConfig({ CARDWRIGHT_API_KEYS: 'key-one-1234,clé-deux-1234' })).toThrow(/^CARDWRIGHT_API_KEYS: item 2 of 2 holds/);
  });

  it('refuses a CARDWRIGHT_ENCRYPTION_KEY with characters outside base64, which the decoder would skip', () => {
    const key = crypto.randomBytes(32).toString('base64');
    expect(loadConfig({ CARDWRIGHT_ENCRYPTION_KEY: `  ${key}\n` }).encryptionKey?.toString('base64')).toBe(key);
    for (const bad of [`${key}!!`, `${key.slice(0, 20)} ${key.slice(20)}`, key.replace(/\+|\//g, '-')]) {
      if (bad === key) continue;
      expect(() => loadConfig({ CARDWRIGHT_ENCRYPTION_KEY: bad }), bad).toThrow(/^CARDWRIGHT_ENCRYPTION_KEY must be 32 bytes encoded as base64/);
    }
  });
});
