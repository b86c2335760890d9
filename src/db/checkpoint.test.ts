import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../testing/harness.js';
import { openDatabase } from './database.js';

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
});
