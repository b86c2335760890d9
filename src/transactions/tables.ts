/**
 * Card transactions: what the card network sent about one card payment (an authorization and what
 * followed it, or a single-message financial authorization, or a return) and what Cardwright
 * decided. Amounts are signed from the cardholder's side: debits positive, credits negative.
 */
export type TransactionStatus = 'PENDING' | 'SETTLED' | 'DECLINED' | 'VOIDED' | 'EXPIRED';

export interface CardTransactionsTable {
  program_id: string;
  token: string;
  account_token: string;
  card_token: string;
  /** The ISSUING financial account of the card's account: where the money moves. */
  financial_account_token: string;
  /** The type of the first event: AUTHORIZATION, FINANCIAL_AUTHORIZATION, RETURN, … */
  kind: string;
  status: TransactionStatus;
  /** The decision on the first event: APPROVED or the decline reason. */
  result: string;
  /** The amount authorized (an advice replaces it), signed. */
  authorization_amount_cents: number;
  /** Still pending (held or incoming), signed; 0 once cleared, voided or expired. */
  hold_cents: number;
  /** Settled so far, signed. */
  settled_cents: number;
  /** The authorization amount in the merchant's currency (its ratio to the USD amount is the rate). */
  merchant_authorization_amount_cents: number;
  merchant_currency: string;
  /** What this transaction counts toward spend limits: approved debit authorizations net of reversals (≥ 0). */
  spend_cents: number;
  /** 1 for an approved debit authorization (velocity counts it), else 0. */
  counts_as_spend: number;
  /** 1 once a settled credit has been reversed (RETURN_REVERSAL). */
  return_reversed: number;
  merchant_acceptor_id: string;
  merchant_descriptor: string;
  merchant_mcc: string;
  merchant_city: string;
  /** ISO 3166-1 alpha-3. */
  merchant_country: string;
  merchant_state: string;
  /** 1 when the card was at the terminal (a PIN was entered), else card-not-present e-commerce. */
  card_present: number;
  partial_approval_capable: number;
  /** When a PENDING debit authorization expires by itself (program clock); null for the others. */
  expires_ms: number | null;
  created_ms: number;
  updated_ms: number;
}

export interface CardTransactionEventsTable {
  program_id: string;
  transaction_token: string;
  /** 0, 1, 2… in the order the events happened. */
  seq: number;
  token: string;
  type: string;
  /** Signed: DEBIT events positive, CREDIT events negative. */
  amount_cents: number;
  /** The amount the event settled (financial events); null for the others. */
  settlement_cents: number | null;
  effective_polarity: 'CREDIT' | 'DEBIT';
  result: string;
  /** JSON array of strings. */
  detailed_results: string;
  /** JSON array of {auth_rule_token, explanation, name, result}. */
  rule_results: string;
  created_ms: number;
}

/** Approved spend per card or account (`scope_token`) and UTC day of the transactions' creation. */
interface CardSpendDaysTable {
  program_id: string;
  scope_token: string;
  day_start_ms: number;
  spent_cents: number;
  approved_count: number;
}

/** The same per UTC hour, for the part of a window that does not cover whole days. */
interface CardSpendHoursTable {
  program_id: string;
  scope_token: string;
  hour_start_ms: number;
  spent_cents: number;
  approved_count: number;
}

export interface CardTransactionTables {
  card_transactions: CardTransactionsTable;
  card_transaction_events: CardTransactionEventsTable;
  card_spend_days: CardSpendDaysTable;
  card_spend_hours: CardSpendHoursTable;
}
