/**
 * External payments: money that moved between a financial account and a bank outside Cardwright
 * (wire, ACH, check, transfer), booked against the account. Lithic publishes only the names of the
 * steps; the lifecycle below (reference 07) keeps its rule that incoming money waits in pending
 * until released. Every action appends one event `<CATEGORY>_<STEP>` and is legal only from the
 * states named (else 422):
 *
 *   create   → INITIATED, status PENDING, pending_amount = amount. A DEPOSIT's money arrives in
 *              pending; a WITHDRAWAL holds it (available → pending), or is DECLINED with
 *              INSUFFICIENT_FUNDS (200, no entries) when the funds are not available.
 *   settle   PENDING, not settled yet → SETTLED event; the status stays PENDING (money stays held).
 *   release  PENDING (seed 4.8) → a SETTLED event first if missing, then RELEASED; status SETTLED,
 *              settled_amount = amount: a deposit's money becomes available, a withdrawal's leaves.
 *   cancel   PENDING → CANCELED; the pending money goes back where it came from.
 *   reverse  SETTLED → REVERSED; the released effect is undone (a reversed deposit may leave the
 *              account negative: the bank took the money back).
 * `progress_to` on create and settle runs the later steps in the same call. Steps happen in order:
 * an action dated (`effective_date`) before the payment's last event is a 422, like one from the
 * wrong state (the state is checked first), and changes nothing.
 *
 * Ledger (counterparty: the EXTERNAL_BANKS system account), amounts positive:
 *   DEPOSIT     INITIATED pending +a, banks −a   RELEASED pending −a, available +a
 *               CANCELED  pending −a, banks +a   REVERSED available −a, banks +a
 *   WITHDRAWAL  INITIATED available −a, pending +a   RELEASED pending −a, banks +a
 *               CANCELED  pending −a, available +a   REVERSED available +a, banks −a
 *
 * Events: a create (declined or not, with its `progress_to` steps) records `external_payment.created`,
 * each action `external_payment.updated`, with the payment as GET answers it then.
 */
import type { Db, Executor, Tx } from '../db/database.js';
import { notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import { lockOpenBalances } from '../financial_accounts/service.js';
import type { ListResponse } from '../http/schemas.js';
import * as ledger from '../ledger/ledger.js';
import { applyDueMoney } from '../clock-jobs.js';
import { APPROVED, append, eventBase, eventsOf, newTransactionToken, transactionBase, oneWithEvents, snapshotReads } from '../money_events/events.js';
import type { MoneyEventsTable } from '../money_events/tables.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import {
  PAYMENT_TYPES,
  STEPS,
  type CreateExternalPaymentBody,
  type ExternalPayment,
  type ListExternalPaymentsQuery,
  type PaymentActionBody,
  type SettleExternalPaymentBody,
  type Step,
} from './schemas.js';
import * as store from './store.js';

export const JOURNAL_KIND_PREFIX = 'EXTERNAL_PAYMENT_';

type Row = store.ExternalPaymentRow;
type ApiEvent = ExternalPayment['events'][number];
type Bucket = ledger.Bucket | 'banks';

export function toApi(row: Row, events: readonly MoneyEventsTable[]): ExternalPayment {
  return Object.assign(transactionBase(row), {
    family: 'EXTERNAL_PAYMENT' as const,
    category: row.category as ExternalPayment['category'],
    events: events.map((event) => {
      const base = eventBase(event);
      return Object.assign(base, {
        detailed_results: base.detailed_results as ApiEvent['detailed_results'],
        effective_date: event.effective_date ?? '',
        type: event.type as ApiEvent['type'],
      });
    }),
    financial_account_token: row.financial_account_token,
    payment_type: row.payment_type,
    result: row.result,
    status: row.status,
    ...(row.user_defined_id === null ? {} : { user_defined_id: row.user_defined_id }),
  });
}

/** Where each step takes the money from and puts it (see the table above). */
const FLOWS: Record<Row['payment_type'], Partial<Record<Step, { from: Bucket; to: Bucket }>>> = {
  DEPOSIT: {
    INITIATED: { from: 'banks', to: 'pending' },
    RELEASED: { from: 'pending', to: 'available' },
    CANCELED: { from: 'pending', to: 'banks' },
    REVERSED: { from: 'available', to: 'banks' },
  },
  WITHDRAWAL: {
    INITIATED: { from: 'available', to: 'pending' },
    RELEASED: { from: 'pending', to: 'banks' },
    CANCELED: { from: 'pending', to: 'available' },
    REVERSED: { from: 'banks', to: 'available' },
  },
};

/** The steps that move no money for either payment type (SETTLED): no journal records them. */
const STEPS_WITHOUT_MONEY: readonly Step[] = STEPS.filter((step) => PAYMENT_TYPES.every((type) => FLOWS[type][step] === undefined));

/** The step of a payment event (`<CATEGORY>_<STEP>`) that moved no money, so that no journal records it; else undefined. */
export function stepWithoutMoney(eventType: string): Step | undefined {
  return STEPS_WITHOUT_MONEY.find((step) => eventType.endsWith(`_${step}`));
}

/** The ledger movement of a step, or null for a step that moves no money (SETTLED). */
export function stepMovement(row: Row, step: Step, eventToken: string): ledger.Movement | null {
  const flow = FLOWS[row.payment_type][step];
  if (!flow) return null;
  const posting = (bucket: Bucket, amountCents: number): ledger.Posting =>
    bucket === 'banks'
      ? { account: ledger.SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: amountCents }
      : { account: row.financial_account_token, bucket, amount_cents: amountCents };
  return {
    kind: `${JOURNAL_KIND_PREFIX}${step}`,
    transaction_token: row.token,
    event_token: eventToken,
    postings: [posting(flow.from, -row.amount_cents), posting(flow.to, row.amount_cents)],
  };
}

/** Appends the step's event and posts its movement. */
async function record(tx: Tx, scope: ProgramScope, row: Row, step: Step, body: PaymentActionBody): Promise<void> {
  const event = await append(
    tx,
    scope.programId,
    row.token,
    { type: `${row.category}_${step}`, amount_cents: row.amount_cents, result: 'APPROVED', detailed_results: APPROVED, memo: body.memo, effective_date: body.effective_date },
    scope.nowMs,
  );
  const movement = stepMovement(row, step, event.token);
  if (movement) await ledger.post(tx, scope.programId, movement, scope.nowMs);
}

export type Action = 'settle' | 'release' | 'cancel' | 'reverse';

/** The state each action starts from (matched again in its UPDATE), and how a refusal names it (see the lifecycle at the top). */
const PRECONDITIONS: Record<Action, { from: Parameters<typeof store.transition>[3]; done: string; allowed: string }> = {
  settle: { from: { status: 'PENDING', is_settled: 0 }, done: 'settled', allowed: 'a PENDING, not yet settled' },
  release: { from: { status: 'PENDING' }, done: 'released', allowed: 'a PENDING' },
  cancel: { from: { status: 'PENDING' }, done: 'canceled', allowed: 'a PENDING' },
  reverse: { from: { status: 'SETTLED' }, done: 'reversed', allowed: 'a SETTLED' },
};

function refuse(row: Row, action: Action): never {
  const state = row.status === 'PENDING' && row.is_settled === 1 ? 'PENDING (already settled)' : row.status;
  const { done, allowed } = PRECONDITIONS[action];
  throw new UnprocessableError(`external payment '${row.token}' is ${state}; only ${allowed} payment can be ${done}`);
}

/** 422 unless the payment is in the state `action` starts from. */
function assertCan(row: Row, action: Action): void {
  const { from } = PRECONDITIONS[action];
  if (row.status !== from.status || (from.is_settled !== undefined && row.is_settled !== from.is_settled)) refuse(row, action);
}

/** Applies `changes` to a payment in the state `action` starts from; 422 from any other, or when a concurrent action got there first. */
async function transition(tx: Tx, scope: ProgramScope, row: Row, action: Action, changes: Parameters<typeof store.transition>[4]): Promise<void> {
  assertCan(row, action);
  if ((await store.transition(tx, scope.programId, row.token, PRECONDITIONS[action].from, changes, scope.nowMs)) === 0) {
    refuse((await store.find(tx, scope.programId, row.token)) ?? row, action);
  }
}

/**
 * 422 when an action is dated before the payment's last event: its steps happen in order, so none
 * can take effect before the one before it (the payment's own effective_date, that of INITIATED,
 * first). The same day is fine.
 */
function assertDatedInOrder(events: readonly MoneyEventsTable[], effectiveDate: string): void {
  let last: { effective_date: string; type: string } | undefined;
  for (const { effective_date, type } of events) {
    if (effective_date !== null && (last === undefined || effective_date >= last.effective_date)) last = { effective_date, type };
  }
  if (last !== undefined && effectiveDate < last.effective_date) {
    throw new UnprocessableError(
      `effective_date: must be on or after ${last.effective_date}, the effective_date of the payment’s last event (${last.type}); got ${effectiveDate}`,
    );
  }
}

async function settleStep(tx: Tx, scope: ProgramScope, row: Row, body: PaymentActionBody): Promise<Row> {
  await transition(tx, scope, row, 'settle', { is_settled: 1 });
  await record(tx, scope, row, 'SETTLED', body);
  return { ...row, is_settled: 1, updated_ms: scope.nowMs };
}

async function releaseStep(tx: Tx, scope: ProgramScope, row: Row, body: PaymentActionBody): Promise<Row> {
  const changes = { status: 'SETTLED', is_settled: 1, pending_amount_cents: 0, settled_amount_cents: row.amount_cents } as const;
  await transition(tx, scope, row, 'release', changes);
  await lockOpenBalances(tx, scope.programId, [{ token: row.financial_account_token, field: 'financial_account_token' }]);
  if (row.is_settled === 0) await record(tx, scope, row, 'SETTLED', body);
  await record(tx, scope, row, 'RELEASED', body);
  return { ...row, ...changes, updated_ms: scope.nowMs };
}

/** cancel (PENDING → CANCELED) and reverse (SETTLED → REVERSED): undo what the payment did. */
async function undoStep(tx: Tx, scope: ProgramScope, row: Row, step: 'CANCELED' | 'REVERSED', body: PaymentActionBody): Promise<Row> {
  const changes = { status: step, pending_amount_cents: 0, settled_amount_cents: 0 } as const;
  await transition(tx, scope, row, step === 'CANCELED' ? 'cancel' : 'reverse', changes);
  await lockOpenBalances(tx, scope.programId, [{ token: row.financial_account_token, field: 'financial_account_token' }]);
  await record(tx, scope, row, step, body);
  return { ...row, ...changes, updated_ms: scope.nowMs };
}

async function progress(tx: Tx, scope: ProgramScope, row: Row, to: 'SETTLED' | 'RELEASED' | undefined, body: PaymentActionBody): Promise<Row> {
  let current = row;
  if (to !== undefined && current.is_settled === 0) current = await settleStep(tx, scope, current, body);
  if (to === 'RELEASED') current = await releaseStep(tx, scope, current, body);
  return current;
}

export async function create(db: Db, tx: Tx, requestScope: ProgramScope, body: CreateExternalPaymentBody): Promise<ExternalPayment> {
  const { programId } = requestScope;
  const token = await newTransactionToken(tx, programId, body.token);
  await applyDueMoney(db, tx, requestScope, [body.financial_account_token]);
  const balances = await lockOpenBalances(tx, programId, [{ token: body.financial_account_token, field: 'financial_account_token' }]);
  const scope = actingOn(requestScope, ledger.lastMovedMs(balances));
  const { nowMs } = scope;
  const approved = body.payment_type === 'DEPOSIT' || ledger.availableCents(balances, body.financial_account_token) >= body.amount;
  const row: Row = {
    program_id: programId,
    token,
    category: body.category,
    payment_type: body.payment_type,
    financial_account_token: body.financial_account_token,
    status: approved ? 'PENDING' : 'DECLINED',
    result: approved ? 'APPROVED' : 'DECLINED',
    is_settled: 0,
    amount_cents: body.amount,
    pending_amount_cents: approved ? body.amount : 0,
    settled_amount_cents: 0,
    user_defined_id: body.user_defined_id ?? null,
    created_ms: nowMs,
    updated_ms: nowMs,
  };
  await store.insert(tx, row);
  if (approved) {
    await record(tx, scope, row, 'INITIATED', body);
    const progressed = await progress(tx, scope, row, body.progress_to, body);
    return recorded(tx, scope, 'external_payment.created', progressed);
  }
  await append(
    tx,
    programId,
    token,
    {
      type: `${body.category}_INITIATED`,
      amount_cents: body.amount,
      result: 'DECLINED',
      detailed_results: ['INSUFFICIENT_FUNDS'],
      memo: body.memo,
      effective_date: body.effective_date,
    },
    nowMs,
  );
  return recorded(tx, scope, 'external_payment.created', row);
}

/** Runs one action on a payment (see the lifecycle at the top); 422 from a state it cannot start from, or dated before the payment's last event. */
export async function act(db: Db, tx: Tx, requestScope: ProgramScope, token: string, action: Action, body: SettleExternalPaymentBody): Promise<ExternalPayment> {
  // Locked: each action decides on the payment as the last committed action left it (a settle
  // racing a release must not both append SETTLED). Then the due operations (no action checks
  // funds), their balances locked with the payment's.
  const row = await store.lock(db, tx, requestScope.programId, token);
  if (!row) throw notFound('external payment', token);
  assertCan(row, action);
  assertDatedInOrder((await eventsOf(tx, requestScope.programId, [token])).get(token) ?? [], body.effective_date);
  const afterRow = actingOn(requestScope, row.updated_ms);
  await applyDueMoney(db, tx, afterRow, [row.financial_account_token]);
  // Nor before its account's last movement (ledger.lastMovedMs).
  const scope = actingOn(afterRow, ledger.lastMovedMs(await ledger.lockExistingBalances(tx, afterRow.programId, [row.financial_account_token])));
  let updated: Row;
  switch (action) {
    case 'settle':
      updated = await settleStep(tx, scope, row, body);
      if (body.progress_to === 'RELEASED') updated = await releaseStep(tx, scope, updated, body);
      break;
    case 'release':
      updated = await releaseStep(tx, scope, row, body);
      break;
    case 'cancel':
      updated = await undoStep(tx, scope, row, 'CANCELED', body);
      break;
    case 'reverse':
      updated = await undoStep(tx, scope, row, 'REVERSED', body);
      break;
  }
  return recorded(tx, scope, 'external_payment.updated', updated);
}

/** Records the event of a change, with the payment as GET answers it, and answers the payment. */
async function recorded(tx: Tx, scope: ProgramScope, eventType: 'external_payment.created' | 'external_payment.updated', row: Row): Promise<ExternalPayment> {
  const payment = await answer(tx, scope.programId, row);
  await emitEvent(tx, scope.programId, eventType, payment, scope.nowMs);
  return payment;
}

function answer(exec: Executor, programId: string, row: Row): Promise<ExternalPayment> {
  return oneWithEvents(exec, programId, row, toApi);
}

const reads = snapshotReads('external payment', store, toApi);

/** The external payment and its events, read in one snapshot. */
export function get(db: Db, scope: ProgramScope, token: string): Promise<ExternalPayment> {
  return reads.get(db, scope.programId, token);
}

/** A page of external payments with their events, read in one snapshot. */
export function list(db: Db, scope: ProgramScope, query: ListExternalPaymentsQuery): Promise<ListResponse<ExternalPayment>> {
  return reads.list(db, scope.programId, query);
}
