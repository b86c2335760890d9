/**
 * Balances as of a time read an account's entries through `ledger_entries_by_account_time`
 * (migration 0025), never the whole history row by row: the sums until a time are a range of the
 * index alone, the last journal until a time a backward seek, the journal of an event a backward
 * walk of the index alone. Checked on SQLite's plans; PostgreSQL picks its plans by cost.
 */
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { Database } from '../db/schema.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { planOf, statementsOf } from '../testing/plans.js';
import { balancesAt, type Balance } from './ledger.js';
import * as store from './store.js';
import type { LedgerEntriesTable } from './tables.js';

/** The plan lines about ledger_entries of every statement `read` runs. */
async function ledgerPlans(kysely: Kysely<Database>, read: (watched: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const details: string[] = [];
  for (const statement of await statementsOf(kysely, read)) details.push(...(await planOf(kysely, statement)).filter((detail) => detail.includes('ledger_entries')));
  return details;
}

describeWithDb('ledger reads as of a time', () => {
  const storage = useMigratedDb();

  it.skipIf(engine !== 'sqlite')('seek into ledger_entries_by_account_time, the sums and the event lookup from the index alone', async () => {
    const { kysely } = storage.db;
    const sums = await ledgerPlans(kysely, (watched) => store.sumEntriesThrough(watched, 'p', ['a', 'b'], 1_000));
    expect(sums).toEqual([expect.stringMatching(/^SEARCH ledger_entries USING COVERING INDEX ledger_entries_by_account_time \(program_id=\? AND ledger_account=\? AND created_ms<\?\)$/)]);
    const lasts = await ledgerPlans(kysely, (watched) => store.lastJournalsThrough(watched, 'p', ['a', 'b', 'c'], 1_000));
    expect(lasts.length).toBeGreaterThanOrEqual(3);
    for (const detail of lasts) expect(detail).toMatch(/^SEARCH ledger_entries USING INDEX ledger_entries_by_account_time \(program_id=\? AND ledger_account=\? AND created_ms<\?\)$/);
    const since = await ledgerPlans(kysely, (watched) => store.balancesLessEntriesAfter(watched, 'p', ['a', 'b'], 1_000));
    // The plugin also sees the UNION's second SELECT on its own: each plan is the covering range.
    expect(since.length).toBeGreaterThanOrEqual(1);
    for (const detail of since) expect(detail).toMatch(/^SEARCH ledger_entries USING COVERING INDEX ledger_entries_by_account_time \(program_id=\? AND ledger_account=\? AND created_ms>\?\)$/);
    const event = await ledgerPlans(kysely, (watched) => store.eventJournalCreatedMs(watched, 'p', 'a', 'e-1'));
    expect(event).toEqual([expect.stringMatching(/^SEARCH ledger_entries USING COVERING INDEX ledger_entries_by_account_time \(program_id=\? AND ledger_account=\?\)$/)]);
  });

  it('the last journal until a time, for any number of accounts: the latest millisecond, then the greatest journal token', async () => {
    const { kysely } = storage.db;
    const accounts = Array.from({ length: 250 }, (_, index) => `acct-${String(index).padStart(3, '0')}`);
    const entry = (account: string, journal: string, createdMs: number) => ({
      program_id: 'p-last', journal_token: journal, seq: 0, ledger_account: account, bucket: 'available' as const, amount_cents: 1,
      created_ms: createdMs, kind: 'TEST', transaction_token: `t-${journal}`, event_token: `e-${journal}`,
    });
    await kysely
      .insertInto('ledger_entries')
      .values(accounts.flatMap((account) => [entry(account, `${account}-b`, 500), entry(account, `${account}-a`, 500), entry(account, `${account}-c`, 900)]))
      .execute();
    const lasts = await store.lastJournalsThrough(kysely, 'p-last', [...accounts, 'acct-none'], 800);
    expect(lasts.map((last) => [last.ledger_account, last.event_token, Number(last.created_ms)]).sort()).toEqual(accounts.map((account) => [account, `e-${account}-b`, 500]));
  });

  it('balances as of any time are the same read from either side: the entries until then, or the balance row less those since', async () => {
    const { kysely } = storage.db;
    const programId = 'p-asof';
    // Three accounts over 0..1,000 ms, with several movements in some milliseconds; `quiet` has none.
    const accounts = ['busy', 'late', 'quiet'];
    const createdMs: Record<string, number> = { busy: 0, late: 600, quiet: 100 };
    const entries: LedgerEntriesTable[] = [];
    let seq = 0;
    for (let step = 0; step < 120; step += 1) {
      const account = step % 3 === 0 ? 'late' : 'busy';
      const atMs = account === 'late' ? 600 + ((step * 7) % 400) : (step * 13) % 1_000;
      const cents = ((step * 37) % 19) - 9 || 5;
      const bucket = step % 4 === 0 ? ('pending' as const) : ('available' as const);
      const journal = `j-${String(step).padStart(3, '0')}`;
      for (const [ledgerAccount, amountCents] of [[account, cents], ['system:PROGRAM', -cents]] as const) {
        entries.push({ program_id: programId, journal_token: journal, seq: seq++, ledger_account: ledgerAccount, bucket, amount_cents: amountCents, created_ms: atMs, kind: 'TEST', transaction_token: `t-${journal}`, event_token: `e-${journal}` });
      }
    }
    await kysely.insertInto('ledger_entries').values(entries).execute();
    const sumThrough = (account: string, bucket: string, throughMs: number) =>
      entries.filter((entry) => entry.ledger_account === account && entry.bucket === bucket && entry.created_ms <= throughMs).reduce((sum, entry) => sum + entry.amount_cents, 0);
    const current: Balance[] = accounts.map((account) => {
      const mine = entries.filter((entry) => entry.ledger_account === account);
      return {
        financial_account_token: account,
        available_cents: sumThrough(account, 'available', Infinity),
        pending_cents: sumThrough(account, 'pending', Infinity),
        last_transaction_token: null,
        last_transaction_event_token: null,
        created_ms: createdMs[account] as number,
        updated_ms: Math.max(createdMs[account] as number, ...mine.map((entry) => entry.created_ms)),
      };
    });
    await kysely.insertInto('balances').values(current.map((balance) => ({ ...balance, program_id: programId }))).execute();
    for (let throughMs = -1; throughMs <= 1_001; throughMs += 7) {
      const asOf = await balancesAt(kysely, programId, current, throughMs);
      expect(asOf.map((balance) => [balance.financial_account_token, balance.available_cents, balance.pending_cents]), `as of ${throughMs} ms`).toEqual(
        accounts.map((account) => [account, sumThrough(account, 'available', throughMs), sumThrough(account, 'pending', throughMs)]),
      );
    }
  });
});
