/**
 * Seed 4.4 `GET /v1/transactions` and `GET /v1/transactions/{token}`: every combination of the
 * filters, read through the SDK's auto-pagination with small pages, against the same filters
 * applied to the transactions the test made; cursors both ways; bad parameters; isolation.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { expectError } from '../testing/money.js';
import { authorize, cardOnOwnAccount, moveClock, type Card } from '../testing/transactions.js';

type Transaction = Lithic.Transaction;
const STATUSES = ['PENDING', 'SETTLED', 'DECLINED', 'VOIDED', 'EXPIRED'] as const;

describeWithDb('listing card transactions', () => {
  const context = useTestServer();
  let lister: TestProgram;
  let cards: Card[];
  /** Every transaction made, newest first, as the API shows it now. */
  let made: Transaction[];

  beforeAll(async () => {
    lister = await context.server.newProgram('lister');
    const { client } = lister;
    await moveClock(client, '2031-06-01T12:00:00.000Z');
    const first = await cardOnOwnAccount(client);
    const sibling = (await client.cards.create({ type: 'VIRTUAL', account_token: first.account_token })) as Card;
    const elsewhere = await cardOnOwnAccount(client);
    cards = [first, sibling, elsewhere];
    const tokens: string[] = [];
    const step = async (index: number, card: Card) => {
      const token = await authorize(client, card, 100 + index, index % 5 === 4 ? { status: 'FINANCIAL_AUTHORIZATION' } : {});
      if (index % 5 === 1) await client.transactions.simulateClearing({ token });
      if (index % 5 === 2) await client.transactions.simulateVoid({ token });
      if (index % 5 === 3) await client.transactions.simulateVoid({ token, type: 'AUTHORIZATION_EXPIRY' });
      tokens.push(token);
    };
    for (let index = 0; index < 15; index++) await step(index, cards[index % 3] as Card);
    await client.cards.update(sibling.token, { state: 'PAUSED' });
    tokens.push(await authorize(client, sibling, 5));
    tokens.push(await authorize(client, sibling, 6));
    await moveClock(client, '2031-06-02T12:00:00.000Z');
    tokens.push(await authorize(client, first, 7, { status: 'CREDIT_AUTHORIZATION' }));
    made = (await Promise.all(tokens.map((token) => client.transactions.retrieve(token)))).reverse();
  });

  async function listAll(query: Lithic.TransactionListParams): Promise<string[]> {
    const tokens: string[] = [];
    for await (const transaction of lister.client.transactions.list({ page_size: 4, ...query })) tokens.push(transaction.token);
    return tokens;
  }

  function expected(query: Lithic.TransactionListParams): string[] {
    return made
      .filter(
        (t) =>
          (query.account_token === undefined || t.account_token === query.account_token) &&
          (query.card_token === undefined || t.card_token === query.card_token) &&
          (query.status === undefined || t.status === query.status) &&
          (query.result === undefined || (query.result === 'APPROVED' ? t.result === 'APPROVED' : t.result !== 'APPROVED')) &&
          (query.begin === undefined || Date.parse(t.created) > Date.parse(query.begin)) &&
          (query.end === undefined || Date.parse(t.created) < Date.parse(query.end)),
      )
      .map((t) => t.token);
  }

  it('made every status and both results to filter on', () => {
    expect(new Set(made.map((t) => t.status))).toEqual(new Set(STATUSES));
    expect(made.filter((t) => t.result !== 'APPROVED').map((t) => t.result)).toEqual(['CARD_PAUSED', 'CARD_PAUSED']);
  });

  it('answers every filter combination, newest first, through auto-pagination', async () => {
    const [first, sibling, elsewhere] = cards as [Card, Card, Card];
    const accounts = [undefined, first.account_token, elsewhere.account_token, crypto.randomUUID()];
    const cardTokens = [undefined, first.token, sibling.token, elsewhere.token];
    const results = [undefined, 'APPROVED', 'DECLINED'] as const;
    const statuses = [undefined, ...STATUSES];
    let combinations = 0;
    let nonEmpty = 0;
    for (const account_token of accounts) {
      for (const card_token of cardTokens) {
        for (const result of results) {
          for (const status of statuses) {
            const query = { account_token, card_token, result, status };
            const defined = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Lithic.TransactionListParams;
            const want = expected(defined);
            expect(await listAll(defined), JSON.stringify(defined)).toEqual(want);
            combinations++;
            if (want.length > 0) nonEmpty++;
          }
        }
      }
    }
    expect(combinations).toBe(4 * 4 * 3 * 6);
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('filters by begin and end (exclusive), alone and with the others', async () => {
    const day2 = '2031-06-02T00:00:00.000Z';
    const middle = made[8] as Transaction;
    for (const range of [{ begin: day2 }, { end: day2 }, { begin: middle.created }, { end: middle.created }, { begin: '2031-06-01T00:00:00Z', end: day2 }]) {
      for (const extra of [{}, { card_token: (cards[0] as Card).token }, { result: 'APPROVED' as const }, { status: 'SETTLED' as const }]) {
        const query = { ...range, ...extra };
        expect(await listAll(query), JSON.stringify(query)).toEqual(expected(query));
      }
    }
    expect(expected({ begin: day2 })).toHaveLength(1);
  });

  it('pages forward with starting_after and backward with ending_before, has_more in the direction of travel', async () => {
    const all = made.map((t) => t.token);
    const page1 = await lister.client.transactions.list({ page_size: 5 });
    expect(page1.data.map((t) => t.token)).toEqual(all.slice(0, 5));
    expect(page1.has_more).toBe(true);
    const page2 = await lister.client.transactions.list({ page_size: 5, starting_after: all[4] });
    expect(page2.data.map((t) => t.token)).toEqual(all.slice(5, 10));
    const last = await lister.client.transactions.list({ page_size: 5, starting_after: all[all.length - 3] });
    expect(last.data.map((t) => t.token)).toEqual(all.slice(-2));
    expect(last.has_more).toBe(false);
    const back = await lister.client.transactions.list({ page_size: 3, ending_before: all[5] });
    expect(back.data.map((t) => t.token)).toEqual(all.slice(2, 5));
    expect(back.has_more).toBe(true);
    const top = await lister.client.transactions.list({ page_size: 3, ending_before: all[2] });
    expect(top.data.map((t) => t.token)).toEqual(all.slice(0, 2));
    expect(top.has_more).toBe(false);
    const backwards: string[] = [];
    for await (const t of lister.client.transactions.list({ page_size: 2, ending_before: all[7] })) backwards.push(t.token);
    expect(backwards.sort()).toEqual(all.slice(0, 7).sort());
    expect((await lister.client.transactions.list({ page_size: 100 })).data.map((t) => t.token)).toEqual(all);
  });

  it('places a cursor whose transaction the filters leave out where it stands, both ways', async () => {
    const all = made.map((t) => t.token);
    const cursors = made.filter((t) => t.status !== 'SETTLED').map((t) => t.token);
    let checked = 0;
    for (const cursor of cursors) {
      const index = all.indexOf(cursor);
      const older = expected({ status: 'SETTLED' }).filter((token) => all.indexOf(token) > index);
      const newer = expected({ status: 'SETTLED' }).filter((token) => all.indexOf(token) < index);
      expect(await listAll({ status: 'SETTLED', starting_after: cursor }), `starting_after ${index}`).toEqual(older);
      expect((await lister.client.transactions.list({ status: 'SETTLED', ending_before: cursor, page_size: 100 })).data.map((t) => t.token), `ending_before ${index}`).toEqual(newer);
      if (older.length > 0 && newer.length > 0) checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it('lists each transaction exactly as it is retrieved', async () => {
    const listed = await lister.client.transactions.list({ page_size: 100 });
    expect(listed.data.map((t) => t.token)).toEqual(made.map((t) => t.token));
    for (const transaction of listed.data) expect(transaction).toEqual(made.find((t) => t.token === transaction.token));
  });

  it('refuses bad parameters with 400 naming the field', async () => {
    const token = (made[0] as Transaction).token;
    for (const [query, field] of [
      ['result=PENDING', 'result'],
      ['status=REVERSED', 'status'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['card_token=nope', 'card_token'],
      ['account_token=1', 'account_token'],
      ['begin=yesterday', 'begin'],
      ['end=2031-13-01', 'end'],
      ['colour=red', 'colour'],
      [`starting_after=${token}&ending_before=${token}`, 'starting_after'],
      [`starting_after=${crypto.randomUUID()}`, 'starting_after'],
    ]) {
      const response = await context.server.request('GET', `/v1/transactions?${query}`, { apiKey: lister.apiKey });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { message: string }).message, query).toContain(field);
    }
    expect(await expectError(lister.client.transactions.retrieve('nope'), 400)).toContain('transaction_token');
    expect(await expectError(lister.client.transactions.retrieve(crypto.randomUUID()), 404)).toContain('transaction');
  });

  it("keeps programs apart: another program's transactions are not found and not listed", async () => {
    const outsider = context.program.client;
    const token = (made[0] as Transaction).token;
    expect(await expectError(outsider.transactions.retrieve(token), 404)).toContain(token);
    expect((await outsider.transactions.list({ card_token: (cards[0] as Card).token })).data).toEqual([]);
    expect((await outsider.transactions.list()).data.map((t) => t.token)).not.toContain(token);
    const response = await context.server.request('GET', `/v1/transactions?starting_after=${token}`, { apiKey: context.program.apiKey });
    expect(response.status).toBe(400);
  });
});
