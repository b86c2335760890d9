/**
 * The list mechanism on every cursor-paged list at once (reference 08), with the wall clock frozen so
 * that every item of a list is created in the same millisecond: the keyset must then order by token
 * and neither skip nor repeat a row. Checked through the SDK's own auto-pagination, forward and (when
 * the first call has `ending_before`) backward; `begin`/`end` strictly after/before; cursors that name
 * no item of this list. Account holders are paged the same way, sized by `limit`. Each resource's
 * own list tests cover its filters.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { CursorPage } from 'lithic/pagination';
import { beforeAll, describe, expect, it } from 'vitest';
import { conditionalBlock, createRule, newCard } from '../testing/auth_rules.js';
import { frozenWallClock } from '../testing/clock.js';
import { kycBody } from '../testing/enrollment.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { bookTransfer, expectError, fund, manualBankAccount, newAccount } from '../testing/money.js';

const NOW = '2031-06-01T12:00:00.000Z';
const TODAY = NOW.slice(0, 10);
const MADE = 5;

type Item = { token: string; created?: string };

/** How to make one more item of a list, given what the program holds. */
type Maker = (client: Lithic, fixture: Fixture) => Promise<unknown>;
interface Fixture {
  from: string;
  to: string;
  card: Lithic.Card & { pan: string };
}

const LISTS: Record<string, Maker> = {
  '/v1/cards': (client) => client.cards.create({ type: 'VIRTUAL' }),
  '/v1/accounts': (client) => client.accountHolders.create(kycBody() as never),
  '/v1/account_holders': (client) => client.accountHolders.create(kycBody() as never),
  '/v1/book_transfers': (client, { from, to }) => bookTransfer(client, from, to, 1),
  '/v1/management_operations': (client, { to }) =>
    client.managementOperations.create({ amount: 1, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: TODAY, event_type: 'CASH_BACK', financial_account_token: to }),
  '/v1/external_payments': (client, { to }) =>
    client.externalPayments.create({ amount: 1, category: 'EXTERNAL_WIRE', effective_date: TODAY, financial_account_token: to, payment_type: 'DEPOSIT' }),
  '/v1/external_bank_accounts': (client, { to }) => client.externalBankAccounts.create(manualBankAccount(to)),
  '/v2/auth_rules': (client, { card }) => createRule(client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }], { card_tokens: [card.token] })),
  '/v1/transactions': (client, { card }) => client.transactions.simulateAuthorization({ amount: 1, descriptor: 'SAME MS', pan: card.pan }),
  '/v1/financial_accounts': (client) => newAccount(client, 'same ms'),
};

describeWithDb('cursor pagination on every list, with every item made in the same millisecond', () => {
  const { wall } = frozenWallClock(NOW);
  const context = useTestServer({ wall });
  let pager: TestProgram;

  beforeAll(async () => {
    pager = await context.server.newProgram('pager');
    const { client } = pager;
    const from = await newAccount(client, 'from');
    const to = await newAccount(client, 'to');
    await fund(client, from, 1_000);
    const card = (await newCard(client)) as Fixture['card'];
    for (const make of Object.values(LISTS)) for (let made = 0; made < MADE; made++) await make(client, { from, to, card });
  });

  /** One page, read as the SDK's cursor pages are (account holders size it with `limit`, not `page_size`). */
  const page = (path: string, { page_size, ...query }: Record<string, unknown>) =>
    pager.client.getAPIList<Item, CursorPage<Item>>(path, CursorPage, { query: { ...query, [path === '/v1/account_holders' ? 'limit' : 'page_size']: page_size } });

  for (const path of Object.keys(LISTS)) {
    describe(path, () => {
      let all: Item[];

      beforeAll(async () => {
        all = (await page(path, { page_size: 100 })).data;
      });

      it('made its items in one millisecond, ordered by token within it', () => {
        expect(all.length).toBeGreaterThanOrEqual(MADE);
        // An auth rule shows no `created`; it was made at the same frozen instant.
        if (path !== '/v2/auth_rules') expect(new Set(all.map((item) => item.created))).toEqual(new Set([NOW]));
        const tokens = all.map((item) => item.token);
        expect(tokens).toEqual([...tokens].sort().reverse());
      });

      it('pages forward through every item exactly once (SDK auto-pagination)', async () => {
        const seen: string[] = [];
        for await (const item of await page(path, { page_size: 2 })) seen.push(item.token);
        expect(seen).toEqual(all.map((item) => item.token));
      });

      it('pages backward from ending_before through every newer item exactly once, each page newest first', async () => {
        const oldest = all.at(-1) as Item;
        const pages: string[][] = [];
        for await (const each of (await page(path, { page_size: 2, ending_before: oldest.token })).iterPages()) {
          pages.push(each.data.map((item) => item.token));
        }
        // Each page is the items just newer than the previous page's first, newest first.
        expect(pages.reverse().flat()).toEqual(all.slice(0, -1).map((item) => item.token));
      });

      it('answers has_more in the direction of travel', async () => {
        const middle = all[2] as Item;
        expect(await page(path, { page_size: 2, ending_before: middle.token })).toMatchObject({ has_more: false, data: all.slice(0, 2) });
        expect(await page(path, { page_size: 1, ending_before: middle.token })).toMatchObject({ has_more: true, data: all.slice(1, 2) });
        expect(await page(path, { page_size: all.length - 3, starting_after: middle.token })).toMatchObject({ has_more: false, data: all.slice(3) });
        expect(await page(path, { page_size: 1, starting_after: all.at(-1)?.token })).toMatchObject({ has_more: false, data: [] });
      });

      it('takes begin and end as strictly after and before', async () => {
        const justBefore = new Date(Date.parse(NOW) - 1).toISOString();
        const justAfter = new Date(Date.parse(NOW) + 1).toISOString();
        if (path === '/v1/external_bank_accounts' || path === '/v2/auth_rules' || path === '/v1/financial_accounts') return; // no begin/end
        expect((await page(path, { page_size: 100, begin: NOW })).data).toEqual([]);
        expect((await page(path, { page_size: 100, end: NOW })).data).toEqual([]);
        expect((await page(path, { page_size: 100, begin: justBefore, end: justAfter })).data).toEqual(all);
        // Digits past the millisecond count: made at 12:00:00.000, the items are before 12:00:00.0005.
        expect((await page(path, { page_size: 100, end: '2031-06-01T12:00:00.0005Z' })).data).toEqual(all);
        expect((await page(path, { page_size: 100, begin: '2031-06-01T12:00:00.0005Z' })).data).toEqual([]);
      });

      // Only that such a cursor is not refused: every item is filtered out, so where the cursor stands
      // cannot show here; transactions/list.test.ts checks the placement with filters that keep some.
      it('accepts a cursor whose item the filters leave out (no 400, an empty page)', async () => {
        const noneMade = { '/v1/external_bank_accounts': { states: 'CLOSED' }, '/v2/auth_rules': { event_stream: 'THREE_DS_AUTHENTICATION' }, '/v1/financial_accounts': { type: 'SECURITY' } }[path];
        const filter = noneMade ?? { begin: new Date(Date.parse(NOW) + 1).toISOString() };
        for (const cursor of ['starting_after', 'ending_before']) {
          expect(await page(path, { ...filter, [cursor]: all[1]?.token })).toMatchObject({ data: [], has_more: false });
        }
      });

      it('sizes its pages with page_size, 1 to 100 (as the contract names it, account holders too): 0 and 101 are a 400 naming it', async () => {
        const list = async (query: string) => {
          const response = await context.server.request('GET', `${path}?${query}`, { apiKey: pager.apiKey });
          return { status: response.status, body: (await response.json()) as { data?: Item[]; has_more?: boolean; message?: string } };
        };
        for (const size of [1, 100]) {
          const { status, body } = await list(`page_size=${size}`);
          expect(status).toBe(200);
          expect(Object.keys(body).sort()).toEqual(['data', 'has_more']);
          expect(body.data?.map((item) => item.token)).toEqual(all.slice(0, size).map((item) => item.token));
          expect(body.has_more).toBe(all.length > size);
        }
        for (const query of ['page_size=0', 'page_size=101', ...(path === '/v1/account_holders' ? ['page_size=2&limit=2'] : [])]) {
          const { status, body } = await list(query);
          expect([status, body.message?.startsWith('page_size: ')], query).toEqual([400, true]);
        }
        // Decimal digits only: what JavaScript's Number would also read is a wrong type.
        for (const written of ['0x2', '0b10', '2e0', '%202', '+2', '2.0', '', 'two']) {
          const { status, body } = await list(`page_size=${written}`);
          expect([status, body.message], written).toEqual([400, 'page_size: must be integer (decimal digits)']);
        }
        expect((await list('page_size=02')).body.data).toHaveLength(Math.min(2, all.length));
      });

      it('refuses a cursor that names no item of this list (another list’s, another program’s) with 400', async () => {
        const elsewhere = (await context.program.client.financialAccounts.list()).data[0]?.token as string;
        const otherList = path === '/v1/cards' ? (await page('/v1/transactions', {})).data[0]?.token : (await page('/v1/cards', {})).data[0]?.token;
        for (const [field, token] of [['starting_after', otherList], ['ending_before', elsewhere], ['starting_after', crypto.randomUUID()]] as const) {
          expect(await expectError(page(path, { [field]: token }), 400)).toBe(`${field}: no item with token '${token}' in this list`);
        }
      });
    });
  }

  it('answers 50 items, newest first, to a list asked without page_size (the contract\'s default)', async () => {
    const fifty = await context.server.newProgram('fifty and one cards');
    for (let made = 0; made < 51; made++) await fifty.client.cards.create({ type: 'VIRTUAL' });
    const response = await context.server.request('GET', '/v1/cards', { apiKey: fifty.apiKey });
    const body = (await response.json()) as { data: Item[]; has_more: boolean };
    expect([response.status, body.data.length, body.has_more]).toEqual([200, 50, true]);
    const newestFirst = (await fifty.client.getAPIList<Item, CursorPage<Item>>('/v1/cards', CursorPage, { query: { page_size: 100 } })).data;
    expect(newestFirst).toHaveLength(51);
    expect(body.data).toEqual(newestFirst.slice(0, 50));
  });

  describe('a cursor naming a deleted item (auth rules, event subscriptions)', () => {
    const MADE_TO_DELETE = 7;
    let deleter: TestProgram;
    let card: Fixture['card'];

    beforeAll(async () => {
      deleter = await context.server.newProgram('deleter');
      card = (await newCard(deleter.client)) as Fixture['card'];
    });

    const makeRules = async () => {
      for (let made = 0; made < MADE_TO_DELETE; made++) {
        await createRule(deleter.client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }], { card_tokens: [card.token] }));
      }
      return (await deleter.client.authRules.v2.list({ page_size: 100 })).data.map((rule) => rule.token);
    };
    const makeSubscriptions = async () => {
      for (let made = 0; made < MADE_TO_DELETE; made++) await deleter.client.events.subscriptions.create({ url: `http://127.0.0.1:9/${made}` });
      return (await deleter.client.events.subscriptions.list({ page_size: 100 })).data.map((subscription) => subscription.token);
    };

    it('lets the SDK list and delete every item, page after page', async () => {
      const rules = await makeRules();
      const deletedRules: string[] = [];
      for await (const rule of deleter.client.authRules.v2.list({ page_size: 2 })) {
        await deleter.client.authRules.v2.del(rule.token);
        deletedRules.push(rule.token);
      }
      expect(deletedRules).toEqual(rules);
      expect((await deleter.client.authRules.v2.list()).data).toEqual([]);

      const subscriptions = await makeSubscriptions();
      const deletedSubscriptions: string[] = [];
      for await (const subscription of deleter.client.events.subscriptions.list({ page_size: 2 })) {
        await deleter.client.events.subscriptions.del(subscription.token);
        deletedSubscriptions.push(subscription.token);
      }
      expect(deletedSubscriptions).toEqual(subscriptions);
      expect((await deleter.client.events.subscriptions.list()).data).toEqual([]);
    });

    it('pages on from where the deleted item stood, in both directions', async () => {
      for (const [path, tokens, remove] of [
        ['/v2/auth_rules', await makeRules(), (token: string) => deleter.client.authRules.v2.del(token)],
        ['/v1/event_subscriptions', await makeSubscriptions(), (token: string) => deleter.client.events.subscriptions.del(token)],
      ] as const) {
        const middle = tokens[3] as string;
        await remove(middle);
        const rest = tokens.filter((token) => token !== middle);
        const read = async (query: Record<string, unknown>) =>
          (await deleter.client.getAPIList<Item, CursorPage<Item>>(path, CursorPage, { query })).data.map((item) => item.token);
        expect(await read({ starting_after: middle, page_size: 100 }), path).toEqual(tokens.slice(4));
        expect(await read({ ending_before: middle, page_size: 100 }), path).toEqual(tokens.slice(0, 3));
        expect(await read({ page_size: 100 }), path).toEqual(rest);
        for (const token of rest) await remove(token);
      }
    });

    it('answers a DELETE with 204 and no body', async () => {
      const [rule] = await makeRules();
      const [subscription] = await makeSubscriptions();
      for (const path of [`/v2/auth_rules/${rule}`, `/v1/event_subscriptions/${subscription}`]) {
        const response = await context.server.request('DELETE', path, { apiKey: deleter.apiKey });
        expect([response.status, await response.text()], path).toEqual([204, '']);
      }
    });

    it('still refuses a deleted item of another list or another program with 400', async () => {
      const [rule] = await makeRules();
      const [subscription] = await makeSubscriptions();
      await deleter.client.authRules.v2.del(rule as string);
      await deleter.client.events.subscriptions.del(subscription as string);
      expect(await expectError(deleter.client.events.subscriptions.list({ starting_after: rule as string }), 400)).toBe(`starting_after: no item with token '${rule}' in this list`);
      expect(await expectError(deleter.client.authRules.v2.list({ ending_before: subscription as string }), 400)).toBe(`ending_before: no item with token '${subscription}' in this list`);
      expect(await expectError(pager.client.authRules.v2.list({ starting_after: rule as string }), 400)).toBe(`starting_after: no item with token '${rule}' in this list`);
      // Deleted is still gone: the kept place is no item.
      expect(await expectError(deleter.client.authRules.v2.retrieve(rule as string), 404)).toContain(rule as string);
    });
  });
});
