export interface FinancialAccountsTable {
  program_id: string;
  token: string;
  /** null for the program's own accounts (ISSUING, OPERATING, RESERVE created with the program). */
  account_token: string | null;
  type: string;
  nickname: string | null;
  status: string;
  substatus: string | null;
  is_for_benefit_of: number;
  account_number: string;
  routing_number: string;
  /** JSON text, or null for accounts without a credit product. */
  credit_configuration: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface FinancialAccountTables {
  financial_accounts: FinancialAccountsTable;
}
