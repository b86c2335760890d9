/**
 * The program's 3DS Decisioning HMAC secret (SDK 0.119's `threeDS.decisioning.retrieveSecret` and
 * `rotateSecret`), stored encrypted, never logged. Lithic signs the 3DS Decisioning requests it
 * sends a program's endpoint with it; Cardwright has no decisioning endpoint to send them to, so
 * the secret is only kept and shown. As Lithic's, the first retrieval makes one; a rotation makes a
 * new one, which the next retrieval shows (Lithic keeps accepting the old one for 24 hours, which
 * nothing here can observe: no request is signed with either).
 */
import type { Secrets } from '../crypto/secrets.js';
import type { Tx } from '../db/database.js';
import { newWebhookSecret } from '../event_subscriptions/signature.js';
import { invariant } from '../errors.js';
import type { ProgramScope } from '../programs/scope.js';
import * as store from './store.js';

/** The secret, made first if the program has none (of two first retrievals at once, both show the one recorded). */
export async function retrieveSecret(tx: Tx, scope: ProgramScope, secrets: Secrets): Promise<{ secret: string }> {
  await store.insertDecisioningSecretIfNone(tx, scope.programId, secrets.encrypt(newWebhookSecret()));
  const encrypted = await store.findDecisioningSecret(tx, scope.programId);
  invariant(encrypted !== undefined, 'a program has a 3DS decisioning secret once one was inserted');
  return { secret: secrets.decrypt(encrypted) };
}

/** A new secret replaces the program's (or is its first). */
export async function rotateSecret(tx: Tx, scope: ProgramScope, secrets: Secrets): Promise<void> {
  await store.replaceDecisioningSecret(tx, scope.programId, secrets.encrypt(newWebhookSecret()));
}
