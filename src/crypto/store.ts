/** SQL for the encryption key check. */
import type { Executor } from '../db/database.js';

/** Stores the check value unless one is stored already (several servers may start at once). */
export async function insertKeyCheck(exec: Executor, checkValue: string, nowMs: number): Promise<void> {
  await exec
    .insertInto('encryption_key_check')
    .values({ id: 1, check_value: checkValue, created_ms: nowMs })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

export async function storedKeyCheck(exec: Executor): Promise<string | undefined> {
  const row = await exec.selectFrom('encryption_key_check').select('check_value').where('id', '=', 1).executeTakeFirst();
  return row?.check_value;
}

/** One encrypted value written before the check existed, if there is any: a card number, a bank account number or government ids. */
export async function someEncryptedValue(exec: Executor): Promise<string | undefined> {
  const card = await exec.selectFrom('cards').select('pan_encrypted as value').limit(1).executeTakeFirst();
  const bank = card ?? (await exec.selectFrom('external_bank_accounts').select('account_number_encrypted as value').limit(1).executeTakeFirst());
  const holder =
    bank ??
    (await exec.selectFrom('account_holders').select('government_ids_encrypted as value').where('government_ids_encrypted', 'is not', null).limit(1).executeTakeFirst());
  return holder?.value ?? undefined;
}
