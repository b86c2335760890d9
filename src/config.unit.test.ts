import crypto from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: undefined, apiKeys: [], encryptionKey: undefined, logLevel: 'info' });
    expect(config.dataDir).toBe(path.resolve('data'));
  });

  it('reads every variable', () => {
    const key = crypto.randomBytes(32);
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://localhost/cw',
      CARDWRIGHT_API_KEYS: ' key-one-1234 ,key-two-1234,key-one-1234 ',
      CARDWRIGHT_ENCRYPTION_KEY: key.toString('base64'),
    });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', databaseUrl: 'postgres://localhost/cw', apiKeys: ['key-one-1234', 'key-two-1234'] });
    expect(config.encryptionKey).toEqual(key);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ CARDWRIGHT_ENCRYPTION_KEY: 'abc' })).toThrow(/CARDWRIGHT_ENCRYPTION_KEY/);
    expect(() => loadConfig({ CARDWRIGHT_API_KEYS: 'short' })).toThrow(/CARDWRIGHT_API_KEYS/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
