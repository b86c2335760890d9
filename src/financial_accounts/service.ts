/**
 * Financial accounts: where money lives. The program's own ISSUING, OPERATING and RESERVE accounts
 * are created with the program (`account_token` null); enrolling an account holder gives its account
 * an ISSUING one; clients create OPERATING accounts. Each gets its ledger balance row at creation.
 */
import { newToken } from '../ids.js';
import crypto from 'node:crypto';
import { applyDueMoney } from '../clock-jobs.js';
import { isoTimestamp } from '../clock.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { InvalidRequestError, invariant, notFound, UnprocessableError } from '../errors.js';
import * as accounts from '../accounts/store.js';
import type { ListResponse } from '../http/schemas.js';
import { lastMovedMs, lockBalances, lockExistingBalances, openBalance, type Balance } from '../ledger/ledger.js';
import { emitEvent } from '../events/emit.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import * as operations from '../management_operations/store.js';
import * as managementOperations from '../management_operations/service.js';
import * as cards from '../cards/store.js';
import * as cardTransactions from '../transactions/store.js';
import type {
  CreateFinancialAccountBody,
  FinancialAccount,
  FinancialAccountType,
  UpdateFinancialAccountBody,
  UpdateFinancialAccountStatusBody,
} from './schemas.js';
import * as store from './store.js';

/** A valid ABA routing number (checksum 0 mod 10) used for sandbox account numbers. */
export const SANDBOX_ROUTING_NUMBER = '011000015';

export function toApi(row: store.FinancialAccountRow): FinancialAccount {
  return {
    token: row.token,
    account_token: row.account_token,
    created: isoTimestamp(row.created_ms),
    updated: isoTimestamp(row.updated_ms),
    credit_configuration: row.credit_configuration === null ? null : JSON.parse(row.credit_configuration),
    is_for_benefit_of: row.is_for_benefit_of === 1,
    nickname: row.nickname,
    status: row.status as FinancialAccount['status'],
    substatus: row.substatus as FinancialAccount['substatus'],
    type: row.type as FinancialAccountType,
    account_number: row.account_number,
    routing_number: row.routing_number,
  };
}

function sandboxAccountNumber(): string {
  return String(crypto.randomInt(1e11, 1e12));
}

export interface NewFinancialAccount {
  type: FinancialAccountType;
  account_token: string | null;
  nickname: string | null;
  is_for_benefit_of: boolean;
  /** OPEN unless said (the ISSUING account of an account opened CLOSED: its holder was REJECTED). */
  status?: 'OPEN' | 'CLOSED';
}

/**
 * Inserts a financial account and its zero balance, and records its `financial_account.created`,
 * in the caller's transaction: every financial account is opened here (the program's own, a
 * holder's ISSUING account, one created over the API), so every one records its creation.
 */
export async function insertFinancialAccount(
  tx: Tx,
  programId: string,
  account: NewFinancialAccount,
  nowMs: number,
): Promise<store.FinancialAccountRow> {
  const row: store.FinancialAccountRow = {
    program_id: programId,
    token: newToken(),
    account_token: account.account_token,
    type: account.type,
    nickname: account.nickname,
    status: account.status ?? 'OPEN',
    substatus: null,
    is_for_benefit_of: account.is_for_benefit_of ? 1 : 0,
    account_number: sandboxAccountNumber(),
    routing_number: SANDBOX_ROUTING_NUMBER,
    credit_configuration: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  };
  await store.insert(tx, row);
  await openBalance(tx, programId, row.token, nowMs);
  await emitEvent(tx, programId, 'financial_account.created', toApi(row), nowMs);
  return row;
}

/**
 * The account (`account_token`) a new financial or external bank account is for: 404 when the
 * program has none; 422 when it is CLOSED (by the client, or its holder's enrollment was REJECTED),
 * which is final: nothing new that can hold or move money is opened for it. The account row is
 * locked for the rest of the transaction, as closing it locks it: a creation and a closing of one
 * account cannot both pass.
 */
export function accountToOpenFor(db: Db, tx: Tx, programId: string, token: string, what: string): Promise<accounts.AccountRow> {
  return accountNotClosed(db, tx, programId, token, `no ${what} can be opened for it`);
}

/**
 * The account `token`, locked for the rest of the transaction (as closing it locks it); 404 when
 * the program has none, 422 when it is CLOSED, the message ending with `refused` (what it cannot do).
 */
export async function accountNotClosed(db: Db, tx: Tx, programId: string, token: string, refused: string): Promise<accounts.AccountRow> {
  const account = await accounts.lock(db, tx, programId, token);
  if (!account) throw notFound('account', token, 'account_token');
  if (account.state === 'CLOSED') throw new UnprocessableError(`account_token: account '${token}' is CLOSED, which is final; ${refused}`);
  return account;
}

export async function create(db: Db, tx: Tx, scope: ProgramScope, body: CreateFinancialAccountBody): Promise<FinancialAccount> {
  if (body.account_token !== undefined) await accountToOpenFor(db, tx, scope.programId, body.account_token, 'financial account');
  const row = await insertFinancialAccount(
    tx,
    scope.programId,
    {
      type: body.type,
      account_token: body.account_token ?? null,
      nickname: body.nickname,
      is_for_benefit_of: body.is_for_benefit_of ?? false,
    },
    scope.nowMs,
  );
  return toApi(row);
}

/** `financial_account.updated` with the account as GET answers it now. */
async function emitUpdated(tx: Tx, scope: ProgramScope, token: string): Promise<FinancialAccount> {
  const updated = await get(tx, scope, token);
  await emitEvent(tx, scope.programId, 'financial_account.updated', updated, scope.nowMs);
  return updated;
}

/**
 * Before any change of an account: what has fallen due on it is applied first, while the account is
 * as it was then (a management operation whose date passed while the account was OPEN takes effect
 * on its date, before a suspension; one held by a suspension takes effect once the account is OPEN
 * again, dated after the change: management_operations/service.ts `takesEffectMs`).
 */
async function applyDueBeforeChange(db: Db, tx: Tx, scope: ProgramScope, token: string): Promise<void> {
  await applyDueMoney(db, tx, scope, [token]);
}

/**
 * The financial account a change is on, its row locked before anything else (the documented order:
 * resource rows, then balances), so a concurrent change of it waits and then decides on what that
 * one left; 404 when the program has none.
 */
async function lockedAccount(db: Db, tx: Tx, programId: string, token: string): Promise<store.FinancialAccountRow> {
  const row = await store.lock(db, tx, programId, token);
  if (!row) throw notFound('financial account', token);
  return row;
}

export async function update(db: Db, tx: Tx, requestScope: ProgramScope, token: string, body: UpdateFinancialAccountBody): Promise<FinancialAccount> {
  const row = await lockedAccount(db, tx, requestScope.programId, token);
  await applyDueBeforeChange(db, tx, requestScope, token);
  // Nothing to change: nothing written, `updated` stays (no event announces it either).
  if (body.nickname === undefined || body.nickname === row.nickname) return toApi(row);
  // Never stamped before the account's last change, which a request that saw a moved clock may have made.
  const scope = actingOn(requestScope, row.updated_ms);
  await store.update(tx, scope.programId, token, { nickname: body.nickname }, scope.nowMs);
  return emitUpdated(tx, scope, token);
}

/**
 * Status changes. A substatus is the reason for a SUSPENDED or CLOSED status (Lithic's valid states:
 * OPEN, and SUSPENDED or CLOSED with any substatus or none), so OPEN and PENDING take none: a 400,
 * whatever the account's state. CLOSED is final. PENDING belongs to the platform (an account being opened): a
 * client cannot put an account back into it. Closing needs a zero balance (available and pending),
 * no management operation waiting for its effective date and, for an ISSUING account, no card that
 * is not CLOSED drawing on it (the network settles whatever the state), so money is never stranded on an
 * account that can no longer move it. Every change first locks the account's row, so a concurrent
 * change waits and then decides on the status that one left (SUSPENDED then OPEN passes; after a
 * closing, the ordinary "a closed account cannot change status"); then its balance, before it decides:
 * money movements read the status under that lock (`lockMovementBalances`), so a movement that read
 * the account OPEN commits before a suspension or closing does, never after it; and the change is
 * stamped no earlier than the account's last movement (`ledger.lastMovedMs`), so the account's
 * history never shows money moving on it after it left OPEN. Making it OPEN again applies the
 * management operations that waited for it, dated at the change and announced after it (their rows
 * locked after the due ones, before any balance: management_operations/service.ts `lockWaitingOperations`).
 */
export async function updateStatus(
  db: Db,
  tx: Tx,
  requestScope: ProgramScope,
  token: string,
  body: UpdateFinancialAccountStatusBody,
): Promise<FinancialAccount> {
  const { programId } = requestScope;
  if (body.substatus !== null && (body.status === 'OPEN' || body.status === 'PENDING')) {
    throw new InvalidRequestError(`substatus: must be null when status is ${body.status}`);
  }
  const row = await lockedAccount(db, tx, programId, token);
  // The operations that waited for it, locked where every write locks operations: after the due ones, before any balance.
  let waiting: Awaited<ReturnType<typeof managementOperations.lockWaitingOperations>> = [];
  const lockWaiting = async () => {
    if (body.status === 'OPEN') waiting = await managementOperations.lockWaitingOperations(db, tx, requestScope, token);
  };
  await applyDueMoney(db, tx, requestScope, [token], { lockOwnOperations: lockWaiting });
  if (row.status === 'CLOSED') throw new UnprocessableError(`financial account '${token}' is CLOSED; a closed account cannot change status`);
  if (body.status === 'PENDING' && row.status !== 'PENDING') {
    throw new UnprocessableError(`status: an ${row.status} account cannot become PENDING; only the platform sets PENDING while an account opens`);
  }
  // Nothing to change: nothing written, `updated` stays (no event announces it either).
  if (row.status === body.status && row.substatus === body.substatus) return toApi(row);
  const balances = await lockBalances(tx, programId, [token]);
  if (body.status === 'CLOSED') {
    const refusal = await closingRefusal(tx, programId, token, balances);
    if (refusal !== null) throw new UnprocessableError(refusal);
  }
  const scope = actingOn(actingOn(requestScope, row.updated_ms), lastMovedMs(balances));
  await store.update(tx, programId, token, { status: body.status, substatus: body.substatus }, scope.nowMs);
  const updated = await emitUpdated(tx, scope, token);
  await managementOperations.applyWaitingOperations(tx, programId, waiting);
  return updated;
}

/**
 * Why the account cannot close now, or null: it holds money, a management operation waits for its
 * effective date, or a card that is not CLOSED, or a PENDING card transaction (even one that holds
 * 0), draws on it (the card network settles and refunds whatever the account's state: a closed
 * account would strand that money). `balances`: the account's, locked by the caller.
 */
async function closingRefusal(tx: Tx, programId: string, token: string, balances: ReadonlyMap<string, Balance>): Promise<string | null> {
  const balance = balances.get(token);
  if (balance && (balance.available_cents !== 0 || balance.pending_cents !== 0)) {
    return `status: financial account '${token}' still holds money (available ${balance.available_cents}, pending ${balance.pending_cents}); move it out before closing`;
  }
  if (await operations.hasPendingFor(tx, programId, token)) {
    return `status: financial account '${token}' has management operations waiting for their effective date`;
  }
  if (await cards.hasOpenCardsFundedBy(tx, programId, token)) {
    return `status: cards that are not CLOSED still draw on financial account '${token}'; close them before the account`;
  }
  if (await cardTransactions.hasPendingOn(tx, programId, token)) {
    return `status: card transactions on financial account '${token}' are still PENDING (the network may still clear them); close it once they are settled, voided or expired`;
  }
  return null;
}

/**
 * When an account closes because its holder was REJECTED: its OPEN financial account closes too,
 * unless something is on it (see `closingRefusal`), which then stays OPEN so that it can be moved
 * out. Nothing new can be opened for a CLOSED account (`accountToOpenFor`); this keeps what was
 * opened with it from taking money in. Locks the financial account's row before its balance, as a
 * status change does (the caller holds the account's row, and may hold the balance already).
 */
export async function closeWithAccount(db: Db, tx: Tx, requestScope: ProgramScope, token: string): Promise<void> {
  const row = await store.lock(db, tx, requestScope.programId, token);
  if (!row || row.status === 'CLOSED') return;
  const balances = await lockBalances(tx, requestScope.programId, [token]);
  if ((await closingRefusal(tx, requestScope.programId, token, balances)) !== null) return;
  const scope = actingOn(actingOn(requestScope, row.updated_ms), lastMovedMs(balances));
  await store.update(tx, scope.programId, token, { status: 'CLOSED', substatus: null }, scope.nowMs);
  await emitUpdated(tx, scope, token);
}

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<FinancialAccount> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('financial account', token);
  return toApi(row);
}

/** Newest first: one page, or (no page asked for) every account, as Lithic's unpaged list. */
export async function list(
  exec: Executor,
  scope: ProgramScope,
  filters: store.ListFilters,
  page: PageParams,
): Promise<ListResponse<FinancialAccount>> {
  if (page.page_size === undefined && page.starting_after === undefined && page.ending_before === undefined) {
    const rows = await store.listAll(exec, scope.programId, filters);
    return { data: rows.reverse().map(toApi), has_more: false };
  }
  const { rows, has_more } = await store.list(exec, scope.programId, filters, page);
  return { data: rows.map(toApi), has_more };
}

export interface NamedAccount {
  token: string;
  /** The request field that names it, for error messages. */
  field: string;
  /** A credit under `on_closed_account: USE_SUSPENSE`: a CLOSED account is accepted, its credit to be held in suspense. */
  suspenseIfClosed?: boolean;
}

/**
 * Checks that every account exists (404), then each one's status (422): an unknown account is a 404
 * whatever the state of the others. Returns the CLOSED ones accepted for suspense.
 */
function requireOpenRows(rows: ReadonlyArray<Pick<store.FinancialAccountRow, 'token' | 'status'>>, accounts: readonly NamedAccount[]): Set<string> {
  const statuses = new Map(rows.map((row) => [row.token, row.status]));
  for (const { token, field } of accounts) if (!statuses.has(token)) throw notFound('financial account', token, field);
  const suspense = new Set<string>();
  for (const { token, field, suspenseIfClosed } of accounts) {
    const status = statuses.get(token);
    if (status === 'CLOSED' && suspenseIfClosed) suspense.add(token);
    else if (status !== 'OPEN') {
      throw new UnprocessableError(`${field}: financial account '${token}' is ${status}; money moves only on OPEN accounts`);
    }
  }
  return suspense;
}

/**
 * Locks the balances of the financial accounts a money movement names and returns them. Each must
 * exist for this program (404 naming the field) and be OPEN (422): a CLOSED, SUSPENDED or PENDING
 * account neither sends nor receives. The status is read once the balances are locked: every status
 * change (`updateStatus`) locks the balance too, so a movement never lands on an account suspended or
 * closed while the movement waited for the lock, nor commits after a change it read the account
 * before. `lockMovementBalances` also accepts a CLOSED account named
 * `suspenseIfClosed` and says which were: their credit is held in suspense.
 */
export async function lockOpenBalances(tx: Tx, programId: string, accounts: readonly NamedAccount[]): Promise<Map<string, Balance>> {
  return (await lockMovementBalances(tx, programId, accounts)).balances;
}

export async function lockMovementBalances(
  tx: Tx,
  programId: string,
  accounts: readonly NamedAccount[],
): Promise<{ balances: Map<string, Balance>; suspense: ReadonlySet<string> }> {
  const tokens = accounts.map((account) => account.token);
  const balances = await lockExistingBalances(tx, programId, tokens);
  const suspense = requireOpenRows(await store.statusesOf(tx, programId, tokens), accounts);
  for (const token of tokens) invariant(balances.has(token), `financial account ${token} has no balance row`);
  return { balances, suspense };
}
