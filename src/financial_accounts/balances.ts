/**
 * Balances of financial accounts: available, pending and total (= available + pending, never
 * stored). The current balance is the ledger's balance row; a balance as of a time
 * (`balance_date`, or right after an event: `last_transaction_event_token`) is re-derived from
 * the entries written until then. Entries are stamped in milliseconds, so "right after an event"
 * includes any other movement of the account written in that same millisecond.
 */
import { isoTimestamp } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import { invariant, notFound } from '../errors.js';
import type { ListResponse } from '../http/schemas.js';
import { accountJournals, eventWrittenMs, getBalances, totalCents, type Balance } from '../ledger/ledger.js';
import { catchUpDueOperations } from '../management_operations/service.js';
import { CURRENCY } from '../money_events/events.js';
import type { ProgramScope } from '../programs/scope.js';
import type { AccountBalancesQuery, FinancialAccountBalance, FinancialAccountType, ProgramBalance, ProgramBalancesQuery } from './schemas.js';
import * as store from './store.js';

/** The balance of an account as it was at `throughMs`, from its entries. */
async function balanceAt(exec: Executor, programId: string, current: Balance, throughMs: number): Promise<Balance> {
  const journals = await accountJournals(exec, programId, current.financial_account_token, throughMs);
  const last = journals.at(-1);
  return {
    ...current,
    available_cents: journals.reduce((sum, journal) => sum + journal.available_cents, 0),
    pending_cents: journals.reduce((sum, journal) => sum + journal.pending_cents, 0),
    last_transaction_token: last?.transaction_token ?? null,
    last_transaction_event_token: last?.event_token ?? null,
    updated_ms: last?.created_ms ?? current.created_ms,
  };
}

function amounts(balance: Balance) {
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

async function currentBalances(exec: Executor, programId: string, tokens: readonly string[]): Promise<Map<string, Balance>> {
  const balances = await getBalances(exec, programId, tokens);
  for (const token of tokens) invariant(balances.has(token), `financial account ${token} has no balance row`);
  return balances;
}

/** `GET /v1/financial_accounts/{token}/balances`: one item. */
export async function accountBalances(db: Db, scope: ProgramScope, token: string, query: AccountBalancesQuery): Promise<ListResponse<FinancialAccountBalance>> {
  await catchUpDueOperations(db, scope);
  const exec = db.kysely;
  const account = await store.find(exec, scope.programId, token);
  if (!account) throw notFound('financial account', token);
  let balance = (await currentBalances(exec, scope.programId, [token])).get(token) as Balance;
  let throughMs = query.balance_date === undefined ? undefined : Date.parse(query.balance_date);
  if (query.last_transaction_event_token !== undefined) {
    const eventMs = await eventWrittenMs(exec, scope.programId, token, query.last_transaction_event_token);
    if (eventMs === undefined) {
      throw notFound('financial transaction event', query.last_transaction_event_token, 'last_transaction_event_token');
    }
    throughMs = throughMs === undefined ? eventMs : Math.min(throughMs, eventMs);
  }
  if (throughMs !== undefined) balance = await balanceAt(exec, scope.programId, balance, throughMs);
  return { data: [{ token, type: account.type as FinancialAccountType, ...amounts(balance) }], has_more: false };
}

/** `GET /v1/balances`: every financial account of the program (or of one account), oldest first. */
export async function programBalances(db: Db, scope: ProgramScope, query: ProgramBalancesQuery): Promise<ListResponse<ProgramBalance>> {
  await catchUpDueOperations(db, scope);
  const exec = db.kysely;
  const accounts = await store.listAll(exec, scope.programId, {
    account_token: query.account_token,
    business_account_token: query.business_account_token,
    type: query.financial_account_type,
  });
  const balances = await currentBalances(exec, scope.programId, accounts.map((account) => account.token));
  const data: ProgramBalance[] = [];
  for (const account of accounts) {
    let balance = balances.get(account.token) as Balance;
    if (query.balance_date !== undefined) balance = await balanceAt(exec, scope.programId, balance, Date.parse(query.balance_date));
    data.push({ financial_account_token: account.token, financial_account_type: account.type as FinancialAccountType, ...amounts(balance) });
  }
  return { data, has_more: false };
}
