import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { changedLastAt, describeWithDb, type TestProgram, useTestServer } from '../testing/harness.js';
import { balanceOf, bookTransfer, expectError, fund, newAccount } from '../testing/money.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

type Transfer = Lithic.BookTransferResponse;

describeWithDb('book transfers', () => {
  const context = useTestServer();

  async function pair(fundedCents: number): Promise<[string, string]> {
    const from = await newAccount(context.program.client, 'from');
    const to = await newAccount(context.program.client, 'to');
    if (fundedCents > 0) await fund(context.program.client, from, fundedCents);
    return [from, to];
  }

  const transfer = (from: string, to: string, amount: number, extra: Partial<Lithic.BookTransferCreateParams> = {}) =>
    bookTransfer(context.program.client, from, to, amount, extra);

  async function expectLedgerConsistent() {
    const check = await verifyProgramLedger(context.server.server.db.kysely, context.program.programId);
    expect(check).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  it('moves available funds at once and records one approved event', async () => {
    const { client } = context.program;
    const [from, to] = await pair(10_000);
    const created = await transfer(from, to, 2_500, { memo: 'rent share' });
    expect(created).toMatchObject({
      status: 'SETTLED',
      result: 'APPROVED',
      category: 'TRANSFER',
      currency: 'USD',
      from_financial_account_token: from,
      to_financial_account_token: to,
      pending_amount: 0,
      settled_amount: 2_500,
      transaction_series: null,
      external_id: null,
    });
    expect(created.events).toHaveLength(1);
    expect(created.events[0]).toMatchObject({
      amount: 2_500,
      type: 'ACCOUNT_TO_ACCOUNT',
      subtype: 'P2P',
      memo: 'rent share',
      result: 'APPROVED',
      detailed_results: ['APPROVED'],
    });
    expect(await balanceOf(client, from)).toEqual({ available: 7_500, pending: 0, total: 7_500 });
    expect(await balanceOf(client, to)).toEqual({ available: 2_500, pending: 0, total: 2_500 });
    expect(await client.bookTransfers.retrieve(created.token)).toEqual(created);
    await expectLedgerConsistent();
  });

  it('stores a transfer without the funds as DECLINED (200) and moves nothing', async () => {
    const { client } = context.program;
    const [from, to] = await pair(1_000);
    const declined = await transfer(from, to, 1_001);
    expect(declined).toMatchObject({ status: 'DECLINED', result: 'DECLINED', settled_amount: 0, pending_amount: 0 });
    expect(declined.events[0]).toMatchObject({ result: 'DECLINED', detailed_results: ['FUNDS_INSUFFICIENT'], amount: 1_001 });
    expect(await balanceOf(client, from)).toEqual({ available: 1_000, pending: 0, total: 1_000 });
    expect(await balanceOf(client, to)).toEqual({ available: 0, pending: 0, total: 0 });
    const exact = await transfer(from, to, 1_000);
    expect(exact.status).toBe('SETTLED');
    await expectLedgerConsistent();
  });

  it.each([
    [{ amount: 0 }, 'amount: must be >= 1'],
    [{ amount: 1.5 }, 'amount: must be integer'],
    [{ amount: '5' }, 'amount: must be integer'],
    [{ category: 'GIFT' }, 'category: must be one of'],
    [{ type: 'GIFT' }, 'type: must be one of'],
    [{ subtype: undefined }, 'subtype: is required'],
    [{ memo: 'x'.repeat(513) }, 'memo: must NOT have more than 512 characters'],
    ...NOT_VISIBLE_TEXTS.map((memo): [object, string] => [{ memo }, notEmptyOrVisibleMessage('memo')]),
    ...(['subtype', 'external_id'] as const).flatMap((field) => [
      [{ [field]: '' }, `${field}: must NOT have fewer than 1 characters`] as [object, string],
      [{ [field]: 'x'.repeat(257) }, `${field}: must NOT have more than 256 characters`] as [object, string],
      ...NOT_VISIBLE_TEXTS.map((value): [object, string] => [{ [field]: value }, notVisibleMessage(field)]),
    ]),
    [{ token: 'nope' }, 'token: must be a valid uuid'],
    [{ from_financial_account_token: 'nope' }, 'from_financial_account_token: must be a valid uuid'],
    [{ on_closed_account: 'LATER' }, 'on_closed_account: must be one of FAIL, USE_SUSPENSE'],
    [{ colour: 'red' }, 'colour: is not a recognised field'],
  ])('refuses %j with 400 naming the field, and changes nothing', async (override, message) => {
    const { client } = context.program;
    const [from, to] = await pair(500);
    const body = { amount: 100, category: 'TRANSFER', type: 'TRANSFER', subtype: 'x', from_financial_account_token: from, to_financial_account_token: to, ...override };
    const error = await expectError(client.bookTransfers.create(body as never), 400);
    expect(error).toContain(message);
    expect(await balanceOf(client, from)).toEqual({ available: 500, pending: 0, total: 500 });
    expect((await client.bookTransfers.list({ financial_account_token: from })).data).toHaveLength(0);
  });

  it('takes an empty memo (none, as without one) and one with spaces and letters beyond ASCII, as given', async () => {
    const [from, to] = await pair(200);
    expect((await transfer(from, to, 100, { memo: '' })).events[0]?.memo).toBe('');
    expect((await transfer(from, to, 100, { memo: VISIBLE_TEXT })).events[0]?.memo).toBe(VISIBLE_TEXT);
  });

  it('refuses a transfer to the same account (400) and unknown accounts (404 naming the field)', async () => {
    const [from] = await pair(500);
    expect(await expectError(transfer(from, from, 1), 400)).toContain('to_financial_account_token');
    expect(await expectError(transfer(from, crypto.randomUUID(), 1), 404)).toContain('to_financial_account_token');
    expect(await expectError(transfer(crypto.randomUUID(), from, 1), 404)).toContain('from_financial_account_token');
  });

  it('refuses to move money on an account that is not OPEN (422)', async () => {
    const { client } = context.program;
    const [from, to] = await pair(500);
    await client.financialAccounts.updateStatus(to, { status: 'SUSPENDED', substatus: null });
    expect(await expectError(transfer(from, to, 100), 422)).toContain('SUSPENDED');
    await client.financialAccounts.updateStatus(to, { status: 'OPEN', substatus: null });
    expect((await transfer(from, to, 100)).status).toBe('SETTLED');
  });

  it('answers 404 for an unknown account before 422 for the state of the other one', async () => {
    const { client } = context.program;
    const [from] = await pair(500);
    await client.financialAccounts.updateStatus(from, { status: 'SUSPENDED', substatus: null });
    expect(await expectError(transfer(from, crypto.randomUUID(), 100), 404)).toContain('to_financial_account_token');
    expect(await balanceOf(client, from)).toEqual({ available: 500, pending: 0, total: 500 });
  });

  describe('reverse (seed 4.9)', () => {
    it('never dates a reversal before the transfer it reverses (a transfer stamped by a request that saw a moved clock)', async () => {
      const { client, programId } = context.program;
      const [a, b] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
      await fund(client, a, 500);
      const created = await bookTransfer(client, a, b, 200);
      const laterMs = Date.parse(created.updated) + 3_600_000;
      // As if the transfer had last changed at a clock moved an hour ahead by a request that committed first.
      await changedLastAt(context.server.server.db, 'book_transfers', programId, created.token, laterMs);
      const reversed = await client.bookTransfers.reverse(created.token, {});
      expect(Date.parse(reversed.events[1]?.created as string)).toBe(laterMs);
      expect(Date.parse(reversed.updated)).toBe(laterMs);
    });

    it('moves the funds back, marks the transfer REVERSED and appends a reversal event', async () => {
      const { client } = context.program;
      const [from, to] = await pair(5_000);
      const created = await transfer(from, to, 1_200);
      const reversed = await client.bookTransfers.reverse(created.token, { memo: 'sent in error' });
      expect(reversed).toMatchObject({ token: created.token, status: 'REVERSED', result: 'APPROVED', settled_amount: 0 });
      expect(reversed.events).toHaveLength(2);
      expect(reversed.events[1]).toMatchObject({ amount: 1_200, memo: 'sent in error', result: 'APPROVED', type: 'ACCOUNT_TO_ACCOUNT', subtype: 'P2P' });
      expect(Date.parse(reversed.updated)).toBeGreaterThanOrEqual(Date.parse(created.updated));
      expect(await balanceOf(client, from)).toEqual({ available: 5_000, pending: 0, total: 5_000 });
      expect(await balanceOf(client, to)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await client.bookTransfers.retrieve(created.token)).toEqual(reversed);
      await expectLedgerConsistent();
    });

    it('refuses a second reverse and the reverse of a DECLINED transfer with 422', async () => {
      const { client } = context.program;
      const [from, to] = await pair(100);
      const created = await transfer(from, to, 100);
      await client.bookTransfers.reverse(created.token, {});
      expect(await expectError(client.bookTransfers.reverse(created.token, {}), 422)).toContain('REVERSED');
      const declined = await transfer(from, to, 1_000);
      expect(await expectError(client.bookTransfers.reverse(declined.token, {}), 422)).toContain('DECLINED');
      expect(await balanceOf(client, from)).toEqual({ available: 100, pending: 0, total: 100 });
    });

    it('takes a request without a body (the memo is optional)', async () => {
      const [from, to] = await pair(100);
      const created = await transfer(from, to, 100);
      const response = await context.server.request('POST', `/v1/book_transfers/${created.token}/reverse`, { apiKey: context.program.apiKey });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Transfer).status).toBe('REVERSED');
    });

    it('validates the memo (≤ 512) and the path token', async () => {
      const { client } = context.program;
      const [from, to] = await pair(100);
      const created = await transfer(from, to, 100);
      expect(await expectError(client.bookTransfers.reverse(created.token, { memo: 'x'.repeat(513) }), 400)).toContain('memo');
      for (const memo of NOT_VISIBLE_TEXTS) expect(await expectError(client.bookTransfers.reverse(created.token, { memo }), 400)).toBe(notEmptyOrVisibleMessage('memo'));
      expect(await expectError(client.bookTransfers.reverse('nope', {}), 400)).toContain('book_transfer_token');
      expect(await expectError(client.bookTransfers.reverse(crypto.randomUUID(), {}), 404)).toContain('book transfer');
      expect((await client.bookTransfers.retrieve(created.token)).status).toBe('SETTLED');
    });

    it('counts the memo limit (512) in characters: 512 emoji are taken whole, 513 refused', async () => {
      const { client } = context.program;
      const [from, to] = await pair(100);
      const created = await transfer(from, to, 100);
      expect(await expectError(client.bookTransfers.reverse(created.token, { memo: '\u{1F600}'.repeat(513) }), 400)).toBe('memo: must NOT have more than 512 characters');
      expect(await client.bookTransfers.retrieve(created.token)).toEqual(created);
      const reversed = await client.bookTransfers.reverse(created.token, { memo: '\u{1F600}'.repeat(512) });
      expect(reversed.events[1]?.memo).toBe('\u{1F600}'.repeat(512));
      expect(await client.bookTransfers.retrieve(created.token)).toEqual(reversed);
    });

    it('lets exactly one of 10 concurrent reverses win; the others get 422', async () => {
      const { client } = context.program;
      const [from, to] = await pair(700);
      const created = await transfer(from, to, 700);
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => client.bookTransfers.reverse(created.token, {})));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((outcome) => (outcome.reason as InstanceType<typeof Lithic.APIError>).status)).toEqual(Array(9).fill(422));
      expect((await client.bookTransfers.retrieve(created.token)).events).toHaveLength(2);
      expect(await balanceOf(client, from)).toEqual({ available: 700, pending: 0, total: 700 });
      expect(await balanceOf(client, to)).toEqual({ available: 0, pending: 0, total: 0 });
      await expectLedgerConsistent();
    });
  });

  describe('idempotency', () => {
    it('uses the body token as the transfer token; a repeat returns the original and moves nothing', async () => {
      const { client } = context.program;
      const [from, to] = await pair(1_000);
      const token = crypto.randomUUID();
      const first = await transfer(from, to, 300, { token });
      expect(first.token).toBe(token);
      const again = await transfer(from, to, 300, { token });
      expect(again).toEqual(first);
      expect(await balanceOf(client, from)).toEqual({ available: 700, pending: 0, total: 700 });
      expect(await expectError(transfer(from, to, 301, { token }), 400)).toContain('different request');
    });

    it('answers 400, never 500, for a token already used by another transaction', async () => {
      const { client } = context.program;
      const [from, to] = await pair(1_000);
      const first = await transfer(from, to, 100);
      const message = await expectError(transfer(from, to, 100, { token: first.token, memo: 'other' }), 400);
      expect(message).toContain('token');
      const viaHeader = await expectError(
        client.bookTransfers.create(
          { amount: 100, category: 'TRANSFER', type: 'TRANSFER', subtype: 'x', from_financial_account_token: from, to_financial_account_token: to, token: first.token },
          { headers: { 'Idempotency-Key': crypto.randomUUID() } },
        ),
        400,
      );
      expect(viaHeader).toContain('token');
      expect(await balanceOf(client, from)).toEqual({ available: 900, pending: 0, total: 900 });
    });

    it('replays an Idempotency-Key create', async () => {
      const { client } = context.program;
      const [from, to] = await pair(1_000);
      const key = crypto.randomUUID();
      const first = await transfer(from, to, 10, {}).then(() => client.bookTransfers.create(
        { amount: 20, category: 'FEE', type: 'MONTHLY', subtype: 'fee', from_financial_account_token: from, to_financial_account_token: to },
        { headers: { 'Idempotency-Key': key } },
      ));
      const again = await client.bookTransfers.create(
        { amount: 20, category: 'FEE', type: 'MONTHLY', subtype: 'fee', from_financial_account_token: from, to_financial_account_token: to },
        { headers: { 'Idempotency-Key': key } },
      );
      expect(again).toEqual(first);
      expect(await balanceOf(client, from)).toEqual({ available: 970, pending: 0, total: 970 });
    });
  });

  describe('list', () => {
    let lister: TestProgram;
    let a: string;
    let b: string;
    let c: string;
    const made: Transfer[] = [];

    beforeAll(async () => {
      lister = await context.server.newProgram('lister');
      a = await newAccount(lister.client, 'a');
      b = await newAccount(lister.client, 'b');
      c = await newAccount(lister.client, 'c');
      await fund(lister.client, a, 10_000);
      const make = (from: string, to: string, amount: number, category: Lithic.BookTransferCreateParams['category']) =>
        lister.client.bookTransfers.create({ amount, category, type: 'TRANSFER', subtype: 's', from_financial_account_token: from, to_financial_account_token: to });
      made.push(await make(a, b, 100, 'TRANSFER'));
      made.push(await make(a, c, 200, 'FEE'));
      made.push(await make(b, c, 50, 'TRANSFER'));
      made.push(await make(c, a, 99_999, 'REWARD'));
      made.push(await make(a, b, 10, 'ADJUSTMENT'));
      await lister.client.bookTransfers.reverse((made[4] as Transfer).token, {});
    });

    const tokens = (page: { data: Transfer[] }) => page.data.map((transfer) => transfer.token);
    const madeTokens = (...indexes: number[]) => indexes.map((index) => (made[index] as Transfer).token);

    it('lists newest first and filters by account, category, result and status', async () => {
      expect(tokens(await lister.client.bookTransfers.list())).toEqual(madeTokens(4, 3, 2, 1, 0));
      expect(tokens(await lister.client.bookTransfers.list({ financial_account_token: c }))).toEqual(madeTokens(3, 2, 1));
      expect(tokens(await lister.client.bookTransfers.list({ category: 'TRANSFER' }))).toEqual(madeTokens(2, 0));
      expect(tokens(await lister.client.bookTransfers.list({ result: 'DECLINED' }))).toEqual(madeTokens(3));
      expect(tokens(await lister.client.bookTransfers.list({ status: 'SETTLED' }))).toEqual(madeTokens(2, 1, 0));
      expect(tokens(await lister.client.bookTransfers.list({ status: 'REVERSED' } as never))).toEqual(madeTokens(4));
    });

    it('filters by begin/end and pages with cursors', async () => {
      const middle = made[2] as Transfer;
      const after = tokens(await lister.client.bookTransfers.list({ begin: new Date(Date.parse(middle.created) - 1).toISOString() }));
      expect(after).toContain(middle.token);
      expect(after).not.toContain((made[0] as Transfer).token === middle.token ? '' : undefined);
      const page1 = await lister.client.bookTransfers.list({ page_size: 2 });
      expect(tokens(page1)).toEqual(madeTokens(4, 3));
      expect(page1.has_more).toBe(true);
      const page2 = await lister.client.bookTransfers.list({ page_size: 2, starting_after: (made[3] as Transfer).token });
      expect(tokens(page2)).toEqual(madeTokens(2, 1));
      const back = await lister.client.bookTransfers.list({ page_size: 2, ending_before: (made[1] as Transfer).token });
      expect(tokens(back)).toEqual(madeTokens(3, 2));
      const all: string[] = [];
      for await (const item of lister.client.bookTransfers.list({ page_size: 1 })) all.push(item.token);
      expect(all).toEqual(madeTokens(4, 3, 2, 1, 0));
    });

    it('pages through one financial account’s transfers, out and in, both ways and within begin/end', async () => {
      const accountPages = async (financialAccount: string, pageSize: number, range: { begin?: string; end?: string } = {}) => {
        const forward: string[] = [];
        for await (const item of lister.client.bookTransfers.list({ financial_account_token: financialAccount, page_size: pageSize, ...range })) forward.push(item.token);
        const backward: string[] = [];
        let before = forward.at(-1);
        while (before !== undefined) {
          const page = await lister.client.bookTransfers.list({ financial_account_token: financialAccount, page_size: pageSize, ending_before: before, ...range });
          backward.unshift(...tokens(page));
          before = page.has_more ? page.data[0]?.token : undefined;
        }
        return { forward, backward: [...backward, ...forward.slice(-1)] };
      };
      for (const pageSize of [1, 2, 3]) {
        expect(await accountPages(a, pageSize), `a, page_size ${pageSize}`).toEqual({ forward: madeTokens(4, 3, 1, 0), backward: madeTokens(4, 3, 1, 0) });
        expect(await accountPages(c, pageSize), `c, page_size ${pageSize}`).toEqual({ forward: madeTokens(3, 2, 1), backward: madeTokens(3, 2, 1) });
      }
      const range = { begin: new Date(Date.parse((made[0] as Transfer).created) - 1).toISOString(), end: new Date(Date.parse((made[4] as Transfer).created)).toISOString() };
      const within = made.filter((transfer, index) => index !== 2 && transfer.created > range.begin && transfer.created < range.end).map((transfer) => transfer.token).reverse();
      expect((await accountPages(a, 1, range)).forward).toEqual(within);
    });

    it('filters by the account that owns the financial accounts', async () => {
      const accountToken = (await context.server.server.db.kysely
        .selectFrom('accounts')
        .select('token')
        .where('program_id', '=', lister.programId)
        .executeTakeFirstOrThrow()).token;
      const owned = await lister.client.financialAccounts.create({ nickname: 'owned', type: 'OPERATING', account_token: accountToken });
      const made2 = await lister.client.bookTransfers.create({ amount: 1, category: 'TRANSFER', type: 'TRANSFER', subtype: 's', from_financial_account_token: a, to_financial_account_token: owned.token });
      expect(tokens(await lister.client.bookTransfers.list({ account_token: accountToken }))).toEqual([made2.token]);
      expect(tokens(await lister.client.bookTransfers.list({ business_account_token: accountToken }))).toEqual([made2.token]);
    });

    it('pages through an account’s transfers once each, also those between two of its financial accounts, both ways', async () => {
      const owner = await context.server.newProgram('owner');
      const outside = await newAccount(owner.client, 'outside');
      const accountToken = (await context.server.server.db.kysely
        .selectFrom('accounts')
        .select('token')
        .where('program_id', '=', owner.programId)
        .executeTakeFirstOrThrow()).token;
      const mine = async (nickname: string) => (await owner.client.financialAccounts.create({ nickname, type: 'OPERATING', account_token: accountToken })).token;
      const [first, second] = [await mine('first'), await mine('second')];
      await fund(owner.client, outside, 1_000);
      const move = (from: string, to: string) =>
        owner.client.bookTransfers.create({ amount: 10, category: 'TRANSFER', type: 'TRANSFER', subtype: 's', from_financial_account_token: from, to_financial_account_token: to });
      const moves = [await move(outside, first), await move(first, second), await move(second, outside), await move(outside, first), await move(first, second)];
      await move(outside, await newAccount(owner.client, 'other'));
      const expected = moves.map((transfer) => transfer.token).reverse();
      for (const filter of [{ account_token: accountToken }, { business_account_token: accountToken }]) {
        for (const pageSize of [1, 2, 3]) {
          const forward: string[] = [];
          for await (const item of owner.client.bookTransfers.list({ ...filter, page_size: pageSize })) forward.push(item.token);
          expect(forward, `forward, page_size ${pageSize}`).toEqual(expected);
          const backward = await owner.client.bookTransfers.list({ ...filter, page_size: pageSize, ending_before: expected.at(-1) });
          expect(tokens(backward), `backward, page_size ${pageSize}`).toEqual(expected.slice(-1 - pageSize, -1));
          expect(backward.has_more).toBe(pageSize < expected.length - 1);
        }
      }
      expect(tokens(await owner.client.bookTransfers.list({ account_token: accountToken, financial_account_token: second }))).toEqual([4, 2, 1].map((index) => (moves[index] as Transfer).token));
      expect(tokens(await owner.client.bookTransfers.list({ account_token: accountToken, financial_account_token: outside, status: 'SETTLED' }))).toEqual([3, 2, 0].map((index) => (moves[index] as Transfer).token));
    });

    it('refuses bad filters with 400', async () => {
      for (const query of ['status=PENDING', 'category=GIFT', 'page_size=0', 'page_size=101', 'begin=yesterday', 'financial_account_token=nope', 'colour=red']) {
        const response = await context.server.request('GET', `/v1/book_transfers?${query}`, { apiKey: lister.apiKey });
        expect(response.status, query).toBe(400);
      }
    });

    it('keeps programs apart', async () => {
      const { client } = context.program;
      expect(tokens(await client.bookTransfers.list({ financial_account_token: a }))).toEqual([]);
      await expectError(client.bookTransfers.retrieve((made[0] as Transfer).token), 404);
      await expectError(client.bookTransfers.reverse((made[0] as Transfer).token, {}), 404);
      expect(await expectError(transfer(a, b, 1), 404)).toContain('from_financial_account_token');
    });
  });
});
