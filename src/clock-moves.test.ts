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
import { manualBankAccount, newAccount } from './testing/money.js';
import { authorize, cardOnOwnAccount, moveClock } from './testing/transactions.js';

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

async function clockTimeline(client: Lithic): Promise<string[][]> {
  const events = await eventsOf(client, []);
  return events.filter((event) => event.created > START).map((event) => [event.event_type, event.created]);
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

  it('an operation is dated on its date, or after the last movement of its account if one came later', async () => {
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
    await authorize(client, card, 10); // a card message moves the account's money without applying due operations
    expect((await client.managementOperations.retrieve(second.token)).updated).toBe(iso(tomorrowMs + MS_PER_DAY + 2 * MS_PER_HOUR));
  });
});
