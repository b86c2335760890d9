/**
 * Management operations: the program credits or debits one financial account directly (fees,
 * rewards, disputes, adjustments, disbursements).
 *
 * Effective date. An operation takes effect on its `effective_date` by the program's clock: on or
 * before today it settles at once; a later date leaves it PENDING, with no ledger effect, until the
 * clock reaches that day. Then `applyDueOperations` settles it: a clock job (after
 * `POST /v1/simulate/clock` and every minute), run also at the start of every money-moving write
 * (so a funds decision never misses a due credit) and before reads of operations and balances
 * (`catchUpDueOperations`: an indexed check, and a write only when something is due). So what a
 * client reads always matches the clock, whichever comes first. A clock move (and a read or sweep
 * that catches up) past several dates applies them in date order (then creation order), each at the
 * start of its day, with the holds that expired before it released first (`runClockJobsAcross`).
 * Its journal, events and `updated` are dated then, however late it is applied; or at its account's
 * last movement, if one came later (`takesEffectMs`). An operation whose account is
 * SUSPENDED when its date comes waits, PENDING, until the account is OPEN again (a suspended
 * account takes no movement, and the SDK has no decline reason for it). While it waits it is not
 * due (`checkDueOperations`): the writes of the program do not run the clock jobs for it, and keep
 * their horizon. The status change that makes the account OPEN again applies it in its own
 * transaction (`lockWaitingOperations`, `applyWaitingOperations`), dated at the change, so no
 * server's horizon can hide it once it can take effect.
 *
 * Funds. A DEBIT needs the available funds when it takes effect, else it is DECLINED with
 * INSUFFICIENT_FUNDS (a business decline: 200, no ledger entries), as for book transfers.
 *
 * Reverse. A SETTLED operation is undone by the opposite movement, dated on or after its own
 * effective date (else 422); a PENDING one is withdrawn before it takes effect (no ledger effect
 * either way). Either becomes REVERSED and gets the `_REVERSAL` partner event (LOSS_WRITE_OFF has
 * none and repeats itself; reversing an operation created as X_REVERSAL appends X). Anything else
 * is a 422.
 *
 * Closed accounts (`on_closed_account`). FAIL, the default: an operation on an account that is not
 * OPEN is a 422. USE_SUSPENSE: a CREDIT to a CLOSED account is made, but held in the program's
 * suspense ledger account (`SystemAccount.SUSPENSE`) instead of landing on the closed account, now
 * or on its effective date; the operation records it (`credit_in_suspense`) and otherwise reads as
 * usual (its `financial_account_token` is the account it was addressed to, whose balance does not
 * change). Its reversal takes the money back from suspense. A DEBIT of a CLOSED account, and any
 * operation on a SUSPENDED or PENDING one, is refused whatever the option says.
 *
 * Ledger: `MANAGEMENT_OPERATION` posts CREDIT: account.available +amount (suspense when held
 * there), PROGRAM −amount; DEBIT the opposite. `MANAGEMENT_OPERATION_REVERSAL` posts the opposite
 * of the operation.
 *
 * Events: `management_operation.created` on create (whatever its outcome), `.updated` when the
 * clock settles or declines it on its date and when it is reversed, with the operation as GET
 * answers it then.
 */
import { applyDueMoney, catchUp, fallsDueAt, isDueWithin, type DueCheck, type DueWork } from '../clock-jobs.js';
import { MS_PER_DAY, isoDate, utcDayStartMs } from '../clock.js';
import { REQUEST_CLOCK_MARGIN_MS } from '../db/horizons.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { invariant, notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import { lockMovementBalances, lockOpenBalances } from '../financial_accounts/service.js';
import type { ListResponse } from '../http/schemas.js';
import * as ledger from '../ledger/ledger.js';
import { APPROVED, append, creditedAccount, eventBase, eventsOf, newTransactionToken, transactionBase, oneWithEvents, snapshotReads } from '../money_events/events.js';
import type { MoneyEventsTable } from '../money_events/tables.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import type {
  CreateManagementOperationBody,
  ListManagementOperationsQuery,
  ManagementOperation,
  ManagementOperationEventType,
  ReverseManagementOperationBody,
} from './schemas.js';
import * as financialAccounts from '../financial_accounts/store.js';
import * as store from './store.js';

const JOURNAL_KIND = 'MANAGEMENT_OPERATION';
const REVERSAL_JOURNAL_KIND = 'MANAGEMENT_OPERATION_REVERSAL';

type Row = store.ManagementOperationRow;
type ApiEvent = ManagementOperation['events'][number];

export function toApi(row: Row, events: readonly MoneyEventsTable[]): ManagementOperation {
  return Object.assign(transactionBase(row), {
    family: 'MANAGEMENT_OPERATION' as const,
    category: row.category as ManagementOperation['category'],
    direction: row.direction,
    events: events.map((event) => {
      const base = eventBase(event);
      return Object.assign(base, {
        detailed_results: base.detailed_results as ApiEvent['detailed_results'],
        effective_date: event.effective_date ?? row.effective_date,
        type: event.type as ApiEvent['type'],
        ...(event.subtype === null ? {} : { subtype: event.subtype }),
      });
    }),
    external_resource: null,
    financial_account_token: row.financial_account_token,
    result: row.result,
    status: row.status,
    transaction_series: null,
    ...(row.user_defined_id === null ? {} : { user_defined_id: row.user_defined_id }),
  });
}

/** The event type that reverses `type`: X ↔ X_REVERSAL; LOSS_WRITE_OFF has no partner and repeats. */
export function reversalEventType(type: ManagementOperationEventType): ManagementOperationEventType {
  if (type === 'LOSS_WRITE_OFF') return type;
  if (type.endsWith('_REVERSAL')) return type.slice(0, -'_REVERSAL'.length) as ManagementOperationEventType;
  return `${type}_REVERSAL` as ManagementOperationEventType;
}

/** CREDIT: account (or suspense) +amount, PROGRAM −amount; DEBIT (or the reversal of a CREDIT) the opposite. */
export function operationMovement(row: Row, eventToken: string, reversal: boolean): ledger.Movement {
  const creditsAccount = (row.direction === 'CREDIT') !== reversal;
  const accountCents = creditsAccount ? row.amount_cents : -row.amount_cents;
  return {
    kind: reversal ? REVERSAL_JOURNAL_KIND : JOURNAL_KIND,
    transaction_token: row.token,
    event_token: eventToken,
    postings: [
      { account: creditedAccount(row, row.financial_account_token), bucket: 'available', amount_cents: accountCents },
      { account: ledger.SystemAccount.PROGRAM, bucket: 'available', amount_cents: -accountCents },
    ],
  };
}

/** Whether the account can take the operation now (its balance locked): credits always, debits within available funds. */
function fundsAllow(balances: ReadonlyMap<string, ledger.Balance>, row: Row): boolean {
  return row.direction === 'CREDIT' || ledger.availableCents(balances, row.financial_account_token) >= row.amount_cents;
}

const accountOf = (row: { financial_account_token: string }, suspenseIfClosed = false) => [
  { token: row.financial_account_token, field: 'financial_account_token', suspenseIfClosed },
];

const settled = (row: Row) => ({ status: 'SETTLED', result: 'APPROVED', pending_amount_cents: 0, settled_amount_cents: row.amount_cents }) as const;
const declined = { status: 'DECLINED', result: 'DECLINED', pending_amount_cents: 0, settled_amount_cents: 0 } as const;

export async function create(db: Db, tx: Tx, requestScope: ProgramScope, body: CreateManagementOperationBody): Promise<ManagementOperation> {
  const { programId } = requestScope;
  const token = await newTransactionToken(tx, programId, body.token);
  await applyDueMoney(db, tx, requestScope, [body.financial_account_token]);
  const suspenseIfClosed = body.on_closed_account === 'USE_SUSPENSE' && body.direction === 'CREDIT';
  const { balances, suspense } = await lockMovementBalances(tx, programId, accountOf(body, suspenseIfClosed));
  const { nowMs } = actingOn(requestScope, ledger.lastMovedMs(balances));

  let row: Row = {
    program_id: programId,
    token,
    category: body.category,
    direction: body.direction,
    event_type: body.event_type,
    subtype: body.subtype ?? null,
    financial_account_token: body.financial_account_token,
    status: 'PENDING',
    result: 'APPROVED',
    amount_cents: body.amount,
    pending_amount_cents: body.amount,
    settled_amount_cents: 0,
    effective_date: body.effective_date,
    user_defined_id: body.user_defined_id ?? null,
    credit_in_suspense: suspense.size > 0 ? 1 : 0,
    created_ms: nowMs,
    updated_ms: nowMs,
  };
  const takesEffectNow = body.effective_date <= isoDate(nowMs);
  if (takesEffectNow) row = { ...row, ...(fundsAllow(balances, row) ? settled(row) : declined) };
  await store.insert(tx, row);
  const event = await append(
    tx,
    programId,
    token,
    {
      seq: 0,
      type: body.event_type,
      subtype: body.subtype ?? null,
      amount_cents: body.amount,
      result: row.result,
      detailed_results: row.result === 'APPROVED' ? APPROVED : ['INSUFFICIENT_FUNDS'],
      memo: body.memo,
      effective_date: body.effective_date,
    },
    nowMs,
  );
  if (row.status === 'SETTLED') await ledger.post(tx, programId, operationMovement(row, event.token, false), nowMs);
  if (row.status === 'PENDING') fallsDueAt(db, tx, dueOperations, programId, utcDayStartMs(row.effective_date));
  const created = toApi(row, [event]);
  await emitEvent(tx, programId, 'management_operation.created', created, nowMs);
  return created;
}

/**
 * The clock job: settles (or declines, for want of funds) every PENDING operation of the program
 * whose effective date has come. Idempotent: each operation is locked and re-checked as PENDING.
 * Locks: every due operation first (in the order they fell due), then all their balances at once (sorted), so
 * two jobs that see different sets of due operations (their requests read the clock apart) never
 * hold a balance the other waits for while waiting for an operation it holds. A write that moves
 * money next names its own financial accounts (`accounts`): their balances are locked in the same
 * sorted set, as a movement that found nothing due locks them. An operation whose account is not
 * OPEN is left alone without a lock (it waits, see the header).
 */
export async function applyDueOperations(db: Db, tx: Tx, scope: ProgramScope, accounts: readonly string[] = []): Promise<void> {
  const { programId } = scope;
  const due = await lockDueOperations(db, tx, scope);
  if (due.length === 0) return;
  // The write's own accounts may not exist (its 404 comes later): only the rows there are.
  await ledger.lockExistingBalances(tx, programId, [...due.map((row) => row.financial_account_token), ...accounts]);
  for (const row of due) {
    // A SUSPENDED account takes no movement: the operation waits, PENDING, until it is OPEN again.
    const account = await financialAccounts.find(tx, programId, row.financial_account_token);
    if (row.credit_in_suspense === 0 && account?.status !== 'OPEN') continue;
    await takeEffect(tx, programId, row, account?.updated_ms);
  }
}

/**
 * Settles (or declines, for want of funds) a due operation, locked PENDING, whose balance the
 * caller holds, dated when it takes effect (`takesEffectMs`).
 */
async function takeEffect(tx: Tx, programId: string, row: Row, accountUpdatedMs: number | undefined): Promise<void> {
  const { token } = row;
  // Already locked: read again, as the operations before this one may have moved its funds.
  const balances = await ledger.lockBalances(tx, programId, [row.financial_account_token]);
  const atMs = takesEffectMs(row, balances, accountUpdatedMs);
  if (fundsAllow(balances, row)) {
    const updated = await store.transition(tx, programId, token, 'PENDING', settled(row), atMs);
    invariant(updated === 1, `management operation ${token} was locked as PENDING`);
    const events = await eventsOf(tx, programId, [token]);
    const first = events.get(token)?.[0];
    invariant(first !== undefined, `management operation ${token} has its creation event`);
    await ledger.post(tx, programId, operationMovement(row, first.token, false), atMs);
  } else {
    const updated = await store.transition(tx, programId, token, 'PENDING', declined, atMs);
    invariant(updated === 1, `management operation ${token} was locked as PENDING`);
    await append(
      tx,
      programId,
      token,
      {
        type: row.event_type,
        subtype: row.subtype,
        amount_cents: row.amount_cents,
        result: 'DECLINED',
        detailed_results: ['INSUFFICIENT_FUNDS'],
        effective_date: row.effective_date,
      },
      atMs,
    );
  }
  await emitUpdated(tx, programId, (await store.find(tx, programId, token)) as Row, atMs);
}

/**
 * For a change of the account's status to OPEN, where every write locks operations (after the due
 * ones, before any balance: clock-jobs.ts `lockDueMoney`): the account's operations whose date has
 * come while it was not OPEN, which wait for it (see the header), locked, in the order they fell
 * due. The due check leaves them out (no write of the program runs the jobs for them:
 * `checkDueOperations`), so the change that makes the account OPEN applies them itself
 * (`applyWaitingOperations`), on every server at once.
 */
export async function lockWaitingOperations(db: Db, tx: Tx, scope: ProgramScope, financialAccountToken: string): Promise<Row[]> {
  const waiting: Row[] = [];
  for (const token of await store.waitingTokensOf(tx, scope.programId, financialAccountToken, isoDate(scope.nowMs))) {
    const row = await store.lockIfPending(db, tx, scope.programId, token);
    if (row) waiting.push(row);
  }
  return waiting;
}

/**
 * Once the account is OPEN again in `tx` (its balance locked by the caller): the operations that
 * waited for it (`lockWaitingOperations`) take effect, as the clock job would have, dated at the
 * change (the account's `updated`). Those the change's own catch-up applied are left alone.
 */
export async function applyWaitingOperations(tx: Tx, programId: string, waiting: readonly Row[]): Promise<void> {
  for (const { token } of waiting) {
    const row = await store.find(tx, programId, token);
    if (row?.status !== 'PENDING') continue;
    const account = await financialAccounts.find(tx, programId, row.financial_account_token);
    invariant(account?.status === 'OPEN', `financial account ${row.financial_account_token} is OPEN again`);
    await takeEffect(tx, programId, row, account.updated_ms);
  }
}

/**
 * The due operations (see `applyDueOperations`), each locked if still PENDING, in the order they
 * fell due; none when nothing is due. Also for a write that locks their balances together with
 * others before the job runs (clock-jobs.ts `applyDueMoney`).
 */
export async function lockDueOperations(db: Db, tx: Tx, scope: ProgramScope): Promise<Row[]> {
  const { programId, nowMs } = scope;
  if (!(await isDueWithin(db, tx, dueOperations, scope))) return [];
  const due: Row[] = [];
  for (const token of await store.dueTokens(tx, programId, isoDate(nowMs))) {
    const row = await store.lockIfPending(db, tx, programId, token);
    if (row) due.push(row);
  }
  return due;
}

/**
 * When a due operation takes effect, however late the job that applies it runs: at the start of its
 * effective date, or at the last movement of its account if that came later (a movement by a
 * request that read the clock before a move, stamped after it: programs/scope.ts `actingOn`). Its
 * funds were decided on the balance after that movement, so its journal, events and `updated` say
 * so, never before it. (Every other movement applies the due operations first: `applyDueMoney`.)
 * Nor before the account's last change (`accountUpdatedMs`): an operation held while its account
 * was SUSPENDED takes effect when the account is OPEN again, not inside the suspension. Every change
 * of a financial account applies the due operations first (financial_accounts/service.ts), so a
 * change made after an operation's date while the account was OPEN comes after the operation.
 */
function takesEffectMs(row: Row, balances: ReadonlyMap<string, ledger.Balance>, accountUpdatedMs = 0): number {
  const lastMovementMs = balances.get(row.financial_account_token)?.updated_ms ?? row.updated_ms;
  return Math.max(utcDayStartMs(row.effective_date), lastMovementMs, row.updated_ms, accountUpdatedMs);
}

/** `management_operation.updated` with the operation as GET answers it now; answers it too. */
async function emitUpdated(tx: Tx, programId: string, row: Row, nowMs: number): Promise<ManagementOperation> {
  const operation = await answer(tx, programId, row);
  await emitEvent(tx, programId, 'management_operation.updated', operation, nowMs);
  return operation;
}

/**
 * Due when the effective date of a PENDING operation that can take effect has come (one that waits
 * for its SUSPENDED account is not due: its account's reopening applies it). Else nothing is due
 * before the earliest such date, nor before tomorrow: an operation created later is PENDING only if its date is
 * after its creator's today, which is at least the day of now − REQUEST_CLOCK_MARGIN_MS.
 */
async function checkDueOperations(exec: Executor, scope: ProgramScope): Promise<DueCheck> {
  const first = await store.firstPendingEffectiveDate(exec, scope.programId);
  if (first !== undefined && first <= isoDate(scope.nowMs)) return { due: true };
  const nextCreatableMs = utcDayStartMs(isoDate(scope.nowMs - REQUEST_CLOCK_MARGIN_MS)) + MS_PER_DAY;
  return { due: false, clearUntilMs: first === undefined ? nextCreatableMs : Math.min(utcDayStartMs(first), nextCreatableMs) };
}

export const dueOperations: DueWork = { horizon: 'management_operations', check: checkDueOperations };

/**
 * The day starts, through `throughMs`, on which PENDING operations fall due, earliest first: a clock
 * move runs the jobs at each (clock-jobs.ts `runClockJobsAcross`). Also those before the move: an
 * operation whose midnight the real-speed clock passed since the last sweep is decided as of its
 * date, with the holds that had expired by then, not after the jump.
 */
export async function dueDayStartsThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  return (await store.pendingDatesThrough(exec, programId, isoDate(throughMs))).map(utcDayStartMs);
}

/** Before a read that must reflect the clock (operations, balances, financial transactions). */
export function catchUpDueOperations(db: Db, scope: ProgramScope): Promise<void> {
  return catchUp(db, scope, dueOperations);
}

export async function reverse(db: Db, tx: Tx, requestScope: ProgramScope, token: string, body: ReverseManagementOperationBody): Promise<ManagementOperation> {
  const { programId } = requestScope;
  const found = await store.find(tx, programId, token);
  if (!found) throw notFound('management operation', token);
  // Locked before it is read again and decided on, so a write that applies it on its date (by a
  // clock read after this request's) settles it before or after this reverse, never between. Locked
  // where every write locks operations: after the due ones, before any balance (`applyDueMoney`).
  await applyDueMoney(db, tx, requestScope, [found.financial_account_token], { lockOwnOperations: () => store.lock(db, tx, programId, token) });
  // Read again: the due job may have just settled or declined it (in this transaction, or in the one that held it before).
  const row = await store.find(tx, programId, token);
  invariant(row !== undefined, `management operation ${token} exists once found`);
  const afterRow = actingOn(requestScope, row.updated_ms);
  if (row.status !== 'SETTLED' && row.status !== 'PENDING') {
    throw new UnprocessableError(`management operation '${token}' is ${row.status}; only a SETTLED or PENDING operation can be reversed`);
  }
  // A SETTLED operation took effect on its date: undoing it cannot take effect before. (A PENDING
  // one is withdrawn before its date comes, so any date will do.)
  if (row.status === 'SETTLED' && body.effective_date < row.effective_date) {
    throw new UnprocessableError(`effective_date: must be on or after ${row.effective_date}, the effective_date of the operation; got ${body.effective_date}`);
  }
  // Money moves back: its balance locked first (as the create locked it), never stamped before its last movement.
  const movesBack = row.status === 'SETTLED' && row.credit_in_suspense === 0;
  const { nowMs } = movesBack ? actingOn(afterRow, ledger.lastMovedMs(await lockOpenBalances(tx, programId, accountOf(row)))) : afterRow;
  const reversed = { status: 'REVERSED', result: 'APPROVED', pending_amount_cents: 0, settled_amount_cents: 0 } as const;
  if ((await store.transition(tx, programId, token, row.status, reversed, nowMs)) === 0) {
    throw new UnprocessableError(`management operation '${token}' was changed by a concurrent request; only a SETTLED or PENDING operation can be reversed`);
  }
  const event = await append(
    tx,
    programId,
    token,
    {
      type: reversalEventType(row.event_type as ManagementOperationEventType),
      subtype: row.subtype,
      amount_cents: row.amount_cents,
      result: 'APPROVED',
      detailed_results: APPROVED,
      memo: body.memo,
      effective_date: body.effective_date,
    },
    nowMs,
  );
  if (row.status === 'SETTLED') await ledger.post(tx, programId, operationMovement(row, event.token, true), nowMs);
  return emitUpdated(tx, programId, { ...row, ...reversed, updated_ms: nowMs }, nowMs);
}

function answer(exec: Executor, programId: string, row: Row): Promise<ManagementOperation> {
  return oneWithEvents(exec, programId, row, toApi);
}

const reads = snapshotReads('management operation', store, toApi);

/** The management operation and its events, read in one snapshot. */
export async function get(db: Db, scope: ProgramScope, token: string): Promise<ManagementOperation> {
  await catchUpDueOperations(db, scope);
  return reads.get(db, scope.programId, token);
}

/** A page of management operations with their events, read in one snapshot. */
export async function list(db: Db, scope: ProgramScope, query: ListManagementOperationsQuery): Promise<ListResponse<ManagementOperation>> {
  await catchUpDueOperations(db, scope);
  return reads.list(db, scope.programId, query);
}
