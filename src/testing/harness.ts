/**
 * Test harness: starts a real Cardwright server on a fresh database and hands out programs with
 * an SDK client each. Tests talk to it over HTTP with the official `lithic` SDK (`maxRetries: 0`)
 * or with `fetch` for what the SDK cannot send (malformed JSON, missing keys…).
 *
 * The engine comes from the vitest project: `sqlite` (temporary file) or `postgres` (a schema of
 * its own in TEST_DATABASE_URL, dropped at the end). Without TEST_DATABASE_URL the postgres
 * project's tests are reported as skipped.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Lithic from 'lithic';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { systemClock, type WallClock } from '../clock.js';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createProgramWithKey } from '../programs/service.js';
import { startServer, type RunningServer, type StartOptions } from '../server.js';

export const engine: 'sqlite' | 'postgres' = process.env.CW_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const postgresUrl = process.env.TEST_DATABASE_URL;

/** `describe` for tests that need a database: skipped in the postgres project without a PostgreSQL. */
export const describeWithDb = describe.skipIf(engine === 'postgres' && !postgresUrl);

export interface TestDatabase {
  databaseUrl: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for the current engine. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-test-'));
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (engine === 'sqlite') {
    return { databaseUrl: `sqlite:${path.join(dataDir, 'cardwright.db')}`, dataDir, drop: removeDir };
  }
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `cw_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const separator = postgresUrl.includes('?') ? '&' : '?';
  return {
    databaseUrl: `${postgresUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    dataDir,
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
      await removeDir();
    },
  };
}

/**
 * A migrated database of the current engine for the enclosing `describe`, opened directly (no
 * server): for tests of the storage layer itself. Read `.db` inside tests and hooks.
 */
export function useMigratedDb(): { readonly db: Db } {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.databaseUrl, { dataDir: database.dataDir, sqliteCheckpoints: { enabled: false } });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return {
    get db(): Db {
      if (!db) throw new Error('useMigratedDb: the database opens in beforeAll');
      return db;
    },
  };
}

export function testConfig(database: TestDatabase, overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: database.databaseUrl,
    apiKeys: [],
    encryptionKey: crypto.randomBytes(32),
    dataDir: database.dataDir,
    logLevel: 'info',
    pgPoolSize: 10,
    ...overrides,
  };
}

export interface TestProgram {
  programId: string;
  apiKey: string;
  client: Lithic;
}

export interface TestServer {
  url: string;
  server: RunningServer;
  database: TestDatabase;
  /** Every log line the server wrote so far. */
  logs(): string;
  newProgram(name?: string): Promise<TestProgram>;
  /** Raw HTTP for what the SDK cannot send. */
  request(method: string, path: string, options?: { apiKey?: string; body?: string | object; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export function sdkClient(url: string, apiKey: string): Lithic {
  return new Lithic({ apiKey, baseURL: url, maxRetries: 0 });
}

export async function startTestServer(options: { wall?: WallClock; config?: Partial<Config>; delivery?: StartOptions['delivery'] } = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const wall = options.wall ?? systemClock;
  const server = await startServer(testConfig(database, options.config), { wall, logStream, ...(options.delivery && { delivery: options.delivery }) });
  const url = server.url;
  return {
    url,
    server,
    database,
    logs: () => lines.join(''),
    async newProgram(name = 'test program') {
      const created = await createProgramWithKey(server.db, wall, name);
      return { programId: created.programId, apiKey: created.key, client: sdkClient(url, created.key) };
    },
    request(method, requestPath, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.apiKey !== undefined) headers.authorization = requestOptions.apiKey;
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body = typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      return fetch(`${url}${requestPath}`, { method, headers, body });
    },
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

/**
 * Starts a server before the tests of the enclosing `describe` and closes it after; the returned
 * object's `server` and `program` (a first program) are set once `beforeAll` has run.
 */
export function useTestServer(options: Parameters<typeof startTestServer>[0] = {}): { server: TestServer; program: TestProgram } {
  const context = {} as { server: TestServer; program: TestProgram };
  beforeAll(async () => {
    context.server = await startTestServer(options);
    context.program = await context.server.newProgram();
  });
  afterAll(async () => context.server?.close());
  return context;
}

/** Tables whose rows record their last change in `updated_ms` (the ones `changedLastAt` is used on). */
type StampedTable = 'account_holders' | 'auth_rules' | 'book_transfers' | 'cards' | 'external_bank_accounts' | 'financial_accounts';

/**
 * Dates a row's last change at `updatedMs`, as if a request that saw a moved clock had changed it
 * and committed first: for tests that a later write never dates what it records before it.
 */
export async function changedLastAt(db: Db, table: StampedTable, programId: string, token: string, updatedMs: number): Promise<void> {
  await sql`update ${sql.table(table)} set updated_ms = ${updatedMs} where program_id = ${programId} and token = ${token}`.execute(db.kysely);
}
