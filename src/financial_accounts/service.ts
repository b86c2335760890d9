/**
 * Financial accounts: where money lives. The program's own ISSUING, OPERATING and RESERVE accounts
 * are created with the program (`account_token` null); enrolling an account holder gives its account
 * an ISSUING one; clients create OPERATING accounts. Each gets its ledger balance row at creation.
 */
import { newToken } from '../ids.js';
import crypto from 'node:crypto';
import { isoTimestamp } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { notFound } from '../errors.js';
import * as accounts from '../accounts/store.js';
import type { ListResponse } from '../http/schemas.js';
import { openBalance } from '../ledger/ledger.js';
import type { ProgramScope } from '../programs/scope.js';
import type { CreateFinancialAccountBody, FinancialAccount, FinancialAccountType } from './schemas.js';
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
}

/** Inserts a financial account and its zero balance. Callers run it inside their transaction. */
export async function insertFinancialAccount(
  tx: Executor,
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
    status: 'OPEN',
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
  return row;
}

export async function create(tx: Executor, scope: ProgramScope, body: CreateFinancialAccountBody): Promise<FinancialAccount> {
  if (body.account_token !== undefined) {
    const account = await accounts.find(tx, scope.programId, body.account_token);
    if (!account) throw notFound('account', body.account_token, 'account_token');
  }
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

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<FinancialAccount> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('financial account', token);
  return toApi(row);
}

export async function list(
  exec: Executor,
  scope: ProgramScope,
  filters: store.ListFilters,
  page: PageParams,
): Promise<ListResponse<FinancialAccount>> {
  const { rows, has_more } = await store.list(exec, scope.programId, filters, page);
  return { data: rows.map(toApi), has_more };
}
