import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiFailure } from '../testing/api-errors.js';
import { moveClock, newCard, programNow } from '../testing/auth_rules.js';
import { enroll, kybBody, kycBody } from '../testing/enrollment.js';
import { frozenWallClock } from '../testing/clock.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

describeWithDb('accounts', () => {
  const context = useTestServer();

  it('starts every program with its default account: ACTIVE, $5,000 a day and $5,000 a month, no holder', async () => {
    const fresh = await context.server.newProgram('fresh');
    const page = await fresh.client.accounts.list();
    expect(page.has_more).toBe(false);
    expect(page.data).toEqual([
      {
        token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        created: expect.any(String),
        spend_limit: { daily: 500_000, monthly: 500_000, lifetime: 0 },
        state: 'ACTIVE',
        auth_rule_tokens: [],
        cardholder_currency: 'USD',
      },
    ]);
    expect(await fresh.client.accounts.retrieve(page.data[0]?.token as string)).toEqual(page.data[0]);
  });

  it('shows the holder of an enrolled account, its contact details and address', async () => {
    const body = kybBody('KYB_BYO');
    const holder = await enroll(context.program.client, body);
    const account = await context.program.client.accounts.retrieve(holder.account_token);
    expect(account).toEqual({
      token: holder.account_token,
      created: holder.created,
      spend_limit: { daily: 500_000, monthly: 500_000, lifetime: 0 },
      state: 'ACTIVE',
      account_holder: { token: holder.token, business_account_token: '', email: body.control_person.email, phone_number: body.control_person.phone_number },
      auth_rule_tokens: [],
      cardholder_currency: 'USD',
      verification_address: body.business_entity.address,
    });
  });

  it('lists newest first, pages with cursors and filters by creation time', async () => {
    const pager = await context.server.newProgram('pager');
    for (let i = 0; i < 4; i++) await enroll(pager.client, kycBody());
    const all = (await pager.client.accounts.list({ page_size: 100 })).data;
    expect(all).toHaveLength(5);
    const created = all.map((account) => Date.parse(account.created as string));
    expect(created).toEqual([...created].sort((a, b) => b - a));

    const seen: string[] = [];
    for await (const account of pager.client.accounts.list({ page_size: 2 })) seen.push(account.token);
    expect(seen).toEqual(all.map((account) => account.token));

    const oldest = all.at(-1);
    const newer = await pager.client.accounts.list({ begin: oldest?.created as string });
    expect(newer.data.map((account) => account.token)).not.toContain(oldest?.token);
    const older = await pager.client.accounts.list({ end: all[0]?.created as string });
    expect(older.data.map((account) => account.token)).not.toContain(all[0]?.token);
  });

  describe('update', () => {
    it('changes only the supplied spend limits; 0 is a limit of 0 a day or a month, and no lifetime limit', async () => {
      const { account_token } = await enroll(context.program.client, kycBody());
      const limited = await context.program.client.accounts.update(account_token, { monthly_spend_limit: 1_000_000, lifetime_spend_limit: 5 });
      expect(limited.spend_limit).toEqual({ daily: 500_000, monthly: 1_000_000, lifetime: 5 });
      const daily = await context.program.client.accounts.update(account_token, { daily_spend_limit: 1234 });
      expect(daily.spend_limit).toEqual({ daily: 1234, monthly: 1_000_000, lifetime: 5 });
      const removed = await context.program.client.accounts.update(account_token, { daily_spend_limit: 0, lifetime_spend_limit: 0 });
      expect(removed.spend_limit).toEqual({ daily: 0, monthly: 1_000_000, lifetime: 0 });
      expect(removed.state).toBe('ACTIVE');
      expect(await context.program.client.accounts.retrieve(account_token)).toEqual(removed);
    });

    it('follows the state machine: ACTIVE ⇄ PAUSED, either → CLOSED, CLOSED is final', async () => {
      const { account_token } = await enroll(context.program.client, kycBody());
      expect((await context.program.client.accounts.update(account_token, { state: 'PAUSED' })).state).toBe('PAUSED');
      expect((await context.program.client.accounts.update(account_token, { state: 'PAUSED' })).state).toBe('PAUSED');
      expect((await context.program.client.accounts.update(account_token, { state: 'ACTIVE' })).state).toBe('ACTIVE');
      expect((await context.program.client.accounts.update(account_token, { state: 'ACTIVE' })).state).toBe('ACTIVE');
      expect((await context.program.client.accounts.update(account_token, { state: 'CLOSED' })).state).toBe('CLOSED');
      for (const state of ['ACTIVE', 'PAUSED', 'CLOSED'] as const) {
        const refused = await apiFailure(context.program.client.accounts.update(account_token, { state, daily_spend_limit: 1 }));
        expect(refused).toEqual({ status: 422, message: 'state: the account is CLOSED, which is final' });
      }
      const after = await context.program.client.accounts.retrieve(account_token);
      expect(after).toMatchObject({ state: 'CLOSED', spend_limit: { daily: 500_000 } });

      const paused = (await enroll(context.program.client, kycBody())).account_token;
      await context.program.client.accounts.update(paused, { state: 'PAUSED' });
      expect((await context.program.client.accounts.update(paused, { state: 'CLOSED' })).state).toBe('CLOSED');
    });

    it.each([
      [{ daily_spend_limit: -1 }, 'daily_spend_limit: must be >= 0'],
      [{ monthly_spend_limit: 1.5 }, 'monthly_spend_limit: must be integer'],
      [{ lifetime_spend_limit: '100' }, 'lifetime_spend_limit: must be integer'],
      [{ daily_spend_limit: 1e300 }, 'daily_spend_limit: must be <= 9007199254740991'],
      [{ state: 'OPEN' }, 'state: must be one of ACTIVE, PAUSED, CLOSED'],
      [{ state: null }, 'state: must be string'],
      [{ substatus: 'LOST' }, 'substatus: must be one of FRAUD_IDENTIFIED, SUSPICIOUS_ACTIVITY, RISK_VIOLATION, END_USER_REQUEST, ISSUER_REQUEST, NOT_ACTIVE, INTERNAL_REVIEW, OTHER'],
      [{ comment: 'x'.repeat(513) }, 'comment: must NOT have more than 512 characters'],
      [{ comment: 7 }, 'comment: must be string'],
      ...NOT_VISIBLE_TEXTS.map((comment): [object, string] => [{ comment }, notEmptyOrVisibleMessage('comment')]),
      [{ verification_address: { zip: '10001' } }, 'verification_address.zip: is not a recognised field'],
      [{ verification_address: { country: 'CAN' } }, 'verification_address.country: must be "USA"'],
      [{ verification_address: { postal_code: '1000' } }, 'verification_address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      [{ verification_address: { address1: 'PO Box 12' } }, 'verification_address.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
    ])('refuses %j with 400 and changes nothing', async (body, message) => {
      const { account_token } = await enroll(context.program.client, kycBody());
      const before = await context.program.client.accounts.retrieve(account_token);
      expect(await apiFailure(context.program.client.accounts.update(account_token, body as never))).toEqual({ status: 400, message });
      expect(await context.program.client.accounts.retrieve(account_token)).toEqual(before);
    });

    it('records substatus, comment and verification_address (a partial address completes the current one)', async () => {
      const body = kycBody();
      const { account_token } = await enroll(context.program.client, body);
      const paused = await context.program.client.accounts.update(account_token, {
        state: 'PAUSED',
        substatus: 'INTERNAL_REVIEW',
        comment: 'pending a review',
        verification_address: { address1: '1 Main St', postal_code: '10001-1234' },
      });
      expect(paused).toMatchObject({
        state: 'PAUSED',
        substatus: 'INTERNAL_REVIEW',
        comment: 'pending a review',
        verification_address: { ...body.individual.address, address1: '1 Main St', postal_code: '10001-1234' },
      });
      expect(await context.program.client.accounts.retrieve(account_token)).toEqual(paused);
      const commented = await context.program.client.accounts.update(account_token, { comment: '' });
      expect(commented).toEqual({ ...paused, comment: '' });
      expect(await context.program.client.accounts.update(account_token, { comment: VISIBLE_TEXT })).toEqual({ ...paused, comment: VISIBLE_TEXT });
    });

    it('refuses a partial verification_address where the account has none to complete', async () => {
      const { client } = await context.server.newProgram('no holder');
      const [account] = (await client.accounts.list()).data;
      const token = account?.token as string;
      const refused = await apiFailure(client.accounts.update(token, { verification_address: { city: 'New York' } }));
      expect(refused).toEqual({ status: 400, message: 'verification_address.address1: is required (the account has no verification address to complete)' });
      const address = { address1: '5 Elm St', city: 'New York', country: 'USA', postal_code: '10001', state: 'NY' };
      const updated = await client.accounts.update(token, { verification_address: address });
      expect(updated.verification_address).toEqual(address);
      expect(updated).not.toHaveProperty('substatus');
      expect(updated).not.toHaveProperty('comment');
    });

    it('answers 404 for an unknown account and 400 for a malformed token', async () => {
      expect((await apiFailure(context.program.client.accounts.update(crypto.randomUUID(), { state: 'PAUSED' }))).status).toBe(404);
      expect((await apiFailure(context.program.client.accounts.retrieve(crypto.randomUUID()))).status).toBe(404);
      expect((await apiFailure(context.program.client.accounts.retrieve('nope'))).message).toBe('account_token: must be a valid uuid');
    });

    it('serializes concurrent updates: the final state is one that was asked for', async () => {
      const { account_token } = await enroll(context.program.client, kycBody());
      const states = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'PAUSED' : 'ACTIVE') as 'PAUSED' | 'ACTIVE');
      const results = await Promise.all(states.map((state, i) => context.program.client.accounts.update(account_token, { state, daily_spend_limit: i + 1 })));
      const final = await context.program.client.accounts.retrieve(account_token);
      expect(results).toContainEqual(final);
    });

    it('keeps every field of concurrent partial address updates (each merges into the address the one before it left)', async () => {
      const { client } = context.program;
      const { account_token } = await enroll(client, kycBody());
      const parts = [{ address1: '1 Main Street' }, { address2: 'Suite 9' }, { city: 'Boston' }, { state: 'MA' }, { postal_code: '02110' }];
      await Promise.all(parts.map((part) => client.accounts.update(account_token, { verification_address: part })));
      expect((await client.accounts.retrieve(account_token)).verification_address).toEqual({
        address1: '1 Main Street',
        address2: 'Suite 9',
        city: 'Boston',
        state: 'MA',
        postal_code: '02110',
        country: 'USA',
      });
    });
  });

  describe('spend limits (SDK retrieveSpendLimits)', () => {
    it('answers the configured limits, the approved spend in each limited window and what is left', async () => {
      const { client } = context.program;
      const { account_token } = await enroll(client, kycBody());
      expect(await client.accounts.retrieveSpendLimits(account_token)).toEqual({
        available_spend_limit: { daily: 500_000, monthly: 500_000 },
        spend_limit: { daily: 500_000, monthly: 500_000, lifetime: 0 },
        spend_velocity: { daily: 0, monthly: 0 },
      });

      await client.accounts.update(account_token, { daily_spend_limit: 10_000, monthly_spend_limit: 30_000, lifetime_spend_limit: 5_000 });
      const card = await newCard(client, account_token);
      const spend = (amount: number) => client.transactions.simulateAuthorization({ amount, descriptor: 'SHOP', pan: card.pan as string });
      expect((await spend(1_500)).token).toBeDefined();
      expect((await spend(2_000)).token).toBeDefined();
      const voided = await spend(700);
      await client.transactions.simulateVoid({ token: voided.token as string });
      expect(await client.accounts.retrieveSpendLimits(account_token)).toEqual({
        available_spend_limit: { daily: 6_500, monthly: 26_500, lifetime: 1_500 },
        spend_limit: { daily: 10_000, monthly: 30_000, lifetime: 5_000 },
        spend_velocity: { daily: 3_500, monthly: 3_500, lifetime: 3_500 },
      });

      // Over the limit (a lowered limit, or a daily limit of 0): nothing is left, never a negative amount.
      await client.accounts.update(account_token, { lifetime_spend_limit: 3_000, daily_spend_limit: 0 });
      expect(await client.accounts.retrieveSpendLimits(account_token)).toEqual({
        available_spend_limit: { daily: 0, monthly: 26_500, lifetime: 0 },
        spend_limit: { daily: 0, monthly: 30_000, lifetime: 3_000 },
        spend_velocity: { daily: 3_500, monthly: 3_500, lifetime: 3_500 },
      });

      // A lifetime limit of 0 is no limit (SDK AccountUpdateParams): no velocity, nothing left to show.
      await client.accounts.update(account_token, { lifetime_spend_limit: 0, monthly_spend_limit: 0 });
      expect(await client.accounts.retrieveSpendLimits(account_token)).toEqual({
        available_spend_limit: { daily: 0, monthly: 0 },
        spend_limit: { daily: 0, monthly: 0, lifetime: 0 },
        spend_velocity: { daily: 3_500, monthly: 3_500 },
      });
    });

    it('reads the windows the authorizations are checked against, on the program clock', async () => {
      const { client } = context.program;
      const { account_token } = await enroll(client, kycBody());
      await client.accounts.update(account_token, { daily_spend_limit: 10_000 });
      const card = await newCard(client, account_token);
      await client.transactions.simulateAuthorization({ amount: 4_000, descriptor: 'SHOP', pan: card.pan as string });
      expect((await client.accounts.retrieveSpendLimits(account_token)).available_spend_limit).toEqual({ daily: 6_000, monthly: 496_000 });
      await moveClock(client, new Date((await programNow(client)) + 25 * 60 * 60 * 1000).toISOString());
      expect((await client.accounts.retrieveSpendLimits(account_token)).available_spend_limit).toEqual({ daily: 10_000, monthly: 496_000 });
    });

    it('answers 404 for an unknown account or another program’s, 400 for a malformed token', async () => {
      const other = await context.server.newProgram('spend-other');
      const { account_token } = await enroll(context.program.client, kycBody());
      expect((await apiFailure(context.program.client.accounts.retrieveSpendLimits(crypto.randomUUID()))).status).toBe(404);
      expect((await apiFailure(other.client.accounts.retrieveSpendLimits(account_token))).status).toBe(404);
      expect(await apiFailure(context.program.client.accounts.retrieveSpendLimits('nope'))).toEqual({ status: 400, message: 'account_token: must be a valid uuid' });
    });
  });

  it('keeps programs apart', async () => {
    const other = await context.server.newProgram('other');
    const { account_token } = await enroll(context.program.client, kycBody());
    expect((await apiFailure(other.client.accounts.retrieve(account_token))).status).toBe(404);
    expect((await apiFailure(other.client.accounts.update(account_token, { state: 'CLOSED' }))).status).toBe(404);
    const theirs = await other.client.accounts.list();
    expect(theirs.data.map((account) => account.token)).not.toContain(account_token);
    expect((await context.program.client.accounts.retrieve(account_token)).state).toBe('ACTIVE');
  });
});

describeWithDb('account spend limits as time passes', () => {
  const clock = frozenWallClock('2031-03-10T12:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  it('gives back the spend of a hold that expired, before any sweep has released it', async () => {
    const { client } = context.program;
    const { account_token } = await enroll(client, kycBody());
    await client.accounts.update(account_token, { lifetime_spend_limit: 10_000 });
    const card = await newCard(client, account_token);
    await client.transactions.simulateAuthorization({ amount: 4_000, descriptor: 'SHOP', pan: card.pan as string });
    expect((await client.accounts.retrieveSpendLimits(account_token)).available_spend_limit).toMatchObject({ lifetime: 6_000 });
    clock.advance(8 * 24 * 60 * 60 * 1000); // the wall clock passes the hold's expiry; no job has run
    expect((await client.accounts.retrieveSpendLimits(account_token)).available_spend_limit).toMatchObject({ lifetime: 10_000 });
  });
});
