/**
 * The `events` of the three ledger transactions Cardwright records for money movement (external
 * payments, book transfers, management operations). One table for the three: an event is the same
 * thing in each (what happened, how much, approved or declined), and their tokens share one space,
 * so a client-chosen `token` can never make two resources' events collide.
 */
export interface MoneyEventsTable {
  program_id: string;
  /** The external payment, book transfer or management operation the event belongs to (or the external bank account whose micro-deposits it records). */
  transaction_token: string;
  /** 0, 1, 2… in the order the events happened. */
  seq: number;
  token: string;
  type: string;
  amount_cents: number;
  result: 'APPROVED' | 'DECLINED';
  /** JSON array of strings, e.g. `["APPROVED"]`. */
  detailed_results: string;
  memo: string;
  /** `YYYY-MM-DD`; null for book transfers, whose events have no effective date. */
  effective_date: string | null;
  subtype: string | null;
  created_ms: number;
}

export interface MoneyEventTables {
  money_events: MoneyEventsTable;
}
