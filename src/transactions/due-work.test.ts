/**
 * A network message that moves money on a new card transaction (a RETURN) applies what fell due on
 * the program clock before it lands, as every money write does (clock-jobs.ts `applyDueMoney`): a
 * management operation dated at midnight is decided on the funds at midnight, not on the return
 * that came after it. On PostgreSQL an authorization checks what fell due once, before it locks its
 * card (`lockDueRowsBeforeOwn`), and acts on that answer: work another request commits in between
 * does not make it run the jobs after its card is locked.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import * as operations from '../management_operations/service.js';
import type { ProgramScope } from '../programs/scope.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { newAccount } from '../testing/money.js';
import { cardOnOwnAccount, issuingBalance } from '../testing/transactions.js';
import type { Db } from '../db/database.js';
import * as cardStore from '../cards/store.js';

/** Whether a statement of this database waits for a card's row lock (PostgreSQL). */
async function waitingOnACard(db: Db): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%"cards"%for update%'`.execute(db.kysely);
  return (rows[0]?.n ?? 0) > 0;
}

const MS_PER_HOUR = 3_600_000;

describeWithDb('what fell due before a network message', () => {
  const clock = frozenWallClock('2034-03-10T12:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  it('a RETURN after a debit operation fell due: the operation is decided on the funds before the return (declined), then the return credits', async () => {
    const { client } = context.program;
    const card = await cardOnOwnAccount(client);
    const fee = await client.managementOperations.create({
      amount: 1_000,
      category: 'MANAGEMENT_FEE',
      direction: 'DEBIT',
      effective_date: '2034-03-11',
      event_type: 'LATE_PAYMENT',
      financial_account_token: card.funding.token,
    });
    expect(fee.status).toBe('PENDING');
    clock.advance(13 * MS_PER_HOUR); // 2034-03-11T01:00Z: the fee fell due at midnight, on an empty balance
    await client.transactions.simulateReturn({ amount: 1_000, descriptor: 'REFUND', pan: card.pan });
    const decided = await client.managementOperations.retrieve(fee.token);
    expect({ status: decided.status, result: decided.result }).toEqual({ status: 'DECLINED', result: 'DECLINED' });
    expect(await issuingBalance(client, card)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
  });

  it.skipIf(engine !== 'postgres')('an authorization that found nothing due runs no job for an operation another request committed, already due, while it locked its card', async () => {
    const { client, programId } = context.program;
    const { db } = context.server.server;
    const card = await cardOnOwnAccount(client);
    const credited = await newAccount(client, 'credited at midnight');
    clock.advance(22 * MS_PER_HOUR + 59 * 60_000); // 2034-03-11T23:59Z
    const beforeMidnight: ProgramScope = { programId, clockOffsetMs: 0, nowMs: clock.wall.nowMs() };
    clock.advance(2 * 60_000); // 2034-03-12T00:01Z
    // A request that read the clock before midnight: its operation is PENDING, and due at once.
    const body = { amount: 500, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2034-03-12', event_type: 'PROVISIONAL_CREDIT', financial_account_token: credited } as const;
    let authorization: Promise<unknown> | undefined;
    const operation = await db.transaction(async (tx) => {
      await cardStore.lockCard(db, tx, programId, card.token); // the authorization waits here, after its due check
      authorization = client.transactions.simulateAuthorization({ amount: 100, descriptor: 'COFFEE SHOP', pan: card.pan });
      for (let attempt = 0; !(await waitingOnACard(db)); attempt++) {
        if (attempt > 200) throw new Error('the authorization never waited for its card');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return db.transaction((other) => operations.create(db, other, beforeMidnight, body));
    });
    await authorization;
    expect(operation.status).toBe('PENDING');
    const row = await db.kysely.selectFrom('management_operations').select('status').where('program_id', '=', programId).where('token', '=', operation.token).executeTakeFirst();
    expect(row?.status).toBe('PENDING');
    expect((await client.managementOperations.retrieve(operation.token)).status).toBe('SETTLED'); // the next read catches up
  });
});
