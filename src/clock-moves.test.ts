/**
 * What a clock move applies: each clock-driven effect exactly once, dated at the instant it fell
 * due, in the order things fell due, whether the clock jumps or steps and whether a read catches
 * up first.
 */
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from './clock.js';
import { frozenWallClock } from './testing/clock.js';
import { describeWithDb, useTestServer } from './testing/harness.js';
import { balanceOf, bookTransfer, fund, manualBankAccount, newAccount } from './testing/money.js';
import { enforcedRule, velocityLimit } from './testing/auth_rules.js';
import { authorize, cardOnOwnAccount, moveClock, simulateChallenge, type Card } from './testing/transactions.js';

const START = '2030-01-10T12:00:00.000Z';
const iso = (ms: number) => new Date(ms).toISOString();

async function eventsOf(client: Lithic, types: string[]): Promise<Lithic.Event[]> {
  const events: Lithic.Event[] = [];
  for await (const event of client.events.list({ event_types: types as Lithic.EventListParams['event_types'], with_content: true, page_size: 100 })) events.push(event);
  return events.reverse(); // oldest first
}

const SHIPPING_ADDRESS = { first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA' };

/**
 * One of each clock-driven effect, made at START: a PHYSICAL card (ships 2030-01-11T00:00), a hold
 * (expires 2030-01-17T12:00), a PRENOTE (enabled 2030-01-13T12:00), a credit dated 2030-01-15.
 */
async function oneOfEach(client: Lithic) {
  const card = await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS });
  const hold = await authorize(client, card, 700);
  const operating = await newAccount(client);
  const bankAccount = await client.externalBankAccounts.create({ ...manualBankAccount(operating), verification_method: 'PRENOTE' });
  const credit = await client.managementOperations.create({
    amount: 300, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-15',
    event_type: 'PROVISIONAL_CREDIT', financial_account_token: card.funding.token,
  });
  return { card, hold, operating, bankAccount, credit };
}

/** What the clock did to `oneOfEach`, oldest first: each effect's event type and instant. */
const EXPECTED_TIMELINE = [
  ['card.shipped', '2030-01-11T00:00:00.000Z'],
  ['external_bank_account.updated', '2030-01-13T12:00:00.000Z'],
  ['balance.updated', '2030-01-15T00:00:00.000Z'],
  ['management_operation.updated', '2030-01-15T00:00:00.000Z'],
  ['balance.updated', '2030-01-17T12:00:00.000Z'],
  ['card_transaction.updated', '2030-01-17T12:00:00.000Z'],
];

/**
 * The events the clock made, in the order they were recorded (their tokens increase within a
 * process: ids.ts), which is the order webhooks are sent in. `GET /v1/events` orders by `created`:
 * both orders must be the one things fell due in.
 */
async function clockTimeline(client: Lithic): Promise<string[][]> {
  const events = (await eventsOf(client, [])).filter((event) => event.created > START);
  const recorded = [...events].sort((a, b) => (a.token < b.token ? -1 : 1));
  expect(recorded.map((event) => event.token), 'the order recorded is the order of `created`').toEqual(events.map((event) => event.token));
  return events.map((event) => [event.event_type, event.created]);
}

/** Every read that catches up on clock-driven work. */
async function readEverything(client: Lithic, made: Awaited<ReturnType<typeof oneOfEach>>) {
  await Promise.all([
    client.cards.retrieve(made.card.token),
    client.cards.list(),
    client.transactions.retrieve(made.hold),
    client.transactions.list(),
    client.externalBankAccounts.retrieve(made.bankAccount.token),
    client.externalBankAccounts.list(),
    client.managementOperations.retrieve(made.credit.token),
    client.financialAccounts.balances.list(made.card.funding.token),
    client.balances.list(),
    client.financialAccounts.financialTransactions.list(made.card.funding.token),
    client.accounts.retrieveSpendLimits(made.card.account_token),
  ]);
}

describeWithDb('clock moves: dating and order', () => {
  const { wall } = frozenWallClock(START);
  const context = useTestServer({ wall });

  it('one jump of 400 days, or 6-hour steps with reads in between: each effect once, at its instant, in that order', async () => {
    const jumping = (await context.server.newProgram()).client;
    await oneOfEach(jumping);
    await moveClock(jumping, iso(Date.parse(START) + 400 * MS_PER_DAY));
    expect(await clockTimeline(jumping)).toEqual(EXPECTED_TIMELINE);

    const stepping = (await context.server.newProgram()).client;
    const made = await oneOfEach(stepping);
    for (let stepMs = Date.parse(START) + 6 * MS_PER_HOUR; stepMs <= Date.parse('2030-01-20T00:00:00Z'); stepMs += 6 * MS_PER_HOUR) {
      await moveClock(stepping, iso(stepMs));
      await readEverything(stepping, made);
    }
    expect(await clockTimeline(stepping)).toEqual(EXPECTED_TIMELINE);
  });

  it('a hold that expires the evening before a card ships is announced first, though the card was made after it', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    await authorize(client, card, 800); // expires 2030-01-17T12:00
    await moveClock(client, '2030-01-17T09:00:00.000Z');
    await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS }); // ships 2030-01-18T00:00
    await client.managementOperations.create({
      amount: 300, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-19',
      event_type: 'PROVISIONAL_CREDIT', financial_account_token: card.funding.token,
    });
    await moveClock(client, '2030-01-20T12:00:00.000Z');
    expect((await clockTimeline(client)).filter(([, created]) => (created ?? '') > '2030-01-17T09:00:01.000Z')).toEqual([
      ['balance.updated', '2030-01-17T12:00:00.000Z'],
      ['card_transaction.updated', '2030-01-17T12:00:00.000Z'],
      ['card.shipped', '2030-01-18T00:00:00.000Z'],
      ['balance.updated', '2030-01-19T00:00:00.000Z'],
      ['management_operation.updated', '2030-01-19T00:00:00.000Z'],
    ]);
  });

  it('a 3-D Secure challenge that timed out before a hold expired is announced before it, and one after it after it, in one move', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    await authorize(client, card, 800); // expires 2030-01-17T12:00
    await moveClock(client, '2030-01-17T11:44:00.000Z');
    const token = await simulateChallenge(client, card); // times out 2030-01-17T11:54
    await simulateChallenge(client, card); // times out 2030-01-17T11:54 as well
    await moveClock(client, '2030-01-17T11:52:00.000Z');
    await simulateChallenge(client, card); // times out 2030-01-17T12:02
    await moveClock(client, '2030-01-17T12:10:00.000Z');
    expect((await clockTimeline(client)).filter(([, created]) => (created ?? '') > '2030-01-17T11:52:00.000Z')).toEqual([
      ['three_ds_authentication.updated', '2030-01-17T11:54:00.000Z'],
      ['three_ds_authentication.updated', '2030-01-17T11:54:00.000Z'],
      ['balance.updated', '2030-01-17T12:00:00.000Z'],
      ['card_transaction.updated', '2030-01-17T12:00:00.000Z'],
      ['three_ds_authentication.updated', '2030-01-17T12:02:00.000Z'],
    ]);
    expect((await client.threeDS.authentication.retrieve(token)).challenge_metadata?.status).toBe('CARDHOLDER_TIMEOUT');
  });

  it('two clock moves at once: each effect once (PostgreSQL runs them side by side)', async () => {
    const { client } = await context.server.newProgram();
    await oneOfEach(client);
    const moves = await Promise.allSettled([moveClock(client, '2031-01-01T00:00:00Z'), moveClock(client, '2031-01-01T00:00:00Z'), moveClock(client, '2030-12-31T00:00:00Z')]);
    // The two moves to 2031-01-01 both succeed (the second moves nowhere). The move to 2030-12-31
    // either came first (and succeeded) or is refused with the move-back 400; either way the clock
    // ends at 2031-01-01.
    expect(moves.slice(0, 2).map((move) => move.status)).toEqual(['fulfilled', 'fulfilled']);
    const [, , earlier] = moves;
    const refusal = earlier?.status === 'rejected' ? earlier.reason : undefined;
    expect(refusal === undefined || (refusal.status === 400 && /now: must not be earlier than the program's current time/.test(String(refusal)))).toBe(true);
    expect(await client.get('/v1/simulate/clock')).toMatchObject({ now: expect.stringMatching(/^2031-01-01T00:00:00(\.000)?Z$/) });
    expect(await clockTimeline(client)).toEqual(EXPECTED_TIMELINE);
  });

  it('a write racing a clock move is wholly before it or wholly after it: never decided after the move yet dated before', async () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const { client } = await context.server.newProgram();
      const from = await newAccount(client);
      const to = await newAccount(client);
      await client.managementOperations.create({
        amount: 100, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-11',
        event_type: 'PROVISIONAL_CREDIT', financial_account_token: from,
      });
      const [, transfer] = await Promise.all([moveClock(client, '2030-01-11T01:00:00.000Z'), bookTransfer(client, from, to, 100)]);
      // Approved only on the credit the move applied at 2030-01-11T00:00, so dated after it; declined only before it.
      expect({ result: transfer.result, afterTheCredit: transfer.created >= '2030-01-11T00:00:00.000Z' }).toEqual({
        result: transfer.result,
        afterTheCredit: transfer.result === 'APPROVED',
      });
    }
  });

  it("another program's clock and due work are left alone", async () => {
    const { client } = await context.server.newProgram();
    const other = (await context.server.newProgram()).client;
    const made = await oneOfEach(other);
    await moveClock(client, iso(Date.parse(START) + 400 * MS_PER_DAY));
    expect((await other.get('/v1/simulate/clock')) as { now: string }).toEqual({ now: START });
    expect(await statesOf(other, made)).toEqual({ card: 'PENDING_FULFILLMENT', hold: 'PENDING', prenote: 'PENDING', operation: 'PENDING' });
    expect(await clockTimeline(other)).toEqual([]);
  });

  it('operations due at one instant are journaled, announced and listed in the order they took effect', async () => {
    const { client } = await context.server.newProgram();
    const account = await newAccount(client);
    const created: string[] = [];
    for (let index = 1; index <= 8; index++) {
      const operation = await client.managementOperations.create({
        amount: index, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-12',
        event_type: 'PROVISIONAL_CREDIT', financial_account_token: account,
      });
      created.push(operation.token);
    }
    await moveClock(client, '2030-01-20T00:00:00Z');
    const updated = await eventsOf(client, ['management_operation.updated']);
    expect(updated.map((event) => (event.payload as { token: string }).token)).toEqual(created);
    expect(new Set(updated.map((event) => event.created))).toEqual(new Set(['2030-01-12T00:00:00.000Z']));
    const balances = (await eventsOf(client, ['balance.updated'])).filter((event) => (event.payload as { data: { token: string }[] }).data[0]?.token === account);
    expect(balances.map((event) => (event.payload as { data: { available_amount: number }[] }).data[0]?.available_amount)).toEqual([1, 3, 6, 10, 15, 21, 28, 36]);
    const [now] = (await client.financialAccounts.balances.list(account)).data;
    const [then] = (await client.financialAccounts.balances.list(account, { balance_date: '2030-01-12T00:00:00Z' })).data;
    expect(then?.last_transaction_token).toBe(created[7]);
    expect(then).toEqual(now);
  });

  it('a PHYSICAL card ships at the first midnight after its creation, however far the clock jumps', async () => {
    const { client } = await context.server.newProgram();
    const card = await client.cards.create({ type: 'PHYSICAL', shipping_address: { first_name: 'A', last_name: 'B', address1: '1 Main St', city: 'NYC', state: 'NY', postal_code: '10001', country: 'USA' } });
    await moveClock(client, iso(Date.parse(START) + 400 * MS_PER_DAY));
    expect((await client.cards.retrieve(card.token)).state).toBe('PENDING_ACTIVATION');
    const shipped = await eventsOf(client, ['card.shipped']);
    expect(shipped.map((event) => event.created)).toEqual(['2030-01-11T00:00:00.000Z']);
  });

  it('a PRENOTE bank account is ENABLED 3 days after the prenote, however far the clock jumps', async () => {
    const { client } = await context.server.newProgram();
    const operating = await newAccount(client);
    const bankAccount = await client.externalBankAccounts.create({ ...manualBankAccount(operating), verification_method: 'PRENOTE' });
    expect(bankAccount.verification_state).toBe('PENDING');
    await moveClock(client, iso(Date.parse(START) + 400 * MS_PER_DAY));
    expect((await client.externalBankAccounts.retrieve(bankAccount.token)).verification_state).toBe('ENABLED');
    const updated = await eventsOf(client, ['external_bank_account.updated']);
    expect(updated.map((event) => [event.created, (event.payload as { verification_state: string }).verification_state])).toEqual([['2030-01-13T12:00:00.000Z', 'ENABLED']]);
  });

  it('an authorization expires once, 7 days after it was made, when the clock jumps 400 days', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    const token = await authorize(client, card, 500);
    await moveClock(client, iso(Date.parse(START) + 400 * MS_PER_DAY));
    const transaction = await client.transactions.retrieve(token);
    expect(transaction.status).toBe('EXPIRED');
    expect(transaction.events?.map((event) => [event.type, event.created])).toEqual([
      ['AUTHORIZATION', START],
      ['AUTHORIZATION_EXPIRY', '2030-01-17T12:00:00.000Z'],
    ]);
  });
});

describeWithDb('the real-speed clock: what it made due is dated when it fell due, whoever applies it', () => {
  const { wall, advance } = frozenWallClock(START);
  const context = useTestServer({ wall });

  it('each effect once, at its instant, also when concurrent reads catch up on it together', async () => {
    const { client } = await context.server.newProgram();
    const made = await oneOfEach(client);
    advance(10 * MS_PER_DAY); // no clock move, no sweep: only the reads catch up
    await Promise.all([readEverything(client, made), readEverything(client, made), readEverything(client, made)]);
    expect(await clockTimeline(client)).toEqual(EXPECTED_TIMELINE);
  });

  it('an operation whose date came before the move is decided then, not after the jump', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    const account = card.funding.token;
    const todayMs = Date.parse(iso(wall.nowMs()).slice(0, 10));
    await client.managementOperations.create({ amount: 100, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: iso(todayMs).slice(0, 10), event_type: 'PROVISIONAL_CREDIT', financial_account_token: account });
    await authorize(client, card, 100); // holds all of it for 7 days
    const tomorrowMs = todayMs + MS_PER_DAY;
    const debit = await client.managementOperations.create({ amount: 50, category: 'MANAGEMENT_FEE', direction: 'DEBIT', effective_date: iso(tomorrowMs).slice(0, 10), event_type: 'LATE_PAYMENT', financial_account_token: account });
    advance(tomorrowMs + MS_PER_HOUR - wall.nowMs()); // the real clock passes midnight, no sweep yet
    await moveClock(client, iso(tomorrowMs + 365 * MS_PER_DAY));
    const decided = await client.managementOperations.retrieve(debit.token);
    expect(decided.status).toBe('DECLINED');
    expect(decided.updated).toBe(iso(tomorrowMs));
  });

  it('an operation is dated on its date, whichever request applies it: a read, or a card message on its account', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    const today = iso(wall.nowMs()).slice(0, 10);
    const tomorrowMs = Date.parse(today) + MS_PER_DAY;
    const operate = (dayStartMs: number) =>
      client.managementOperations.create({
        amount: 100, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: iso(dayStartMs).slice(0, 10),
        event_type: 'PROVISIONAL_CREDIT', financial_account_token: card.funding.token,
      });
    const first = await operate(tomorrowMs);
    advance(tomorrowMs + MS_PER_HOUR - wall.nowMs()); // 01:00: due for an hour, nothing has applied it
    expect((await client.managementOperations.retrieve(first.token)).updated).toBe(iso(tomorrowMs));

    const second = await operate(tomorrowMs + MS_PER_DAY);
    advance(MS_PER_DAY + MS_PER_HOUR); // 02:00 the next day
    await authorize(client, card, 10); // a card message applies the due operation before it moves the account's money
    expect((await client.managementOperations.retrieve(second.token)).updated).toBe(iso(tomorrowMs + MS_PER_DAY));
  });

  it('an operation dated before a hold expired is decided on the funds the hold still held, when a card message is the first to find both due', async () => {
    // Each first request, and the available balance it leaves: 100 funded, the debit declined, 1 held by the authorization.
    const firstRequests = [
      ['an authorization that checks no funds', (client: Lithic, card: Card) => authorize(client, card, 1), 99 - 10],
      ['a clearing of another authorization', (client: Lithic, _card: Card, other: string) => client.transactions.simulateClearing({ token: other }), 100 - 10],
    ] as const;
    for (const [name, firstRequest, available] of firstRequests) {
      const { client } = await context.server.newProgram();
      const card = await cardOnOwnAccount(client);
      await fund(client, card.funding.token, 100);
      await authorize(client, card, 90); // holds 90 for 7 days
      const madeMs = wall.nowMs();
      const dayThreeMs = Date.parse(iso(madeMs).slice(0, 10)) + 3 * MS_PER_DAY;
      const debit = await client.managementOperations.create({
        amount: 50, category: 'MANAGEMENT_FEE', direction: 'DEBIT', effective_date: iso(dayThreeMs).slice(0, 10),
        event_type: 'LATE_PAYMENT', financial_account_token: card.funding.token,
      });
      advance(2 * MS_PER_DAY);
      const other = await authorize(client, card, 10); // expires 2 days after the first
      advance(6 * MS_PER_DAY); // the first hold expired 5 days after the debit's date, the other not yet; no read or sweep since
      await firstRequest(client, card, other);
      const decided = await client.managementOperations.retrieve(debit.token);
      expect({ name, status: decided.status, updated: decided.updated }).toEqual({ name, status: 'DECLINED', updated: iso(dayThreeMs) });
      expect((await balanceOf(client, card.funding.token)).available, name).toBe(available);
      expect((await clockTimeline(client)).map(([type]) => type), name).toContain('management_operation.updated');
    }
  });
});

/** The state each clock-driven effect is in at the program's current time. */
async function statesOf(client: Lithic, made: Awaited<ReturnType<typeof oneOfEach>>) {
  return {
    card: (await client.cards.retrieve(made.card.token)).state,
    hold: (await client.transactions.retrieve(made.hold)).status,
    prenote: (await client.externalBankAccounts.retrieve(made.bankAccount.token)).verification_state,
    operation: (await client.managementOperations.retrieve(made.credit.token)).status,
  };
}

/**
 * Made at 2030-01-10T23:59:59.999Z: the card ships and the operation (dated 2030-01-11) takes
 * effect 1 ms later, the prenote ends 3 days later and the hold expires 7 days later, to the
 * millisecond. `moveTo` brings the program's clock to an instant (a clock move, or the real-speed
 * clock with reads catching up).
 */
async function checkBoundaries(client: Lithic, moveTo: (ms: number) => Promise<void>) {
  const madeMs = Date.parse('2030-01-10T23:59:59.999Z');
  await moveClock(client, iso(madeMs));
  const card = await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS });
  const hold = await authorize(client, card, 700);
  const bankAccount = await client.externalBankAccounts.create({ ...manualBankAccount(await newAccount(client)), verification_method: 'PRENOTE' });
  const credit = await client.managementOperations.create({
    amount: 300, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-11',
    event_type: 'PROVISIONAL_CREDIT', financial_account_token: card.funding.token,
  });
  const made = { card, hold, bankAccount, credit, operating: '' };
  const before = { card: 'PENDING_FULFILLMENT', hold: 'PENDING', prenote: 'PENDING', operation: 'PENDING' };
  expect(await statesOf(client, made)).toEqual(before);
  const midnightMs = madeMs + 1;
  await moveTo(midnightMs);
  expect(await statesOf(client, made)).toEqual({ ...before, card: 'PENDING_ACTIVATION', operation: 'SETTLED' });
  await moveTo(madeMs + 3 * MS_PER_DAY - 1);
  expect((await statesOf(client, made)).prenote).toBe('PENDING');
  await moveTo(madeMs + 3 * MS_PER_DAY);
  expect((await statesOf(client, made)).prenote).toBe('ENABLED');
  await moveTo(madeMs + 7 * MS_PER_DAY - 1);
  expect((await statesOf(client, made)).hold).toBe('PENDING');
  await moveTo(madeMs + 7 * MS_PER_DAY);
  expect((await statesOf(client, made)).hold).toBe('EXPIRED');
  expect(await eventsOf(client, ['card.shipped', 'external_bank_account.updated', 'management_operation.updated', 'card_transaction.updated']).then((events) =>
    events.filter((event) => event.created > iso(madeMs)).map((event) => [event.event_type, event.created]),
  )).toEqual([
    ['card.shipped', iso(midnightMs)],
    ['management_operation.updated', iso(midnightMs)],
    ['external_bank_account.updated', iso(madeMs + 3 * MS_PER_DAY)],
    ['card_transaction.updated', iso(madeMs + 7 * MS_PER_DAY)],
  ]);
}

describeWithDb('boundaries: each effect at its instant to the millisecond', () => {
  const { wall, advance } = frozenWallClock(START);
  const context = useTestServer({ wall });

  it('when the clock is moved to each instant', async () => {
    const { client } = await context.server.newProgram();
    await checkBoundaries(client, (ms) => moveClock(client, iso(ms)));
  });

  it('when the real-speed clock reaches it and reads catch up (horizons included)', async () => {
    const { client } = await context.server.newProgram();
    const now = async () => Date.parse(((await client.get('/v1/simulate/clock')) as { now: string }).now);
    await checkBoundaries(client, async (ms) => advance(ms - (await now())));
  });

  it('velocity DAY windows start at midnight US Eastern on both daylight saving changes', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client);
    await enforcedRule(client, velocityLimit({ limit_count: 1, period: { type: 'DAY' } }, { card_tokens: [card.token] }, 'one a day'));
    const statusAt = async (instant: string) => {
      await moveClock(client, instant);
      return (await client.transactions.retrieve(await authorize(client, card, 100))).status;
    };
    // 2030-03-10 (DST starts at 02:00) runs from 05:00Z to 04:00Z; 2030-11-03 (DST ends) from 04:00Z to 05:00Z.
    for (const [dayStart, lastMs, nextDay] of [
      ['2030-03-10T05:00:00.000Z', '2030-03-11T03:59:59.999Z', '2030-03-11T04:00:00.000Z'],
      ['2030-11-03T04:00:00.000Z', '2030-11-04T04:59:59.999Z', '2030-11-04T05:00:00.000Z'],
    ] as const) {
      expect([await statusAt(dayStart), await statusAt(lastMs), await statusAt(nextDay)]).toEqual(['PENDING', 'DECLINED', 'PENDING']);
    }
  });

  it('a MONTHLY card limit counts from 6 days after the same date one month back, a leap day at the end of March', async () => {
    const { client } = await context.server.newProgram();
    const card = await cardOnOwnAccount(client, { spend_limit: 1_000, spend_limit_duration: 'MONTHLY' });
    const spend = async (instant: string, cents: number) => {
      await moveClock(client, instant);
      const token = await authorize(client, card, cents);
      const status = (await client.transactions.retrieve(token)).status;
      if (status === 'PENDING') await client.transactions.simulateClearing({ token }); // settled spend stays in its window
      return status;
    };
    expect(await spend('2032-03-05T23:59:59.999Z', 600)).toBe('PENDING');
    expect(await spend('2032-03-06T00:00:00.000Z', 300)).toBe('PENDING');
    // On 2032-03-31 one month back is 2032-02-29 (clamped): the window starts 2032-03-06T00:00Z.
    expect(await spend('2032-03-31T23:59:59.999Z', 701)).toBe('DECLINED');
    expect(await spend('2032-03-31T23:59:59.999Z', 700)).toBe('PENDING');
  });
});

describeWithDb('clock-driven work a write finds due as the real clock passes', () => {
  const { wall, advance } = frozenWallClock(START);
  const context = useTestServer({ wall });

  it('a transfer that finds an operation due applies what fell due before it first, in order', async () => {
    const { client } = await context.server.newProgram();
    await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS }); // ships 2030-01-11T00:00
    const from = await newAccount(client);
    const to = await newAccount(client);
    await client.managementOperations.create({
      amount: 500, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: '2030-01-12',
      event_type: 'PROVISIONAL_CREDIT', financial_account_token: from,
    });
    advance(2.5 * MS_PER_DAY); // 2030-01-13T00:00, no read or sweep in between: the transfer is the first to look
    expect((await bookTransfer(client, from, to, 500)).result).toBe('APPROVED');
    expect(await clockTimeline(client)).toEqual([
      ['card.shipped', '2030-01-11T00:00:00.000Z'],
      ['balance.updated', '2030-01-12T00:00:00.000Z'],
      ['management_operation.updated', '2030-01-12T00:00:00.000Z'],
      ['balance.updated', '2030-01-13T00:00:00.000Z'],
      ['book_transfer_transaction.created', '2030-01-13T00:00:00.000Z'],
    ]);
  });

  it('a card PATCH or a bank account PATCH that finds its own work due records what fell due before it first, in order', async () => {
    const writes = {
      'a card PATCH': async (client: Lithic) => {
        const card = await cardOnOwnAccount(client, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS }); // ships at the next midnight
        return { dueMs: Date.parse(iso(wall.nowMs()).slice(0, 10)) + MS_PER_DAY, write: () => client.cards.update(card.token, { memo: 'gift' }) };
      },
      'a bank account PATCH': async (client: Lithic) => {
        const bankAccount = await client.externalBankAccounts.create({ ...manualBankAccount(await newAccount(client)), verification_method: 'PRENOTE' });
        return { dueMs: wall.nowMs() + 3 * MS_PER_DAY, write: () => client.externalBankAccounts.update(bankAccount.token, { name: 'Ada' }) };
      },
    };
    for (const [name, made] of Object.entries(writes)) {
      advance(Date.parse(iso(wall.nowMs()).slice(0, 10)) + 1.5 * MS_PER_DAY - wall.nowMs()); // the next noon
      const { client } = await context.server.newProgram();
      const card = await cardOnOwnAccount(client);
      await authorize(client, card, 100); // expires in 7 days, at noon
      const holdExpiresMs = wall.nowMs() + 7 * MS_PER_DAY;
      advance(7 * MS_PER_DAY - 2 * MS_PER_HOUR); // 10:00 the day the hold expires
      const { dueMs, write } = await made(client);
      expect(dueMs, name).toBeGreaterThan(holdExpiresMs);
      advance(dueMs + MS_PER_HOUR - wall.nowMs()); // both fell due, no read or sweep in between: the write is the first to look
      await write();
      const fellDue = (await clockTimeline(client)).filter(([, created]) => (created ?? '') >= iso(holdExpiresMs));
      expect(fellDue.slice(0, 2), name).toEqual([
        ['balance.updated', iso(holdExpiresMs)],
        ['card_transaction.updated', iso(holdExpiresMs)],
      ]);
    }
  });
});
