/**
 * The `cardwright` command.
 *
 *   cardwright [serve]                  start the server (what `npm start` runs)
 *   cardwright migrate                  apply database migrations and exit
 *   cardwright keys create [--program <id>] [--name <name>]
 *                                       new key for an existing program, or a new program
 *   cardwright keys list                list keys (id, program, prefix, created, revoked)
 *   cardwright keys revoke <key-id>     revoke a key; requests with it get 401
 *   cardwright --help                   this list (exit 0); a bad argument exits 2 with the reason
 *
 * Every command uses the configured database (DATABASE_URL, default <CARDWRIGHT_DATA_DIR>/cardwright.db,
 * that is ./data/cardwright.db). `help` as the command, or `-h` / `--help` anywhere, shows the usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isoTimestamp, systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { connectDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createApiKey, createProgramWithKey, listKeys, revokeKey } from './programs/service.js';
import { closeOnSignals, startServer } from './server.js';
import { version } from './version.js';

const USAGE = `usage:
  cardwright [serve]
  cardwright migrate
  cardwright keys create [--program <program-id>] [--name <program-name>]
  cardwright keys list
  cardwright keys revoke <key-id>
  cardwright --help

Configuration comes from the environment (PORT, HOST, DATABASE_URL, CARDWRIGHT_API_KEYS,
CARDWRIGHT_ENCRYPTION_KEY, CARDWRIGHT_DATA_DIR, LOG_LEVEL, CARDWRIGHT_PG_POOL_SIZE): see the README.`;

class UsageError extends Error {}

type Command =
  | { name: 'help' | 'serve' | 'migrate' | 'keys list' }
  | { name: 'keys create'; programId: string | undefined; programName: string | undefined }
  | { name: 'keys revoke'; keyId: string };

/** The command line, checked whole before any configuration is read or database opened. */
function parseCommand(argv: string[]): Command {
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) return { name: 'help' };
  const [command = 'serve', ...args] = argv;
  switch (command) {
    case 'serve':
    case 'migrate':
      parseStrictly(args, {}, 0);
      return { name: command };
    case 'keys':
      return parseKeysCommand(args);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

function parseKeysCommand([action, ...args]: string[]): Command {
  switch (action) {
    case 'create': {
      const values = parseStrictly(args, { program: { type: 'string' }, name: { type: 'string' } }, 0).values as { program?: string; name?: string };
      if (values.program !== undefined && values.name !== undefined) throw new UsageError('keys create takes --name (a new program) or --program (an existing one), not both');
      // An empty value (an unset shell variable) must not quietly make a new program instead.
      if (values.program?.trim() === '') throw new UsageError('keys create --program needs a program id (see keys list)');
      if (values.name?.trim() === '') throw new UsageError('keys create --name needs a program name');
      return { name: 'keys create', programId: values.program, programName: values.name };
    }
    case 'list':
      parseStrictly(args, {}, 0);
      return { name: 'keys list' };
    case 'revoke': {
      const [keyId] = parseStrictly(args, {}, 1).positionals;
      if (!keyId) throw new UsageError('keys revoke needs a key id (see keys list)');
      return { name: 'keys revoke', keyId };
    }
    default:
      throw new UsageError(`${action === undefined ? 'keys needs an action' : `unknown keys action: ${action}`} (create, list or revoke)`);
  }
}

/** `parseArgs` that refuses unknown options, missing option values and more than `maxPositionals` words. */
function parseStrictly(args: string[], options: ParseArgsConfig['options'], maxPositionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const extra = parsed.positionals[maxPositionals];
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  return parsed;
}

async function withDatabase<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await connectDatabase(config.databaseUrl, { dataDir: config.dataDir, pgPoolSize: 2, sqliteCheckpoints: { enabled: false } });
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

async function serve(config: Config): Promise<void> {
  const server = await startServer(config, {
    onKeyGenerated: (created) =>
      process.stdout.write(
        `\nNo API key was configured, so one was created. It is shown only this once:\n\n    ${created.key}\n\n` +
          `Use it as the Authorization header. Manage keys with: npm run cli -- keys list|create|revoke\n\n`,
      ),
  });
  // Signals are handled before the line that says the server is up: whoever waits for it to stop
  // the server (a supervisor, a test) must not find the process still without its handlers.
  closeOnSignals(server);
  process.stdout.write(`Cardwright ${version} listening on ${server.url} (${server.db.engine})\n`);
}

async function keys(config: Config, command: Exclude<Command, { name: 'help' | 'serve' | 'migrate' }>): Promise<void> {
  await withDatabase(config, async (db) => {
    switch (command.name) {
      case 'keys create': {
        const created = command.programId
          ? await createApiKey(db.kysely, systemClock, command.programId)
          : await createProgramWithKey(db, systemClock, command.programName ?? 'program');
        process.stdout.write(`key id:  ${created.id}\nprogram: ${created.programId}\nkey:     ${created.key}\n(the key is shown only now)\n`);
        return;
      }
      case 'keys list': {
        const rows = await listKeys(db.kysely);
        for (const row of rows) {
          const revoked = row.revoked_ms === null ? 'active' : `revoked ${isoTimestamp(row.revoked_ms)}`;
          process.stdout.write(`${row.id}  program ${row.program_id} (${row.program_name})  ${row.key_prefix}…  created ${isoTimestamp(row.created_ms)}  ${revoked}\n`);
        }
        if (rows.length === 0) process.stdout.write('no keys\n');
        return;
      }
      case 'keys revoke':
        await revokeKey(db.kysely, systemClock, command.keyId);
        process.stdout.write(`revoked ${command.keyId}\n`);
        return;
    }
  });
}

async function main(argv: string[]): Promise<void> {
  const command = parseCommand(argv);
  if (command.name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  switch (command.name) {
    case 'serve':
      return serve(config);
    case 'migrate':
      return withDatabase(config, async () => {
        process.stdout.write('migrations applied\n');
      });
    default:
      return keys(config, command);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
  else if (error instanceof ConfigError) process.stderr.write(`configuration error: ${error.message}\n`);
  else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
