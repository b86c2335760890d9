/**
 * The ledger becomes one append-only table. A journal (one money movement) was a row of its own
 * plus its entries; each movement wrote both. Now every entry carries its journal's fields (the
 * movement's kind and the transaction and event that caused it): a movement is one INSERT of its
 * entries, and reads of an account's history need no join. A journal is still the set of entries
 * that share a `journal_token`, and they still sum to zero.
 */
import { sql, type Kysely } from 'kysely';
import { clusteredOnPrimaryKey, engineOf, forbidUpdateAndDelete } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = engineOf(db) === 'postgres';
  await db.schema
    .createTable('ledger_entries_folded')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('journal_token', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('ledger_account', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_token', 'text', (c) => c.notNull())
    .addColumn('event_token', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_entries_folded_pk', ['program_id', 'journal_token', 'seq'])
    .modifyEnd(clusteredOnPrimaryKey(db))
    .execute();
  await sql`insert into ledger_entries_folded
      (program_id, journal_token, seq, ledger_account, bucket, amount_cents, created_ms, kind, transaction_token, event_token)
    select e.program_id, e.journal_token, e.seq, e.ledger_account, e.bucket, e.amount_cents, e.created_ms, j.kind, j.transaction_token, j.event_token
    from ledger_entries e join journals j on j.program_id = e.program_id and j.token = e.journal_token`.execute(db);
  const { rows } = await sql<{ missing: number | string }>`select
      (select count(*) from ledger_entries) - (select count(*) from ledger_entries_folded) as missing`.execute(db);
  if (Number(rows[0]?.missing) !== 0) throw new Error('0008: some ledger entries have no journal; refusing to drop them');

  await db.schema.dropTable('ledger_entries').execute();
  await db.schema.dropTable('journals').execute();
  if (postgres) {
    // The tables' triggers went with them; their functions did not.
    await sql`drop function ledger_entries_append_only()`.execute(db);
    await sql`drop function journals_append_only()`.execute(db);
  }
  await db.schema.alterTable('ledger_entries_folded').renameTo('ledger_entries').execute();
  if (postgres) await sql`alter index ledger_entries_folded_pk rename to ledger_entries_pk`.execute(db);
  await db.schema.createIndex('ledger_entries_by_account').on('ledger_entries').columns(['program_id', 'ledger_account', 'bucket']).execute();
  await forbidUpdateAndDelete(db, 'ledger_entries');
}
