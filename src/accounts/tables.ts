/**
 * Accounts. Every program has a default account (for programs that do not enroll account holders);
 * enrolling an account holder creates another. An account's cards draw on its ISSUING financial
 * account: the default account uses the program-level ISSUING account.
 */
export interface AccountsTable {
  program_id: string;
  token: string;
  state: 'ACTIVE' | 'PAUSED' | 'CLOSED';
  is_default: number;
  account_holder_token: string | null;
  issuing_financial_account_token: string;
  /** Spend limits in cents (accounts/spend.ts): daily and monthly always set, 0 declining every debit (migration 0041). */
  daily_spend_limit_cents: number;
  monthly_spend_limit_cents: number;
  /** null = no limit (a lifetime limit of 0). */
  lifetime_spend_limit_cents: number | null;
  /** Why the account is in its state (SDK substatus enum); null until a PATCH sets it. */
  substatus: string | null;
  comment: string | null;
  /** JSON address set by PATCH; null: the holder's own address is shown. */
  verification_address: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface AccountTables {
  accounts: AccountsTable;
}
