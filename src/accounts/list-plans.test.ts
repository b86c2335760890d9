/**
 * `GET /v1/accounts` (begin, end and cursors, its only filters) pages are a range of
 * `accounts_by_created` in list order on every page shape, with the rows begin/end and the cursor
 * name, checked against those applied here to every account; each account's holder (three in four
 * have one) is a primary-key seek per account on the page, never a read of the program's holders.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { accountRow, holderRow, seededCreatedMs, seededToken } from '../testing/list-rows.js';
import { analyzed, expectedPage, expectIndexRanges, pageShapes, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import { listWithHolder } from './store.js';

const PROGRAM = 'p-accounts';
const OTHER = 'p-other';
const ACCOUNTS = 5_000;
const createdMs = seededCreatedMs;
const accountToken = (i: number) => seededToken(PROGRAM, 'a', i);

describeWithDb('account list plans', () => {
  const storage = useMigratedDb();
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => accountRow(PROGRAM, accountToken(i), createdMs(i), i % 4 === 0 ? null : `h-${i}`));

  beforeAll(async () => {
    const { kysely } = storage.db;
    for (const [program, rows] of [[PROGRAM, accounts], [OTHER, Array.from({ length: ACCOUNTS / 2 }, (_, i) => accountRow(OTHER, accountToken(i), createdMs(i), `h-${i}`))]] as const) {
      await seedRows(kysely, 'accounts', rows);
      await seedRows(kysely, 'account_holders', rows.flatMap((row) => (row.account_holder_token === null ? [] : [holderRow(program, row.account_holder_token, row.token, row.created_ms, { email: `${row.token}@example.com` })])));
    }
    await analyzed(kysely, ['accounts', 'account_holders']);
  }, 60_000);

  it('pages a range of accounts_by_created, each holder by key, with the rows begin/end and the cursor name, on every page shape', async () => {
    const { kysely } = storage.db;
    const cursor = accountToken(2_501);
    for (const shape of pageShapes(cursor, { range: { begin: new Date(createdMs(500)).toISOString(), end: new Date(createdMs(4_000)).toISOString() } })) {
      const listed = await listWithHolder(kysely, PROGRAM, shape.range, shape.page);
      expect({ tokens: listed.rows.map((row) => row.token), has_more: listed.has_more }, shape.name).toEqual(
        expectedPage(accounts, () => true, shape.page, shape.range),
      );
      for (const row of listed.rows) expect(row.holder_email, shape.name).toBe(row.account_holder_token === null ? null : `${row.token}@example.com`);
      const plan = await pagePlan(kysely, (watched) => listWithHolder(watched, PROGRAM, shape.range, shape.page));
      expectIndexRanges(plan, 'accounts', shape.name, { indexes: ['accounts_by_created'] });
      if (engine === 'sqlite') {
        expect(plan.filter((step) => /^(SEARCH|SCAN) account_holders /.test(step)), shape.name).toEqual([
          expect.stringMatching(/^SEARCH account_holders USING (INDEX sqlite_autoindex_account_holders_1|PRIMARY KEY) \(program_id=\? AND token=\?\)( LEFT-JOIN)?$/),
        ]);
      } else {
        expect(plan.join('\n'), shape.name).not.toMatch(/Seq Scan on account_holders\b/);
      }
    }
  });
});
