/**
 * Accounts: what cards belong to and spend limits apply to. Every program has a default account
 * (created with the program, drawing on the program-level ISSUING financial account); enrolling an
 * account holder opens another with its own ISSUING financial account (`openHolderAccount`).
 * Clients read them and update their state (state.ts) and spend limits (cents; accounts/spend.ts: a
 * daily or monthly limit of 0 declines every debit, a lifetime limit of 0 is no limit), and
 * note a substatus, a comment and a verification address (SDK 0.119; the address is deprecated and
 * only shown: no authorization checks it). An account shows the address set on it, else its
 * holder's own; a PATCH address replaces the fields it gives and must leave a complete US address.
 */
import { parseProfile, profileAddress } from '../account_holders/profile.js';
import { checkUsAddress } from '../account_holders/rules.js';
import type { Address } from '../account_holders/schemas.js';
import { ruleTokensForAccounts } from '../auth_rules/applicable.js';
import { isoTimestamp } from '../clock.js';
import { changedColumns, isEmpty } from '../db/changes.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import { closeWithAccount, insertFinancialAccount } from '../financial_accounts/service.js';
import type { ListResponse } from '../http/schemas.js';
import type { ProgramScope } from '../programs/scope.js';
import { accountSpent } from '../transactions/history.js';
import { catchUpExpiries } from '../transactions/service.js';
import type { Account, AccountSpendLimits, UpdateAccountBody } from './schemas.js';
import { DEFAULT_ACCOUNT_SPEND_LIMITS, storedLifetimeSpendLimit, type AccountLimitPeriod } from './spend.js';
import { accountStateChangeRefusal, type AccountState } from './state.js';
import * as store from './store.js';

export const CARDHOLDER_CURRENCY = 'USD';

/** A limit as the API shows it: no limit (null, only a lifetime one) is 0. */
function limitCents(value: number | null): number {
  return value ?? 0;
}

function toApi(row: store.AccountWithHolderRow, authRuleTokens: string[]): Account {
  const account: Account = {
    token: row.token,
    created: isoTimestamp(row.created_ms),
    spend_limit: {
      daily: limitCents(row.daily_spend_limit_cents),
      monthly: limitCents(row.monthly_spend_limit_cents),
      lifetime: limitCents(row.lifetime_spend_limit_cents),
    },
    state: row.state,
    auth_rule_tokens: authRuleTokens,
    cardholder_currency: CARDHOLDER_CURRENCY,
    ...(row.comment !== null ? { comment: row.comment } : {}),
    ...(row.substatus !== null ? { substatus: row.substatus as Account['substatus'] } : {}),
  };
  if (row.account_holder_token !== null) {
    account.account_holder = {
      token: row.account_holder_token,
      business_account_token: row.holder_business_account_token ?? '',
      email: row.holder_email ?? '',
      phone_number: row.holder_phone_number ?? '',
    };
  }
  const address = verificationAddressOf(row);
  if (address) account.verification_address = address;
  return account;
}

/** The address set on the account, else its holder's own (none for an account without either). */
function verificationAddressOf(row: store.AccountWithHolderRow): Address | undefined {
  if (row.verification_address !== null) return JSON.parse(row.verification_address) as Address;
  return row.holder_profile === null ? undefined : profileAddress(parseProfile(row.holder_profile));
}

const REQUIRED_ADDRESS_FIELDS = ['address1', 'city', 'country', 'postal_code', 'state'] as const;

/** The account's address with the given fields replaced: a complete, deliverable US address (else a 400 naming the field). */
function updatedVerificationAddress(current: Address | undefined, given: NonNullable<UpdateAccountBody['verification_address']>): Address {
  const merged = { ...current, ...given };
  for (const field of REQUIRED_ADDRESS_FIELDS) {
    if (merged[field] === undefined) {
      throw new InvalidRequestError(`verification_address.${field}: is required (the account has no verification address to complete)`);
    }
  }
  checkUsAddress('verification_address', merged as Address);
  return merged as Address;
}

async function render(exec: Executor, programId: string, rows: store.AccountWithHolderRow[]): Promise<Account[]> {
  const ruleTokens = await ruleTokensForAccounts(exec, programId, rows.map((row) => row.token));
  return rows.map((row) => toApi(row, ruleTokens.get(row.token) ?? []));
}

export interface NewAccount {
  token: string;
  state: AccountState;
  /** The program's default account (one per program, created with it) or a holder's. */
  is_default: boolean;
  account_holder_token: string | null;
  issuing_financial_account_token: string;
}

/** Inserts an account with the default limits (accounts/spend.ts): $5,000 a day and a month, no lifetime limit. */
export async function insertAccount(tx: Executor, programId: string, account: NewAccount, nowMs: number): Promise<void> {
  await store.insert(tx, {
    ...account,
    program_id: programId,
    is_default: account.is_default ? 1 : 0,
    ...DEFAULT_ACCOUNT_SPEND_LIMITS,
    substatus: null,
    comment: null,
    verification_address: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  });
}

/** Opens an account holder's account with its ISSUING financial account (and its ledger balance). */
export async function openHolderAccount(
  tx: Tx,
  programId: string,
  account: { token: string; account_holder_token: string; state: AccountState },
  nowMs: number,
): Promise<void> {
  // A holder REJECTED at once gets a CLOSED account, and nothing open that could take money in.
  const status = account.state === 'CLOSED' ? 'CLOSED' : 'OPEN';
  const issuing = await insertFinancialAccount(tx, programId, { type: 'ISSUING', account_token: account.token, nickname: null, is_for_benefit_of: false, status }, nowMs);
  await insertAccount(tx, programId, { ...account, is_default: false, issuing_financial_account_token: issuing.token }, nowMs);
}

/**
 * Closes an account (its holder failed verification), and its ISSUING financial account if nothing
 * is on it. Idempotent. An account the client had already closed still has its financial account
 * closed: a PATCH to CLOSED leaves that open (to move money out), but a REJECTED holder's takes no
 * money in.
 */
export async function closeAccount(db: Db, tx: Tx, scope: ProgramScope, token: string): Promise<void> {
  const row = await store.lock(db, tx, scope.programId, token);
  if (!row) return;
  if (row.state !== 'CLOSED') await store.update(tx, scope.programId, token, { state: 'CLOSED', updated_ms: Math.max(row.updated_ms, scope.nowMs) });
  await closeWithAccount(db, tx, scope, row.issuing_financial_account_token);
}

/** `GET /v1/accounts/{token}`: the account and its Auth Rule tokens, read in one snapshot. */
export function retrieve(db: Db, scope: ProgramScope, token: string): Promise<Account> {
  return db.snapshot((exec) => get(exec, scope, token));
}

/** The account, as this executor (a snapshot or a transaction) sees it. */
async function get(exec: Executor, scope: ProgramScope, token: string): Promise<Account> {
  const row = await store.findWithHolder(exec, scope.programId, token);
  if (!row) throw notFound('account', token);
  const [account] = await render(exec, scope.programId, [row]);
  return account as Account;
}

/** A page of accounts and their Auth Rule tokens, read in one snapshot. */
export function list(
  db: Db,
  scope: ProgramScope,
  range: { begin?: string | undefined; end?: string | undefined },
  page: PageParams,
): Promise<ListResponse<Account>> {
  return db.snapshot(async (exec) => {
    const { rows, has_more } = await store.listWithHolder(exec, scope.programId, range, page);
    return { data: await render(exec, scope.programId, rows), has_more };
  });
}

const LIMIT_PERIODS: readonly AccountLimitPeriod[] = ['daily', 'monthly', 'lifetime'];

/**
 * The account's limits, and for each one that is set (daily and monthly always, 0 too; lifetime
 * unless 0, which is no limit), the approved spend in its window and what is
 * left: the sums the authorization engine checks (transactions/history.ts `accountSpent`), after
 * the holds that have expired by now released their spend, as an authorization would see them.
 */
export async function spendLimits(db: Db, scope: ProgramScope, token: string): Promise<AccountSpendLimits> {
  await catchUpExpiries(db, scope);
  return db.snapshot((exec) => limitsOf(exec, scope, token));
}

/** The account's limits and its spend, read in one snapshot: limits and the spend of one state. */
async function limitsOf(exec: Executor, scope: ProgramScope, token: string): Promise<AccountSpendLimits> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('account', token);
  const spent = await accountSpent(exec, scope.programId, row, scope.nowMs);
  const result: AccountSpendLimits = {
    available_spend_limit: {},
    spend_limit: { daily: limitCents(row.daily_spend_limit_cents), monthly: limitCents(row.monthly_spend_limit_cents), lifetime: limitCents(row.lifetime_spend_limit_cents) },
    spend_velocity: {},
  };
  for (const period of LIMIT_PERIODS) {
    const limit = row[`${period}_spend_limit_cents`];
    if (limit === null) continue;
    result.spend_velocity[period] = spent[`${period}_cents`];
    result.available_spend_limit[period] = Math.max(0, limit - spent[`${period}_cents`]);
  }
  return result;
}

/** What an update body changes, checked against the account's current state and address. */
function accountChanges(row: store.AccountWithHolderRow, body: UpdateAccountBody): store.AccountChanges {
  const changes: store.AccountChanges = {};
  if (body.state !== undefined) {
    const refusal = accountStateChangeRefusal(row.state, body.state);
    if (refusal !== null) throw new UnprocessableError(`state: ${refusal}`);
    changes.state = body.state;
  }
  if (body.daily_spend_limit !== undefined) changes.daily_spend_limit_cents = body.daily_spend_limit;
  if (body.monthly_spend_limit !== undefined) changes.monthly_spend_limit_cents = body.monthly_spend_limit;
  if (body.lifetime_spend_limit !== undefined) changes.lifetime_spend_limit_cents = storedLifetimeSpendLimit(body.lifetime_spend_limit);
  if (body.substatus !== undefined) changes.substatus = body.substatus;
  if (body.comment !== undefined) changes.comment = body.comment;
  if (body.verification_address !== undefined) {
    changes.verification_address = JSON.stringify(updatedVerificationAddress(verificationAddressOf(row), body.verification_address));
  }
  return changes;
}

/** PATCH: only the supplied properties change. The row is locked, so concurrent updates serialize. */
export async function update(db: Db, tx: Tx, scope: ProgramScope, token: string, body: UpdateAccountBody): Promise<Account> {
  if (!(await store.lock(db, tx, scope.programId, token))) throw notFound('account', token);
  // Read again with the holder's fields (its address); the lock is held. PostgreSQL cannot lock through the outer join.
  const row = (await store.findWithHolder(tx, scope.programId, token)) as store.AccountWithHolderRow;
  const changes = changedColumns<store.AccountRow>(row, accountChanges(row, body));
  if (!isEmpty(changes)) await store.update(tx, scope.programId, token, { ...changes, updated_ms: Math.max(row.updated_ms, scope.nowMs) });
  return get(tx, scope, token);
}
