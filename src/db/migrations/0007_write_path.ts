/**
 * Fewer B-trees written per money movement and per card authorization:
 *  - `journals_by_transaction` had no reader (journals are read by token, or through the entries
 *    of an account); every movement still wrote to it.
 *  - On SQLite, `card_transactions` and `auth_rules` become clustered on their primary key
 *    (`WITHOUT ROWID`, as the other tables with a composite text key already are): an insert or a
 *    status change writes one B-tree less, and a lookup by token reads one less (an authorization
 *    looks up every rule that applies to its card by token). PostgreSQL is unaffected.
 */
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

const CLUSTERED: Array<{ table: string; indexes: Array<[string, string[]]> }> = [
  {
    table: 'card_transactions',
    indexes: [
      ['card_transactions_by_created', ['program_id', 'created_ms', 'token']],
      ['card_transactions_by_card', ['program_id', 'card_token', 'created_ms', 'token']],
      ['card_transactions_by_account', ['program_id', 'account_token', 'created_ms', 'token']],
      ['card_transactions_by_status', ['program_id', 'status', 'created_ms', 'token']],
    ],
  },
  {
    table: 'auth_rules',
    indexes: [
      ['auth_rules_by_created', ['program_id', 'created_ms', 'token']],
      ['auth_rules_applying', ['program_id', 'event_stream', 'state', 'scope', 'created_ms', 'token']],
    ],
  },
];

/** Rebuilds a SQLite table as `WITHOUT ROWID` (same columns, rows and indexes). */
async function clusterOnSqlite(db: Kysely<unknown>, table: string, indexes: ReadonlyArray<[string, string[]]>): Promise<void> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const createSql = rows[0]?.sql;
  if (createSql === undefined || /without\s+rowid\s*$/i.test(createSql)) return;
  const clustered = `${table}_clustered`;
  const clusteredSql = `${createSql.replace(new RegExp(`^create table "${table}"`, 'i'), `create table "${clustered}"`)} without rowid`;
  if (!clusteredSql.includes(`"${clustered}"`)) throw new Error(`0007: unexpected ${table} definition: ${createSql}`);
  await sql.raw(clusteredSql).execute(db);
  await sql`insert into ${sql.table(clustered)} select * from ${sql.table(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(clustered).renameTo(table).execute();
  for (const [name, columns] of indexes) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('journals_by_transaction').execute();
  if (engineOf(db) !== 'sqlite') return;
  for (const { table, indexes } of CLUSTERED) await clusterOnSqlite(db, table, indexes);
}
