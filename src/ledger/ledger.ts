/**
 * The double-entry ledger: every movement of money in Cardwright goes through `post`.
 *
 * Model. A ledger account is either a financial account (its token) or a program-wide system
 * account (`system:…`, the world outside Cardwright: banks, card networks, the program's own
 * income and expense). Each financial account has two buckets: `available` (spendable) and
 * `pending` (held for card authorizations, or incoming funds not yet released). A movement is a
 * list of postings (account, bucket, signed amount in cents).
 *
 * Invariants (asserted here, relied on everywhere):
 *  1. Every movement balances: its postings sum to zero. So the sum of all entries is always zero.
 *  2. Every amount is a non-zero safe integer (minor units; no floats anywhere near money).
 *  3. Entries are append-only: nothing updates or deletes them (the database refuses it too); a
 *     reversal is a new movement.
 *  4. A financial account's balance row equals the sum of its entries, bucket by bucket; it is
 *     updated in the same transaction as the entries are written (`verifyProgramLedger` re-derives it).
 *  5. total = available + pending; total is derived, never stored.
 *
 * Events. `post` records one `balance.updated` per movement that changed financial accounts'
 * balances, in the movement's transaction. Lithic's payload is `data`, a list of
 * FinancialAccountBalance: here the balance of each account the movement changed (a book transfer
 * lists both sides), as `GET /v1/financial_accounts/{token}/balances` answers it right after the
 * movement. The updated balances and the accounts' types come back from the balance UPDATE
 * itself (one statement for all the accounts, RETURNING): the event costs no extra read.
 *
 * Concurrency. `lockBalances` locks balance rows in sorted token order (PostgreSQL `FOR UPDATE`;
 * SQLite transactions hold the write lock), so two movements over the same accounts serialize
 * and can never deadlock each other by lock order. A caller that decides on funds locks first,
 * reads, decides, then posts within the same transaction.
 */
import { newToken } from '../ids.js';
import { isoTimestamp } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import type { KeysetWalk, RowKey } from '../db/pagination.js';
import { emitEvent } from '../events/emit.js';
import { invariant, UnprocessableError } from '../errors.js';
import * as store from './store.js';
import type { LedgerEntriesTable } from './tables.js';

export type { KindPrefixes } from './store.js';

export type Bucket = 'available' | 'pending';

export interface Posting {
  account: string;
  bucket: Bucket;
  amount_cents: number;
}

export interface Movement {
  /** What moved the money, e.g. `BOOK_TRANSFER`, `CARD_AUTHORIZATION_HOLD`. */
  kind: string;
  /** The resource and event that caused the movement (recorded on the journal and the balances). */
  transaction_token: string;
  event_token: string;
  postings: Posting[];
}

export interface Balance {
  financial_account_token: string;
  available_cents: number;
  pending_cents: number;
  last_transaction_token: string | null;
  last_transaction_event_token: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Program-wide counterparties. They have entries but no balance row (they are never locked). */
export const SystemAccount = {
  /** Banks and payment rails outside Cardwright (ACH, wires, checks). */
  EXTERNAL_BANKS: 'system:EXTERNAL_BANKS',
  /** Card networks: where settled card spend goes and refunds come from. */
  CARD_NETWORK: 'system:CARD_NETWORK',
  /** The program itself: fees it earns, rewards and adjustments it pays. */
  PROGRAM: 'system:PROGRAM',
  /**
   * Credits addressed to a CLOSED financial account by a request that said `on_closed_account:
   * USE_SUSPENSE`: held here for the program until it reverses them.
   */
  SUSPENSE: 'system:SUSPENSE',
} as const;

export function isSystemAccount(account: string): boolean {
  return account.startsWith('system:');
}

export function totalCents(balance: Pick<Balance, 'available_cents' | 'pending_cents'>): number {
  return balance.available_cents + balance.pending_cents;
}

/** Lithic funds and settles in USD only. */
export const CURRENCY = 'USD';

/** A balance's amounts as the API shows them (FinancialAccountBalance without its account's token and type). */
export function balanceAmounts(balance: Balance) {
  return {
    currency: CURRENCY,
    available_amount: balance.available_cents,
    pending_amount: balance.pending_cents,
    total_amount: totalCents(balance),
    created: isoTimestamp(balance.created_ms),
    updated: isoTimestamp(balance.updated_ms),
    // The SDK types them as strings: an account nothing has touched yet answers empty ones.
    last_transaction_token: balance.last_transaction_token ?? '',
    last_transaction_event_token: balance.last_transaction_event_token ?? '',
  };
}

/**
 * When the latest of the locked balances last moved (or was opened): a movement decided on them is
 * stamped no earlier (programs/scope.ts `actingOn`), though its request read the program clock
 * before a move that a movement since was stamped by; else its entries would change the accounts'
 * history before that movement.
 */
export function lastMovedMs(locked: ReadonlyMap<string, Balance>): number {
  let latestMs = 0;
  for (const balance of locked.values()) latestMs = Math.max(latestMs, balance.updated_ms);
  return latestMs;
}

/** The available funds of a financial account whose balance `lockBalances` returned. */
export function availableCents(locked: ReadonlyMap<string, Balance>, financialAccountToken: string): number {
  const balance = locked.get(financialAccountToken);
  invariant(balance !== undefined, `balance of ${financialAccountToken} was not locked before deciding on its funds`);
  return balance.available_cents;
}

/** Throws unless the movement satisfies invariants 1 and 2. */
export function assertBalanced(movement: Movement): void {
  invariant(movement.postings.length >= 2, `movement ${movement.kind} needs at least two postings`);
  let sum = 0;
  for (const posting of movement.postings) {
    invariant(
      Number.isSafeInteger(posting.amount_cents) && posting.amount_cents !== 0,
      `posting amounts must be non-zero safe integers (got ${posting.amount_cents})`,
    );
    sum += posting.amount_cents;
  }
  invariant(sum === 0, `movement ${movement.kind} does not balance (sum ${sum})`);
}

/** Creates the (zero) balance row of a new financial account. */
export function openBalance(tx: Executor, programId: string, financialAccountToken: string, nowMs: number) {
  return store.insertBalance(tx, programId, financialAccountToken, nowMs);
}

/**
 * Locks the balance rows that exist among the given financial accounts, in sorted token order, and
 * returns them (an unknown token simply has no entry).
 */
export async function lockExistingBalances(
  tx: Tx,
  programId: string,
  financialAccountTokens: readonly string[],
): Promise<Map<string, Balance>> {
  const tokens = [...new Set(financialAccountTokens)].sort();
  const rows = await store.selectBalancesForUpdate(tx, programId, tokens);
  return new Map(rows.map((row) => [row.financial_account_token, row]));
}

/**
 * Locks the balance rows of the given financial accounts (sorted order) and returns them.
 * Throws if one of them has no balance row: every financial account gets one when it is created.
 */
export async function lockBalances(
  tx: Tx,
  programId: string,
  financialAccountTokens: readonly string[],
): Promise<Map<string, Balance>> {
  const balances = await lockExistingBalances(tx, programId, financialAccountTokens);
  for (const token of financialAccountTokens) invariant(balances.has(token), `financial account ${token} has no balance row`);
  return balances;
}

/**
 * Writes a balanced movement: its journal (entries that share a journal token and carry the
 * movement's kind and cause) and the balance of every financial account it touches. Must run
 * inside the transaction that records the movement's cause.
 */
export async function post(tx: Tx, programId: string, movement: Movement, nowMs: number): Promise<string> {
  const [journalToken] = await postMany(tx, programId, [{ movement, nowMs }]);
  return journalToken as string;
}

/** A movement and the program time it is written at; null moves nothing (for `postMany`'s `afterEach`). */
export interface DatedMovement {
  movement: Movement | null;
  nowMs: number;
}

/**
 * The most accounts one `postMany` may change. Its UPDATE, one statement (its locks are taken in
 * one sorted set, so it is not split), binds 6 parameters per account (7 on PostgreSQL, whose
 * locking subquery names the tokens again): 7,000 at most, well under SQLite's 32,766 and
 * PostgreSQL's 65,535.
 */
export const POST_MANY_ACCOUNTS_MAX = 1_000;

/**
 * Writes movements one after another, as `post` would each, in two statements whatever their
 * number (e.g. a clock move that expires a batch of holds): all their entries, then one UPDATE
 * that adds each account's net change and stamps it with the last movement that touched it (at
 * most POST_MANY_ACCOUNTS_MAX accounts: a caller batches). Each
 * movement's `balance.updated` carries the balances as that movement left them (replayed from the
 * updated rows), and `afterEach(index)` runs right after it, so a caller's own events interleave
 * with the ledger's as they would with one `post` per movement (it runs for a null movement too, in
 * its turn). Answers the journal tokens, in order (undefined for a null movement).
 */
export async function postMany(
  tx: Tx,
  programId: string,
  movements: readonly DatedMovement[],
  afterEach?: (index: number) => Promise<void>,
): Promise<(string | undefined)[]> {
  const planned = movements.map(({ movement, nowMs }) => plan(programId, movement, nowMs));
  const changes = netChanges(planned);
  invariant(changes.size <= POST_MANY_ACCOUNTS_MAX, `postMany changes ${changes.size} accounts, more than ${POST_MANY_ACCOUNTS_MAX} in one statement`);
  await store.insertEntries(tx, planned.flatMap((step) => step.entries));
  // One UPDATE for every account, in token order (see store.applyBalanceDeltas).
  const updated = await store.applyBalanceDeltas(tx, programId, [...changes.values()]);
  const updatedTokens = new Set(updated.map((balance) => balance.financial_account_token));
  for (const token of changes.keys()) if (!updatedTokens.has(token)) await refuseBalanceChange(tx, programId, token);

  // Replay: each account starts where it was before the first movement, then takes each in turn.
  const running = new Map(updated.map((balance) => [balance.financial_account_token, before(balance, changes.get(balance.financial_account_token) as store.BalanceChange)]));
  for (const [index, step] of planned.entries()) {
    const changed: store.UpdatedBalance[] = [];
    for (const [token, delta] of step.deltas) {
      const balance = running.get(token) as store.UpdatedBalance;
      const next = { ...balance, available_cents: balance.available_cents + delta.available_cents, pending_cents: balance.pending_cents + delta.pending_cents, ...step.stamp };
      if (!isExact(next)) await refuseBalanceChange(tx, programId, token);
      running.set(token, next);
      // Postings that cancel out on an account leave its amounts as they were: nothing to announce.
      if (!isZero(delta)) changed.push(next);
    }
    if (changed.length > 0) await emitBalancesUpdated(tx, programId, changed, step.nowMs);
    if (afterEach) await afterEach(index);
  }
  return planned.map((step) => step.journalToken);
}

/** One movement of `postMany`, checked and laid out: its journal, and its net change per account (token order). */
interface PlannedMovement {
  journalToken: string | undefined;
  entries: LedgerEntriesTable[];
  deltas: [string, BalanceDelta][];
  stamp: { last_transaction_token: string; last_transaction_event_token: string; updated_ms: number };
  nowMs: number;
}

function plan(programId: string, movement: Movement | null, nowMs: number): PlannedMovement {
  if (movement === null) return { journalToken: undefined, entries: [], deltas: [], stamp: { last_transaction_token: '', last_transaction_event_token: '', updated_ms: nowMs }, nowMs };
  assertBalanced(movement);
  const journalToken = newToken();
  const deltas = [...balanceDeltas(movement.postings)].sort(([a], [b]) => (a < b ? -1 : 1));
  const stamp = { last_transaction_token: movement.transaction_token, last_transaction_event_token: movement.event_token, updated_ms: nowMs };
  return { journalToken, entries: journalEntries(programId, journalToken, movement, nowMs), deltas, stamp, nowMs };
}

/** Each account's net change over the movements, stamped with the last movement that touched it; in token order. */
function netChanges(planned: readonly PlannedMovement[]): Map<string, store.BalanceChange> {
  const changes = new Map<string, store.BalanceChange>();
  for (const step of planned) {
    for (const [token, delta] of step.deltas) {
      const change = changes.get(token);
      changes.set(token, {
        financial_account_token: token,
        available_cents: (change?.available_cents ?? 0) + delta.available_cents,
        pending_cents: (change?.pending_cents ?? 0) + delta.pending_cents,
        ...step.stamp,
      });
    }
  }
  return new Map([...changes].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The journal of a movement: its postings as entries that share the journal token. */
function journalEntries(programId: string, journalToken: string, movement: Movement, nowMs: number): LedgerEntriesTable[] {
  return movement.postings.map((posting, seq) => ({
    program_id: programId,
    journal_token: journalToken,
    seq,
    ledger_account: posting.account,
    bucket: posting.bucket,
    amount_cents: posting.amount_cents,
    created_ms: nowMs,
    kind: movement.kind,
    transaction_token: movement.transaction_token,
    event_token: movement.event_token,
  }));
}

/** The balance an updated row had before its change (amounts only: the replay restamps it). */
function before(balance: store.UpdatedBalance, change: store.BalanceChange): store.UpdatedBalance {
  return { ...balance, available_cents: balance.available_cents - change.available_cents, pending_cents: balance.pending_cents - change.pending_cents };
}

/** Whether every amount of the balance is an integer JavaScript holds exactly (as the UPDATE checks for the final one). */
function isExact(balance: Pick<Balance, 'available_cents' | 'pending_cents'>): boolean {
  return Number.isSafeInteger(balance.available_cents) && Number.isSafeInteger(balance.pending_cents) && Number.isSafeInteger(totalCents(balance));
}

/** `balance.updated`'s payload: the balances a movement changed, each as its financial account's balance answers it, with the account's type. */
export function balancesUpdatedPayload(balances: readonly store.UpdatedBalance[]) {
  return { data: balances.map((balance) => ({ token: balance.financial_account_token, type: balance.financial_account_type, ...balanceAmounts(balance) })) };
}

async function emitBalancesUpdated(tx: Tx, programId: string, balances: readonly store.UpdatedBalance[], nowMs: number): Promise<void> {
  await emitEvent(tx, programId, 'balance.updated', balancesUpdatedPayload(balances), nowMs);
}

/**
 * A balance row the movement could not update: it has none (a bug), or the movement would take one
 * of its amounts past Number.MAX_SAFE_INTEGER cents, the largest integer JavaScript holds exactly
 * (~$90 trillion): refused, so that money stays exact.
 */
async function refuseBalanceChange(tx: Tx, programId: string, financialAccountToken: string): Promise<never> {
  const [balance] = await store.selectBalances(tx, programId, [financialAccountToken]);
  invariant(balance !== undefined, `financial account ${financialAccountToken} has no balance row`);
  throw new UnprocessableError(
    `amount: the balance of financial account '${financialAccountToken}' would pass ${Number.MAX_SAFE_INTEGER} cents, the most Cardwright keeps exactly`,
  );
}

/** Net change per financial account and bucket; system accounts have no balance row. */
type BalanceDelta = { available_cents: number; pending_cents: number };

function isZero(delta: BalanceDelta): boolean {
  return delta.available_cents === 0 && delta.pending_cents === 0;
}

function balanceDeltas(postings: readonly Posting[]): Map<string, BalanceDelta> {
  const deltas = new Map<string, BalanceDelta>();
  for (const posting of postings) {
    if (isSystemAccount(posting.account)) continue;
    const delta = deltas.get(posting.account) ?? { available_cents: 0, pending_cents: 0 };
    if (posting.bucket === 'available') delta.available_cents += posting.amount_cents;
    else delta.pending_cents += posting.amount_cents;
    deltas.set(posting.account, delta);
  }
  return deltas;
}

export async function getBalances(
  exec: Executor,
  programId: string,
  financialAccountTokens: readonly string[],
): Promise<Map<string, Balance>> {
  const rows = await store.selectBalances(exec, programId, financialAccountTokens);
  return new Map(rows.map((row) => [row.financial_account_token, row]));
}

/**
 * The balances of the given accounts as they were at `throughMs` (`current`: the accounts' balance
 * rows, for what entries do not carry). Each account's amounts are re-derived from whichever side
 * of `throughMs` spans less of its life, so that reading a recent date costs what was written
 * since, and an early one what was written until then: the entries until then summed, or the
 * balance row less the entries since (`balancesLessEntriesAfter`). At most three statements
 * whatever the number of accounts.
 */
export async function balancesAt(exec: Executor, programId: string, current: readonly Balance[], throughMs: number): Promise<Balance[]> {
  const tokens = current.map((balance) => balance.financial_account_token);
  const fromNow = current.filter((balance) => balance.updated_ms - throughMs < throughMs - balance.created_ms).map((balance) => balance.financial_account_token);
  const fromNowSet = new Set(fromNow);
  const fromStart = tokens.filter((token) => !fromNowSet.has(token));
  const [sumsThrough, rowsLessAfter, lastJournals] = await Promise.all([
    fromStart.length === 0 ? [] : store.sumEntriesThrough(exec, programId, fromStart, throughMs),
    fromNow.length === 0 ? [] : store.balancesLessEntriesAfter(exec, programId, fromNow, throughMs),
    store.lastJournalsThrough(exec, programId, tokens, throughMs),
  ]);
  const sumCents = new Map<string, number>();
  const add = (token: string, bucket: Bucket, cents: number | string) => {
    const key = `${token} ${bucket}`;
    sumCents.set(key, (sumCents.get(key) ?? 0) + Number(cents));
  };
  for (const sum of sumsThrough) add(sum.ledger_account, sum.bucket, sum.sum_cents);
  for (const row of rowsLessAfter) {
    add(row.ledger_account, 'available', row.available_cents);
    add(row.ledger_account, 'pending', row.pending_cents);
  }
  const lastByAccount = new Map(lastJournals.map((journal) => [journal.ledger_account, journal]));
  return current.map((balance) => {
    const token = balance.financial_account_token;
    const sumOf = (bucket: Bucket) => {
      const cents = sumCents.get(`${token} ${bucket}`) ?? 0;
      invariant(Number.isSafeInteger(cents), `balance of ${token} as of ${throughMs} is not an exact integer`);
      return cents;
    };
    const last = lastByAccount.get(token);
    return {
      ...balance,
      available_cents: sumOf('available'),
      pending_cents: sumOf('pending'),
      last_transaction_token: last?.transaction_token ?? null,
      last_transaction_event_token: last?.event_token ?? null,
      updated_ms: last === undefined ? balance.created_ms : Number(last.created_ms),
    };
  });
}

/** One journal as one financial account saw it: its net change per bucket. */
export interface AccountJournal {
  journal_token: string;
  kind: string;
  transaction_token: string;
  event_token: string;
  created_ms: number;
  available_cents: number;
  pending_cents: number;
}

/**
 * The journals that touched a financial account, oldest first, each with the account's net change
 * per bucket; with `throughMs`, only those written at or before that time, and with
 * `transactionTokens`, only those transactions'. Balances, history and
 * financial transactions are all read from here: the entries are the record, nothing else is kept.
 */
export async function accountJournals(
  exec: Executor,
  programId: string,
  financialAccountToken: string,
  only: store.JournalsAsked = {},
): Promise<AccountJournal[]> {
  const rows = await store.accountJournalAmounts(exec, programId, financialAccountToken, only);
  const journals = new Map<string, AccountJournal>();
  for (const row of rows) {
    const journal = journals.get(row.journal_token) ?? {
      journal_token: row.journal_token,
      kind: row.kind,
      transaction_token: row.transaction_token,
      event_token: row.event_token,
      created_ms: row.created_ms,
      available_cents: 0,
      pending_cents: 0,
    };
    if (row.bucket === 'available') journal.available_cents += Number(row.amount_cents);
    else journal.pending_cents += Number(row.amount_cents);
    journals.set(row.journal_token, journal);
  }
  return [...journals.values()];
}

/** When the movement of `eventToken` on the account was written, or undefined if none touched it. */
export function eventWrittenMs(exec: Executor, programId: string, financialAccountToken: string, eventToken: string): Promise<number | undefined> {
  return store.eventJournalCreatedMs(exec, programId, financialAccountToken, eventToken);
}

export interface LedgerDiscrepancy {
  account: string;
  bucket: Bucket;
  stored_cents: number;
  derived_cents: number;
}

/**
 * Re-derives every balance of a program from its entries and compares (invariant 4), and checks
 * that all entries sum to zero (invariant 1). Returns the differences; empty means consistent.
 */
export async function verifyProgramLedger(
  exec: Executor,
  programId: string,
): Promise<{ discrepancies: LedgerDiscrepancy[]; entries_sum_cents: number }> {
  const [sums, balances] = await Promise.all([
    store.sumEntriesByAccount(exec, programId),
    store.selectAllBalances(exec, programId),
  ]);
  const derived = new Map(sums.map((row) => [`${row.ledger_account}|${row.bucket}`, row.sum_cents]));
  const discrepancies: LedgerDiscrepancy[] = [];
  for (const balance of balances) {
    for (const bucket of ['available', 'pending'] as const) {
      const stored = bucket === 'available' ? balance.available_cents : balance.pending_cents;
      const derivedCents = derived.get(`${balance.financial_account_token}|${bucket}`) ?? 0;
      if (stored !== derivedCents) {
        discrepancies.push({ account: balance.financial_account_token, bucket, stored_cents: stored, derived_cents: derivedCents });
      }
    }
  }
  const entriesSum = sums.reduce((sum, row) => sum + row.sum_cents, 0);
  return { discrepancies, entries_sum_cents: entriesSum };
}

/**
 * A chunk of the walk over the transactions that touched a financial account, each at its first
 * journal on the account (`{ token, created_ms }`), in the walk's order; with `kinds`, only those
 * whose first journal's kind they allow. A transaction's later journals (a clearing, a reversal) are
 * passed over where they are met; one whose first journal wrote several entries on the account (a
 * hold) comes once per entry, side by side, so that `walk.limit` counts entries read.
 */
export async function transactionsTouching(exec: Executor, programId: string, financialAccountToken: string, walk: KeysetWalk, kinds?: store.KindPrefixes): Promise<RowKey[]> {
  const rows = await store.firstEntriesOfTransactions(exec, programId, financialAccountToken, walk, kinds);
  return rows.map((row) => ({ token: row.token, created_ms: Number(row.created_ms) }));
}

/** When the transaction `transactionToken` first touched the financial account, if it did. */
export function firstTouchMs(exec: Executor, programId: string, financialAccountToken: string, transactionToken: string): Promise<number | undefined> {
  return store.firstEntryMs(exec, programId, financialAccountToken, transactionToken);
}
