/** Bank accounts outside Cardwright that a program or an account pays to and from. */
export interface ExternalBankAccountsTable {
  program_id: string;
  token: string;
  /** null for the program's own bank accounts. */
  account_token: string | null;
  /** The OPERATING financial account that funds micro-deposits; null when none was given. */
  financial_account_token: string | null;
  country: string;
  currency: string;
  /** The full account number, encrypted (crypto/secrets.ts); only `last_four` is ever returned. */
  account_number_encrypted: string;
  last_four: string;
  owner: string;
  owner_type: string;
  routing_number: string;
  state: string;
  type: string;
  verification_attempts: number;
  verification_method: string;
  verification_state: string;
  verification_failed_reason: string | null;
  /**
   * The last round of micro-deposits as encrypted JSON, until it verifies (kept after a failure, and
   * through a retry that could not send: the next pair sent is another): `{amounts, attempts_before}`, the two amounts in cents and
   * `verification_attempts` when they were sent; a bare array of the amounts is a round that began at 0.
   */
  micro_deposits_encrypted: string | null;
  /** When a PENDING prenote counts as accepted (no return came back); null when none is out. */
  prenote_due_ms: number | null;
  /** JSON text of the address object, or null. */
  address: string | null;
  company_id: string | null;
  dob: string | null;
  doing_business_as: string | null;
  name: string | null;
  user_defined_id: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface ExternalBankAccountTables {
  external_bank_accounts: ExternalBankAccountsTable;
}
