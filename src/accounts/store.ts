/** SQL for accounts. */
import type { Db, Executor } from '../db/database.js';
import { keysetPage, type PageParams } from '../db/pagination.js';
import type { AccountsTable } from './tables.js';

export type AccountRow = AccountsTable;

export async function insert(exec: Executor, row: AccountRow): Promise<void> {
  await exec.insertInto('accounts').values(row).execute();
}

export function find(exec: Executor, programId: string, token: string): Promise<AccountRow | undefined> {
  return exec
    .selectFrom('accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('token', '=', token)
    .executeTakeFirst();
}

export function findDefault(exec: Executor, programId: string): Promise<AccountRow | undefined> {
  return exec
    .selectFrom('accounts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

/** The account row, locked for the rest of the transaction (serializes updates of one account). */
export function lock(db: Db, exec: Executor, programId: string, token: string): Promise<AccountRow | undefined> {
  return db
    .forUpdate(exec.selectFrom('accounts').selectAll().where('program_id', '=', programId).where('token', '=', token))
    .executeTakeFirst();
}

/** An account with the fields of its holder (if any) that the account response shows. */
function withHolder(exec: Executor, programId: string) {
  return exec
    .selectFrom('accounts')
    .leftJoin('account_holders', (join) =>
      join.onRef('account_holders.program_id', '=', 'accounts.program_id').onRef('account_holders.token', '=', 'accounts.account_holder_token'),
    )
    .selectAll('accounts')
    .select([
      'account_holders.email as holder_email',
      'account_holders.phone_number as holder_phone_number',
      'account_holders.business_account_token as holder_business_account_token',
      'account_holders.profile as holder_profile',
    ])
    .where('accounts.program_id', '=', programId);
}

export type AccountWithHolderRow = AccountRow & {
  holder_email: string | null;
  holder_phone_number: string | null;
  holder_business_account_token: string | null;
  holder_profile: string | null;
};

export function findWithHolder(exec: Executor, programId: string, token: string): Promise<AccountWithHolderRow | undefined> {
  return withHolder(exec, programId).where('accounts.token', '=', token).executeTakeFirst();
}

export function listWithHolder(exec: Executor, programId: string, range: { begin?: string | undefined; end?: string | undefined }, page: PageParams) {
  return keysetPage(exec, withHolder(exec, programId), 'accounts', programId, page, range);
}

export type AccountChanges = Partial<
  Pick<
    AccountRow,
    'state' | 'daily_spend_limit_cents' | 'monthly_spend_limit_cents' | 'lifetime_spend_limit_cents' | 'substatus' | 'comment' | 'verification_address' | 'updated_ms'
  >
>;

export async function update(exec: Executor, programId: string, token: string, changes: AccountChanges): Promise<void> {
  await exec.updateTable('accounts').set(changes).where('program_id', '=', programId).where('token', '=', token).execute();
}
