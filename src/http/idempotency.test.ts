/** Idempotency-Key on POST: replay, conflict, in flight, concurrency, failures, expired claims. */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { conditionalBlock } from '../testing/auth_rules.js';
import { kycExemptBody } from '../testing/enrollment.js';
import { describeWithDb, sdkClient, useTestServer, type TestServer } from '../testing/harness.js';
import { manualBankAccount } from '../testing/money.js';
import { openApiRoutes } from '../testing/openapi.js';
import { ownedResources, threeDsBody, type Owned } from '../testing/owned.js';
import * as store from './idempotency-store.js';
import { movableWallClock } from '../testing/clock.js';
import { expireIdempotencyRecords, requestFingerprint } from './idempotency.js';

/**
 * A body for every POST route that passes its schema, given real resources of the program (their
 * tokens fill the path). `variant` 1 is another request of the route without path parameters (a
 * route with them is sent another token instead). The handler may accept or refuse it: either way
 * the answer is recorded under the key.
 */
const EVERY_POST: Record<string, (owned: Owned, variant: number, today: string) => object | undefined> = {
  // In this order: each acts on what the previous left (the authorization is advised, partly voided, cleared, then too late to expire).
  '/v1/simulate/clock': (_owned, variant) => ({ now: new Date(Date.now() + 60_000 + variant).toISOString() }),
  '/v1/simulate/program': (_owned, variant) => ({ require_funds: variant === 1 }),
  '/v1/financial_accounts': (_owned, variant) => ({ nickname: `every post ${variant}`, type: 'OPERATING' }),
  '/v1/financial_accounts/{financial_account_token}/update_status': () => ({ status: 'CLOSED', substatus: 'END_USER_REQUEST' }),
  '/v1/account_holders': () => kycExemptBody(),
  '/v1/simulate/account_holders/enrollment_review': ({ tokens }, variant) => ({ account_holder_token: tokens.account_holder_token![1], status: variant === 0 ? 'ACCEPTED' : 'REJECTED' }),
  '/v1/cards': (_owned, variant) => ({ type: 'VIRTUAL', memo: `every post ${variant}` }),
  '/v1/book_transfers': ({ operating, card }, variant) => ({
    amount: 100 + variant,
    category: 'TRANSFER',
    from_financial_account_token: operating,
    to_financial_account_token: card.funding.token,
    type: 'TRANSFER',
    subtype: 'INTERNAL',
  }),
  '/v1/book_transfers/{book_transfer_token}/reverse': () => ({}),
  '/v1/management_operations': ({ operating }, variant, today) => ({
    amount: 100 + variant,
    category: 'MANAGEMENT_ADJUSTMENT',
    direction: 'CREDIT',
    effective_date: today,
    event_type: 'PROVISIONAL_CREDIT',
    financial_account_token: operating,
  }),
  '/v1/management_operations/{management_operation_token}/reverse': (_owned, _variant, today) => ({ effective_date: today }),
  '/v1/external_payments': ({ operating }, variant, today) => ({ amount: 100 + variant, category: 'EXTERNAL_WIRE', effective_date: today, financial_account_token: operating, payment_type: 'DEPOSIT' }),
  '/v1/external_payments/{external_payment_token}/settle': (_owned, _variant, today) => ({ effective_date: today }),
  '/v1/external_payments/{external_payment_token}/release': (_owned, _variant, today) => ({ effective_date: today }),
  '/v1/external_payments/{external_payment_token}/cancel': (_owned, _variant, today) => ({ effective_date: today }),
  '/v1/external_payments/{external_payment_token}/reverse': (_owned, _variant, today) => ({ effective_date: today }),
  '/v1/external_bank_accounts': ({ operating }) => manualBankAccount(operating),
  '/v1/external_bank_accounts/{external_bank_account_token}/micro_deposits': () => ({ micro_deposits: [1, 2] }),
  '/v1/external_bank_accounts/{external_bank_account_token}/retry_micro_deposits': () => ({}),
  '/v1/external_bank_accounts/{external_bank_account_token}/retry_prenote': () => ({}),
  '/v2/auth_rules': (_owned, variant) => conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }], { program_level: true }, `every post ${variant}`),
  '/v2/auth_rules/{auth_rule_token}/draft': () => ({}),
  '/v2/auth_rules/{auth_rule_token}/promote': () => undefined,
  '/v1/three_ds_authentication/simulate': ({ card }, variant) => threeDsBody(card.pan, `GROCER ${variant}`),
  '/v1/three_ds_decisioning/challenge_response': ({ pendingChallenge }, variant) => ({ token: pendingChallenge, challenge_response: variant === 0 ? 'APPROVE' : 'DECLINE_BY_CUSTOMER' }),
  '/v1/three_ds_decisioning/simulate/enter_otp': ({ pendingChallenge }, variant) => ({ token: pendingChallenge, otp: variant === 0 ? '123456' : '654321' }),
  // No path to vary: the other request sends an empty object where the first sent no body.
  '/v1/three_ds_decisioning/secret/rotate': (_owned, variant) => (variant === 0 ? undefined : {}),
  '/v1/simulate/authorize': ({ card }, variant) => ({ amount: 100 + variant, descriptor: 'EVERY POST', pan: card.pan }),
  '/v1/simulate/authorization_advice': ({ tokens }, variant) => ({ token: tokens.transaction_token![0], amount: 50 + variant }),
  '/v1/simulate/void': ({ tokens }, variant) => ({ token: tokens.transaction_token![0], amount: 1 + variant }),
  '/v1/simulate/clearing': ({ tokens }, variant) => ({ token: tokens.transaction_token![0], amount: 10 + variant }),
  '/v1/transactions/{transaction_token}/expire_authorization': () => undefined,
  '/v1/simulate/return': ({ card }, variant) => ({ amount: 100 + variant, descriptor: 'EVERY POST', pan: card.pan }),
  '/v1/simulate/return_reversal': ({ tokens }, variant) => ({ token: variant === 0 ? tokens.transaction_token![0] : crypto.randomUUID() }),
  '/v1/simulate/credit_authorization_advice': ({ card }, variant) => ({ amount: 100 + variant, descriptor: 'EVERY POST', pan: card.pan }),
  '/v1/event_subscriptions': (_owned, variant) => ({ url: `https://example.com/every-post/${variant}` }),
  '/v1/event_subscriptions/{event_subscription_token}/secret/rotate': () => undefined,
  '/v1/events/{event_token}/event_subscriptions/{event_subscription_token}/resend': () => undefined,
  '/v1/event_subscriptions/{event_subscription_token}/recover': () => undefined,
  '/v1/event_subscriptions/{event_subscription_token}/replay_missing': () => undefined,
  '/v1/simulate/event_subscriptions/{event_subscription_token}/send_example': () => ({}),
};

describeWithDb('idempotency', () => {
  const context = useTestServer();

  async function post(key: string, body: object, apiKey = context.program.apiKey) {
    const response = await context.server.request('POST', '/v1/financial_accounts', { apiKey, body, headers: { 'idempotency-key': key } });
    return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
  }

  async function countNamed(nickname: string, client = context.program.client): Promise<number> {
    const page = await client.financialAccounts.list({ page_size: 100 } as never);
    return page.data.filter((account) => account.nickname === nickname).length;
  }

  it('replays the first response byte for byte and creates nothing more', async () => {
    const key = crypto.randomUUID();
    const first = await post(key, { nickname: 'replayed', type: 'OPERATING' });
    const second = await post(key, { type: 'OPERATING', nickname: 'replayed' });
    expect(first.status).toBe(200);
    expect(second).toEqual({ status: 200, text: first.text, replayed: 'true' });
    expect(await countNamed('replayed')).toBe(1);
  });

  it('works through the SDK parameter', async () => {
    const key = crypto.randomUUID();
    const first = await context.program.client.financialAccounts.create({ nickname: 'sdk', type: 'OPERATING', 'Idempotency-Key': key });
    const second = await context.program.client.financialAccounts.create({ nickname: 'sdk', type: 'OPERATING', 'Idempotency-Key': key });
    expect(second).toEqual(first);
    expect(await countNamed('sdk')).toBe(1);
  });

  it('refuses the same key with a different body with 400, changing nothing', async () => {
    const key = crypto.randomUUID();
    await post(key, { nickname: 'original', type: 'OPERATING' });
    const conflict = await post(key, { nickname: 'different', type: 'OPERATING' });
    expect(conflict.status).toBe(400);
    expect(JSON.parse(conflict.text).message).toMatch(/Idempotency-Key: this key was already used with a different request/);
    expect(await countNamed('different')).toBe(0);
  });

  it('refuses the same key on another endpoint with 400', async () => {
    const key = crypto.randomUUID();
    await post(key, { nickname: 'endpoint', type: 'OPERATING' });
    const response = await context.server.request('POST', '/v1/simulate/clock', {
      apiKey: context.program.apiKey,
      body: { now: new Date(Date.now() + 1000).toISOString() },
      headers: { 'idempotency-key': key },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/Idempotency-Key: this key was already used with a different request/);
  });

  it('refuses the same key with the same body on another path with 400, changing nothing there', async () => {
    const key = crypto.randomUUID();
    const [first, second] = [await context.program.client.financialAccounts.create({ nickname: 'path a', type: 'OPERATING' }), await context.program.client.financialAccounts.create({ nickname: 'path b', type: 'OPERATING' })];
    const close = (token: string) =>
      context.server.request('POST', `/v1/financial_accounts/${token}/update_status`, {
        apiKey: context.program.apiKey,
        body: { status: 'CLOSED', substatus: 'END_USER_REQUEST' },
        headers: { 'idempotency-key': key },
      });
    expect((await close(first.token)).status).toBe(200);
    const other = await close(second.token);
    expect([other.status, other.headers.get('idempotent-replayed')]).toEqual([400, null]);
    expect(((await other.json()) as { message: string }).message).toMatch(/Idempotency-Key: this key was already used with a different request/);
    expect((await context.program.client.financialAccounts.retrieve(second.token)).status).toBe('OPEN');
  });

  it('reads tokens in the path case-insensitively, as the route does: the same request in another case is a replay', async () => {
    const key = crypto.randomUUID();
    const account = await context.program.client.financialAccounts.create({ nickname: 'closing', type: 'OPERATING' });
    const close = async (token: string) => {
      const response = await context.server.request('POST', `/v1/financial_accounts/${token}/update_status`, {
        apiKey: context.program.apiKey,
        body: { status: 'CLOSED', substatus: 'END_USER_REQUEST' },
        headers: { 'idempotency-key': key },
      });
      return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
    };
    const first = await close(account.token.toUpperCase());
    expect(first.status).toBe(200);
    expect(await close(account.token)).toEqual({ ...first, replayed: 'true' });
  });

  it('scopes keys per program', async () => {
    const key = crypto.randomUUID();
    const other = await context.server.newProgram('other');
    const mine = await post(key, { nickname: 'scoped', type: 'OPERATING' });
    const theirs = await post(key, { nickname: 'scoped', type: 'OPERATING' }, other.apiKey);
    expect(theirs.status).toBe(200);
    expect(JSON.parse(theirs.text).token).not.toBe(JSON.parse(mine.text).token);
  });

  it('answers 409 while the first request with the key is in flight', async () => {
    const key = crypto.randomUUID();
    await store.insertClaim(context.server.server.db.kysely, {
      program_id: context.program.programId,
      idempotency_key: key,
      fingerprint: fingerprintOf(context.server, '/v1/financial_accounts', { nickname: 'inflight', type: 'OPERATING' }),
      state: 'in_flight',
      owner: 'someone-else',
      lease_expires_ms: Date.now() + 60_000,
      response_status: null,
      response_body: null,
      created_ms: Date.now(),
    });
    const response = await post(key, { nickname: 'inflight', type: 'OPERATING' });
    expect(response.status).toBe(409);
    expect(Object.keys(JSON.parse(response.text)).sort()).toEqual(['debugging_request_id', 'message']);
    expect(JSON.parse(response.text).message).toMatch(/still being processed/);
    expect(await countNamed('inflight')).toBe(0);
  });

  it('lets a request take over a claim whose holder died (expired lease)', async () => {
    const key = crypto.randomUUID();
    const body = { nickname: 'takeover', type: 'OPERATING' };
    await store.insertClaim(context.server.server.db.kysely, {
      program_id: context.program.programId,
      idempotency_key: key,
      fingerprint: fingerprintOf(context.server, '/v1/financial_accounts', body),
      state: 'in_flight',
      owner: 'dead-request',
      lease_expires_ms: Date.now() - 1,
      response_status: null,
      response_body: null,
      created_ms: Date.now(),
    });
    const response = await post(key, body);
    expect(response.status).toBe(200);
    expect(await countNamed('takeover')).toBe(1);
  });

  it('on every POST route: a repeat answers the first answer (status and body) and changes nothing; the key with another request is a 400', async () => {
    const routes = (await openApiRoutes(context.server)).filter(({ method }) => method === 'POST').map(({ path }) => path);
    expect(routes.sort()).toEqual(Object.keys(EVERY_POST).sort());
    const program = await context.server.newProgram('every post');
    const owned = await ownedResources(program.client);
    const send = async (key: string, path: string, body: object | undefined) => {
      const response = await context.server.request('POST', path, { apiKey: program.apiKey, headers: { 'idempotency-key': key }, ...(body === undefined ? {} : { body }) });
      return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
    };
    const eventTokens = async () => (await program.client.events.list({ page_size: 100 })).data.map((event) => event.token);
    for (const [route, bodyOf] of Object.entries(EVERY_POST)) {
      const today = ((await program.client.get('/v1/simulate/clock')) as { now: string }).now.slice(0, 10);
      const path = route.replace(/\{([^}]+)\}/g, (_match, name: string) => owned.tokens[name]![0]!);
      const body = bodyOf(owned, 0, today);
      const key = crypto.randomUUID();
      const first = await send(key, path, body);
      expect(first.status, `${route} ${first.text}`).toBeLessThan(500);
      const eventsBefore = await eventTokens();
      expect(await send(key, path, body), route).toEqual({ ...first, replayed: 'true' });
      expect(await eventTokens(), route).toEqual(eventsBefore);
      const otherPath = route.replace(/\{[^}]+\}/g, () => crypto.randomUUID());
      const other = otherPath === route ? await send(key, path, bodyOf(owned, 1, today)) : await send(key, otherPath, body);
      expect(other.status, `${route} ${other.text}`).toBe(400);
      expect(JSON.parse(other.text).message, route).toMatch(/^Idempotency-Key: this key was already used with a different request/);
    }
  }, 120_000);

  it('20 concurrent duplicates create exactly one account; every success is the same response', async () => {
    const key = crypto.randomUUID();
    const body = { nickname: 'concurrent', type: 'OPERATING' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(key, body)));
    const statuses = new Set(responses.map((response) => response.status));
    expect([...statuses].every((status) => status === 200 || status === 409)).toBe(true);
    const successes = responses.filter((response) => response.status === 200);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(successes.map((response) => response.text)).size).toBe(1);
    expect(await countNamed('concurrent')).toBe(1);
  });

  it('20 concurrent duplicates through SDKs that retry 409 all get the one account', async () => {
    const key = crypto.randomUUID();
    const retrying = new Lithic({ apiKey: context.program.apiKey, baseURL: context.server.url, maxRetries: 10 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => retrying.financialAccounts.create({ nickname: 'retried', type: 'OPERATING', 'Idempotency-Key': key })),
    );
    expect(new Set(results.map((account) => account.token)).size).toBe(1);
    expect(await countNamed('retried')).toBe(1);
  });

  it('records a refusal of the handler: its repeat gets the same answer, byte for byte, and changes nothing', async () => {
    const key = crypto.randomUUID();
    const body = { nickname: 'refused', type: 'OPERATING', account_token: crypto.randomUUID() };
    const failed = await post(key, body);
    expect(failed.status).toBe(404);
    const repeated = await context.server.request('POST', '/v1/financial_accounts', { apiKey: context.program.apiKey, body, headers: { 'idempotency-key': key } });
    const repeatedText = await repeated.text();
    expect([repeated.status, repeatedText, repeated.headers.get('idempotent-replayed')]).toEqual([404, failed.text, 'true']);
    // Header and body still name the same request: the original one.
    expect(repeated.headers.get('x-request-id')).toBe((JSON.parse(failed.text) as { debugging_request_id: string }).debugging_request_id);
    expect((await post(key, { ...body, account_token: crypto.randomUUID() })).status).toBe(400);
    expect(await countNamed('refused')).toBe(0);
  });

  it('records nothing for a request refused before its key was claimed (schema validation): the key stays free', async () => {
    const key = crypto.randomUUID();
    expect((await post(key, { nickname: 7, type: 'OPERATING' })).status).toBe(400);
    expect(await store.find(context.server.server.db.kysely, context.program.programId, key)).toBeUndefined();
    expect((await post(key, { nickname: 'after a 400', type: 'OPERATING' })).status).toBe(200);
  });

  it('validates the key itself', async () => {
    const long = await post('k'.repeat(300), { nickname: 'long', type: 'OPERATING' });
    expect(long.status).toBe(400);
    const notUuid = await post('not-a-uuid', { nickname: 'bad key', type: 'OPERATING' });
    expect(notUuid.status).toBe(400);
    expect(JSON.parse(notUuid.text).message).toMatch(/idempotency-key/i);
  });

  it('does not apply to reads', async () => {
    const key = crypto.randomUUID();
    const client = sdkClient(context.server.url, context.program.apiKey);
    const first = await client.financialAccounts.list({ page_size: 100 } as never, { headers: { 'Idempotency-Key': key } });
    expect(first.data.length).toBeGreaterThan(0);
    // The read claimed nothing: a write may take the key, and the same read again is answered afresh.
    const created = await post(key, { nickname: 'after a read', type: 'OPERATING' });
    expect([created.status, created.replayed]).toEqual([200, null]);
    const again = await client.financialAccounts.list({ page_size: 100 } as never, { headers: { 'Idempotency-Key': key } });
    expect(again.data.map((account) => account.token)).toContain(JSON.parse(created.text).token);
  });
});

function fingerprintOf(server: TestServer, url: string, body: object): string {
  return requestFingerprint(server.server.app.deps.secrets, 'POST', url, body);
}

describeWithDb('idempotency records after 24 hours', () => {
  const { wall, advance } = movableWallClock('2031-05-20T12:00:00.000Z');
  const context = useTestServer({ wall });

  const post = async (key: string, nickname: string) => {
    const response = await context.server.request('POST', '/v1/financial_accounts', {
      apiKey: context.program.apiKey,
      body: { nickname, type: 'OPERATING' },
      headers: { 'idempotency-key': key },
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as { token?: string } };
  };

  it('are kept for 24 hours of wall time, then deleted by the sweep, and the key is free again', async () => {
    const { db } = context.server.server;
    const key = crypto.randomUUID();
    const first = await post(key, 'kept');
    expect(first.status).toBe(200);

    advance(23 * 3_600_000);
    await expireIdempotencyRecords(db, wall);
    const replay = await post(key, 'kept');
    expect(replay).toMatchObject({ status: 200, replayed: 'true', body: { token: first.body.token } });
    expect((await post(key, 'other body')).status).toBe(400);

    advance(2 * 3_600_000);
    expect(await expireIdempotencyRecords(db, wall)).toBeGreaterThanOrEqual(1);
    const reused = await post(key, 'other body');
    expect(reused.status).toBe(200);
    expect(reused.replayed).toBeNull();
    expect(reused.body.token).not.toBe(first.body.token);
  });

  it('keep a body token’s record: reusing the token still returns the original', async () => {
    const { db } = context.server.server;
    const account = await context.program.client.financialAccounts.create({ nickname: 'funded', type: 'OPERATING' });
    const body = {
      token: crypto.randomUUID(),
      amount: 5,
      category: 'MANAGEMENT_ADJUSTMENT',
      direction: 'CREDIT',
      effective_date: new Date(wall.nowMs()).toISOString().slice(0, 10),
      event_type: 'CASH_BACK',
      financial_account_token: account.token,
    } as const;
    const first = await context.program.client.managementOperations.create(body);
    advance(48 * 3_600_000);
    await expireIdempotencyRecords(db, wall);
    expect(await context.program.client.managementOperations.create(body)).toEqual(first);
  });

  it('deletes in batches until none is left', async () => {
    const { db } = context.server.server;
    const now = wall.nowMs();
    const old = Array.from({ length: 2_500 }, (_, index) => ({
      program_id: context.program.programId,
      idempotency_key: `old-${index}`,
      fingerprint: 'f',
      state: 'complete' as const,
      owner: 'o',
      lease_expires_ms: now - 25 * 3_600_000,
      response_status: 200,
      response_body: null,
      created_ms: now,
    }));
    for (let index = 0; index < old.length; index += 500) {
      await db.kysely.insertInto('idempotency_keys').values(old.slice(index, index + 500)).execute();
    }
    expect(await expireIdempotencyRecords(db, wall)).toBe(2_500);
    const left = await db.kysely.selectFrom('idempotency_keys').select('idempotency_key').where('idempotency_key', 'like', 'old-%').execute();
    expect(left).toEqual([]);
  });
});
