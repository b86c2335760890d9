/** SQL for money events. */
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { eventsOfTransactions } from '../db/chunks.js';
import { insertRows } from '../db/prepared.js';
import type { MoneyEventsTable } from './tables.js';

export async function insert(exec: Executor, row: MoneyEventsTable): Promise<void> {
  await insertRows(exec, 'money_events', [row], { deferrable: true });
}

/** The events of the given transactions, however many; each transaction's in order. */
export function listFor(exec: Executor, programId: string, transactionTokens: readonly string[]): Promise<MoneyEventsTable[]> {
  return eventsOfTransactions(exec, 'money_events', programId, transactionTokens);
}

export async function nextSeq(exec: Executor, programId: string, transactionToken: string): Promise<number> {
  const row = await exec
    .selectFrom('money_events')
    .select(sql<number | null>`max(seq)`.as('max_seq'))
    .where('program_id', '=', programId)
    .where('transaction_token', '=', transactionToken)
    .executeTakeFirst();
  return row?.max_seq === null || row?.max_seq === undefined ? 0 : Number(row.max_seq) + 1;
}

export async function exists(exec: Executor, programId: string, transactionToken: string): Promise<boolean> {
  const row = await exec
    .selectFrom('money_events')
    .select('seq')
    .where('program_id', '=', programId)
    .where('transaction_token', '=', transactionToken)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
