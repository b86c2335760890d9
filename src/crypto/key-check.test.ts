/** The start-up check of the encryption key against the database's check value (key-check.ts). */
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { verifyEncryptionKey } from './key-check.js';
import { Secrets } from './secrets.js';

describeWithDb('encryption key check', () => {
  const context = useTestServer();
  const other = () => new Secrets(crypto.randomBytes(32));

  it("accepts the database's key and refuses any other, naming CARDWRIGHT_ENCRYPTION_KEY", async () => {
    const { db, app } = context.server.server;
    await expect(verifyEncryptionKey(db, app.deps.secrets, 'the configured key', 0)).resolves.toBeUndefined();
    const refusal = verifyEncryptionKey(db, other(), 'the configured key', 0);
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow(/^CARDWRIGHT_ENCRYPTION_KEY: the configured key is not the key/);
  });

  it('a database written before the check adopts only a key that decrypts its stored secrets', async () => {
    const { db, app } = context.server.server;
    await context.program.client.cards.create({ type: 'VIRTUAL' });
    await db.kysely.deleteFrom('encryption_key_check').execute();
    await expect(verifyEncryptionKey(db, other(), 'the configured key', 0)).rejects.toBeInstanceOf(ConfigError);
    await expect(verifyEncryptionKey(db, app.deps.secrets, 'the configured key', 0)).resolves.toBeUndefined();
    await expect(verifyEncryptionKey(db, other(), 'the configured key', 0)).rejects.toBeInstanceOf(ConfigError);
  });
});
