/**
 * The two reference servers every benchmark figure is compared with:
 *   noop   a bare Fastify route that does nothing (reference a);
 *   write  a bare Fastify route that runs one small write transaction, one INSERT and one UPDATE,
 *          through the same database layer (engine, pragmas, pool, prepared statements) as
 *          Cardwright (reference b).
 * Usage: node dist/bench/reference-server.js noop|write [DATABASE_URL]; prints "listening <url>".
 */
import crypto from 'node:crypto';
import os from 'node:os';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';

async function main(): Promise<void> {
  const [mode, databaseUrl] = process.argv.slice(2);
  const app = Fastify({ logger: false });
  if (mode === 'noop') {
    app.get('/', async () => ({ ok: true }));
  } else if (mode === 'write') {
    const db = openDatabase(databaseUrl, { dataDir: os.tmpdir() });
    await sql`CREATE TABLE IF NOT EXISTS bench_rows (id text PRIMARY KEY, created_ms bigint NOT NULL)`.execute(db.kysely);
    await sql`CREATE TABLE IF NOT EXISTS bench_counter (id integer PRIMARY KEY, n bigint NOT NULL)`.execute(db.kysely);
    await sql`INSERT INTO bench_counter (id, n) VALUES (1, 0) ON CONFLICT DO NOTHING`.execute(db.kysely);
    app.post('/', async () => {
      await db.transaction(async (tx) => {
        await sql`INSERT INTO bench_rows (id, created_ms) VALUES (${crypto.randomUUID()}, ${systemClock.nowMs()})`.execute(tx);
        await sql`UPDATE bench_counter SET n = n + 1 WHERE id = 1`.execute(tx);
      });
      return { ok: true };
    });
    app.addHook('onClose', async () => db.close());
  } else {
    throw new Error(`unknown reference mode ${mode}`);
  }
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening ${url}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
