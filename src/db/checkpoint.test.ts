import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../testing/harness.js';
import { openDatabase } from './database.js';

// Only SQLite has a background checkpointer: on PostgreSQL there is nothing to test here.
describe.skipIf(engine !== 'sqlite')('SQLite checkpoints in the background', () => {
  it('copies the WAL into the database file while the server writes, and leaves no WAL after closing', async () => {
    const database = await createTestDatabase();
    const file = path.join(database.dataDir, 'cardwright.db');
    const db = openDatabase(database.databaseUrl, { dataDir: database.dataDir });
    try {
      await sql`create table bench_checkpoint (id integer primary key, filler text not null)`.execute(db.kysely);
      const sizeBefore = fs.statSync(file).size;
      for (let index = 0; index < 500; index++) {
        await db.transaction((tx) => sql`insert into bench_checkpoint (filler) values (${'x'.repeat(2_000)})`.execute(tx));
      }
      await expect.poll(() => fs.statSync(file).size, { timeout: 5_000, interval: 100 }).toBeGreaterThan(sizeBefore + 500_000);
    } finally {
      await db.close();
    }
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    await database.drop();
  });

  it('restarts the WAL under a write load that never pauses, so it stays bounded', async () => {
    const database = await createTestDatabase();
    const file = path.join(database.dataDir, 'cardwright.db');
    const restartFrames = 256; // 1 MiB of 4 KiB pages
    const db = openDatabase(database.databaseUrl, { dataDir: database.dataDir, sqliteCheckpoints: { intervalMs: 20, restartFrames } });
    let largestWalBytes = 0;
    try {
      await sql`create table wal_restart (id integer primary key, filler text not null)`.execute(db.kysely);
      // ~120 MiB of WAL frames, written back to back: the worker never sees the WAL idle. Like a
      // server's, the loop lets the event loop turn (the worker's reports are messages).
      for (let index = 0; index < 8_000; index++) {
        await new Promise((resolve) => setImmediate(resolve));
        await db.transaction(async (tx) => {
          await sql`insert into wal_restart (filler) values (${'x'.repeat(3_000)})`.execute(tx);
          await sql`delete from wal_restart where id < ${index - 50}`.execute(tx);
        });
        if (index % 100 === 0) largestWalBytes = Math.max(largestWalBytes, fs.statSync(`${file}-wal`).size);
      }
      const { count } = (await sql<{ count: number }>`select count(*) as count from wal_restart`.execute(db.kysely)).rows[0] ?? { count: 0 };
      expect(count).toBe(52); // ids 7949…8000
    } finally {
      await db.close();
    }
    // Without restarts the WAL grows with every write (past 100 MiB here). With them it stays
    // near the threshold plus what is written between two of the worker's reports.
    expect(largestWalBytes).toBeGreaterThan(0);
    expect(largestWalBytes).toBeLessThan(40 * 1024 * 1024);
    await database.drop();
  });
});
