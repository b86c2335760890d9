/**
 * Concurrency: many transfers over the same two accounts at once, both directions. Balance rows are
 * locked in sorted order, so they serialize without deadlocks; no caller may see an error, and the
 * balances must come out exact. On PostgreSQL this runs with a real connection pool (several
 * transactions truly in flight); on SQLite it checks the same outcome through its single writer.
 */
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, fund, newAccount } from '../testing/money.js';

describeWithDb('book transfers under concurrency', () => {
  const context = useTestServer();

  it('100 parallel transfers A→B and B→A: none fails, balances exact, ledger balanced', async () => {
    const { client } = context.program;
    const a = await newAccount(client, 'a');
    const b = await newAccount(client, 'b');
    await fund(client, a, 100_000);
    await fund(client, b, 100_000);
    const amounts = Array.from({ length: 100 }, (_, index) => 100 + index);
    const results = await Promise.all(
      amounts.map((amount, index) => {
        const [from, to] = index % 2 === 0 ? [a, b] : [b, a];
        return client.bookTransfers.create({
          amount,
          category: 'TRANSFER',
          type: 'ACCOUNT_TO_ACCOUNT',
          subtype: 'race',
          from_financial_account_token: from,
          to_financial_account_token: to,
          token: crypto.randomUUID(),
        });
      }),
    );
    expect(results.every((transfer) => transfer.status === 'SETTLED')).toBe(true);
    const aToB = amounts.filter((_, index) => index % 2 === 0).reduce((sum, amount) => sum + amount, 0);
    const bToA = amounts.filter((_, index) => index % 2 === 1).reduce((sum, amount) => sum + amount, 0);
    expect(await balanceOf(client, a)).toEqual({ available: 100_000 - aToB + bToA, pending: 0, total: 100_000 - aToB + bToA });
    expect(await balanceOf(client, b)).toEqual({ available: 100_000 + aToB - bToA, pending: 0, total: 100_000 + aToB - bToA });
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  });

  it('never overdraws: of parallel transfers that together exceed the funds, exactly the affordable ones settle', async () => {
    const { client } = context.program;
    const a = await newAccount(client, 'a');
    const b = await newAccount(client, 'b');
    await fund(client, a, 1_000);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        client.bookTransfers.create({ amount: 100, category: 'TRANSFER', type: 'TRANSFER', subtype: 'race', from_financial_account_token: a, to_financial_account_token: b }),
      ),
    );
    expect(results.filter((transfer) => transfer.status === 'SETTLED')).toHaveLength(10);
    expect(results.filter((transfer) => transfer.status === 'DECLINED')).toHaveLength(20);
    expect(await balanceOf(client, a)).toEqual({ available: 0, pending: 0, total: 0 });
    expect(await balanceOf(client, b)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
  });
});
