/**
 * Versioned migrations, applied in order at start (and by `cardwright migrate`). Kysely records
 * applied versions in `kysely_migration` and serializes concurrent migrators with a lock table, so
 * several servers may start against one PostgreSQL at once. To add a migration: create
 * `migrations/NNNN_name.ts` exporting `up`, and list it below. Never edit an applied migration.
 */
import { Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './database.js';
import { isSqliteBusy, WRITE_LOCK_WAIT_MS } from './sqlite.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_account_holders_cards.js';
import * as m0003 from './migrations/0003_money_movement.js';
import * as m0004 from './migrations/0004_card_transactions.js';
import * as m0005 from './migrations/0005_auth_rules.js';
import * as m0006 from './migrations/0006_auth_rule_outcomes.js';
import * as m0007 from './migrations/0007_write_path.js';
import * as m0008 from './migrations/0008_ledger_entries_carry_their_journal.js';
import * as m0009 from './migrations/0009_idempotency_retention.js';
import * as m0010 from './migrations/0010_auth_rules_version.js';
import * as m0011 from './migrations/0011_spend_hours.js';
import * as m0012 from './migrations/0012_credit_in_suspense.js';
import * as m0013 from './migrations/0013_encryption_key_check.js';
import * as m0014 from './migrations/0014_account_notes.js';
import * as m0015 from './migrations/0015_card_network_program.js';
import * as m0016 from './migrations/0016_three_ds_challenge_status.js';
import * as m0017 from './migrations/0017_events.js';
import * as m0018 from './migrations/0018_example_events.js';
import * as m0019 from './migrations/0019_business_rules_version.js';
import * as m0020 from './migrations/0020_card_shipped.js';
import * as m0021 from './migrations/0021_deleted_list_items.js';
import * as m0022 from './migrations/0022_attempts_due_by_subscription.js';
import * as m0023 from './migrations/0023_input_only_reasons.js';
import * as m0024 from './migrations/0024_clock_moved_wall_ms.js';
import * as m0025 from './migrations/0025_ledger_entries_by_account_time.js';
import * as m0026 from './migrations/0026_movements_by_status_and_category.js';
import * as m0027 from './migrations/0027_accounts_by_type_and_state.js';
import * as m0028 from './migrations/0028_bank_accounts_by_owner_type.js';
import * as m0029 from './migrations/0029_auth_rule_target_positions.js';
import * as m0030 from './migrations/0030_card_transaction_events_by_token.js';
import * as m0031 from './migrations/0031_event_subscription_secrets.js';
import * as m0032 from './migrations/0032_three_ds_challenge_timeout.js';
import * as m0033 from './migrations/0033_declined_card_transactions_by_financial_account.js';
import * as m0034 from './migrations/0034_auth_rules_by_scope.js';
import * as m0035 from './migrations/0035_event_attempts_by_subscription_status.js';
import * as m0036 from './migrations/0036_movements_by_category_and_status.js';
import * as m0037 from './migrations/0037_ledger_entries_by_transaction.js';
import * as m0038 from './migrations/0038_declined_movements_by_financial_account.js';
import * as m0039 from './migrations/0039_balances_fillfactor.js';
import * as m0040 from './migrations/0040_three_ds_decisioning_secrets.js';
import * as m0041 from './migrations/0041_account_spend_limits_of_zero.js';

const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_account_holders_cards': m0002,
  '0003_money_movement': m0003,
  '0004_card_transactions': m0004,
  '0005_auth_rules': m0005,
  '0006_auth_rule_outcomes': m0006,
  '0007_write_path': m0007,
  '0008_ledger_entries_carry_their_journal': m0008,
  '0009_idempotency_retention': m0009,
  '0010_auth_rules_version': m0010,
  '0011_spend_hours': m0011,
  '0012_credit_in_suspense': m0012,
  '0013_encryption_key_check': m0013,
  '0014_account_notes': m0014,
  '0015_card_network_program': m0015,
  '0016_three_ds_challenge_status': m0016,
  '0017_events': m0017,
  '0018_example_events': m0018,
  '0019_business_rules_version': m0019,
  '0020_card_shipped': m0020,
  '0021_deleted_list_items': m0021,
  '0022_attempts_due_by_subscription': m0022,
  '0023_input_only_reasons': m0023,
  '0024_clock_moved_wall_ms': m0024,
  '0025_ledger_entries_by_account_time': m0025,
  '0026_movements_by_status_and_category': m0026,
  '0027_accounts_by_type_and_state': m0027,
  '0028_bank_accounts_by_owner_type': m0028,
  '0029_auth_rule_target_positions': m0029,
  '0030_card_transaction_events_by_token': m0030,
  '0031_event_subscription_secrets': m0031,
  '0032_three_ds_challenge_timeout': m0032,
  '0033_declined_card_transactions_by_financial_account': m0033,
  '0034_auth_rules_by_scope': m0034,
  '0035_event_attempts_by_subscription_status': m0035,
  '0036_movements_by_category_and_status': m0036,
  '0037_ledger_entries_by_transaction': m0037,
  '0038_declined_movements_by_financial_account': m0038,
  '0039_balances_fillfactor': m0039,
  '0040_three_ds_decisioning_secrets': m0040,
  '0041_account_spend_limits_of_zero': m0041,
};

/**
 * On PostgreSQL, the schema the database works in (the first of its search_path). Kysely must be
 * told: it looks for its bookkeeping tables in every schema, so another schema's tables (another
 * server's, or a concurrent test's) made it skip creating its own and then fail to find them.
 */
async function bookkeepingSchema(db: Db): Promise<string | undefined> {
  if (db.engine !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db.kysely);
  return rows[0]?.schema ?? undefined;
}

function migrator(db: Db, schema: string | undefined): Migrator {
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    ...(schema !== undefined ? { migrationTableSchema: schema } : {}),
  });
}

function assertMigrated({ error, results }: MigrationResultSet): void {
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

/** The pause between two tries of a migration that found SQLite's write lock taken. */
const BUSY_RETRY_MS = 50;

/**
 * Runs the migrator. On SQLite, Kysely creates its bookkeeping tables before, and outside, the
 * migration transaction: a server that starts on a fresh file while another migrates it can find
 * the write lock taken there (busy after sqlite.ts's short wait). It tries again: by then the
 * tables exist, and the migration transaction itself waits for the lock (sqlite.ts), then finds
 * nothing left to do.
 */
async function migrate(db: Db, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<void> {
  const schema = await bookkeepingSchema(db);
  const startedMs = performance.now();
  for (;;) {
    const result = await run(migrator(db, schema));
    const busy = db.engine === 'sqlite' && result.error !== undefined && isSqliteBusy(result.error);
    if (!busy || performance.now() - startedMs >= WRITE_LOCK_WAIT_MS) return assertMigrated(result);
    await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
  }
}

export async function migrateToLatest(db: Db): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateToLatest());
}

/** Migrates up to and including `name` (for tests of a migration on data written before it). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  if (!(name in migrations)) throw new Error(`no migration named ${name}`);
  await migrate(db, (migrator) => migrator.migrateTo(name));
}
