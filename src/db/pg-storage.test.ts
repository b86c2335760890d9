/**
 * Storage parameters of the rows every money movement updates (migration 0039), on PostgreSQL; on
 * SQLite the migration does nothing and there is nothing to check. The balances table keeps room on
 * each page so that a movement's UPDATE of a balance row is a HOT update: the new row version on
 * the row's own page, no new index entry.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';

describeWithDb('PostgreSQL storage of hot rows', () => {
  const context = useTestServer();
  const kysely = () => context.server.server.db.kysely;

  it.skipIf(engine !== 'postgres')('leaves 30% of each balances page free after migration', async () => {
    const { rows } = await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where oid = 'balances'::regclass`.execute(kysely());
    expect(rows[0]?.reloptions).toEqual(['fillfactor=70']);
  });

  it.skipIf(engine !== 'postgres')('updates a balance row on its own page (HOT) at its first transfer, whatever pruning can reclaim', async () => {
    const { client, programId } = context.program;
    // Rows inserted one after another fill the table's pages in turn (to 70% with the migration).
    const accounts: string[] = [];
    for (let index = 0; index < 400; index++) accounts.push(await newAccount(client, `page filler ${index}`));
    const source = await newAccount(client, 'source');
    await fund(client, source, 1_000_000);
    const pagesOf = async () => {
      const { rows } = await sql<{ financial_account_token: string; page: number }>`
        select financial_account_token, (ctid::text::point)[0]::int as page from balances where program_id = ${programId}`.execute(kysely());
      return new Map(rows.map((row) => [row.financial_account_token, row.page]));
    };
    const before = await pagesOf();
    // Every eighth account, off the source's page (whose own updates use that page's room): about
    // 40 fresh rows (136 bytes) fill a page to 70%, so five updates at most on a page, whose new
    // versions (216 bytes) fit in the 30% left without pruning (every third account, up to fifteen a
    // page, relied on pruning and failed now and then while other tests held snapshots). At
    // fillfactor 100 a page holds about 51 fresh rows with no room left, and every one of these
    // first updates moves its row to another page (all 50, seen without the migration).
    const targets = accounts.filter((token, index) => index % 8 === 0 && before.get(token) !== before.get(source));
    expect(targets.length).toBeGreaterThan(40);
    // A snapshot held open meanwhile keeps PostgreSQL from pruning any version the transfers leave,
    // as a long transaction of another session would: the rows stay put only if the room was there.
    const holder = new pg.Client({ connectionString: context.server.database.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin isolation level repeatable read');
      await holder.query('select 1');
      for (const target of targets) await bookTransfer(client, source, target, 1);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    const after = await pagesOf();
    const moved = targets.filter((token) => after.get(token) !== before.get(token));
    expect(moved).toEqual([]);
  });
});
