import crypto from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { createTestDatabase, describeWithDb, engine, startTestServer } from '../testing/harness.js';
import { accountRow } from '../testing/list-rows.js';
import type { CardTransactionsTable } from '../transactions/tables.js';
import { openDatabase, type Db } from './database.js';
import { migrateTo, migrateToLatest } from './migrate.js';

/**
 * Two databases side by side (on PostgreSQL: two schemas of one database, as concurrent test files
 * or two servers with their own search_path have): the second migrates although the first already
 * has its migration bookkeeping tables.
 */
describeWithDb('migrations', () => {
  it('migrate a database next to an already migrated one', async () => {
    const first = await startTestServer();
    try {
      const second = await startTestServer();
      try {
        const program = await second.newProgram();
        await expect(program.client.accounts.list()).resolves.toMatchObject({ has_more: false });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});

describeWithDb('migrations on a SQLite file another process writes', () => {
  it.skipIf(engine !== 'sqlite')('migrate a fresh file while another process holds its write lock: wait, then migrate (it failed busy)', async () => {
    const database = await createTestDatabase();
    const db = openDatabase(database.databaseUrl, { dataDir: database.dataDir });
    const other = new BetterSqlite3(database.databaseUrl.replace(/^sqlite:/, ''));
    try {
      // Another server migrating this fresh file holds its write lock, as Kysely makes its bookkeeping tables.
      other.exec('begin immediate');
      const migrating = migrateToLatest(db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      other.exec('rollback');
      await migrating;
      const cards = await db.kysely.selectFrom('cards').select('token').execute();
      expect(cards).toEqual([]);
    } finally {
      other.close();
      await db.close();
      await database.drop();
    }
  });
});

/** A fresh database migrated up to `before`, for a test to fill, migrate further and check. */
async function withDatabaseAt(before: string, test: (db: Db) => Promise<void>): Promise<void> {
  const database = await createTestDatabase();
  const db = openDatabase(database.databaseUrl, { dataDir: database.dataDir });
  try {
    await migrateTo(db, before);
    await test(db);
  } finally {
    await db.close();
    await database.drop();
  }
}

describeWithDb('migration 0007 (write path)', () => {
  it('keeps every card transaction and drops the unread journals index', async () => {
    await withDatabaseAt('0006_auth_rule_outcomes', async (db) => {
      const row: CardTransactionsTable = {
        program_id: 'p', token: 't1', account_token: 'a', card_token: 'c', financial_account_token: 'f', kind: 'AUTHORIZATION',
        status: 'PENDING', result: 'APPROVED', authorization_amount_cents: 100, hold_cents: 100, settled_cents: 0,
        merchant_authorization_amount_cents: 100, merchant_currency: 'USD', spend_cents: 100, counts_as_spend: 1, return_reversed: 0,
        merchant_acceptor_id: 'm', merchant_descriptor: 'D', merchant_mcc: '5999', merchant_city: 'X', merchant_country: 'USA',
        merchant_state: 'NY', card_present: 0, partial_approval_capable: 0, expires_ms: 5, created_ms: 1, updated_ms: 1,
      };
      await db.kysely.insertInto('card_transactions').values([row, { ...row, token: 't2', created_ms: 2 }]).execute();
      await migrateToLatest(db);
      const rows = await db.kysely.selectFrom('card_transactions').selectAll().orderBy('token').execute();
      expect(rows).toEqual([row, { ...row, token: 't2', created_ms: 2 }]);
      const byCard = await db.kysely.selectFrom('card_transactions').select('token').where('program_id', '=', 'p').where('card_token', '=', 'c').orderBy('created_ms', 'desc').execute();
      expect(byCard.map((r) => r.token)).toEqual(['t2', 't1']);
      if (db.engine === 'sqlite') {
        const { rows: tables } = await sql<{ sql: string }>`select sql from sqlite_master where name in ('card_transactions', 'auth_rules')`.execute(db.kysely);
        expect(tables).toHaveLength(2);
        for (const table of tables) expect(table.sql).toMatch(/without rowid$/i);
        const { rows: indexes } = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name like 'card_transactions%' or name = 'journals_by_transaction' order by name`.execute(db.kysely);
        expect(indexes.map((index) => index.name)).toEqual([
          'card_transactions_by_account',
          'card_transactions_by_card',
          'card_transactions_by_created',
          'card_transactions_by_status',
          // Migration 0033's, after 0007 (which rebuilt the table).
          'card_transactions_declined_by_financial_account',
        ]);
      } else {
        const { rows: indexes } = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where schemaname = current_schema() and indexname = 'journals_by_transaction'`.execute(db.kysely);
        expect(indexes[0]?.n).toBe(0);
      }
    });
  });
});

describeWithDb('migration 0008 (entries carry their journal)', () => {
  it('moves every journal onto its entries, and the ledger stays append-only', async () => {
    await withDatabaseAt('0007_write_path', async (db) => {
      const journal = { program_id: 'p', token: 'j1', kind: 'BOOK_TRANSFER', transaction_token: 't1', event_token: 'e1', created_ms: 7 };
      await sql`insert into journals (program_id, token, kind, transaction_token, event_token, created_ms)
        values (${journal.program_id}, ${journal.token}, ${journal.kind}, ${journal.transaction_token}, ${journal.event_token}, ${journal.created_ms})`.execute(db.kysely);
      for (const [seq, account, amount] of [[0, 'fa-from', -250], [1, 'fa-to', 250]] as const) {
        await sql`insert into ledger_entries (program_id, journal_token, seq, ledger_account, bucket, amount_cents, created_ms)
          values ('p', 'j1', ${seq}, ${account}, 'available', ${amount}, 7)`.execute(db.kysely);
      }
      await migrateToLatest(db);
      const entries = await db.kysely.selectFrom('ledger_entries').selectAll().orderBy('seq').execute();
      const carried = { program_id: 'p', journal_token: 'j1', bucket: 'available', created_ms: 7, kind: 'BOOK_TRANSFER', transaction_token: 't1', event_token: 'e1' };
      expect(entries).toEqual([
        { ...carried, seq: 0, ledger_account: 'fa-from', amount_cents: -250 },
        { ...carried, seq: 1, ledger_account: 'fa-to', amount_cents: 250 },
      ]);
      await expect(sql`delete from ledger_entries`.execute(db.kysely)).rejects.toThrow(/append-only/);
      await expect(sql`update ledger_entries set amount_cents = 0`.execute(db.kysely)).rejects.toThrow(/append-only/);
      await expect(sql`select 1 from journals`.execute(db.kysely)).rejects.toThrow();
    });
  });
});

describeWithDb('migration 0011 (spend hours)', () => {
  it('fills the hour buckets of every card and account from the transactions already stored', async () => {
    await withDatabaseAt('0010_auth_rules_version', async (db) => {
      const HOUR = 3_600_000;
      const base: CardTransactionsTable = {
        program_id: 'p', token: '', account_token: 'a1', card_token: 'c1', financial_account_token: 'f', kind: 'AUTHORIZATION',
        status: 'PENDING', result: 'APPROVED', authorization_amount_cents: 100, hold_cents: 100, settled_cents: 0,
        merchant_authorization_amount_cents: 100, merchant_currency: 'USD', spend_cents: 100, counts_as_spend: 1, return_reversed: 0,
        merchant_acceptor_id: 'm', merchant_descriptor: 'D', merchant_mcc: '5999', merchant_city: 'X', merchant_country: 'USA',
        merchant_state: 'NY', card_present: 0, partial_approval_capable: 0, expires_ms: null, created_ms: 0, updated_ms: 0,
      };
      const hour = 500_000 * HOUR;
      await db.kysely
        .insertInto('card_transactions')
        .values([
          { ...base, token: 't1', created_ms: hour + 5 },
          { ...base, token: 't2', created_ms: hour + HOUR - 1, spend_cents: 250 },
          { ...base, token: 't3', created_ms: hour + HOUR, card_token: 'c2' },
          { ...base, token: 't4', created_ms: hour + 2 * HOUR, card_token: 'c2', account_token: 'a2', spend_cents: 0, counts_as_spend: 0, result: 'DECLINED' },
        ])
        .execute();
      await migrateToLatest(db);
      const buckets = await db.kysely
        .selectFrom('card_spend_hours')
        .select(['program_id', 'scope_token', 'hour_start_ms', 'spent_cents', 'approved_count'])
        .where('spent_cents', '!=', 0)
        .orderBy('scope_token')
        .orderBy('hour_start_ms')
        .execute();
      expect(buckets.map((bucket) => ({ ...bucket, hour_start_ms: Number(bucket.hour_start_ms), spent_cents: Number(bucket.spent_cents), approved_count: Number(bucket.approved_count) }))).toEqual([
        { program_id: 'p', scope_token: 'a1', hour_start_ms: hour, spent_cents: 350, approved_count: 2 },
        { program_id: 'p', scope_token: 'a1', hour_start_ms: hour + HOUR, spent_cents: 100, approved_count: 1 },
        { program_id: 'p', scope_token: 'c1', hour_start_ms: hour, spent_cents: 350, approved_count: 2 },
        { program_id: 'p', scope_token: 'c2', hour_start_ms: hour + HOUR, spent_cents: 100, approved_count: 1 },
      ]);
    });
  });
});

describeWithDb('migration 0016 (3DS challenge status)', () => {
  it('shows the challenges pending so far as PENDING, and no challenge on the others', async () => {
    await withDatabaseAt('0015_card_network_program', async (db) => {
      const row = {
        program_id: 'p', token: 't1', card_token: 'c', account_token: 'a', authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'LITHIC_DEFAULT',
        card_expiry_check: 'MATCH', message_category: 'PAYMENT_AUTHENTICATION', merchant_id: 'm', merchant_country: 'USA', merchant_mcc: '5411',
        merchant_name: 'SHOP CHALLENGE', amount_cents: 100, currency: 'USD', created_ms: 1,
      };
      await db.kysely.insertInto('three_ds_authentications').values([row, { ...row, token: 't2', authentication_result: 'SUCCESS' }]).execute();
      await migrateToLatest(db);
      const rows = await db.kysely.selectFrom('three_ds_authentications').select(['token', 'authentication_result', 'challenge_status']).orderBy('token').execute();
      expect(rows).toEqual([
        { token: 't1', authentication_result: 'PENDING_CHALLENGE', challenge_status: 'PENDING' },
        { token: 't2', authentication_result: 'SUCCESS', challenge_status: null },
      ]);
    });
  });
});

describeWithDb('migration 0020 (cards sent)', () => {
  it('counts as sent every PHYSICAL card already past PENDING_FULFILLMENT, so that upgrading sends nothing twice', async () => {
    await withDatabaseAt('0019_business_rules_version', async (db) => {
      const card = {
        program_id: 'p', token: 'c1', account_token: 'a', card_program_token: 'cp', type: 'PHYSICAL', state: 'PENDING_FULFILLMENT',
        pan_encrypted: 'x', pan_lookup_hash: 'h1', last_four: '0001', cvv_encrypted: 'y', exp_month: '01', exp_year: '2040', pin_hash: null,
        pin_status: 'NOT_SET', pin_failed_attempts: 0, spend_limit_cents: 0, spend_limit_duration: 'TRANSACTION', memo: '', comment: null,
        substatus: null, network_program_token: null, digital_card_art_token: null, product_id: null, replacement_for: null, shipping: '{}',
        hostname: '', locked_merchant_acceptor_id: null, first_approved_ms: null, created_ms: 1, updated_ms: 2,
      };
      await db.kysely
        .insertInto('cards')
        .values([card, { ...card, token: 'c2', pan_lookup_hash: 'h2', state: 'PENDING_ACTIVATION', updated_ms: 7 }, { ...card, token: 'c3', pan_lookup_hash: 'h3', type: 'VIRTUAL', state: 'OPEN', shipping: null }])
        .execute();
      await migrateToLatest(db);
      const rows = await db.kysely.selectFrom('cards').select(['token', 'state', 'shipped_ms']).orderBy('token').execute();
      expect(rows).toEqual([
        { token: 'c1', state: 'PENDING_FULFILLMENT', shipped_ms: null },
        { token: 'c2', state: 'PENDING_ACTIVATION', shipped_ms: 7 },
        { token: 'c3', state: 'OPEN', shipped_ms: null },
      ]);
    });
  });
});

describeWithDb('migration 0023 (input-only reasons)', () => {
  it('removes the beneficial-owner reasons holders were given before, and keeps every other reason', async () => {
    await withDatabaseAt('0022_attempts_due_by_subscription', async (db) => {
      const holder = {
        program_id: 'p', token: 'h1', account_token: 'a1', workflow: 'KYB_BASIC', user_type: 'BUSINESS' as const, status: 'REJECTED',
        status_reasons: JSON.stringify(['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED', 'BENEFICIAL_OWNER_INDIVIDUAL_ID_VERIFICATION_FAILURE', 'CONTROL_PERSON_DOB_VERIFICATION_FAILURE']),
        verification_created_ms: 1, verification_updated_ms: 2, exemption_type: null, business_account_token: null, external_id: null, email: null,
        email_lower: null, phone_number: null, first_name: null, last_name: null, legal_business_name: 'B', nature_of_business: null, website_url: null,
        tos_timestamp: null, passed_timestamp: null, profile: '{}', government_ids_encrypted: null, created_ms: 1, updated_ms: 2,
      };
      await db.kysely
        .insertInto('account_holders')
        .values([
          holder,
          { ...holder, token: 'h2', account_token: 'a2', status_reasons: JSON.stringify(['BENEFICIAL_OWNER_INDIVIDUAL_DOB_VERIFICATION_FAILURE']) },
          { ...holder, token: 'h3', account_token: 'a3', status: 'ACCEPTED', status_reasons: '[]' },
        ])
        .execute();
      await migrateToLatest(db);
      const rows = await db.kysely.selectFrom('account_holders').select(['token', 'status', 'status_reasons', 'updated_ms']).orderBy('token').execute();
      expect(rows.map((row) => ({ ...row, status_reasons: JSON.parse(row.status_reasons) as string[], updated_ms: Number(row.updated_ms) }))).toEqual([
        { token: 'h1', status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED', 'CONTROL_PERSON_DOB_VERIFICATION_FAILURE'], updated_ms: 2 },
        { token: 'h2', status: 'REJECTED', status_reasons: [], updated_ms: 2 },
        { token: 'h3', status: 'ACCEPTED', status_reasons: [], updated_ms: 2 },
      ]);
    });
  });
});

describeWithDb('migration 0031 (event subscription secrets)', () => {
  it('keeps the previous secret of a subscription signing until its end, in the table of retired secrets', async () => {
    await withDatabaseAt('0030_card_transaction_events_by_token', async (db) => {
      for (const [token, previous, untilMs] of [['s1', 'old-secret', 5_000], ['s2', null, null]] as const) {
        await sql`insert into event_subscriptions (program_id, token, url, description, disabled, event_types, secret_encrypted, previous_secret_encrypted, previous_secret_until_ms, created_ms, updated_ms)
          values ('p', ${token}, 'https://example.com/hook', '', 0, null, ${`current-${token}`}, ${previous}, ${untilMs}, 1, 2)`.execute(db.kysely);
      }
      await migrateToLatest(db);
      const retired = await db.kysely.selectFrom('event_subscription_secrets').selectAll().execute();
      expect(retired.map((row) => ({ ...row, until_ms: Number(row.until_ms) }))).toEqual([{ program_id: 'p', subscription_token: 's1', until_ms: 5_000, secret_encrypted: 'old-secret' }]);
      const subscriptions = await db.kysely.selectFrom('event_subscriptions').select(['token', 'secret_encrypted']).orderBy('token').execute();
      expect(subscriptions).toEqual([{ token: 's1', secret_encrypted: 'current-s1' }, { token: 's2', secret_encrypted: 'current-s2' }]);
      await expect(sql`select previous_secret_encrypted from event_subscriptions`.execute(db.kysely)).rejects.toThrow();
    });
  });
});

describeWithDb('migration 0041 (account spend limits of 0)', () => {
  it('gives the accounts without a daily or monthly limit (no limit, before 0 became a limit of 0) the $5,000 default, and keeps every limit set', async () => {
    await withDatabaseAt('0040_three_ds_decisioning_secrets', async (db) => {
      // Before 0041 a null daily or monthly limit was no limit, which the row type no longer allows.
      const noLimit = null as unknown as number;
      await db.kysely
        .insertInto('accounts')
        .values([
          { ...accountRow('p', 'a1', 1), daily_spend_limit_cents: 500_000, monthly_spend_limit_cents: noLimit, lifetime_spend_limit_cents: null },
          { ...accountRow('p', 'a2', 1), daily_spend_limit_cents: noLimit, monthly_spend_limit_cents: noLimit, lifetime_spend_limit_cents: null },
          { ...accountRow('p', 'a3', 1), daily_spend_limit_cents: 1_234, monthly_spend_limit_cents: 70_000, lifetime_spend_limit_cents: 9_000 },
        ])
        .execute();
      await migrateToLatest(db);
      const rows = await db.kysely.selectFrom('accounts').select(['token', 'daily_spend_limit_cents', 'monthly_spend_limit_cents', 'lifetime_spend_limit_cents']).orderBy('token').execute();
      const cents = (value: number | null) => (value === null ? null : Number(value));
      expect(rows.map((row) => [row.token, cents(row.daily_spend_limit_cents), cents(row.monthly_spend_limit_cents), cents(row.lifetime_spend_limit_cents)])).toEqual([
        ['a1', 500_000, 500_000, null],
        ['a2', 500_000, 500_000, null],
        ['a3', 1_234, 70_000, 9_000],
      ]);
    });
  });
});

describeWithDb('migrations beside a changing database', () => {
  it.skipIf(engine !== 'postgres')('migrate while another schema of the database is created and dropped (it failed with: schema "…" does not exist)', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const churned = `cw_test_churn_${crypto.randomBytes(6).toString('hex')}`;
    let churning = true;
    const churn = (async () => {
      while (churning) {
        await admin.query(`create schema ${churned}; create table ${churned}.a (x int, y int); create table ${churned}.b (x int)`);
        await admin.query(`drop schema ${churned} cascade`);
      }
    })();
    try {
      for (let attempt = 0; attempt < 4; attempt++) {
        const database = await createTestDatabase();
        const db = openDatabase(database.databaseUrl, { dataDir: database.dataDir });
        try {
          await migrateToLatest(db);
        } finally {
          await db.close();
          await database.drop();
        }
      }
    } finally {
      churning = false;
      await churn;
      await admin.end();
    }
  });
});
