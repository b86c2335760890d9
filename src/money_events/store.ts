/** SQL for money events. */
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/database.js';
import { eventsOfTransactions } from '../db/chunks.js';
import { insertRows } from '../db/prepared.js';
import { inListOrder } from '../db/pagination.js';
import * as bookTransfers from '../book_transfers/store.js';
import * as managementOperations from '../management_operations/store.js';
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

/**
 * When an event of a movement on the financial account that wrote no journal was recorded: a
 * payment's SETTLED step, or an event of a movement the funds declined (a transfer out of the
 * account, a payment, an operation), as its financial transactions show them. The events of each
 * resource's rows on the account (read from its index), each transaction's by primary key;
 * undefined if none has it.
 */
export async function eventWithoutJournalMs(exec: Executor, programId: string, financialAccountToken: string, eventToken: string): Promise<number | undefined> {
  const among = (transactions: SelectQueryBuilder<Database, keyof Database, { token: string }>) =>
    exec
      .selectFrom('money_events')
      .select('created_ms')
      .where('program_id', '=', programId)
      .where('transaction_token', 'in', transactions)
      .where('token', '=', eventToken);
  const payments = exec.selectFrom('external_payments').select('token').where('program_id', '=', programId).where('financial_account_token', '=', financialAccountToken);
  const rows = await among(payments)
    .unionAll(among(inListOrder(managementOperations.declinedOnQuery(exec, programId, financialAccountToken).select('token'))))
    .unionAll(among(inListOrder(bookTransfers.declinedFromQuery(exec, programId, financialAccountToken).select('token'))))
    .execute();
  return rows[0] === undefined ? undefined : Number(rows[0].created_ms);
}
