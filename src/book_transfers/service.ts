/**
 * Book transfers move available funds from one financial account to another of the same program,
 * settling at once. Lithic's rule: a transfer with a valid type and subtype fails only for lack of
 * funds, and that failure is a stored transfer (status and result DECLINED, detailed_results
 * FUNDS_INSUFFICIENT) answered 200 with no ledger entries (CONTRACT: business declines are not
 * errors). A reverse moves the funds back (the receiving account may go negative: a reversal is a
 * correction, which Lithic applies whatever the balance); reversing twice or reversing a declined
 * transfer is a 422.
 *
 * Closed accounts (`on_closed_account`). FAIL, the default: a transfer from or to an account that is
 * not OPEN is a 422. USE_SUSPENSE: a transfer *to* a CLOSED account is made, but its credit is held
 * in the program's suspense ledger account (`SystemAccount.SUSPENSE`) instead of landing on the
 * closed account; the transfer records it (`credit_in_suspense`) and otherwise reads as usual (its
 * `to_financial_account_token` is the account it was addressed to, whose balance does not change).
 * Its reversal takes the money back from suspense. Money never comes out of a CLOSED account, and
 * a SUSPENDED or PENDING one is refused whatever the option says.
 *
 * Ledger: `BOOK_TRANSFER` posts from.available −amount, to.available +amount (to: suspense when
 * held there); the reversal (`BOOK_TRANSFER_REVERSAL`) posts the opposite.
 *
 * Events: a create, approved or DECLINED, records `book_transfer_transaction.created` with the
 * transfer as GET answers it. A reversal records no event of the transfer: SDK 0.119 has no
 * `book_transfer_transaction.updated` (Lithic's docs name one, the SDK's types do not), and a
 * second `.created` would announce a transfer that is not new; the money it moves back shows in
 * the `balance.updated` events of both accounts.
 */
import type { Db, Executor, Tx } from '../db/database.js';
import { InvalidRequestError, invariant, notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import { lockMovementBalances, lockOpenBalances } from '../financial_accounts/service.js';
import type { ListResponse } from '../http/schemas.js';
import * as ledger from '../ledger/ledger.js';
import { applyDueMoney } from '../clock-jobs.js';
import { APPROVED, append, creditedAccount, eventBase, newTransactionToken, transactionBase, oneWithEvents, snapshotReads } from '../money_events/events.js';
import type { MoneyEventsTable } from '../money_events/tables.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import type { BookTransfer, CreateBookTransferBody, ListBookTransfersQuery } from './schemas.js';
import * as store from './store.js';

const JOURNAL_KIND = 'BOOK_TRANSFER';
const REVERSAL_JOURNAL_KIND = 'BOOK_TRANSFER_REVERSAL';

export function toApi(row: store.BookTransferRow, events: readonly MoneyEventsTable[]): BookTransfer {
  // Object.assign onto the base, not a spread: see transactionBase.
  return Object.assign(transactionBase(row), {
    category: row.category as BookTransfer['category'],
    events: events.map((event) => {
      const base = eventBase(event);
      return Object.assign(base, {
        detailed_results: base.detailed_results as BookTransfer['events'][number]['detailed_results'],
        subtype: event.subtype ?? row.subtype,
        type: event.type,
      });
    }),
    external_id: row.external_id,
    external_resource: null,
    from_financial_account_token: row.from_financial_account_token,
    to_financial_account_token: row.to_financial_account_token,
    result: row.result,
    status: row.status,
    transaction_series: null,
  });
}

/** from.available −amount, to.available +amount (or the opposite for a reversal); to is suspense when the credit is held there. */
export function transferMovement(row: store.BookTransferRow, eventToken: string, reversal: boolean): ledger.Movement {
  const sign = reversal ? -1 : 1;
  return {
    kind: reversal ? REVERSAL_JOURNAL_KIND : JOURNAL_KIND,
    transaction_token: row.token,
    event_token: eventToken,
    postings: [
      { account: row.from_financial_account_token, bucket: 'available', amount_cents: -sign * row.amount_cents },
      { account: creditedAccount(row, row.to_financial_account_token), bucket: 'available', amount_cents: sign * row.amount_cents },
    ],
  };
}

export async function create(db: Db, tx: Tx, requestScope: ProgramScope, body: CreateBookTransferBody): Promise<BookTransfer> {
  const { programId } = requestScope;
  const from = body.from_financial_account_token;
  const to = body.to_financial_account_token;
  if (from === to) throw new InvalidRequestError('to_financial_account_token: must differ from from_financial_account_token');
  const token = await newTransactionToken(tx, programId, body.token);
  await applyDueMoney(db, tx, requestScope, [from, to]);
  const { balances, suspense } = await lockMovementBalances(tx, programId, [
    { token: from, field: 'from_financial_account_token' },
    { token: to, field: 'to_financial_account_token', suspenseIfClosed: body.on_closed_account === 'USE_SUSPENSE' },
  ]);
  const scope = actingOn(requestScope, ledger.lastMovedMs(balances));
  const { nowMs } = scope;
  const approved = ledger.availableCents(balances, from) >= body.amount;
  const row: store.BookTransferRow = {
    program_id: programId,
    token,
    category: body.category,
    type: body.type,
    subtype: body.subtype,
    from_financial_account_token: from,
    to_financial_account_token: to,
    status: approved ? 'SETTLED' : 'DECLINED',
    result: approved ? 'APPROVED' : 'DECLINED',
    amount_cents: body.amount,
    pending_amount_cents: 0,
    settled_amount_cents: approved ? body.amount : 0,
    external_id: body.external_id ?? null,
    credit_in_suspense: suspense.has(to) ? 1 : 0,
    created_ms: nowMs,
    updated_ms: nowMs,
  };
  await store.insert(tx, row);
  const event = await append(
    tx,
    programId,
    token,
    {
      seq: 0,
      type: body.type,
      subtype: body.subtype,
      amount_cents: body.amount,
      result: row.result,
      detailed_results: approved ? APPROVED : ['FUNDS_INSUFFICIENT'],
      memo: body.memo,
    },
    nowMs,
  );
  if (approved) await ledger.post(tx, programId, transferMovement(row, event.token, false), nowMs);
  const created = toApi(row, [event]);
  await emitEvent(tx, scope.programId, 'book_transfer_transaction.created', created, scope.nowMs);
  return created;
}

export async function reverse(db: Db, tx: Tx, requestScope: ProgramScope, token: string, memo: string | undefined): Promise<BookTransfer> {
  const row = await store.find(tx, requestScope.programId, token);
  if (!row) throw notFound('book transfer', token);
  const { programId } = requestScope;
  const refuse = (status: string) => new UnprocessableError(`book transfer '${token}' is ${status}; only a SETTLED transfer can be reversed`);
  if (row.status !== 'SETTLED') throw refuse(row.status);
  const afterRow = actingOn(requestScope, row.updated_ms);
  await applyDueMoney(db, tx, afterRow, [row.from_financial_account_token, row.to_financial_account_token]);
  // Its balances before the transfer (as its create locked them): never stamped before their last movement.
  const balances = await lockOpenBalances(tx, programId, [
    { token: row.from_financial_account_token, field: 'from_financial_account_token' },
    ...(row.credit_in_suspense === 1 ? [] : [{ token: row.to_financial_account_token, field: 'to_financial_account_token' }]),
  ]);
  const { nowMs } = actingOn(afterRow, ledger.lastMovedMs(balances));
  if ((await store.markReversed(tx, programId, token, nowMs)) === 0) {
    throw refuse((await store.find(tx, programId, token))?.status ?? row.status);
  }
  const event = await append(
    tx,
    programId,
    token,
    { type: row.type, subtype: row.subtype, amount_cents: row.amount_cents, result: 'APPROVED', detailed_results: APPROVED, memo },
    nowMs,
  );
  await ledger.post(tx, programId, transferMovement(row, event.token, true), nowMs);
  const reversed = await store.find(tx, programId, token);
  invariant(reversed?.status === 'REVERSED', `book transfer ${token} must be REVERSED after its reversal`);
  return answer(tx, programId, reversed);
}

function answer(exec: Executor, programId: string, row: store.BookTransferRow): Promise<BookTransfer> {
  return oneWithEvents(exec, programId, row, toApi);
}

const reads = snapshotReads('book transfer', store, toApi);

/** The book transfer and its events, read in one snapshot. */
export function get(db: Db, scope: ProgramScope, token: string): Promise<BookTransfer> {
  return reads.get(db, scope.programId, token);
}

/** A page of book transfers with their events, read in one snapshot. */
export function list(db: Db, scope: ProgramScope, query: ListBookTransfersQuery): Promise<ListResponse<BookTransfer>> {
  return reads.list(db, scope.programId, query);
}
