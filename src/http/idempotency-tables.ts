/** One row per (program, Idempotency-Key): claimed while in flight, then the stored response. */
export interface IdempotencyKeysTable {
  program_id: string;
  idempotency_key: string;
  /** Keyed hash (Secrets.lookupHash) of method, URL and canonical body: a reuse with a different request is refused. */
  fingerprint: string;
  state: 'in_flight' | 'complete';
  /** Who holds the in-flight claim (a random id per request). */
  owner: string;
  /** Wall-clock time after which an abandoned in-flight claim may be taken over. */
  lease_expires_ms: number;
  response_status: number | null;
  /** The serialised response, encrypted with the app's Secrets (it may hold a PAN or CVV). */
  response_body: string | null;
  created_ms: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
