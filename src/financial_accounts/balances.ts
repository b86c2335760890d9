/**
 * Balances of financial accounts: available, pending and total (= available + pending, never
 * stored). The current balance is the ledger's balance row; a balance as of a time
 * (`balance_date`, or right after an event: `last_transaction_event_token`) is re-derived from
 * the entries written until then. Entries are stamped in milliseconds, so "right after an event"
 * includes any other movement of the account written in that same millisecond.
 *
 * Before the account existed it had no balance: one account's `balance_date` earlier than its
 * `created` is a 422 naming `balance_date` (answering zeros would invent a balance, with a
 * `created` after the date asked for), and `GET /v1/balances` lists only the accounts that existed
 * then. An account that existed but that nothing had touched yet reads zero, with
 * `last_transaction_token` and `last_transaction_event_token` empty, as a new account's current
 * balance does: SDK 0.119 types both as (non-null) strings, and there is no transaction to name.
 */
import type { Db, Executor } from '../db/database.js';
import { isoTimestamp } from '../clock.js';
import { invariant, notFound, UnprocessableError } from '../errors.js';
import type { ListResponse } from '../http/schemas.js';
import { balanceAmounts, balancesAt, eventWrittenMs, getBalances, type Balance } from '../ledger/ledger.js';
import { catchUpDueOperations } from '../management_operations/service.js';
import * as moneyEvents from '../money_events/store.js';
import type { ProgramScope } from '../programs/scope.js';
import { catchUpExpiries } from '../transactions/service.js';
import * as cardTransactions from '../transactions/store.js';
import type { AccountBalancesQuery, FinancialAccountBalance, FinancialAccountType, ProgramBalance, ProgramBalancesQuery } from './schemas.js';
import * as store from './store.js';

/**
 * Before a read of an account's money: what has fallen due by the program clock is applied first,
 * holds that expired and then management operations whose date has come (as the clock jobs do).
 */
export async function catchUpMoney(db: Db, scope: ProgramScope): Promise<void> {
  await catchUpExpiries(db, scope);
  await catchUpDueOperations(db, scope);
}

async function currentBalances(exec: Executor, programId: string, tokens: readonly string[]): Promise<Map<string, Balance>> {
  const balances = await getBalances(exec, programId, tokens);
  for (const token of tokens) invariant(balances.has(token), `financial account ${token} has no balance row`);
  return balances;
}

/** `GET /v1/financial_accounts/{token}/balances`: one item, read in one snapshot (the balance now and the entries after the date asked for agree). */
export async function accountBalances(db: Db, scope: ProgramScope, token: string, query: AccountBalancesQuery): Promise<ListResponse<FinancialAccountBalance>> {
  await catchUpMoney(db, scope);
  return db.snapshot((exec) => accountBalancesIn(exec, scope, token, query));
}

async function accountBalancesIn(exec: Executor, scope: ProgramScope, token: string, query: AccountBalancesQuery): Promise<ListResponse<FinancialAccountBalance>> {
  const account = await store.find(exec, scope.programId, token);
  if (!account) throw notFound('financial account', token);
  let balance = (await currentBalances(exec, scope.programId, [token])).get(token) as Balance;
  let throughMs = query.balance_date === undefined ? undefined : Date.parse(query.balance_date);
  if (throughMs !== undefined && throughMs < account.created_ms) {
    throw new UnprocessableError(
      `balance_date: financial account '${token}' did not exist yet at ${isoTimestamp(throughMs)}; it was created at ${isoTimestamp(account.created_ms)}`,
    );
  }
  if (query.last_transaction_event_token !== undefined) {
    const eventToken = query.last_transaction_event_token;
    // An event that moved nothing (a payment's SETTLED step, a declined movement's, a card event
    // that moved no money: a declined authorization, a balance inquiry, one of $0) has no journal:
    // the balance right after it is the one at its time.
    const eventMs =
      (await eventWrittenMs(exec, scope.programId, token, eventToken)) ??
      (await moneyEvents.eventWithoutJournalMs(exec, scope.programId, token, eventToken)) ??
      (await cardTransactions.eventOnAccountMs(exec, scope.programId, token, eventToken));
    if (eventMs === undefined) {
      throw notFound('financial transaction event', eventToken, 'last_transaction_event_token');
    }
    throughMs = throughMs === undefined ? eventMs : Math.min(throughMs, eventMs);
  }
  if (throughMs !== undefined) [balance] = (await balancesAt(exec, scope.programId, [balance], throughMs)) as [Balance];
  return { data: [{ token, type: account.type as FinancialAccountType, ...balanceAmounts(balance) }], has_more: false };
}

/**
 * `GET /v1/balances`: every financial account of the program (or of one account), oldest first;
 * with `balance_date`, the accounts that existed then, with their balances as of then.
 */
export async function programBalances(db: Db, scope: ProgramScope, query: ProgramBalancesQuery): Promise<ListResponse<ProgramBalance>> {
  await catchUpMoney(db, scope);
  return db.snapshot((exec) => programBalancesIn(exec, scope, query));
}

async function programBalancesIn(exec: Executor, scope: ProgramScope, query: ProgramBalancesQuery): Promise<ListResponse<ProgramBalance>> {
  const throughMs = query.balance_date === undefined ? undefined : Date.parse(query.balance_date);
  const accounts = await store.listAll(exec, scope.programId, {
    account_token: query.account_token,
    business_account_token: query.business_account_token,
    type: query.financial_account_type,
    created_through_ms: throughMs,
  });
  const current = await currentBalances(exec, scope.programId, accounts.map((account) => account.token));
  const rows = accounts.map((account) => current.get(account.token) as Balance);
  const balances = throughMs === undefined ? rows : await balancesAt(exec, scope.programId, rows, throughMs);
  const data = accounts.map((account, index) => ({
    financial_account_token: account.token,
    financial_account_type: account.type as FinancialAccountType,
    ...balanceAmounts(balances[index] as Balance),
  }));
  return { data, has_more: false };
}
