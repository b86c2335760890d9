/**
 * A network message that moves money on a new card transaction (a RETURN) applies what fell due on
 * the program clock before it lands, as every money write does (clock-jobs.ts `applyDueMoney`): a
 * management operation dated at midnight is decided on the funds at midnight, not on the return
 * that came after it.
 */
import { expect, it } from 'vitest';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { cardOnOwnAccount, issuingBalance } from '../testing/transactions.js';

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
});
