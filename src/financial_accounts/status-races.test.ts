/**
 * A financial account's status change against the money movements on it. A movement locks the
 * account's balance and then reads its status (lockMovementBalances); a status change locks that
 * balance too before it decides, so each comes wholly before or after the other, and it is stamped
 * no earlier than the account's last movement: the account's history never shows money moving on it
 * after it was suspended or closed.
 */
import { expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import * as bookTransfers from '../book_transfers/service.js';
import { lockBalances } from '../ledger/ledger.js';
import type { ProgramScope } from '../programs/scope.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';
import * as financialAccounts from './service.js';

describeWithDb('a financial account status change against the movements on the account', () => {
  const context = useTestServer();

  it.each(['CLOSED', 'SUSPENDED'] as const)(
    'a change to %s by a request that read the clock before a move is stamped no earlier than the account’s last movement',
    async (status) => {
      const program = await context.server.newProgram(`straggling ${status}`);
      const { client } = program;
      const [account, other] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
      await fund(client, account, 100);
      // The straggler's clock: read before the move.
      const before: ProgramScope = { programId: program.programId, clockOffsetMs: 0, nowMs: Date.now() };
      await client.post('/v1/simulate/clock', { body: { now: new Date(Date.now() + 10 * MS_PER_DAY).toISOString() } });
      const emptied = await bookTransfer(client, account, other, 100); // at the moved clock: the account is empty since
      const { db } = context.server.server;
      const changed = await db.transaction((tx) => financialAccounts.updateStatus(db, tx, before, account, { status, substatus: null }));
      expect(changed.status).toBe(status);
      expect(Date.parse(changed.updated)).toBeGreaterThanOrEqual(Date.parse(emptied.created));
      const [event] = (await client.events.list({ event_types: ['financial_account.updated'] })).data;
      expect(Date.parse(event?.created as string)).toBeGreaterThanOrEqual(Date.parse(emptied.created));
    },
  );

  // PostgreSQL: transactions truly overlap (SQLite writes one at a time).
  it.skipIf(engine !== 'postgres')('a suspension waits for a transfer that read the account OPEN, and is stamped after it', async () => {
    const program = await context.server.newProgram('suspension race');
    const { client } = program;
    const [account, other] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
    await fund(client, other, 100);
    const { db } = context.server.server;
    let suspension: Promise<{ status: string; updated: string }> | undefined;
    const { transfer, outcome } = await db.transaction(async (tx) => {
      // A transfer into the account, decided (its balances locked, the account read OPEN) but not yet committed.
      const scope: ProgramScope = { programId: program.programId, clockOffsetMs: 0, nowMs: Date.now() };
      const made = await bookTransfers.create(db, tx, scope, {
        amount: 40, category: 'TRANSFER', type: 'TRANSFER', subtype: 'race', from_financial_account_token: other, to_financial_account_token: account,
      });
      suspension = client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: null });
      const stalled = new Promise<string>((resolve) => setTimeout(() => resolve('waiting for the transfer'), 1_000));
      return { transfer: made, outcome: await Promise.race([suspension.then((changed) => `answered ${changed.status}`), stalled]) };
    });
    // Else a client saw the account SUSPENDED and then money arrive on it.
    expect(transfer.status).toBe('SETTLED');
    expect(outcome).toBe('waiting for the transfer');
    const suspended = await suspension;
    expect(Date.parse(suspended?.updated as string)).toBeGreaterThanOrEqual(Date.parse(transfer.created));
  });

  it.skipIf(engine !== 'postgres')('a status change waits for a concurrent one on the account and decides on what it left', async () => {
    const program = await context.server.newProgram('status change race');
    const { client } = program;
    const account = await newAccount(client);
    const { db } = context.server.server;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
    let suspension: Promise<{ status: string }> | undefined;
    let closing: Promise<{ status: string }> | undefined;
    // Holding the account's balance: the suspension gets there first, the closing behind it; both
    // read the account OPEN unless a change locks the account before it reads it.
    await db.transaction(async (tx) => {
      await lockBalances(tx, program.programId, [account]);
      suspension = client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
      await pause();
      closing = client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: 'END_USER_REQUEST' });
      await pause();
    });
    // Else the closing answered 422 "changed by a concurrent request", stored under its Idempotency-Key.
    expect((await suspension)?.status).toBe('SUSPENDED');
    expect((await closing)?.status).toBe('CLOSED');
    expect((await client.financialAccounts.retrieve(account)).status).toBe('CLOSED');
  });

  it.skipIf(engine !== 'postgres')('an authorization that read its ISSUING account OPEN before a suspension committed decides on SUSPENDED', async () => {
    const program = await context.server.newProgram('authorization race');
    const { client } = program;
    const card = await cardOnOwnAccount(client);
    await fund(client, card.funding.token, 1_000);
    const { db } = context.server.server;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
    let suspension: Promise<unknown> | undefined;
    let authorization: Promise<string> | undefined;
    // Holding the ISSUING balance: the suspension waits for it first, then the authorization (which
    // has read the card, its account and the ISSUING account's status by then) waits behind it.
    await db.transaction(async (tx) => {
      await lockBalances(tx, program.programId, [card.funding.token]);
      suspension = client.financialAccounts.updateStatus(card.funding.token, { status: 'SUSPENDED', substatus: null });
      await pause();
      authorization = authorize(client, card, 10);
      await pause();
    });
    await suspension;
    const decided = await client.transactions.retrieve(await (authorization as Promise<string>));
    expect((await client.financialAccounts.retrieve(card.funding.token)).status).toBe('SUSPENDED');
    expect([decided.result, decided.status]).toEqual(['ACCOUNT_STATE_TRANSACTION_FAIL', 'DECLINED']);
  });
});
