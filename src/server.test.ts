/** The server as a process: `npm start`, persistence across restarts and kill -9, graceful shutdown and signals, keys, the CLI. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, engine, sdkClient, type TestDatabase } from './testing/harness.js';
import { AUTH_CACHE_TTL_MS } from './programs/auth-cache.js';
import { SHUTDOWN_DEADLINE_MS } from './server.js';
import { BIN, runCli, spawnNpmStart, spawnServer, type ServerProcess } from './testing/process.js';
import { eventually } from './testing/webhook-receiver.js';

// Each test starts processes (some several, some wait out a 10 s deadline): on a loaded machine that overruns the default 30 s.
describeWithDb('server process', { timeout: 90_000 }, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const running: ServerProcess[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.databaseUrl,
      CARDWRIGHT_DATA_DIR: database.dataDir,
      CARDWRIGHT_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    };
  });
  afterEach(async () => {
    for (const server of running.splice(0)) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    await database.drop();
  });

  async function start(extra: Record<string, string> = {}, cwd?: string): Promise<ServerProcess> {
    const server = await spawnServer({ ...env, ...extra }, cwd);
    running.push(server);
    return server;
  }

  it('creates a key on first start, prints it once, and it works', async () => {
    const first = await start();
    const key = /^\s+(cw_\S+)$/m.exec(first.output())?.[1];
    expect(key).toBeDefined();
    // As the README's quick start shows it.
    expect(first.output()).toContain(
      `\nNo API key was configured, so one was created. It is shown only this once:\n\n    ${key}\n\n` +
        'Use it as the Authorization header. Manage keys with: npm run cli -- keys list|create|revoke\n\n',
    );
    expect(first.output()).toMatch(/^Cardwright \d+\.\d+\.\d+ listening on http:\/\/127\.0\.0\.1:\d+ \((sqlite|postgres)\)$/m);
    await expect(sdkClient(first.url, key as string).apiStatus()).resolves.toEqual({ message: 'OK' });
    first.child.kill('SIGTERM');
    await first.exited;

    const second = await start();
    expect(second.output()).not.toMatch(/cw_/);
    await expect(sdkClient(second.url, key as string).apiStatus()).resolves.toEqual({ message: 'OK' });
  });

  it('provisions CARDWRIGHT_API_KEYS as one program per key, and keeps them apart (any length; a trailing comma is no key)', async () => {
    const server = await start({ CARDWRIGHT_API_KEYS: 'sandbox-key-alpha, sandbox-key-bravo, t,' });
    expect(server.output()).not.toMatch(/cw_/);
    const alpha = sdkClient(server.url, 'sandbox-key-alpha');
    const bravo = sdkClient(server.url, 'sandbox-key-bravo');
    const account = await alpha.financialAccounts.create({ nickname: 'alpha only', type: 'OPERATING' });
    await expect(bravo.financialAccounts.retrieve(account.token)).rejects.toMatchObject({ status: 404 });
    await expect(sdkClient(server.url, 't').financialAccounts.retrieve(account.token)).rejects.toMatchObject({ status: 404 });
    expect(server.output()).not.toContain('sandbox-key-alpha');
  });

  it('provisions each distinct key of CARDWRIGHT_API_KEYS once, as a program of its own, and keeps it across restarts', async () => {
    const listedKeys = () => runCli(['keys', 'list'], env).stdout.trim().split('\n');
    const first = await start({ CARDWRIGHT_API_KEYS: 'alpha-key-1234,alpha-key-1234, bravo-key-1234' });
    expect(listedKeys()).toHaveLength(2);
    const alphaAccount = await sdkClient(first.url, 'alpha-key-1234').financialAccounts.create({ nickname: 'alpha before restart', type: 'OPERATING' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // Another order, and a key added: the known keys keep their programs, the new one is a program of its own.
    const second = await start({ CARDWRIGHT_API_KEYS: 'charlie-key-1234,bravo-key-1234,alpha-key-1234' });
    expect(listedKeys()).toHaveLength(3);
    expect(new Set(listedKeys().map((line) => /program (\S+)/.exec(line)?.[1])).size).toBe(3);
    await expect(sdkClient(second.url, 'alpha-key-1234').financialAccounts.retrieve(alphaAccount.token)).resolves.toMatchObject({ nickname: 'alpha before restart' });
    for (const other of ['bravo-key-1234', 'charlie-key-1234']) {
      await expect(sdkClient(second.url, other).financialAccounts.retrieve(alphaAccount.token)).rejects.toMatchObject({ status: 404 });
    }
    // Without the variable, the stored keys still work, and no new key is made.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const third = await start();
    expect(third.output()).not.toMatch(/cw_/);
    expect(listedKeys()).toHaveLength(3);
    await expect(sdkClient(third.url, 'charlie-key-1234').apiStatus()).resolves.toEqual({ message: 'OK' });
    for (const server of [first, second, third]) expect(server.output()).not.toMatch(/cw_|alpha-key|bravo-key|charlie-key/);
  });

  it.skipIf(engine !== 'sqlite')('keeps its data in ./data/cardwright.db and ./data/encryption.key without DATABASE_URL, and runs on sqlite::memory:', async () => {
    const defaults = { DATABASE_URL: '', CARDWRIGHT_DATA_DIR: '', CARDWRIGHT_ENCRYPTION_KEY: '', CARDWRIGHT_API_KEYS: 'default-key-1234' };
    const server = await start(defaults, database.dataDir);
    expect(server.output()).toMatch(/listening on \S+ \(sqlite\)/);
    const account = await sdkClient(server.url, 'default-key-1234').financialAccounts.create({ nickname: 'in ./data', type: 'OPERATING' });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const stored = new BetterSqlite3(path.join(database.dataDir, 'data', 'cardwright.db'), { readonly: true });
    try {
      expect(stored.prepare('select nickname from financial_accounts where token = ?').get(account.token)).toEqual({ nickname: 'in ./data' });
    } finally {
      stored.close();
    }
    expect(fs.readFileSync(path.join(database.dataDir, 'data', 'encryption.key'), 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n?$/);

    const inMemory = await start({ ...defaults, DATABASE_URL: 'sqlite::memory:' }, database.dataDir);
    await expect(sdkClient(inMemory.url, 'default-key-1234').financialAccounts.retrieve(account.token)).rejects.toMatchObject({ status: 404 });
  });

  /** Whether a process of this id still runs (signal 0 only asks). */
  function isRunning(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  it.skipIf(engine !== 'sqlite')('serves with `npm start` on the embedded SQLite default and 127.0.0.1, logging JSON at info; a SIGTERM to npm stops the server gracefully and leaves nothing running', async () => {
    const npm = await spawnNpmStart({ ...env, DATABASE_URL: '', LOG_LEVEL: '', CARDWRIGHT_API_KEYS: 'npm-start-key' });
    // The server's own id, from its log lines (which may come a moment after the line that it listens).
    const serverPid = () => Number(/"pid":(\d+)/.exec(npm.output())?.[1]);
    try {
      expect(npm.output()).toMatch(/listening on \S+ \(sqlite\)/);
      await expect(sdkClient(npm.url, 'npm-start-key').apiStatus()).resolves.toEqual({ message: 'OK' });
      // LOG_LEVEL unset is info: one JSON line as the request arrives, one as it is answered.
      const logLines = await eventually(() => {
        const lines = npm.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(lines.filter((line) => line.req !== undefined).map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
        return lines;
      });
      for (const line of logLines) expect(line, JSON.stringify(line)).toMatchObject({ level: 30, time: expect.any(Number), pid: serverPid(), hostname: expect.any(String), msg: expect.any(String) });
      expect(fs.existsSync(path.join(database.dataDir, 'cardwright.db'))).toBe(true);

      // What a process manager (docker stop, a CI runner) does: signal the process it started, npm.
      npm.child.kill('SIGTERM');
      expect(await npm.exited).toBe(0);
      expect(isRunning(serverPid())).toBe(false);
      expect(npm.output()).toMatch(/shutting down/);
      // Closed cleanly: the SQLite write-ahead log was checkpointed and removed.
      expect(fs.existsSync(path.join(database.dataDir, 'cardwright.db-wal'))).toBe(false);
    } finally {
      // A failure above leaves npm and its server running: stop both (npm's SIGKILL would orphan the server).
      if (npm.child.exitCode === null) npm.child.kill('SIGKILL');
      await npm.exited;
      if (serverPid() && isRunning(serverPid())) process.kill(serverPid(), 'SIGKILL');
    }
  });

  it('keeps every acknowledged write across kill -9', async () => {
    const first = await start({ CARDWRIGHT_API_KEYS: 'durability-key' });
    const client = sdkClient(first.url, 'durability-key');
    const tokens: string[] = [];
    for (let i = 0; i < 25; i++) tokens.push((await client.financialAccounts.create({ nickname: `durable ${i}`, type: 'OPERATING' })).token);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await start({ CARDWRIGHT_API_KEYS: 'durability-key' });
    const after = sdkClient(second.url, 'durability-key');
    for (const token of tokens) await expect(after.financialAccounts.retrieve(token)).resolves.toMatchObject({ token });
  });

  it('finishes in-flight requests on SIGTERM, then closes the database and exits 0', async () => {
    const server = await start({ CARDWRIGHT_API_KEYS: 'graceful-key' });
    const body = JSON.stringify({ nickname: 'in flight during shutdown', type: 'OPERATING' });
    const { port } = new URL(server.url);
    const responded = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/financial_accounts', headers: { authorization: 'graceful-key', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(10)), 300);
      }, 100);
    });
    const response = await responded;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({ nickname: 'in flight during shutdown' });
    expect(await server.exited).toBe(0);
    if (engine === 'sqlite') {
      // A cleanly closed SQLite database has checkpointed and removed its write-ahead log.
      expect(fs.existsSync(path.join(database.dataDir, 'cardwright.db-wal'))).toBe(false);
    }
  });

  it('manages keys with the CLI against the running server', async () => {
    const server = await start({ CARDWRIGHT_API_KEYS: 'cli-owner-key' });
    const created = runCli(['keys', 'create', '--name', 'from cli'], env);
    expect(created.status).toBe(0);
    const key = /^key:\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    const keyId = /^key id:\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    const programId = /^program:\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    await expect(sdkClient(server.url, key).apiStatus()).resolves.toEqual({ message: 'OK' });

    const second = runCli(['keys', 'create', '--program', programId], env);
    const secondKey = /^key:\s+(\S+)$/m.exec(second.stdout)?.[1] as string;
    const viaFirst = await sdkClient(server.url, key).financialAccounts.create({ nickname: 'shared program', type: 'OPERATING' });
    await expect(sdkClient(server.url, secondKey).financialAccounts.retrieve(viaFirst.token)).resolves.toMatchObject({ token: viaFirst.token });

    const listed = runCli(['keys', 'list'], env);
    expect(listed.stdout).toContain(keyId);
    expect(listed.stdout).not.toContain(key);

    expect(runCli(['keys', 'revoke', keyId], env).status).toBe(0);
    // A revocation reaches a running server within AUTH_CACHE_TTL_MS (its cache of authentications).
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 20));
    await expect(sdkClient(server.url, key).apiStatus()).rejects.toMatchObject({ status: 401 });
    await expect(sdkClient(server.url, secondKey).apiStatus()).resolves.toEqual({ message: 'OK' });
    expect(runCli(['keys', 'list'], env).stdout).toMatch(new RegExp(`${keyId}.*revoked`));

    expect(runCli(['keys', 'revoke', keyId], env).status).toBe(1);
    expect(runCli(['keys', 'bogus'], env).status).toBe(2);
    expect(runCli(['keys', 'create', '--program', crypto.randomUUID()], env).status).toBe(1);
  });

  it('explains its usage on --help, and refuses bad arguments with exit code 2, the reason and the usage', () => {
    for (const help of [['--help'], ['keys', 'create', '-h']]) {
      // Help needs no configuration: it works even when the environment is wrong.
      const shown = runCli(help, { ...env, PORT: 'eighty' });
      expect(shown.status, help.join(' ')).toBe(0);
      expect(shown.stdout, help.join(' ')).toMatch(/cardwright keys revoke <key-id>/);
    }
    const refusals: Array<[string[], RegExp]> = [
      [['keys', 'create', '--bogus'], /--bogus/],
      [['keys', 'create', '--program'], /--program/],
      [['keys', 'create', '--program', crypto.randomUUID(), '--name', 'x'], /not both/],
      [['keys', 'list', 'extra'], /unexpected argument: extra/],
      [['keys', 'revoke', 'one', 'two'], /unexpected argument: two/],
      [['keys'], /create, list or revoke/],
      [['migrate', 'now'], /unexpected argument: now/],
      [['start'], /unknown command: start/],
      // An empty value, as an unset shell variable gives, used to create a new program.
      [['keys', 'create', '--program', ''], /--program needs a program id/],
      [['keys', 'create', '--name', ' '], /--name needs a program name/],
    ];
    for (const [args, reason] of refusals) {
      const refused = runCli(args, env);
      expect(refused.status, args.join(' ')).toBe(2);
      expect(refused.stderr, args.join(' ')).toMatch(reason);
      expect(refused.stderr, args.join(' ')).toMatch(/usage:/);
    }
    expect(runCli(['keys', 'list'], env).stdout).toBe('no keys\n');
  });

  it('refuses to start with an encryption key other than the one its secrets were written with', async () => {
    // No key configured (an empty variable is unset): the server generates its key file.
    const first = await start({ CARDWRIGHT_ENCRYPTION_KEY: '', CARDWRIGHT_API_KEYS: 'key-check-key' });
    const card = await sdkClient(first.url, 'key-check-key').cards.create({ type: 'VIRTUAL' });
    first.child.kill('SIGTERM');
    await first.exited;

    const other = runCli(['serve'], env);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/CARDWRIGHT_ENCRYPTION_KEY: the configured key is not the key this database's secrets were encrypted with/);

    // The generated key, given as the variable, is the right one; a replaced key file is refused.
    const keyFile = fs.readFileSync(path.join(database.dataDir, 'encryption.key'), 'utf8').trim();
    const again = await start({ CARDWRIGHT_ENCRYPTION_KEY: keyFile, CARDWRIGHT_API_KEYS: 'key-check-key' });
    await expect(sdkClient(again.url, 'key-check-key').cards.retrieve(card.token)).resolves.toMatchObject({ pan: card.pan });
    again.child.kill('SIGTERM');
    await again.exited;
    fs.writeFileSync(path.join(database.dataDir, 'encryption.key'), `${crypto.randomBytes(32).toString('base64')}\n`);
    const replacedFile = runCli(['serve'], { ...env, CARDWRIGHT_ENCRYPTION_KEY: '' });
    expect(replacedFile.stderr).toMatch(/CARDWRIGHT_ENCRYPTION_KEY: the key in \S+encryption\.key is not the key/);
  });

  it('creates no key on a first start that cannot listen, so the next start that can shows it', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = String((blocker.address() as net.AddressInfo).port);
    try {
      for (const failing of [runCli(['serve'], { ...env, HOST: '127.0.0.1', PORT: takenPort }), runCli(['serve'], { ...env, PORT: '0', HOST: 'not_a_host' })]) {
        expect(failing.status).toBe(1);
        expect(failing.stdout).not.toMatch(/cw_|No API key/);
      }
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    expect(runCli(['keys', 'list'], env).stdout.trim()).not.toMatch(/cw_/);
    const first = await start();
    const key = /^\s+(cw_\S+)$/m.exec(first.output())?.[1];
    expect(key).toBeDefined();
    await expect(sdkClient(first.url, key as string).apiStatus()).resolves.toEqual({ message: 'OK' });
  });

  it('names HOST or PORT when the server cannot listen', async () => {
    const badHost = runCli(['serve'], { ...env, PORT: '0', HOST: 'not_a_host' });
    expect(badHost.status).toBe(1);
    expect(badHost.stderr).toMatch(/HOST/);
    expect(badHost.stderr).toMatch(/not_a_host/);

    const server = await start({ CARDWRIGHT_API_KEYS: 'port-owner-key' });
    const inUse = runCli(['serve'], { ...env, HOST: '127.0.0.1', PORT: new URL(server.url).port });
    expect(inUse.status).toBe(1);
    expect(inUse.stderr).toMatch(new RegExp(`PORT.*${new URL(server.url).port}`));
  });

  it('refuses a bad value of every variable at start: exit 1, one line naming the variable', async () => {
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /^PORT must be an integer/],
      [{ PORT: '65536' }, /^PORT must be an integer/],
      [{ HOST: 'not_a_host' }, /^HOST: cannot listen on "not_a_host"/],
      [{ DATABASE_URL: 'mysql://nope' }, /^DATABASE_URL must start with/],
      [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL: "sqlite:" needs a path/],
      [{ CARDWRIGHT_API_KEYS: 'key-one-1234,key two' }, /^CARDWRIGHT_API_KEYS: item 2 of 2 holds whitespace/],
      [{ CARDWRIGHT_ENCRYPTION_KEY: 'too-short' }, /^CARDWRIGHT_ENCRYPTION_KEY must be 32 bytes/],
      [{ CARDWRIGHT_ENCRYPTION_KEY: crypto.randomBytes(16).toString('base64') }, /^CARDWRIGHT_ENCRYPTION_KEY must be 32 bytes encoded as base64 \(got 16 bytes\)/],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
      [{ CARDWRIGHT_PG_POOL_SIZE: '0' }, /^CARDWRIGHT_PG_POOL_SIZE must be a positive integer/],
    ];
    for (const [variables, message] of refusals) {
      const result = runCli(['serve'], { ...env, PORT: '0', ...variables });
      const name = JSON.stringify(variables);
      expect(result.status, name).toBe(1);
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(result.stderr.replace(/^configuration error: /, ''), name).toMatch(message);
    }
  });

  it('names the variable, quickly, when the database cannot be used', async () => {
    const refused = (args: Record<string, string>, variable: RegExp, reason: RegExp) => {
      const startedMs = performance.now();
      const result = runCli(['serve'], { ...env, ...args });
      expect(result.status, JSON.stringify(args)).toBe(1);
      expect(result.stderr.trim().split('\n'), JSON.stringify(args)).toHaveLength(1);
      expect(result.stderr, JSON.stringify(args)).toMatch(new RegExp(`^configuration error: ${variable.source}: .*${reason.source}`));
      expect(performance.now() - startedMs, JSON.stringify(args)).toBeLessThan(10_000);
    };
    // The SQLite file in a folder that cannot be created, or a file that is not a database.
    const notAFolder = path.join(database.dataDir, 'not-a-folder');
    fs.writeFileSync(notAFolder, 'not a database\n'.repeat(100));
    refused({ DATABASE_URL: `sqlite:${notAFolder}/cardwright.db` }, /DATABASE_URL/, /cannot open the SQLite database .*not-a-folder/);
    refused({ DATABASE_URL: `sqlite:${notAFolder}` }, /DATABASE_URL/, /file is not a database/);
    refused({ DATABASE_URL: '', CARDWRIGHT_DATA_DIR: notAFolder }, /CARDWRIGHT_DATA_DIR \(DATABASE_URL is unset\)/, /cannot open the SQLite database/);
    // No encryption key configured, and the key file cannot be made or read.
    refused({ CARDWRIGHT_ENCRYPTION_KEY: '', CARDWRIGHT_DATA_DIR: notAFolder }, /CARDWRIGHT_ENCRYPTION_KEY/, /key file .*not-a-folder/);
    fs.writeFileSync(path.join(database.dataDir, 'encryption.key'), 'not a key\n');
    refused({ CARDWRIGHT_ENCRYPTION_KEY: '' }, /CARDWRIGHT_ENCRYPTION_KEY/, /does not hold a 32-byte base64 key/);

    // PostgreSQL: nothing listens, or something listens and never answers (a start used to wait forever).
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    refused({ DATABASE_URL: `postgres://cardwright:secret@127.0.0.1:${closedPort}/cardwright` }, /DATABASE_URL/, /127\.0\.0\.1:\d+\/cardwright: connect ECONNREFUSED/);
    const silent = net.createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    try {
      // runCli blocks this process; the kernel still accepts the connection, and nobody answers.
      refused({ DATABASE_URL: `postgres://cardwright:secret@127.0.0.1:${(silent.address() as net.AddressInfo).port}/cardwright` }, /DATABASE_URL/, /connection closed before PostgreSQL answered/);
    } finally {
      silent.close();
    }
    if (engine === 'postgres') {
      const url = new URL(database.databaseUrl);
      const withPath = (pathname: string) => Object.assign(new URL(url), { pathname }).toString();
      refused({ DATABASE_URL: withPath('/no_such_database_cw') }, /DATABASE_URL/, /database "no_such_database_cw" does not exist/);
      refused({ DATABASE_URL: Object.assign(new URL(url), { username: 'no_such_role_cw', password: 'secret' }).toString() }, /DATABASE_URL/, /role "no_such_role_cw" does not exist/);
      const missingSchema = new URL(url);
      missingSchema.searchParams.set('options', '-c search_path=no_such_schema_cw');
      refused({ DATABASE_URL: missingSchema.toString() }, /DATABASE_URL/, /search_path names no schema that exists/);
    }
    for (const args of [{ DATABASE_URL: 'postgres://u:pw-not-shown@127.0.0.1:1/x' }]) expect(runCli(['serve'], { ...env, ...args }).stderr).not.toContain('pw-not-shown');
  });

  it('provisions keys once when several servers start at the same time on a fresh database', async () => {
    // No key configured: one program and one key in all, printed by one server only.
    const first = await Promise.all([start(), start(), start()]);
    expect(first.filter((server) => /^\s+cw_\S+$/m.test(server.output()))).toHaveLength(1);
    expect(runCli(['keys', 'list'], env).stdout.trim().split('\n')).toHaveLength(1);
    await Promise.all(first.map(async (server) => {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }));

    // The same CARDWRIGHT_API_KEYS: every server starts, and each key is one program on all of them.
    const keys = { CARDWRIGHT_API_KEYS: 'shared-key-alpha,shared-key-bravo' };
    const second = await Promise.all([start(keys), start(keys), start(keys)]);
    const listed = runCli(['keys', 'list'], env).stdout.trim().split('\n');
    expect(listed).toHaveLength(3);
    const account = await sdkClient(second[0]!.url, 'shared-key-alpha').financialAccounts.create({ nickname: 'seen by all', type: 'OPERATING' });
    for (const server of second) {
      await expect(sdkClient(server.url, 'shared-key-alpha').financialAccounts.retrieve(account.token)).resolves.toMatchObject({ token: account.token });
      await expect(sdkClient(server.url, 'shared-key-bravo').financialAccounts.retrieve(account.token)).rejects.toMatchObject({ status: 404 });
    }
  });

  /** Holds the balances from another connection (SQLite: its write lock) until the returned function releases them. */
  async function holdBalances(): Promise<() => Promise<void>> {
    if (engine === 'sqlite') {
      const other = new BetterSqlite3(new URL(database.databaseUrl.replace(/^sqlite:/, 'file://')).pathname);
      other.exec('begin immediate');
      return async () => {
        other.exec('rollback');
        other.close();
      };
    }
    const admin = new pg.Client({ connectionString: database.databaseUrl });
    await admin.connect();
    await admin.query('begin');
    await admin.query('lock table balances in exclusive mode');
    return async () => {
      await admin.query('rollback');
      await admin.end();
    };
  }

  /** A server with one program (`key`) and two of its financial accounts. */
  async function serverWithTwoAccounts(key: string, extra: Record<string, string> = {}) {
    const server = await start({ CARDWRIGHT_API_KEYS: key, ...extra });
    const client = sdkClient(server.url, key);
    const from = (await client.financialAccounts.create({ nickname: 'from', type: 'OPERATING' })).token;
    const to = (await client.financialAccounts.create({ nickname: 'to', type: 'OPERATING' })).token;
    return { server, client, from, to };
  }

  const transferBody = (from: string, to: string) =>
    ({ from_financial_account_token: from, to_financial_account_token: to, amount: 500, category: 'TRANSFER', subtype: 'INTERNAL', type: 'TRANSFER' }) as const;

  it('stays responsive while another connection holds the write lock, and the waiting write completes once it is released', async () => {
    const { server, client, from, to } = await serverWithTwoAccounts('waiting-key-1');
    const release = await holdBalances();
    let transfer: Promise<{ status: string }>;
    try {
      transfer = client.bookTransfers.create(transferBody(from, to));
      transfer.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A request that needs no database is answered at once: nothing blocks the event loop.
      for (let round = 0; round < 5; round++) {
        const sentMs = performance.now();
        expect((await fetch(`${server.url}/v1/cards`)).status).toBe(401);
        expect(performance.now() - sentMs).toBeLessThan(500);
      }
    } finally {
      await release();
    }
    // The transfer was waiting, not refused: it is made once the lock is free (a DECLINED for want of funds).
    await expect(transfer).resolves.toMatchObject({ status: 'DECLINED' });
  });

  /**
   * A server whose book transfer is under way, waiting for the balances that another connection
   * holds until `release`; `transfer` resolves with how it ended.
   */
  async function serverWithStuckTransfer(key: string, extra: Record<string, string> = {}) {
    const { server, client, from, to } = await serverWithTwoAccounts(key, extra);
    const release = await holdBalances();
    const transfer = client.bookTransfers.create(transferBody(from, to)).then(() => 'answered', () => 'connection closed');
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { server, from, transfer, release };
  }

  /** Starts again with `key`: the stuck transfer from `from` left nothing behind. */
  async function expectNoTransferFrom(key: string, from: string): Promise<void> {
    const again = sdkClient((await start({ CARDWRIGHT_API_KEYS: key })).url, key);
    await expect(again.bookTransfers.list({ financial_account_token: from })).resolves.toMatchObject({ data: [] });
    expect((await again.financialAccounts.balances.list(from)).data[0]).toMatchObject({ available_amount: 0, total_amount: 0 });
  }

  it('on SIGTERM waits for a request stuck on the database at most SHUTDOWN_DEADLINE_MS, exits 1, and the request left nothing behind', async () => {
    const { server, from, transfer, release } = await serverWithStuckTransfer('stuck-key-1');
    try {
      const signalledMs = performance.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(1);
      // The write waiting for the lock leaves the event loop free (SQLite: short busy waits, retried
      // asynchronously), so the deadline fires on time.
      expect(performance.now() - signalledMs).toBeLessThan(SHUTDOWN_DEADLINE_MS + 3_000);
      expect(server.output()).toMatch(/requests still in flight after 10 s/);
      expect(await transfer).toBe('connection closed');
    } finally {
      await release();
    }
    await expectNoTransferFrom('stuck-key-1', from);
  });

  it('stops on SIGINT as on SIGTERM (exit 0); a second signal exits at once (1) without waiting for a stuck request, which leaves nothing behind; LOG_LEVEL=warn shows only that error', async () => {
    // At once, a few times: the line that says it listens comes once signals are handled (it used
    // to come just before, and a signal sent on seeing it could kill the process outright).
    for (let round = 0; round < 3; round++) {
      const interrupted = await start({ CARDWRIGHT_API_KEYS: 'interrupted-key' });
      interrupted.child.kill('SIGINT');
      expect(await interrupted.exited).toBe(0);
      expect(interrupted.output()).toMatch(/"signal":"SIGINT","msg":"shutting down/);
    }

    const { server, from, transfer, release } = await serverWithStuckTransfer('twice-key-1', { LOG_LEVEL: 'warn' });
    try {
      const signalledMs = performance.now();
      server.child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(1);
      expect(performance.now() - signalledMs).toBeLessThan(SHUTDOWN_DEADLINE_MS / 2);
      expect(await transfer).toBe('connection closed');
    } finally {
      await release();
    }
    // At warn: no request lines, no start or shutdown line (info), the error of the second signal.
    const logLines = server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logLines.map((line) => [line.level, line.msg])).toEqual([[50, 'second signal: exiting without waiting for in-flight requests']]);
    await expectNoTransferFrom('twice-key-1', from);
  });

  it('runs as the package\'s `cardwright` command too: `migrate` readies a fresh database and exits 0, `help` shows the usage', () => {
    const migrated = runCli(['migrate'], env, BIN);
    expect([migrated.status, migrated.stdout]).toEqual([0, 'migrations applied\n']);
    // Migrated, and nothing provisioned: no program, no key.
    expect(runCli(['keys', 'list'], env, BIN)).toMatchObject({ status: 0, stdout: 'no keys\n' });
    const help = runCli(['help'], { ...env, PORT: 'eighty' }, BIN);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage:\n {2}cardwright \[serve\]\n {2}cardwright migrate\n/);
  });
});
