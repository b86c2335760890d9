/**
 * PostgreSQL only: the balances table keeps 30% of each page free (`fillfactor = 70`), so that the
 * UPDATE every money movement makes of its balance rows can be a HOT update (the new row version on
 * the same page, no new entry in balances_pk) instead of moving the row to another page and adding
 * an index entry for it. No column of balances_pk changes in that UPDATE, so only a full page
 * stopped it: at the default fillfactor (100) a page of balance rows is full once the accounts are
 * made, and the first update of a row there found no room until pruning had freed some.
 *
 * Measured (scratch load, not a test: one server on its own PostgreSQL 15 database, 10 connections,
 * 4,000 accounts made, then 4,000 book transfers from one funded account to a random one of them;
 * table statistics read after the server stopped, two runs each):
 *   fillfactor 100: 6,834 and 6,863 of 8,001 balance updates HOT (85.4%, 85.8%), 2,314 and 2,252
 *                   dead row versions, heap 200 and 187 pages, balances_pk 53 pages;
 *   fillfactor 70:  7,811 and 7,808 of 8,001 HOT (97.6%), 1,387 and 1,083 dead row versions, heap
 *                   175 and 168 pages (fewer rows moved to new pages), balances_pk 53 pages.
 * With two accounts only (the bench's transfer) the table is one page either way and the figures
 * did not differ (97.5% HOT; the rest found the page full of versions that a concurrent transaction
 * could still see, which no fillfactor prevents).
 *
 * Measured the same way and left out, for want of a benefit: fillfactor 70 on the spend buckets
 * (4,000 authorizations over 1,000 cards: 99.5% of card_spend_days/_hours updates HOT became 99.9%,
 * but their heaps grew from 21 to 38–44 pages; their rows are upserted through the day, so pages
 * already carry prunable versions) and 50 on the Auth Rules outcome counters (auth_rule_outcome_days,
 * a few rows, 98–99% HOT either way); fillfactor 70–80 on idempotency_keys (89% HOT became 98–99%,
 * but its heap grew by a quarter to four fifths, 516–591 pages to 745–930, while its two indexes
 * shrank by about 14%). No per-table autovacuum setting either: every run ended before autovacuum's
 * first visit (autovacuum_count 0 throughout), so none could be shown to help, and on-page pruning
 * already reclaims most of what HOT updates leave. card_transactions'
 * clearing update is never HOT (0 of 1,000): it changes `status`, a column of
 * card_transactions_by_status and of the declined partial index, which the lists by status need.
 *
 * A storage parameter applies to pages written from now on: existing pages of a database migrated
 * here keep their rows as they are until the table is rewritten (VACUUM FULL, CLUSTER, pg_repack),
 * which this migration deliberately does not do (it would lock the table); new accounts' rows and
 * rows moved by later updates get the room. SQLite has no such setting: nothing changes there.
 */
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`ALTER TABLE balances SET (fillfactor = 70)`.execute(db);
}
