/** SQL for the ledger. Only `ledger.ts` calls this file. */
import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../db/database.js';
import type { Balance, Movement } from './ledger.js';
import type { JournalsTable, LedgerEntriesTable } from './tables.js';

const balanceColumns = [
  'financial_account_token',
  'available_cents',
  'pending_cents',
  'last_transaction_token',
  'last_transaction_event_token',
  'created_ms',
  'updated_ms',
] as const;

export async function insertBalance(exec: Executor, programId: string, financialAccountToken: string, nowMs: number) {
  await exec
    .insertInto('balances')
    .values({
      program_id: programId,
      financial_account_token: financialAccountToken,
      available_cents: 0,
      pending_cents: 0,
      last_transaction_token: null,
      last_transaction_event_token: null,
      created_ms: nowMs,
      updated_ms: nowMs,
    })
    .execute();
}

export function selectBalancesForUpdate(db: Db, tx: Tx, programId: string, sortedTokens: string[]): Promise<Balance[]> {
  if (sortedTokens.length === 0) return Promise.resolve([]);
  const query = tx
    .selectFrom('balances')
    .select(balanceColumns)
    .where('program_id', '=', programId)
    .where('financial_account_token', 'in', sortedTokens)
    .orderBy('financial_account_token');
  return db.forUpdate(query).execute();
}

export function selectBalances(exec: Executor, programId: string, tokens: readonly string[]): Promise<Balance[]> {
  if (tokens.length === 0) return Promise.resolve([]);
  return exec
    .selectFrom('balances')
    .select(balanceColumns)
    .where('program_id', '=', programId)
    .where('financial_account_token', 'in', tokens)
    .execute();
}

export function selectAllBalances(exec: Executor, programId: string): Promise<Balance[]> {
  return exec.selectFrom('balances').select(balanceColumns).where('program_id', '=', programId).execute();
}

export async function insertJournal(exec: Executor, journal: JournalsTable) {
  await exec.insertInto('journals').values(journal).execute();
}

export async function insertEntries(exec: Executor, entries: LedgerEntriesTable[]) {
  await exec.insertInto('ledger_entries').values(entries).execute();
}

export async function applyBalanceDelta(
  exec: Executor,
  programId: string,
  financialAccountToken: string,
  delta: { available_cents: number; pending_cents: number },
  movement: Movement,
  nowMs: number,
): Promise<number> {
  const result = await exec
    .updateTable('balances')
    .set({
      available_cents: sql`available_cents + ${delta.available_cents}`,
      pending_cents: sql`pending_cents + ${delta.pending_cents}`,
      last_transaction_token: movement.transaction_token,
      last_transaction_event_token: movement.event_token,
      updated_ms: nowMs,
    })
    .where('program_id', '=', programId)
    .where('financial_account_token', '=', financialAccountToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function sumEntriesByAccount(exec: Executor, programId: string) {
  return exec
    .selectFrom('ledger_entries')
    .select(['ledger_account', 'bucket', sql<number>`sum(amount_cents)`.as('sum_cents')])
    .where('program_id', '=', programId)
    .groupBy(['ledger_account', 'bucket'])
    .execute();
}
