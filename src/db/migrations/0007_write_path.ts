/**
 * Fewer B-trees written per money movement and per card authorization:
 *  - `journals_by_transaction` had no reader (journals are read by token, or through the entries
 *    of an account); every movement still wrote to it.
 *  - On SQLite, `card_transactions` becomes clustered on its primary key (`WITHOUT ROWID`, as the
 *    other tables with a composite text key already are): an insert or a status change writes one
 *    B-tree less, and a lookup by token reads one less. PostgreSQL is unaffected.
 */
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

const CARD_TRANSACTION_INDEXES: Array<[string, string[]]> = [
  ['card_transactions_by_created', ['program_id', 'created_ms', 'token']],
  ['card_transactions_by_card', ['program_id', 'card_token', 'created_ms', 'token']],
  ['card_transactions_by_account', ['program_id', 'account_token', 'created_ms', 'token']],
  ['card_transactions_by_status', ['program_id', 'status', 'created_ms', 'token']],
];

async function clusterCardTransactionsOnSqlite(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'card_transactions'`.execute(db);
  const createSql = rows[0]?.sql;
  if (createSql === undefined || /without\s+rowid\s*$/i.test(createSql)) return;
  const clusteredSql = `${createSql.replace(/^create table "card_transactions"/i, 'create table "card_transactions_clustered"')} without rowid`;
  if (!clusteredSql.includes('"card_transactions_clustered"')) throw new Error(`0007: unexpected card_transactions definition: ${createSql}`);
  await sql.raw(clusteredSql).execute(db);
  await sql`insert into card_transactions_clustered select * from card_transactions`.execute(db);
  await sql`drop table card_transactions`.execute(db);
  await sql`alter table card_transactions_clustered rename to card_transactions`.execute(db);
  for (const [name, columns] of CARD_TRANSACTION_INDEXES) {
    await db.schema.createIndex(name).on('card_transactions').columns(columns).execute();
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('journals_by_transaction').execute();
  if (engineOf(db) === 'sqlite') await clusterCardTransactionsOnSqlite(db);
}
