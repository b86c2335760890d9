/** Book transfers: money moved between two financial accounts of a program, inside the ledger. */
export interface BookTransfersTable {
  program_id: string;
  token: string;
  category: string;
  type: string;
  subtype: string;
  from_financial_account_token: string;
  to_financial_account_token: string;
  status: 'SETTLED' | 'DECLINED' | 'REVERSED';
  result: 'APPROVED' | 'DECLINED';
  amount_cents: number;
  pending_amount_cents: number;
  /** What the transfer has moved and not moved back: the amount, or 0 once reversed or declined. */
  settled_amount_cents: number;
  external_id: string | null;
  /** 1: the account to credit was CLOSED and the request said USE_SUSPENSE; the credit is held in suspense. */
  credit_in_suspense: number;
  created_ms: number;
  updated_ms: number;
}

export interface BookTransferTables {
  book_transfers: BookTransfersTable;
}
