/**
 * Group commit on SQLite (group-commit.ts): writes that arrive together share one transaction and
 * its COMMIT, each in a savepoint. What must hold: a failed write is rolled back alone; a caller
 * hears of success only once its write committed (a COMMIT that fails fails every write of its
 * group, none of them written); after-commit effects run only for committed writes; bursts larger
 * than a group all commit, in order.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine, type TestDatabase } from '../testing/harness.js';
import { openDatabase, type Db, type Tx } from './database.js';
import { MAX_GROUP_SIZE } from './group-commit.js';
import { prepared, preparedWrite } from './prepared.js';

describe.skipIf(engine !== 'sqlite')('SQLite group commit', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.databaseUrl, { dataDir: database.dataDir, sqliteCheckpoints: { enabled: false } });
    await sql`create table gc_parents (id text primary key)`.execute(db.kysely);
    await sql`create table gc_children (id text primary key, parent_id text not null references gc_parents (id))`.execute(db.kysely);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const insertParent = (tx: Tx, id: string) => sql`insert into gc_parents (id) values (${id})`.execute(tx);
  async function parents(prefix: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`select id from gc_parents where id like ${`${prefix}%`} order by id`.execute(db.kysely);
    return rows.map((row) => row.id);
  }

  it('rolls back a failed write alone: the writes queued beside it commit', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction(async (tx) => insertParent(tx, 'alone-1')),
      db.transaction(async (tx) => {
        await insertParent(tx, 'alone-2');
        throw new Error('refused');
      }),
      db.transaction(async (tx) => {
        await insertParent(tx, 'alone-1'); // a duplicate: this write fails, not its group
      }),
      db.transaction(async (tx) => insertParent(tx, 'alone-3')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/refused/);
    expect(await parents('alone-')).toEqual(['alone-1', 'alone-3']);
  });

  it('answers a write only once its group committed: a COMMIT that fails fails the whole group, and writes nothing', async () => {
    // The second write defers a foreign key violation to COMMIT: the first write, queued beside it,
    // succeeded on its own and must still not be answered as committed.
    const outcomes = await Promise.allSettled([
      db.transaction(async (tx) => insertParent(tx, 'commit-1')),
      db.transaction(async (tx) => {
        await sql`pragma defer_foreign_keys = on`.execute(tx);
        await sql`insert into gc_children (id, parent_id) values ('orphan', 'no-such-parent')`.execute(tx);
      }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(await parents('commit-')).toEqual([]);
    // The connection is usable again, outside a transaction.
    await db.transaction(async (tx) => insertParent(tx, 'commit-after'));
    expect(await parents('commit-')).toEqual(['commit-after']);
  });

  it('runs after-commit effects once the group committed, and never for a failed write', async () => {
    const ran: string[] = [];
    const committed = db.transaction(async (tx) => {
      await insertParent(tx, 'effects-1');
      db.afterCommit(tx, () => ran.push('effects-1'));
      expect(ran).toEqual([]);
    });
    const failed = db.transaction(async (tx) => {
      db.afterCommit(tx, () => ran.push('effects-2'));
      throw new Error('refused');
    });
    await committed;
    expect(ran).toEqual(['effects-1']);
    await expect(failed).rejects.toThrow(/refused/);
    expect(ran).toEqual(['effects-1']);
  });

  it('commits a burst larger than a group, every write in the order it arrived', async () => {
    const count = MAX_GROUP_SIZE * 3 + 5;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: count }, (_, index) =>
        db.transaction(async (tx) => {
          order.push(index);
          await insertParent(tx, `burst-${String(index).padStart(4, '0')}`);
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: count }, (_, index) => index));
    expect(await parents('burst-')).toHaveLength(count);
  });

  it('lets a write see what earlier writes of its group wrote, as one after another', async () => {
    const seen = await Promise.all([
      db.transaction(async (tx) => insertParent(tx, 'seen-1')),
      db.transaction(async (tx) => (await sql<{ n: number }>`select count(*) as n from gc_parents where id = 'seen-1'`.execute(tx)).rows[0]?.n),
    ]);
    expect(seen[1]).toBe(1);
  });

  // Prepared statements of a running work go straight to the connection (group-commit.ts `executeCompiled`).
  const insertPrepared = preparedWrite((db, id: string) => db.insertInto('gc_parents' as never).values({ id } as never));
  const countPrepared = prepared((db, id: string) =>
    db.selectFrom('gc_parents' as never).select((eb) => eb.fn.countAll<number>().as('n')).where('id' as never, '=', id as never),
  );

  it('runs the prepared statements of a work inside its savepoint: a failed write takes them back, alone', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction(async (tx) => insertPrepared(tx, 'prepared-1')),
      db.transaction(async (tx) => {
        await insertPrepared(tx, 'prepared-2');
        expect((await countPrepared(tx, 'prepared-2'))[0]).toEqual({ n: 1 });
        throw new Error('refused');
      }),
      db.transaction(async (tx) => insertPrepared(tx, 'prepared-3')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await parents('prepared-')).toEqual(['prepared-1', 'prepared-3']);
  });

  it('refuses a statement on a work\'s transaction once the work is over, instead of running it in whatever the connection is in', async () => {
    let stale: Tx | undefined;
    await db.transaction(async (tx) => {
      stale = tx;
      await insertPrepared(tx, 'stale-1');
    });
    await expect(insertPrepared(stale as Tx, 'stale-2')).rejects.toThrow(/already committed/);
    // Nor while another group holds the connection.
    await db.transaction(async () => {
      await expect(insertPrepared(stale as Tx, 'stale-3')).rejects.toThrow(/already committed/);
    });
    expect(await parents('stale-')).toEqual(['stale-1']);
  });
});
