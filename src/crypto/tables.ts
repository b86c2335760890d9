/** The check value of the database's encryption key (migration 0013, crypto/key-check.ts). */
interface EncryptionKeyCheckTable {
  /** Always 1: the table holds one row. */
  id: number;
  /** `Secrets.keyCheck` of the key the secrets are written with (hex); the key itself is never stored. */
  check_value: string;
  created_ms: number;
}

export interface CryptoTables {
  encryption_key_check: EncryptionKeyCheckTable;
}
