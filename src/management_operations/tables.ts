/** Management operations: direct credits and debits of one financial account by the program. */
export interface ManagementOperationsTable {
  program_id: string;
  token: string;
  category: string;
  direction: 'CREDIT' | 'DEBIT';
  event_type: string;
  subtype: string | null;
  financial_account_token: string;
  status: 'PENDING' | 'SETTLED' | 'DECLINED' | 'REVERSED';
  result: 'APPROVED' | 'DECLINED';
  amount_cents: number;
  pending_amount_cents: number;
  settled_amount_cents: number;
  /** `YYYY-MM-DD`: the operation takes effect on this day of the program's clock. */
  effective_date: string;
  user_defined_id: string | null;
  /** 1: the account to credit was CLOSED and the request said USE_SUSPENSE; the credit is held in suspense. */
  credit_in_suspense: number;
  created_ms: number;
  updated_ms: number;
}

export interface ManagementOperationTables {
  management_operations: ManagementOperationsTable;
}
