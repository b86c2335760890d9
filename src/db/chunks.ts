import type { Executor } from './database.js';
import type { Database } from './schema.js';

/**
 * Runs a query over a token list of any length in bounded `in (…)` lists: engines cap the number
 * of bound parameters of a statement (SQLite 32,766, PostgreSQL 65,535), and an account's whole
 * history can name more transactions than that. Store functions that take such a list use it, so
 * their callers need not know.
 */
export const TOKENS_PER_QUERY = 1_000;

export async function inChunks<T>(
  tokens: readonly string[],
  select: (chunk: readonly string[]) => Promise<T[]>,
  perQuery: number = TOKENS_PER_QUERY,
): Promise<T[]> {
  const rows: T[] = [];
  for (let start = 0; start < tokens.length; start += perQuery) {
    rows.push(...(await select(tokens.slice(start, start + perQuery))));
  }
  return rows;
}

/** Tables of transaction events: rows keyed by (program_id, transaction_token, seq). */
type EventTable = 'money_events' | 'card_transaction_events';

/** The events of the given transactions, however many, from one event table; each transaction's in order. */
export function eventsOfTransactions<T extends EventTable>(
  exec: Executor,
  table: T,
  programId: string,
  transactionTokens: readonly string[],
): Promise<Database[T][]> {
  return inChunks(transactionTokens, (chunk) =>
    exec
      // Both tables have these columns; Kysely types one table at a time.
      .selectFrom(table as 'money_events')
      .selectAll()
      .where('program_id', '=', programId)
      .where('transaction_token', 'in', chunk)
      .orderBy('transaction_token')
      .orderBy('seq')
      .execute() as Promise<unknown[]> as Promise<Database[T][]>,
  );
}

/** Rows (events, journals) by their transaction's token, each transaction's in the order given. */
export function groupedByTransaction<T extends { transaction_token: string }>(events: readonly T[]): Map<string, T[]> {
  const byTransaction = new Map<string, T[]>();
  for (const event of events) {
    const group = byTransaction.get(event.transaction_token) ?? [];
    group.push(event);
    byTransaction.set(event.transaction_token, group);
  }
  return byTransaction;
}
