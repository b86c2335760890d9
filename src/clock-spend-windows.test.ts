/**
 * Spend windows across month and year boundaries, reached by long clock moves: what a limit
 * declined is approved once the clock crosses into the window that no longer holds the spend, to
 * the millisecond (reference 04-cards.md: MONTHLY per spec 2.7, "6 days after the current calendar
 * date one month earlier"; ANNUALLY the trailing year; an account's monthly limit likewise).
 */
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { frozenWallClock } from './testing/clock.js';
import { describeWithDb, useTestServer } from './testing/harness.js';
import { authorize, cardOnOwnAccount, LIMITS_OUT_OF_REACH, moveClock, type Card } from './testing/transactions.js';

async function statusOf(client: Lithic, card: Card, cents: number) {
  const transaction = await client.transactions.retrieve(await authorize(client, card, cents));
  return [transaction.status, transaction.events?.[0]?.detailed_results?.[0]];
}

/** Spends `cents` on the card now and clears it (a cleared spend stays in its window; a hold would expire). */
async function spendCleared(client: Lithic, card: Card, cents: number) {
  const token = await authorize(client, card, cents);
  expect((await client.transactions.retrieve(token)).status).toBe('PENDING');
  await client.transactions.simulateClearing({ token });
}

describeWithDb('spend windows after long clock moves', () => {
  const { wall } = frozenWallClock('2031-06-01T12:00:00.000Z');
  const context = useTestServer({ wall });

  it('MONTHLY card and account limits: a December spend counts through January 14 and not from January 15, after a jump over the year end', async () => {
    const { client } = await context.server.newProgram();
    await moveClock(client, '2031-12-20T12:00:00.000Z');
    const limitedCard = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'MONTHLY' });
    await client.accounts.update(limitedCard.account_token, LIMITS_OUT_OF_REACH);
    const limitedAccount = await cardOnOwnAccount(client);
    await client.accounts.update(limitedAccount.account_token, { ...LIMITS_OUT_OF_REACH, monthly_spend_limit: 1_000 });
    await spendCleared(client, limitedCard, 900);
    await spendCleared(client, limitedAccount, 900);
    // On 2032-01-14 the window starts 2031-12-14 + 6 days = 2031-12-20T00:00Z; on 2032-01-15, at 2031-12-21T00:00Z.
    await moveClock(client, '2032-01-14T23:59:59.999Z');
    expect(await statusOf(client, limitedCard, 101)).toEqual(['DECLINED', 'CARD_SPEND_LIMIT_EXCEEDED']);
    expect(await statusOf(client, limitedAccount, 101)).toEqual(['DECLINED', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED']);
    await moveClock(client, '2032-01-15T00:00:00.000Z');
    expect(await statusOf(client, limitedCard, 1_000)).toEqual(['PENDING', 'APPROVED']);
    expect(await statusOf(client, limitedAccount, 1_000)).toEqual(['PENDING', 'APPROVED']);
    expect(await statusOf(client, limitedCard, 1)).toEqual(['DECLINED', 'CARD_SPEND_LIMIT_EXCEEDED']);
  });

  it('ANNUALLY: a spend on a leap day counts through the trailing year, then frees the limit', async () => {
    const { client } = await context.server.newProgram();
    await moveClock(client, '2032-02-29T12:00:00.000Z');
    const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'ANNUALLY' });
    await client.accounts.update(card.account_token, LIMITS_OUT_OF_REACH);
    await spendCleared(client, card, 900);
    // The same instant a year back from 2033-02-28T23:59:59.999Z is 2032-02-28T23:59:59.999Z: the spend is in.
    await moveClock(client, '2033-02-28T23:59:59.999Z');
    expect(await statusOf(client, card, 101)).toEqual(['DECLINED', 'CARD_SPEND_LIMIT_EXCEEDED']);
    await moveClock(client, '2033-03-01T00:00:00.000Z');
    expect(await statusOf(client, card, 1_000)).toEqual(['PENDING', 'APPROVED']);
  });
});
