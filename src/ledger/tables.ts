/**
 * The double-entry ledger. A journal is one money movement: the entries that share a
 * `journal_token`, which sum to zero. Each entry carries its journal's fields (kind, cause, time).
 * Entries are append-only. `balances` holds the running sums per financial account, maintained in
 * the same transaction as the entries and re-derivable from them at any time.
 */
export interface LedgerEntriesTable {
  program_id: string;
  journal_token: string;
  seq: number;
  /** A financial account token, or a system account such as `system:EXTERNAL`. */
  ledger_account: string;
  bucket: 'available' | 'pending';
  amount_cents: number;
  created_ms: number;
  /** What moved the money, e.g. `BOOK_TRANSFER`, `CARD_AUTHORIZATION_HOLD` (the journal's, on each of its entries). */
  kind: string;
  /** The resource (transfer, payment, card transaction…) and its event that caused the movement. */
  transaction_token: string;
  event_token: string;
}

interface BalancesTable {
  program_id: string;
  financial_account_token: string;
  available_cents: number;
  pending_cents: number;
  last_transaction_token: string | null;
  last_transaction_event_token: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface LedgerTables {
  ledger_entries: LedgerEntriesTable;
  balances: BalancesTable;
}
