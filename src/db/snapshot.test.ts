/**
 * `Db.snapshot` (database.ts): the reads it runs see one committed state, whoever writes between
 * them (this process or another), and they hold no writer back for longer than they run: another
 * process writes while the snapshot is open (on SQLite a deferred BEGIN takes no write lock), and a
 * write of this process queued meanwhile commits once the reads are done (no deadlock with group
 * commit). A failed read ends its snapshot: the connection is left usable.
 */
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, engine, type TestDatabase } from '../testing/harness.js';
import { openDatabase, type Db, type Executor } from './database.js';

/** Another process's connection to the same database, inserting into `snapshot_rows`. */
interface OtherConnection {
  insert(id: string): Promise<void>;
  close(): Promise<void>;
}

async function otherConnection(databaseUrl: string): Promise<OtherConnection> {
  if (engine === 'sqlite') {
    const other = new BetterSqlite3(databaseUrl.slice('sqlite:'.length));
    other.pragma('busy_timeout = 0'); // a write lock held by the snapshot fails at once, busy
    return { insert: async (id) => void other.prepare('insert into snapshot_rows (id) values (?)').run(id), close: async () => void other.close() };
  }
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  return { insert: async (id) => void (await other.query('insert into snapshot_rows (id) values ($1)', [id])), close: () => other.end() };
}

describeWithDb('Db.snapshot', () => {
  let database: TestDatabase;
  let db: Db;
  let other: OtherConnection;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.databaseUrl, { dataDir: database.dataDir, sqliteCheckpoints: { enabled: false } });
    await sql`create table snapshot_rows (id text primary key)`.execute(db.kysely);
    other = await otherConnection(database.databaseUrl);
  });
  afterAll(async () => {
    await other?.close();
    await db?.close();
    await database?.drop();
  });

  async function ids(exec: Executor, prefix: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`select id from snapshot_rows where id like ${`${prefix}%`} order by id`.execute(exec);
    return rows.map((row) => row.id);
  }

  it('does not see what another process commits between its reads, and does not hold that write back', async () => {
    await db.transaction((tx) => sql`insert into snapshot_rows (id) values ('process-1')`.execute(tx));
    const reads = await db.snapshot(async (exec) => {
      const first = await ids(exec, 'process-');
      await other.insert('process-2');
      return [first, await ids(exec, 'process-')];
    });
    expect(reads).toEqual([['process-1'], ['process-1']]);
    expect(await ids(db.kysely, 'process-')).toEqual(['process-1', 'process-2']);
  });

  it('does not see a write of this process queued while it reads; the write commits once asked', async () => {
    let write: Promise<unknown> = Promise.resolve();
    const reads = await db.snapshot(async (exec) => {
      const first = await ids(exec, 'queued-');
      write = db.transaction((tx) => sql`insert into snapshot_rows (id) values ('queued-1')`.execute(tx));
      await new Promise((resolve) => setTimeout(resolve, 20)); // group commit runs from setImmediate
      return [first, await ids(exec, 'queued-')];
    });
    await write;
    expect(reads).toEqual([[], []]);
    expect(await ids(db.kysely, 'queued-')).toEqual(['queued-1']);
  });

  it('ends its snapshot when a read fails: the error is the read’s, and the next write commits', async () => {
    const failing = db.snapshot(async (exec) => {
      await ids(exec, 'failed-');
      throw new Error('read refused');
    });
    await expect(failing).rejects.toThrow('read refused');
    await db.transaction((tx) => sql`insert into snapshot_rows (id) values ('failed-1')`.execute(tx));
    expect(await ids(db.kysely, 'failed-')).toEqual(['failed-1']);
  });
});
