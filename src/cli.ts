/**
 * The `cardwright` command.
 *
 *   cardwright [serve]                  start the server (what `npm start` runs)
 *   cardwright migrate                  apply database migrations and exit
 *   cardwright keys create [--program <id>] [--name <name>]
 *                                       new key for an existing program, or a new program
 *   cardwright keys list                list keys (id, program, prefix, created, revoked)
 *   cardwright keys revoke <key-id>     revoke a key; requests with it get 401
 *
 * Every command uses the configured database (DATABASE_URL, default ./data/cardwright.db).
 */
import { parseArgs } from 'node:util';
import { isoTimestamp, systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createApiKey, createProgramWithKey, listKeys, revokeKey } from './programs/service.js';
import { closeOnSignals, startServer } from './server.js';
import { version } from './version.js';

const USAGE = `usage:
  cardwright [serve]
  cardwright migrate
  cardwright keys create [--program <program-id>] [--name <program-name>]
  cardwright keys list
  cardwright keys revoke <key-id>`;

async function withDatabase<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl, { dataDir: config.dataDir, pgPoolSize: 2, sqliteCheckpoints: { enabled: false } });
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
  process.stdout.write(`Cardwright ${version} listening on ${server.url} (${server.db.engine})\n`);
  closeOnSignals(server);
}

async function keys(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { program: { type: 'string' }, name: { type: 'string' } },
    allowPositionals: true,
  });
  await withDatabase(config, async (db) => {
    switch (action) {
      case 'create': {
        const created = values.program
          ? await createApiKey(db.kysely, systemClock, values.program)
          : await createProgramWithKey(db, systemClock, values.name ?? 'program');
        process.stdout.write(`key id:  ${created.id}\nprogram: ${created.programId}\nkey:     ${created.key}\n(the key is shown only now)\n`);
        return;
      }
      case 'list': {
        const rows = await listKeys(db.kysely);
        for (const row of rows) {
          const revoked = row.revoked_ms === null ? 'active' : `revoked ${isoTimestamp(row.revoked_ms)}`;
          process.stdout.write(`${row.id}  program ${row.program_id} (${row.program_name})  ${row.key_prefix}…  created ${isoTimestamp(row.created_ms)}  ${revoked}\n`);
        }
        if (rows.length === 0) process.stdout.write('no keys\n');
        return;
      }
      case 'revoke': {
        const keyId = positionals[0];
        if (!keyId) throw new UsageError('keys revoke needs a key id (see keys list)');
        await revokeKey(db.kysely, systemClock, keyId);
        process.stdout.write(`revoked ${keyId}\n`);
        return;
      }
      default:
        throw new UsageError(`unknown keys action: ${action ?? '(none)'}`);
    }
  });
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const config = loadConfig();
  const [command = 'serve', ...args] = argv;
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate':
      return withDatabase(config, async () => {
        process.stdout.write('migrations applied\n');
      });
    case 'keys':
      return keys(config, args);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
  else if (error instanceof ConfigError) process.stderr.write(`configuration error: ${error.message}\n`);
  else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
