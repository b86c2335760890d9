/** The ledger core on a real database (both engines): posting, locking, append-only, re-derivation. */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import type { TestProgram } from '../testing/harness.js';
import { getBalances, lockBalances, post, postMany, POST_MANY_ACCOUNTS_MAX, SystemAccount, verifyProgramLedger, type DatedMovement, type Movement } from './ledger.js';

describeWithDb('ledger', () => {
  const context = useTestServer();
  let operating: string;
  let reserve: string;

  beforeAll(async () => {
    const accounts = (await context.program.client.financialAccounts.list()).data;
    operating = accounts.find((account) => account.type === 'OPERATING')?.token as string;
    reserve = accounts.find((account) => account.type === 'RESERVE')?.token as string;
  });

  const transfer = (from: string, to: string, amount_cents: number): Movement => ({
    kind: 'TEST_TRANSFER',
    transaction_token: crypto.randomUUID(),
    event_token: crypto.randomUUID(),
    postings: [
      { account: from, bucket: 'available', amount_cents: -amount_cents },
      { account: to, bucket: 'available', amount_cents },
    ],
  });

  async function postInTransaction(movement: Movement) {
    const { db } = context.server.server;
    return db.transaction((tx) => post(tx, context.program.programId, movement, Date.now()));
  }

  it('moves money between buckets and accounts and records what caused it', async () => {
    const { db } = context.server.server;
    const deposit: Movement = {
      kind: 'TEST_DEPOSIT',
      transaction_token: crypto.randomUUID(),
      event_token: crypto.randomUUID(),
      postings: [
        { account: SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -10_000 },
        { account: operating, bucket: 'pending', amount_cents: 10_000 },
      ],
    };
    await postInTransaction(deposit);
    await postInTransaction({
      ...deposit,
      kind: 'TEST_RELEASE',
      postings: [
        { account: operating, bucket: 'pending', amount_cents: -10_000 },
        { account: operating, bucket: 'available', amount_cents: 10_000 },
      ],
    });
    const balances = await getBalances(db.kysely, context.program.programId, [operating]);
    expect(balances.get(operating)).toMatchObject({
      available_cents: 10_000,
      pending_cents: 0,
      last_transaction_token: deposit.transaction_token,
    });
    expect(await verifyProgramLedger(db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  });

  it('keeps a balance row stamped by its latest movement when one stamped earlier commits after it (a request that read the clock before a move), as its history reads it', async () => {
    const { db } = context.server.server;
    const { client, programId } = context.program;
    const account = (await client.financialAccounts.create({ nickname: 'straggled', type: 'OPERATING' })).token;
    const nowMs = Date.now();
    const latest = transfer(reserve, account, 500);
    await db.transaction((tx) => post(tx, programId, latest, nowMs + 10 * 86_400_000));
    const [afterLatest] = (await client.financialAccounts.balances.list(account)).data;
    // The straggler: stamped by the clock its request read before the clock moved, committed after.
    await db.transaction((tx) => post(tx, programId, transfer(reserve, account, 200), nowMs));
    const [now] = (await client.financialAccounts.balances.list(account)).data;
    expect(now).toMatchObject({ available_amount: 700, updated: afterLatest?.updated, last_transaction_token: latest.transaction_token, last_transaction_event_token: latest.event_token });
    const [throughLatest] = (await client.financialAccounts.balances.list(account, { balance_date: afterLatest?.updated })).data;
    expect(now).toEqual(throughLatest);
  });

  it('writes nothing when the transaction that posts fails', async () => {
    const { db } = context.server.server;
    const before = await getBalances(db.kysely, context.program.programId, [operating, reserve]);
    await expect(
      db.transaction(async (tx) => {
        await post(tx, context.program.programId, transfer(operating, reserve, 1_234), Date.now());
        throw new Error('the cause of the movement could not be recorded');
      }),
    ).rejects.toThrow(/could not be recorded/);
    expect(await getBalances(db.kysely, context.program.programId, [operating, reserve])).toEqual(before);
  });

  it('refuses an unbalanced movement before writing anything', async () => {
    const unbalanced = transfer(operating, reserve, 100);
    unbalanced.postings[1] = { account: reserve, bucket: 'available', amount_cents: 99 };
    await expect(postInTransaction(unbalanced)).rejects.toThrow(/does not balance/);
    expect((await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).discrepancies).toEqual([]);
  });

  it('refuses to post to a financial account without a balance row', async () => {
    await expect(postInTransaction(transfer(operating, crypto.randomUUID(), 100))).rejects.toThrow(/has no balance row/);
  });

  it('refuses a movement that would take a balance past what JavaScript holds exactly, and writes nothing', async () => {
    const { db } = context.server.server;
    const big = await context.server.newProgram('big balances');
    const account = (await big.client.financialAccounts.list()).data.find((fa) => fa.type === 'OPERATING')?.token as string;
    const deposit = (bucket: 'available' | 'pending', amount_cents: number): Movement => ({
      kind: 'TEST_DEPOSIT',
      transaction_token: crypto.randomUUID(),
      event_token: crypto.randomUUID(),
      postings: [
        { account: SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -amount_cents },
        { account, bucket, amount_cents },
      ],
    });
    const postFor = (movement: Movement) => db.transaction((tx) => post(tx, big.programId, movement, Date.now()));
    await postFor(deposit('available', Number.MAX_SAFE_INTEGER - 10));
    await postFor(deposit('available', 10));
    for (const refused of [deposit('available', 1), deposit('pending', 1)]) {
      await expect(postFor(refused)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^amount: .* would pass 9007199254740991 cents/) });
    }
    await postFor(deposit('available', -1));
    await postFor(deposit('pending', 1));
    // Two accounts in one movement: the side that fits is not written either.
    const other = (await big.client.financialAccounts.list()).data.find((fa) => fa.token !== account)?.token as string;
    await postFor({ ...deposit('available', 5), postings: [{ account: SystemAccount.PROGRAM, bucket: 'available', amount_cents: -5 }, { account: other, bucket: 'available', amount_cents: 5 }] });
    for (const [from, to] of [[other, account], [account, other]] as const) {
      const intoFull = transfer(from, to, from === other ? 2 : -2);
      await expect(postFor(intoFull)).rejects.toMatchObject({ status: 422, message: expect.stringContaining(`financial account '${account}' would pass`) });
    }
    expect((await getBalances(db.kysely, big.programId, [account])).get(account)).toMatchObject({ available_cents: Number.MAX_SAFE_INTEGER - 1, pending_cents: 1 });
    expect((await getBalances(db.kysely, big.programId, [other])).get(other)).toMatchObject({ available_cents: 5, pending_cents: 0 });
    expect(await verifyProgramLedger(db.kysely, big.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  });

  describe('postMany', () => {
    /** A program's OPERATING and RESERVE accounts, and a way to name them in what it answers. */
    async function accountsOf(program: TestProgram) {
      const accounts = (await program.client.financialAccounts.list()).data;
      const tokenOf = (type: string) => accounts.find((account) => account.type === type)?.token as string;
      const [a, b] = [tokenOf('OPERATING'), tokenOf('RESERVE')];
      const named = (text: string) => text.replaceAll(a, 'A').replaceAll(b, 'B');
      return { a, b, named };
    }

    /** The same movements for any program: deposits, transfers both ways, a hold and its release, an account's own bucket move. */
    function movementsFor(a: string, b: string, startMs: number): DatedMovement[] {
      const move = (index: number, kind: string, postings: Movement['postings']): DatedMovement => ({
        movement: { kind, transaction_token: `txn-${index}`, event_token: `event-${index}`, postings },
        nowMs: startMs + 1_000 * index,
      });
      return [
        move(0, 'DEPOSIT', [{ account: SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -10_000 }, { account: a, bucket: 'available', amount_cents: 10_000 }]),
        move(1, 'TRANSFER', [{ account: a, bucket: 'available', amount_cents: -3_000 }, { account: b, bucket: 'available', amount_cents: 3_000 }]),
        { movement: null, nowMs: startMs + 1_500 },
        move(2, 'HOLD', [{ account: a, bucket: 'available', amount_cents: -700 }, { account: a, bucket: 'pending', amount_cents: 700 }]),
        move(3, 'TRANSFER', [{ account: b, bucket: 'available', amount_cents: -50 }, { account: a, bucket: 'available', amount_cents: 50 }]),
        move(4, 'RELEASE', [{ account: a, bucket: 'pending', amount_cents: -700 }, { account: a, bucket: 'available', amount_cents: 700 }]),
        // Postings that cancel out on A: its row is stamped, but no balance.updated names it.
        move(5, 'ROUND_TRIP', [
          { account: a, bucket: 'available', amount_cents: -5 },
          { account: b, bucket: 'pending', amount_cents: 5 },
          { account: b, bucket: 'pending', amount_cents: -5 },
          { account: a, bucket: 'available', amount_cents: 5 },
        ]),
      ];
    }

    /**
     * What a program's ledger shows, with its account tokens named and without the accounts' own
     * creation times: balances, balance.updated payloads (oldest first), consistency.
     */
    async function ledgerOf(program: TestProgram) {
      const { a, b, named } = await accountsOf(program);
      const exec = context.server.server.db.kysely;
      const balances = [...(await getBalances(exec, program.programId, [a, b])).values()].map(({ created_ms: _created, ...balance }) => balance);
      const announced = [];
      for await (const event of program.client.events.list({ event_types: ['balance.updated'], with_content: true, page_size: 100 })) {
        const data = (event.payload as { data: { created: string }[] }).data.map(({ created: _created, ...balance }) => balance);
        announced.unshift(named(JSON.stringify({ created: event.created, data })));
      }
      return { balances: named(JSON.stringify(balances)), announced, verified: await verifyProgramLedger(exec, program.programId) };
    }

    it('writes movements exactly as one post each would: the same balances, stamps, entries and balance.updated events', async () => {
      const { db } = context.server.server;
      const [oneByOne, together] = [await context.server.newProgram('posted one by one'), await context.server.newProgram('posted together')];
      const startMs = Date.UTC(2026, 0, 1);
      const one = await accountsOf(oneByOne);
      await db.transaction(async (tx) => {
        for (const { movement, nowMs } of movementsFor(one.a, one.b, startMs)) if (movement) await post(tx, oneByOne.programId, movement, nowMs);
      });
      const both = await accountsOf(together);
      const after: number[] = [];
      const journals = await db.transaction((tx) =>
        postMany(tx, together.programId, movementsFor(both.a, both.b, startMs), async (index) => {
          after.push(index);
        }),
      );
      expect(after).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(journals.map((journal) => journal === undefined)).toEqual([false, false, true, false, false, false, false]);
      const [expected, actual] = [await ledgerOf(oneByOne), await ledgerOf(together)];
      expect(actual.announced).toHaveLength(5); // the round trip changes no amount: it announces nothing
      expect(actual).toEqual(expected);
      expect(actual.verified).toEqual({ discrepancies: [], entries_sum_cents: 0 });
      expect(JSON.parse(actual.balances)).toMatchObject([
        { financial_account_token: 'A', available_cents: 7_050, pending_cents: 0, last_transaction_token: 'txn-5', updated_ms: startMs + 5_000 },
        { financial_account_token: 'B', available_cents: 2_950, pending_cents: 0, last_transaction_token: 'txn-5', updated_ms: startMs + 5_000 },
      ]);
    });

    it('refuses movements that pass the exact-integer bound on the way, even if the last brings the balance back, and writes none of them', async () => {
      const { db } = context.server.server;
      const big = await context.server.newProgram('passes the bound on the way');
      const { a } = await accountsOf(big);
      const deposit = (index: number, amount_cents: number): DatedMovement => ({
        movement: {
          kind: 'TEST_DEPOSIT',
          transaction_token: `txn-${index}`,
          event_token: `event-${index}`,
          postings: [{ account: SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -amount_cents }, { account: a, bucket: 'available', amount_cents }],
        },
        nowMs: Date.now(),
      });
      await db.transaction((tx) => postMany(tx, big.programId, [deposit(0, Number.MAX_SAFE_INTEGER - 10)]));
      await expect(db.transaction((tx) => postMany(tx, big.programId, [deposit(1, 20), deposit(2, -20)]))).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining(`financial account '${a}' would pass`),
      });
      expect((await getBalances(db.kysely, big.programId, [a])).get(a)).toMatchObject({ available_cents: Number.MAX_SAFE_INTEGER - 10, last_transaction_token: 'txn-0' });
      expect(await verifyProgramLedger(db.kysely, big.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it(`refuses more than ${POST_MANY_ACCOUNTS_MAX} accounts in one call (callers batch by that bound) before it writes`, async () => {
      const { db } = context.server.server;
      const program = await context.server.newProgram('too many accounts at once');
      const { a } = await accountsOf(program);
      const hold = (index: number): DatedMovement => ({
        movement: {
          kind: 'TEST_HOLD',
          transaction_token: `txn-${index}`,
          event_token: `event-${index}`,
          postings: [{ account: index === 0 ? a : `account-${index}`, bucket: 'available', amount_cents: -1 }, { account: index === 0 ? a : `account-${index}`, bucket: 'pending', amount_cents: 1 }],
        },
        nowMs: Date.now(),
      });
      const movements = Array.from({ length: POST_MANY_ACCOUNTS_MAX + 1 }, (_, index) => hold(index));
      await expect(db.transaction((tx) => postMany(tx, program.programId, movements))).rejects.toThrow(`postMany changes ${POST_MANY_ACCOUNTS_MAX + 1} accounts`);
      const entries = await db.kysely.selectFrom('ledger_entries').select('journal_token').where('program_id', '=', program.programId).execute();
      expect(entries).toEqual([]);
      expect((await getBalances(db.kysely, program.programId, [a])).get(a)).toMatchObject({ available_cents: 0, pending_cents: 0 });
    });
  });

  it('never lets an entry be updated or deleted (the database refuses)', async () => {
    const { db } = context.server.server;
    await expect(sql`UPDATE ledger_entries SET amount_cents = 0`.execute(db.kysely)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM ledger_entries`.execute(db.kysely)).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE ledger_entries SET kind = 'OTHER'`.execute(db.kysely)).rejects.toThrow(/append-only/);
  });

  it('detects a balance row that disagrees with its entries', async () => {
    const { db } = context.server.server;
    const other = await context.server.newProgram('tampered');
    const fa = (await other.client.financialAccounts.list()).data[0]?.token as string;
    await db.kysely.updateTable('balances').set({ available_cents: 42 }).where('financial_account_token', '=', fa).execute();
    const result = await verifyProgramLedger(db.kysely, other.programId);
    expect(result.discrepancies).toEqual([{ account: fa, bucket: 'available', stored_cents: 42, derived_cents: 0 }]);
  });

  it('serializes concurrent movements in both directions: exact balances, no lost update, no deadlock', async () => {
    const { db } = context.server.server;
    const start = await getBalances(db.kysely, context.program.programId, [operating, reserve]);
    const movements = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? transfer(operating, reserve, 7) : transfer(reserve, operating, 3)));
    await Promise.all(movements.map((movement) => postInTransaction(movement)));
    const end = await getBalances(db.kysely, context.program.programId, [operating, reserve]);
    expect(end.get(operating)?.available_cents).toBe((start.get(operating)?.available_cents ?? 0) - 30 * 7 + 30 * 3);
    expect(end.get(reserve)?.available_cents).toBe((start.get(reserve)?.available_cents ?? 0) + 30 * 7 - 30 * 3);
    expect(await verifyProgramLedger(db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  });

  it('lets a caller decide on funds under the lock without losing concurrent decisions', async () => {
    const { db } = context.server.server;
    const funded = await context.server.newProgram('funds');
    const [source, sink] = (await funded.client.financialAccounts.list()).data.map((account) => account.token) as [string, string];
    await db.transaction((tx) =>
      post(tx, funded.programId, { kind: 'FUND', transaction_token: 'f', event_token: 'f', postings: [
        { account: SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -1_000 },
        { account: source, bucket: 'available', amount_cents: 1_000 },
      ] }, Date.now()),
    );
    // 25 concurrent attempts to spend 100 from 1,000: exactly 10 may succeed.
    const outcomes = await Promise.all(
      Array.from({ length: 25 }, () =>
        db.transaction(async (tx) => {
          const balances = await lockBalances(tx, funded.programId, [source, sink]);
          if ((balances.get(source)?.available_cents ?? 0) < 100) return 'declined';
          await post(tx, funded.programId, transfer(source, sink, 100), Date.now());
          return 'approved';
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'approved')).toHaveLength(10);
    const balances = await getBalances(db.kysely, funded.programId, [source, sink]);
    expect(balances.get(source)?.available_cents).toBe(0);
    expect(balances.get(sink)?.available_cents).toBe(1_000);
  });
});
