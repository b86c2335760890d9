/**
 * The body `token` of the three ledger creates is Lithic's idempotency key: a repeat of the same
 * request with the same token returns the original (status and body) and changes nothing, whatever
 * `Idempotency-Key` header accompanies either request; the same token with a different body is 400.
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import * as idempotencyStore from '../http/idempotency-store.js';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { balanceOf, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';

describeWithDb('body token as idempotency key', () => {
  const context = useTestServer();
  let from: string;
  let to: string;
  let today: string;

  beforeAll(async () => {
    const { client } = context.program;
    from = await newAccount(client, 'from');
    to = await newAccount(client, 'to');
    await fund(client, from, 1_000_000);
    today = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now.slice(0, 10);
  });

  const creates = {
    management_operations: (token: string, amount = 10) => ({
      token,
      amount,
      category: 'MANAGEMENT_ADJUSTMENT',
      direction: 'CREDIT',
      effective_date: today,
      event_type: 'CASH_BACK',
      financial_account_token: to,
    }),
    book_transfers: (token: string, amount = 10) => ({
      token,
      amount,
      category: 'TRANSFER',
      type: 'TRANSFER',
      subtype: 'x',
      from_financial_account_token: from,
      to_financial_account_token: to,
    }),
    external_payments: (token: string, amount = 10) => ({
      token,
      amount,
      category: 'EXTERNAL_ACH',
      effective_date: today,
      financial_account_token: to,
      payment_type: 'DEPOSIT',
    }),
  } as const;

  async function post(resource: keyof typeof creates, body: object, key?: string) {
    const response = await context.server.request('POST', `/v1/${resource}`, {
      apiKey: context.program.apiKey,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
    return { status: response.status, text: await response.text() };
  }

  async function snapshot(resource: keyof typeof creates) {
    const list = await context.server.request('GET', `/v1/${resource}?page_size=100`, { apiKey: context.program.apiKey });
    return { list: await list.text(), from: await balanceOf(context.program.client, from), to: await balanceOf(context.program.client, to) };
  }

  for (const resource of Object.keys(creates) as Array<keyof typeof creates>) {
    describe(resource, () => {
      const cases: Array<[string, string | undefined, () => string | undefined]> = [
        ['with a header, then without', crypto.randomUUID(), () => undefined],
        ['with a header, then with another', crypto.randomUUID(), () => crypto.randomUUID()],
        ['without a header, then with one', undefined, () => crypto.randomUUID()],
      ];
      for (const [name, firstKey, retryKey] of cases) {
        it(`replays the original when the same token comes ${name}`, async () => {
          const token = crypto.randomUUID();
          const body = creates[resource](token);
          const first = await post(resource, body, firstKey);
          expect(first.status).toBe(200);
          expect(JSON.parse(first.text).token).toBe(token);
          const before = await snapshot(resource);
          const again = await post(resource, body, retryKey());
          expect(again).toEqual(first);
          expect(await snapshot(resource)).toEqual(before);
        });
      }

      it('refuses the same token with a different body with 400, whatever the headers, changing nothing', async () => {
        const token = crypto.randomUUID();
        await post(resource, creates[resource](token), crypto.randomUUID());
        const before = await snapshot(resource);
        for (const key of [undefined, crypto.randomUUID()]) {
          const conflict = await post(resource, creates[resource](token, 11), key);
          expect(conflict.status).toBe(400);
          expect(JSON.parse(conflict.text).message).toMatch(/^token: .*different request/);
        }
        expect(await snapshot(resource)).toEqual(before);
      });

      it('still refuses a header key reused with a different token', async () => {
        const key = crypto.randomUUID();
        await post(resource, creates[resource](crypto.randomUUID()), key);
        const before = await snapshot(resource);
        const conflict = await post(resource, creates[resource](crypto.randomUUID()), key);
        expect(conflict.status).toBe(400);
        expect(JSON.parse(conflict.text).message).toMatch(/^Idempotency-Key: .*different request/);
        expect(await snapshot(resource)).toEqual(before);
      });

      it('a refused create keeps its answer under the header key and releases its token', async () => {
        const token = crypto.randomUUID();
        const key = crypto.randomUUID();
        const body = { ...creates[resource](token), [resource === 'book_transfers' ? 'to_financial_account_token' : 'financial_account_token']: crypto.randomUUID() };
        const refused = await post(resource, body, key);
        expect(refused.status).toBe(404);
        const { kysely } = context.server.server.db;
        expect(await idempotencyStore.find(kysely, context.program.programId, `${idempotencyStore.BODY_TOKEN_PREFIX}${token}`)).toBeUndefined();
        expect(await idempotencyStore.find(kysely, context.program.programId, key)).toMatchObject({ state: 'complete', response_status: 404 });
        expect(await post(resource, body, key)).toMatchObject({ status: 404, text: refused.text });
        // The token names no resource: without that header key, the same token may create one.
        expect((await post(resource, creates[resource](token))).status).toBe(200);
      });

      it('a header refused for another request does not keep the new token: the token works afterwards', async () => {
        const key = crypto.randomUUID();
        await post(resource, creates[resource](crypto.randomUUID()), key);
        const token = crypto.randomUUID();
        expect((await post(resource, creates[resource](token), key)).status).toBe(400);
        const created = await post(resource, creates[resource](token));
        expect(created.status).toBe(200);
        expect(JSON.parse(created.text).token).toBe(token);
      });

      it('keeps header keys apart from tokens: a header key spelled like a token’s record does not hold the token', async () => {
        const token = crypto.randomUUID();
        expect((await post(resource, creates[resource](crypto.randomUUID()), `${idempotencyStore.BODY_TOKEN_PREFIX}${token}`)).status).toBe(200);
        const created = await post(resource, creates[resource](token));
        expect(created.status).toBe(200);
        expect(JSON.parse(created.text).token).toBe(token);
      });

      it("refuses a card transaction's token with 400, changing nothing: the two would be one transaction in the account's history", async () => {
        const { client } = context.program;
        const cardTransactionToken = await authorize(client, await cardOnOwnAccount(client), 100);
        const before = await snapshot(resource);
        const refused = await post(resource, creates[resource](cardTransactionToken), crypto.randomUUID());
        expect(refused.status).toBe(400);
        expect(JSON.parse(refused.text).message).toBe(`token: '${cardTransactionToken}' is already the token of another transaction`);
        expect(await snapshot(resource)).toEqual(before);
      });

      it("refuses an external bank account's token with 400, changing nothing: its micro-deposits, sent once funded, would join the transaction", async () => {
        const { client } = context.program;
        const unfunded = await newAccount(client, 'unfunded');
        const bankAccount = await client.externalBankAccounts.create({
          owner: 'Jo',
          owner_type: 'INDIVIDUAL',
          account_number: String(crypto.randomInt(1e9, 1e10)),
          country: 'USA',
          currency: 'USD',
          routing_number: '011000015',
          type: 'CHECKING',
          verification_method: 'MICRO_DEPOSIT',
          financial_account_token: unfunded,
        });
        expect(bankAccount.verification_state).toBe('INSUFFICIENT_FUNDS');
        const before = await snapshot(resource);
        const refused = await post(resource, creates[resource](bankAccount.token), crypto.randomUUID());
        expect(refused.status).toBe(400);
        expect(JSON.parse(refused.text).message).toMatch(new RegExp(`^token: '${bankAccount.token}' is already the token of an external bank account`));
        expect(await snapshot(resource)).toEqual(before);
      });

      it("refuses a financial account's token with 400, changing nothing: the account's history would name the account itself", async () => {
        const before = await snapshot(resource);
        const refused = await post(resource, creates[resource](to), crypto.randomUUID());
        expect(refused.status).toBe(400);
        expect(JSON.parse(refused.text).message).toBe(`token: '${to}' is already the token of a financial account`);
        expect(await snapshot(resource)).toEqual(before);
      });

      it('concurrent requests with one token, some with headers, create exactly one', async () => {
        const token = crypto.randomUUID();
        const body = creates[resource](token);
        const retrying = new Lithic({ apiKey: context.program.apiKey, baseURL: context.server.url, maxRetries: 10 });
        const path = `/v1/${resource}`;
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            retrying.post<unknown, { token: string; created: string }>(path, {
              body,
              headers: index % 2 === 0 ? { 'Idempotency-Key': crypto.randomUUID() } : {},
            }),
          ),
        );
        expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
        const listed = JSON.parse((await snapshot(resource)).list) as { data: Array<{ token: string }> };
        expect(listed.data.filter((item) => item.token === token)).toHaveLength(1);
      });
    });
  }

  it('keeps the ledger balanced', async () => {
    expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  });
});
