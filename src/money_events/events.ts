/**
 * What the three ledger transactions (external payments, book transfers, management operations)
 * share: their events (append-only, numbered in order), the client-chosen `token` rule, and the
 * fields every one of them answers with.
 */
import { newToken } from '../ids.js';
import { isoTimestamp } from '../clock.js';
import { groupedByTransaction } from '../db/chunks.js';
import type { Db, Executor } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { invariant, InvalidRequestError, notFound } from '../errors.js';
import { CURRENCY, SystemAccount } from '../ledger/ledger.js';
import * as externalBankAccounts from '../external_bank_accounts/store.js';
import * as financialAccounts from '../financial_accounts/store.js';
import * as cardTransactions from '../transactions/store.js';
import * as store from './store.js';
import type { MoneyEventsTable } from './tables.js';

export { CURRENCY };

type Result = 'APPROVED' | 'DECLINED';

export interface NewEvent {
  type: string;
  amount_cents: number;
  result: Result;
  detailed_results: readonly string[];
  memo?: string | undefined;
  effective_date?: string | null;
  subtype?: string | null;
  /** The event's position when the caller knows it (0: the first event of a new transaction); else after the last. */
  seq?: number;
}

/** An approved event's `detailed_results`. */
export const APPROVED: readonly string[] = ['APPROVED'];

/** Appends an event to a transaction and returns it (its token is the ledger movement's event token). */
export async function append(exec: Executor, programId: string, transactionToken: string, event: NewEvent, nowMs: number): Promise<MoneyEventsTable> {
  const row: MoneyEventsTable = {
    program_id: programId,
    transaction_token: transactionToken,
    seq: event.seq ?? (await store.nextSeq(exec, programId, transactionToken)),
    token: newToken(),
    type: event.type,
    amount_cents: event.amount_cents,
    result: event.result,
    detailed_results: JSON.stringify(event.detailed_results),
    memo: event.memo ?? '',
    effective_date: event.effective_date ?? null,
    subtype: event.subtype ?? null,
    created_ms: nowMs,
  };
  await store.insert(exec, row);
  return row;
}

/**
 * The token of a new transaction: the client's (Lithic's create calls accept one, and it becomes the
 * resource's token) or a fresh one. A client token already taken by another transaction of this
 * program is a 400, and so is an external bank account's: its micro-deposits are a transaction of
 * that token (sent later when its funding account lacked the funds), which would join the new one.
 * A financial account's token is a 400 too: the account's `last_transaction_token`, and every list
 * of its history, would name the account itself.
 * A repeat of the same create is answered earlier, by the idempotency layer.
 */
export async function newTransactionToken(exec: Executor, programId: string, clientToken: string | undefined): Promise<string> {
  if (clientToken === undefined) return newToken();
  // A card transaction's token too: the ledger groups an account's journals into transactions by token.
  if ((await store.exists(exec, programId, clientToken)) || (await cardTransactions.exists(exec, programId, clientToken))) {
    throw new InvalidRequestError(`token: '${clientToken}' is already the token of another transaction`);
  }
  if ((await externalBankAccounts.find(exec, programId, clientToken)) !== undefined) {
    throw new InvalidRequestError(`token: '${clientToken}' is already the token of an external bank account, whose micro-deposits are a transaction of that token`);
  }
  if ((await financialAccounts.find(exec, programId, clientToken)) !== undefined) {
    throw new InvalidRequestError(`token: '${clientToken}' is already the token of a financial account`);
  }
  return clientToken;
}

/**
 * The ledger account a transaction's credit to `account` lands on: the account itself, or the
 * program's suspense account when the transaction holds it there (`on_closed_account: USE_SUSPENSE`
 * on a CLOSED account).
 */
export function creditedAccount(row: { credit_in_suspense: number }, account: string): string {
  return row.credit_in_suspense === 1 ? SystemAccount.SUSPENSE : account;
}

/** Events of several transactions, grouped by transaction, each in order. */
export async function eventsOf(exec: Executor, programId: string, transactionTokens: readonly string[]): Promise<Map<string, MoneyEventsTable[]>> {
  return groupedByTransaction(await store.listFor(exec, programId, transactionTokens));
}

/** The fields of an event every transaction type answers with. */
export function eventBase(row: MoneyEventsTable) {
  return {
    token: row.token,
    amount: row.amount_cents,
    created: isoTimestamp(row.created_ms),
    detailed_results: JSON.parse(row.detailed_results) as string[],
    memo: row.memo,
    result: row.result,
  };
}

export interface TransactionRow {
  token: string;
  pending_amount_cents: number;
  settled_amount_cents: number;
  created_ms: number;
  updated_ms: number;
}

/**
 * The fields every ledger transaction answers with. A caller adds its own with
 * `Object.assign(transactionBase(row), { … })` (eventBase's likewise), which gives the object
 * `{ ...transactionBase(row), … }` would, keys in the same order (event payloads are serialised
 * as built), but not its cost: on Node 20 an object spread into a literal that then adds new keys
 * gets a map of its own each time once optimised (~3 µs per added key, and garbage for the GC).
 */
export function transactionBase(row: TransactionRow) {
  return {
    token: row.token,
    created: isoTimestamp(row.created_ms),
    updated: isoTimestamp(row.updated_ms),
    currency: CURRENCY,
    pending_amount: row.pending_amount_cents,
    settled_amount: row.settled_amount_cents,
  };
}

/** Answers for transaction rows, each with its events (one query for all of them). */
async function withEvents<R extends { token: string }, T>(
  exec: Executor,
  programId: string,
  rows: readonly R[],
  toApi: (row: R, events: readonly MoneyEventsTable[]) => T,
): Promise<T[]> {
  const events = await eventsOf(exec, programId, rows.map((row) => row.token));
  return rows.map((row) => toApi(row, events.get(row.token) ?? []));
}

/** The answer for one transaction row, with its events. */
export async function oneWithEvents<R extends { token: string }, T>(
  exec: Executor,
  programId: string,
  row: R,
  toApi: (row: R, events: readonly MoneyEventsTable[]) => T,
): Promise<T> {
  const [answer] = await withEvents(exec, programId, [row], toApi);
  invariant(answer !== undefined, 'one row gives one answer');
  return answer;
}

/** How a money resource's rows are read: one by token, a page by filters. */
export interface MoneyRowReads<R, F> {
  find(exec: Executor, programId: string, token: string): Promise<R | undefined>;
  list(exec: Executor, programId: string, filters: F, page: PageParams): Promise<{ rows: R[]; has_more: boolean }>;
}

/**
 * GET one and list of a money resource (a book transfer, an external payment, a management
 * operation) with its events, each read in one snapshot: a change committing meanwhile is in the
 * rows and their events, or in neither. A missing token is the 404 naming `resource`.
 */
export function snapshotReads<R extends { token: string }, T, F>(resource: string, rows: MoneyRowReads<R, F>, toApi: (row: R, events: readonly MoneyEventsTable[]) => T) {
  return {
    get(db: Db, programId: string, token: string): Promise<T> {
      return db.snapshot(async (exec) => {
        const row = await rows.find(exec, programId, token);
        if (!row) throw notFound(resource, token);
        return oneWithEvents(exec, programId, row, toApi);
      });
    },
    list(db: Db, programId: string, query: PageParams & F): Promise<{ data: T[]; has_more: boolean }> {
      const { page_size, starting_after, ending_before, ...filters } = query;
      const page: PageParams = { page_size, starting_after, ending_before };
      return db.snapshot(async (exec) => {
        const { rows: found, has_more } = await rows.list(exec, programId, filters as F, page);
        return { data: await withEvents(exec, programId, found, toApi), has_more };
      });
    },
  };
}
