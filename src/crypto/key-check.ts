/**
 * At start, the encryption key must be the one the database's secrets were written with: a
 * different (well-formed) key would otherwise start fine and fail every read of a PAN, CVV or
 * stored response with a 500. The database keeps a check value of its key (migration 0013); the
 * first start stores it, every later start compares. A database written before the check existed
 * adopts the key only if the key decrypts one of its stored secrets.
 */
import { ConfigError } from '../config.js';
import type { Db } from '../db/database.js';
import type { Secrets } from './secrets.js';
import { insertKeyCheck, someEncryptedValue, storedKeyCheck } from './store.js';

/** Throws a ConfigError naming CARDWRIGHT_ENCRYPTION_KEY when `secrets` holds another key than the database's. */
export async function verifyEncryptionKey(db: Db, secrets: Secrets, keySource: string, nowMs: number): Promise<void> {
  let stored = await storedKeyCheck(db.kysely);
  if (stored === undefined) {
    const existing = await someEncryptedValue(db.kysely);
    if (existing === undefined || decrypts(secrets, existing)) await insertKeyCheck(db.kysely, secrets.keyCheck, nowMs);
    stored = await storedKeyCheck(db.kysely);
  }
  if (stored !== secrets.keyCheck) {
    throw new ConfigError(
      `CARDWRIGHT_ENCRYPTION_KEY: ${keySource} is not the key this database's secrets were encrypted with; ` +
        'start with that key (CARDWRIGHT_ENCRYPTION_KEY, or the encryption.key file it was generated in)',
    );
  }
}

function decrypts(secrets: Secrets, value: string): boolean {
  try {
    secrets.decrypt(value);
    return true;
  } catch {
    return false;
  }
}
