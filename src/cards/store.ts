/** SQL for cards and card programs. */
import { sql } from 'kysely';
import { MS_PER_DAY } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { anyOfUnindexed, keysetPage, type PageParams } from '../db/pagination.js';
import { containsIgnoringCase } from '../db/text-search.js';
import type { CardProgramsTable, CardsTable } from './tables.js';

export type CardRow = CardsTable;
export type CardProgramRow = CardProgramsTable;

/** Creates the program's card program unless it exists (concurrent first cards: one wins). */
export async function ensureCardProgram(exec: Executor, row: CardProgramRow): Promise<void> {
  await exec
    .insertInto('card_programs')
    .values(row)
    .onConflict((conflict) => conflict.column('program_id').doNothing())
    .execute();
}

/**
 * Takes the card program's next PAN sequence number. The increment locks the row until the
 * transaction ends, so concurrent card creations of a program get distinct numbers.
 */
export async function takePanSequence(exec: Executor, programId: string): Promise<CardProgramRow & { sequence: number }> {
  const row = await exec
    .updateTable('card_programs')
    .set((eb) => ({ next_pan_sequence: eb('next_pan_sequence', '+', 1) }))
    .where('program_id', '=', programId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, sequence: row.next_pan_sequence - 1 };
}

export async function insert(exec: Executor, row: CardRow): Promise<void> {
  await exec.insertInto('cards').values(row).execute();
}

export function find(exec: Executor, programId: string, token: string): Promise<CardRow | undefined> {
  return exec.selectFrom('cards').selectAll().where('program_id', '=', programId).where('token', '=', token).executeTakeFirst();
}

/**
 * The card row, locked for the rest of the transaction: updates and authorizations of one card
 * serialize on it (PostgreSQL `FOR UPDATE`; SQLite transactions hold the write lock).
 */
export function lockCard(db: Db, exec: Executor, programId: string, token: string): Promise<CardRow | undefined> {
  return db.forUpdate(exec.selectFrom('cards').selectAll().where('program_id', '=', programId).where('token', '=', token)).executeTakeFirst();
}

/** The card with this PAN in the program, found by its keyed hash (the PAN is never stored clear). */
export function findCardByPan(exec: Executor, secrets: Secrets, programId: string, pan: string): Promise<CardRow | undefined> {
  return exec
    .selectFrom('cards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('pan_lookup_hash', '=', secrets.lookupHash(pan))
    .executeTakeFirst();
}

/** Whether a card that is not CLOSED draws on the financial account (its account's ISSUING account). */
export async function hasOpenCardsFundedBy(exec: Executor, programId: string, financialAccountToken: string): Promise<boolean> {
  const row = await exec
    .selectFrom('cards')
    .innerJoin('accounts', (join) => join.onRef('accounts.program_id', '=', 'cards.program_id').onRef('accounts.token', '=', 'cards.account_token'))
    .select('cards.token')
    .where('cards.program_id', '=', programId)
    .where('accounts.issuing_financial_account_token', '=', financialAccountToken)
    .where('cards.state', '<>', 'CLOSED')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Cards with the financial account that funds them (their account's ISSUING account). */
function withFunding(exec: Executor, programId: string) {
  return exec
    .selectFrom('cards')
    .innerJoin('accounts', (join) => join.onRef('accounts.program_id', '=', 'cards.program_id').onRef('accounts.token', '=', 'cards.account_token'))
    .innerJoin('financial_accounts', (join) =>
      join
        .onRef('financial_accounts.program_id', '=', 'accounts.program_id')
        .onRef('financial_accounts.token', '=', 'accounts.issuing_financial_account_token'),
    )
    .selectAll('cards')
    .select([
      'financial_accounts.token as funding_token',
      'financial_accounts.created_ms as funding_created_ms',
      'financial_accounts.account_number as funding_account_number',
      'financial_accounts.status as funding_status',
      'financial_accounts.type as funding_type',
      'financial_accounts.nickname as funding_nickname',
    ])
    .where('cards.program_id', '=', programId);
}

export type CardWithFundingRow = CardRow & {
  funding_token: string;
  funding_created_ms: number;
  funding_account_number: string;
  funding_status: string;
  funding_type: string;
  funding_nickname: string | null;
};

export function findWithFunding(exec: Executor, programId: string, token: string): Promise<CardWithFundingRow | undefined> {
  return withFunding(exec, programId).where('cards.token', '=', token).executeTakeFirst();
}

export interface ListFilters {
  account_token?: string | undefined;
  memo?: string | undefined;
  state?: string | undefined;
  begin?: string | undefined;
  end?: string | undefined;
}

/**
 * One page of the program's cards matching the filters: an account's are a range of
 * `cards_by_account`, the state a condition on its few cards (`anyOfUnindexed`: SQLite would rather
 * walk every card of the program in that state, `cards_by_state`); a state alone a range of
 * `cards_by_state`. `memo`, a substring, is a condition on the rows either finds (alone, it walks
 * the program's cards in list order: no index serves `%text%`).
 */
export function listWithFunding(exec: Executor, programId: string, filters: ListFilters, page: PageParams) {
  let query = withFunding(exec, programId);
  if (filters.account_token !== undefined) query = query.where('cards.account_token', '=', filters.account_token);
  if (filters.state !== undefined) {
    query = filters.account_token === undefined ? query.where('cards.state', '=', filters.state) : query.where(anyOfUnindexed(exec, 'cards.state', [filters.state]));
  }
  if (filters.memo !== undefined) query = query.where(containsIgnoringCase('cards.memo', filters.memo));
  return keysetPage(exec, query, 'cards', programId, page, filters);
}

export type CardChanges = Partial<Omit<CardRow, 'program_id' | 'token' | 'created_ms'>>;

export async function update(exec: Executor, programId: string, token: string, changes: CardChanges): Promise<void> {
  await exec.updateTable('cards').set(changes).where('program_id', '=', programId).where('token', '=', token).execute();
}

/**
 * PHYSICAL cards not yet sent, and not CLOSED (migration 0020's partial index: its terms, as
 * literals), created before `createdBeforeMs`.
 */
function toShip(exec: Executor, programId: string, createdBeforeMs: number) {
  return exec
    .selectFrom('cards')
    .where('program_id', '=', programId)
    .where('type', '=', sql.lit('PHYSICAL'))
    .where('shipped_ms', 'is', null)
    .where('state', '<>', sql.lit('CLOSED'))
    .where('created_ms', '<', createdBeforeMs);
}

/** Locks the cards `awaitingFulfilment` lists, in that order, for the rest of the transaction. */
export async function lockAwaitingFulfilment(db: Db, tx: Tx, programId: string, createdBeforeMs: number): Promise<void> {
  await db.forUpdate(toShip(tx, programId, createdBeforeMs).select('token').orderBy('created_ms').orderBy('token')).execute();
}

/** Whether the fulfilment batch has a card to send (see `toShip`). */
export async function awaitsFulfilment(exec: Executor, programId: string, createdBeforeMs: number): Promise<boolean> {
  return (await toShip(exec, programId, createdBeforeMs).select('token').limit(1).executeTakeFirst()) !== undefined;
}

/** The UTC days (their 00:00, in ms) on which the cards the batch has to send were made (see `toShip`), earliest first. */
export async function creationDaysToShip(exec: Executor, programId: string, createdBeforeMs: number): Promise<number[]> {
  const dayStartMs = sql<number>`created_ms - created_ms % ${sql.lit(MS_PER_DAY)}`;
  const rows = await toShip(exec, programId, createdBeforeMs).select(dayStartMs.as('day_start_ms')).distinct().orderBy('day_start_ms').execute();
  return rows.map((row) => Number(row.day_start_ms));
}

/** The cards the fulfilment batch has to send (see `toShip`), oldest first. */
export function awaitingFulfilment(exec: Executor, programId: string, createdBeforeMs: number): Promise<Pick<CardRow, 'token' | 'shipping' | 'created_ms' | 'updated_ms'>[]> {
  return toShip(exec, programId, createdBeforeMs).select(['token', 'shipping', 'created_ms', 'updated_ms']).orderBy('created_ms').orderBy('token').execute();
}

/**
 * Sends one card if it is still unsent and not CLOSED (a concurrent batch may have sent it): 1 or
 * 0. A card still at the step's start moves on (and its `updated` with it); one the client opened
 * or paused before the batch keeps its state.
 */
export async function fulfil(exec: Executor, programId: string, token: string, step: { from: string; to: string }, nowMs: number): Promise<number> {
  const fulfilled = sql<boolean>`state = ${step.from}`;
  const result = await exec
    .updateTable('cards')
    .set({
      shipped_ms: nowMs,
      state: sql`case when ${fulfilled} then ${step.to} else state end`,
      updated_ms: sql`case when ${fulfilled} then cast(${nowMs} as bigint) else updated_ms end`,
    })
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .where('shipped_ms', 'is', null)
    .where('state', '<>', 'CLOSED')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
