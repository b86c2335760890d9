import crypto from 'node:crypto';
import Lithic from 'lithic';
import { CursorPage } from 'lithic/pagination';
import { expect, it } from 'vitest';
import { acceptedAccountToken, enroll, kycBody } from '../testing/enrollment.js';
import * as accounts from '../accounts/store.js';
import { describeWithDb, engine, useTestServer, type TestProgram, type TestServer } from '../testing/harness.js';
import { NOT_VISIBLE_TEXTS, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

/** A KYC body whose individual has this government id (Lithic's sandbox ids decide the outcome). */
function withGovernmentId(body: ReturnType<typeof kycBody>, governmentId: string) {
  return { ...body, individual: { ...body.individual, government_id: governmentId } };
}

describeWithDb('financial accounts', () => {
  const context = useTestServer();

  it('starts every program with its ISSUING, OPERATING and RESERVE accounts', async () => {
    const page = await context.program.client.financialAccounts.list();
    const programLevel = page.data.filter((account) => account.account_token === null);
    expect(programLevel.map((account) => account.type).sort()).toEqual(['ISSUING', 'OPERATING', 'RESERVE']);
    for (const account of programLevel) {
      expect(account).toMatchObject({ status: 'OPEN', is_for_benefit_of: false, credit_configuration: null, substatus: null });
      expect(account.routing_number).toMatch(/^\d{9}$/);
      expect(account.account_number).toMatch(/^\d+$/);
    }
  });

  it('creates an OPERATING account with every field of the spec', async () => {
    const created = await context.program.client.financialAccounts.create({ nickname: 'Payroll', type: 'OPERATING', is_for_benefit_of: true });
    expect(created).toMatchObject({ nickname: 'Payroll', type: 'OPERATING', status: 'OPEN', is_for_benefit_of: true, account_token: null });
    expect(created.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.created).toBe(created.updated);
    expect(await context.program.client.financialAccounts.retrieve(created.token)).toEqual(created);
  });

  it('creates an account for one of the program accounts and filters by it', async () => {
    const accounts = await context.program.client.accounts.list().catch(() => null);
    const accountToken = accounts?.data[0]?.token ?? (await defaultAccountToken(context.server, context.program));
    const created = await context.program.client.financialAccounts.create({ nickname: 'Ops', type: 'OPERATING', account_token: accountToken });
    expect(created.account_token).toBe(accountToken);
    const filtered = await context.program.client.financialAccounts.list({ account_token: accountToken });
    expect(filtered.data.map((account) => account.token)).toContain(created.token);
    expect(filtered.data.every((account) => account.account_token === accountToken)).toBe(true);
  });

  it('filters by type', async () => {
    const reserve = await context.program.client.financialAccounts.list({ type: 'RESERVE' });
    expect(reserve.data).toHaveLength(1);
    expect(reserve.data[0]?.type).toBe('RESERVE');
  });

  it('counts the nickname limit (256) in characters, not bytes or UTF-16 units, and keeps it intact', async () => {
    const client = context.program.client;
    for (const nickname of ['n'.repeat(256), '\u{1F600}'.repeat(256), 'é'.repeat(256), VISIBLE_TEXT]) {
      const created = await client.financialAccounts.create({ nickname, type: 'OPERATING' });
      expect(created).toMatchObject({ nickname, is_for_benefit_of: false, account_token: null });
      expect((await client.financialAccounts.retrieve(created.token)).nickname).toBe(nickname);
    }
    const before = await countAccounts(client);
    expect(await client.financialAccounts.create({ nickname: '\u{1F600}'.repeat(257), type: 'OPERATING' }).catch((caught: unknown) => caught)).toMatchObject({
      status: 400,
      error: { message: 'nickname: must NOT have more than 256 characters' },
    });
    expect(await countAccounts(client)).toBe(before);
  });

  it.each([
    [{ type: 'OPERATING' }, 'nickname: is required'],
    [{ nickname: 'x' }, 'type: is required'],
    [{ nickname: 'x', type: 'ISSUING' }, 'type: must be one of OPERATING'],
    [{ nickname: 'x'.repeat(257), type: 'OPERATING' }, 'nickname: must NOT have more than 256 characters'],
    [{ nickname: '', type: 'OPERATING' }, 'nickname: must NOT have fewer than 1 characters'],
    ...NOT_VISIBLE_TEXTS.map((nickname): [object, string] => [{ nickname, type: 'OPERATING' }, notVisibleMessage('nickname')]),
    [{ nickname: 7, type: 'OPERATING' }, 'nickname: must be string'],
    [{ nickname: 'x', type: 'OPERATING', account_token: 'not-a-uuid' }, 'account_token: must be a valid uuid'],
    [{ nickname: 'x', type: 'OPERATING', is_for_benefit_of: 'yes' }, 'is_for_benefit_of: must be boolean'],
    [{ nickname: 'x', type: 'OPERATING', colour: 'blue' }, 'colour: is not a recognised field'],
  ])('refuses %j with 400 naming the field, and creates nothing', async (body, message) => {
    const before = await countAccounts(context.program.client);
    const error = await context.program.client.financialAccounts.create(body as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.BadRequestError);
    expect((error as InstanceType<typeof Lithic.BadRequestError>).error).toMatchObject({ message });
    expect(await countAccounts(context.program.client)).toBe(before);
  });

  it('answers 404 for an account_token the program does not have', async () => {
    const error = await context.program.client.financialAccounts
      .create({ nickname: 'x', type: 'OPERATING', account_token: crypto.randomUUID() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Lithic.NotFoundError);
    expect((error as Error).message).toContain('account_token');
  });

  it('refuses (422) an account for a CLOSED account: closed by the client or by a rejected enrollment', async () => {
    const client = context.program.client;
    const closed = await acceptedAccountToken(client);
    await client.accounts.update(closed, { state: 'CLOSED' });
    const rejected = (await enroll(client, withGovernmentId(kycBody(), '000-00-0001'))).account_token;
    expect((await client.accounts.retrieve(rejected)).state).toBe('CLOSED');
    const before = await countAccounts(client);
    for (const accountToken of [closed, rejected]) {
      expect(await client.financialAccounts.create({ nickname: 'late', type: 'OPERATING', account_token: accountToken }).catch((caught: unknown) => caught)).toMatchObject({
        status: 422,
        error: { message: `account_token: account '${accountToken}' is CLOSED, which is final; no financial account can be opened for it` },
      });
    }
    expect(await countAccounts(client)).toBe(before);
  });

  it.skipIf(engine !== 'postgres')('decides a creation racing the closing of its account under the account\'s lock: it waits, then is refused', async () => {
    const { client, programId } = context.program;
    const accountToken = await acceptedAccountToken(client);
    const { db } = context.server.server;
    let creating: Promise<unknown> | undefined;
    const whileClosing = await db.transaction(async (tx) => {
      expect(await accounts.lock(db, tx, programId, accountToken)).toBeDefined();
      creating = client.financialAccounts.create({ nickname: 'racing', type: 'OPERATING', account_token: accountToken }).catch((caught: unknown) => caught);
      const waited = await Promise.race([creating.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]);
      await accounts.update(tx, programId, accountToken, { state: 'CLOSED' });
      return waited;
    });
    expect(whileClosing).toBe('waiting');
    expect(await creating).toMatchObject({ status: 422 });
  });

  it('answers 404 for an unknown token and 400 for a malformed one', async () => {
    await expect(context.program.client.financialAccounts.retrieve(crypto.randomUUID())).rejects.toBeInstanceOf(Lithic.NotFoundError);
    await expect(context.program.client.financialAccounts.retrieve('nope')).rejects.toBeInstanceOf(Lithic.BadRequestError);
  });

  it('keeps programs apart: another program sees 404 and empty lists', async () => {
    const other = await context.server.newProgram('other');
    const mine = await context.program.client.financialAccounts.create({ nickname: 'Private', type: 'OPERATING' });
    await expect(other.client.financialAccounts.retrieve(mine.token)).rejects.toBeInstanceOf(Lithic.NotFoundError);
    const theirs = await other.client.financialAccounts.list();
    expect(theirs.data.map((account) => account.token)).not.toContain(mine.token);
    expect(theirs.data).toHaveLength(3);
    const accountToken = await defaultAccountToken(context.server, context.program);
    await expect(other.client.financialAccounts.create({ nickname: 'x', type: 'OPERATING', account_token: accountToken })).rejects.toBeInstanceOf(
      Lithic.NotFoundError,
    );
    await expect(other.client.financialAccounts.list({ account_token: accountToken })).resolves.toMatchObject({ data: [] });
  });

  it('pages through every account exactly once, forwards and backwards', async () => {
    const pager = await context.server.newProgram('pager');
    for (let i = 0; i < 23; i++) await pager.client.financialAccounts.create({ nickname: `fa ${i}`, type: 'OPERATING' });
    const all = (await pager.client.financialAccounts.list({ page_size: 100 } as never)).data.map((account) => account.token);
    expect(all).toHaveLength(26);
    expect(new Set(all).size).toBe(26);
    const created = (await pager.client.financialAccounts.list({ page_size: 100 } as never)).data.map((account) => Date.parse(account.created));
    expect(created).toEqual([...created].sort((a, b) => b - a));

    const forwards: string[] = [];
    for await (const account of pager.client.getAPIList<Token, CursorPage<Token>>('/v1/financial_accounts', CursorPage, { query: { page_size: 4 } })) {
      forwards.push(account.token);
    }
    expect(forwards).toEqual(all);

    const backwards: string[] = [];
    let cursor: string | undefined = all.at(-1);
    backwards.unshift(cursor as string);
    for (;;) {
      const page = await pager.client.getAPIList<Token, CursorPage<Token>>('/v1/financial_accounts', CursorPage, {
        query: { page_size: 5, ending_before: cursor },
      });
      backwards.unshift(...page.data.map((account) => account.token));
      if (!page.has_more) break;
      cursor = page.data[0]?.token;
    }
    expect(backwards).toEqual(all);
  });

  it('lists every account when no page is asked for: the SDK reads this list as one page (SinglePage) and cannot follow has_more', async () => {
    const many = await context.server.newProgram('many accounts');
    for (let i = 0; i < 52; i++) await many.client.financialAccounts.create({ nickname: `fa ${i}`, type: 'OPERATING' });
    const listed: string[] = [];
    for await (const account of many.client.financialAccounts.list()) listed.push(account.token);
    expect(new Set(listed).size).toBe(55);
    const whole = await many.client.financialAccounts.list({ type: 'OPERATING' });
    expect(whole).toMatchObject({ has_more: false });
    expect(whole.data).toHaveLength(53);
    const paged = await many.client.getAPIList<Token, CursorPage<Token>>('/v1/financial_accounts', CursorPage, { query: { page_size: 50 } });
    expect(paged).toMatchObject({ has_more: true });
    expect(paged.data).toHaveLength(50);
  });

  it('refuses bad page parameters with 400', async () => {
    for (const query of ['page_size=0', 'page_size=101', 'page_size=abc', 'starting_after=nope', `starting_after=${crypto.randomUUID()}`]) {
      const response = await context.server.request('GET', `/v1/financial_accounts?${query}`, { apiKey: context.program.apiKey });
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { message: string };
      expect(body.message).toMatch(/page_size|starting_after/);
    }
    const both = await context.server.request('GET', `/v1/financial_accounts?starting_after=${crypto.randomUUID()}&ending_before=${crypto.randomUUID()}`, {
      apiKey: context.program.apiKey,
    });
    expect(both.status).toBe(400);
  });
});

type Token = { token: string };

async function countAccounts(client: Lithic): Promise<number> {
  return (await client.financialAccounts.list({ page_size: 100 } as never)).data.length;
}

async function defaultAccountToken(server: TestServer, program: TestProgram): Promise<string> {
  const row = await server.server.db.kysely
    .selectFrom('accounts')
    .select('token')
    .where('program_id', '=', program.programId)
    .where('is_default', '=', 1)
    .executeTakeFirstOrThrow();
  return row.token;
}
