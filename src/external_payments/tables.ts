/** External payments: money that moved between a financial account and a bank outside Cardwright. */
export interface ExternalPaymentsTable {
  program_id: string;
  token: string;
  category: string;
  payment_type: 'DEPOSIT' | 'WITHDRAWAL';
  financial_account_token: string;
  status: 'PENDING' | 'SETTLED' | 'DECLINED' | 'REVERSED' | 'CANCELED';
  result: 'APPROVED' | 'DECLINED';
  /** 1 once the SETTLED event is appended (the status stays PENDING until the release). */
  is_settled: number;
  amount_cents: number;
  pending_amount_cents: number;
  settled_amount_cents: number;
  user_defined_id: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface ExternalPaymentTables {
  external_payments: ExternalPaymentsTable;
}
