/**
 * A management operation whose effective date has come while its account is SUSPENDED waits,
 * PENDING, until the account is OPEN again (service.ts header). While it waits it is not due: the
 * due check, which every money-moving write and authorization of the program makes first, finds
 * nothing to do (else each of them would run the clock jobs, a full catch-up, for an operation they
 * cannot apply). The change that makes the account OPEN again applies it, in its own transaction,
 * so that no server's horizon hides it once it can take effect.
 */
import crypto from 'node:crypto';
import { expect, it, onTestFinished } from 'vitest';
import { isDueWithin } from '../clock-jobs.js';
import { MS_PER_DAY } from '../clock.js';
import * as financialAccounts from '../financial_accounts/store.js';
import type { ProgramScope } from '../programs/scope.js';
import { startServer } from '../server.js';
import { movableWallClock } from '../testing/clock.js';
import { describeWithDb, engine, sdkClient, testConfig, useTestServer, type TestProgram } from '../testing/harness.js';
import { balanceOf, bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';
import { dueOperations } from './service.js';
import * as store from './store.js';

const { wall, advance } = movableWallClock('2034-07-10T12:00:00.000Z');

describeWithDb('management operations waiting for a SUSPENDED account', () => {
  const encryptionKey = crypto.randomBytes(32);
  const context = useTestServer({ wall, config: { encryptionKey } });

  /** A program whose only PENDING operation (a credit of 70) reached its date while its account was SUSPENDED. */
  async function waitingCredit(program: TestProgram) {
    const { client } = program;
    const account = await newAccount(client, 'suspended');
    const tomorrow = new Date(wall.nowMs() + MS_PER_DAY).toISOString().slice(0, 10);
    const credit = await client.managementOperations.create({
      amount: 70,
      category: 'MANAGEMENT_REWARD',
      direction: 'CREDIT',
      effective_date: tomorrow,
      event_type: 'CASH_BACK',
      financial_account_token: account,
    });
    await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' });
    advance(MS_PER_DAY);
    expect((await client.managementOperations.retrieve(credit.token)).status).toBe('PENDING');
    return { account, credit };
  }

  const scopeOf = (program: TestProgram): ProgramScope => ({ programId: program.programId, clockOffsetMs: 0, nowMs: wall.nowMs() });

  it('is not due while it waits, so writes elsewhere in the program find nothing to catch up; it is due again once its account is OPEN', async () => {
    const program = await context.server.newProgram('waiting');
    const { client } = program;
    const { account, credit } = await waitingCredit(program);
    const [a, b] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
    await fund(client, a, 1_000);
    const card = await cardOnOwnAccount(client);
    expect((await bookTransfer(client, a, b, 100)).status).toBe('SETTLED');
    await authorize(client, card, 5);

    const { db } = context.server.server;
    expect(await dueOperations.check(db.kysely, scopeOf(program))).toMatchObject({ due: false });
    expect(await db.transaction((tx) => isDueWithin(db, tx, dueOperations, scopeOf(program)))).toBe(false);
    expect((await client.managementOperations.retrieve(credit.token)).status).toBe('PENDING');

    // The account OPEN in the database (no request reopens it without applying the operation): due.
    await db.transaction((tx) => financialAccounts.update(tx, program.programId, account, { status: 'OPEN', substatus: null }, wall.nowMs()));
    expect(await dueOperations.check(db.kysely, scopeOf(program))).toEqual({ due: true });
  });

  it('takes effect in the transaction that makes its account OPEN again, dated then', async () => {
    const program = await context.server.newProgram('reopened');
    const { client } = program;
    const { account, credit } = await waitingCredit(program);
    advance(60_000);
    const reopened = await client.financialAccounts.updateStatus(account, { status: 'OPEN', substatus: null });
    // Read straight from the database: no read caught up on it since.
    const row = await store.find(context.server.server.db.kysely, program.programId, credit.token);
    expect({ status: row?.status, updated: row && new Date(Number(row.updated_ms)).toISOString() }).toEqual({ status: 'SETTLED', updated: reopened.updated });
    expect(await balanceOf(client, account)).toEqual({ available: 70, pending: 0, total: 70 });
    const events = await client.events.list({ event_types: ['financial_account.updated', 'management_operation.updated'], page_size: 2 });
    expect(events.data.map((event) => [event.event_type, event.created]).reverse()).toEqual([
      ['financial_account.updated', reopened.updated],
      ['management_operation.updated', reopened.updated],
    ]);
  });

  // Horizons are per server: one reopening on another server must not leave the operation hidden.
  it.skipIf(engine !== 'postgres')('a server that learned nothing was due while it waited reads it applied once another server reopened its account', async () => {
    const program = await context.server.newProgram('two servers');
    const { client } = program;
    const { account } = await waitingCredit(program);
    const other = await startServer(testConfig(context.server.database, { encryptionKey }), { wall, logStream: { write: () => true } });
    onTestFinished(() => other.close());
    expect(await balanceOf(client, account)).toEqual({ available: 0, pending: 0, total: 0 }); // this server learns a horizon
    advance(60_000);
    await sdkClient(other.url, program.apiKey).financialAccounts.updateStatus(account, { status: 'OPEN', substatus: null });
    expect(await balanceOf(client, account)).toEqual({ available: 70, pending: 0, total: 70 });
  });
});
