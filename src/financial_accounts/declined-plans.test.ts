/**
 * The movements declined on a financial account, which its financial transactions merge into their
 * pages (financial_transactions.ts): a book transfer the funds refused out of the account, a debit
 * operation, a withdrawal. Each source's chunk is one range of its partial index (migration 0038),
 * never a walk of the account's approved movements (thousands here, beside a few declines) nor of
 * the program's declines on other accounts (thousands too). PostgreSQL plans by cost, so the tables
 * hold enough rows and are ANALYZEd.
 */
import { beforeAll, expect, it } from 'vitest';
import * as bookTransfers from '../book_transfers/store.js';
import type { Executor } from '../db/database.js';
import type { KeysetWalk } from '../db/pagination.js';
import * as externalPayments from '../external_payments/store.js';
import * as managementOperations from '../management_operations/store.js';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';

const PROGRAM = 'p-declined-plans';
const ACCOUNT = 'fa-0';
const ROWS = 6_000;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const tokenOf = (i: number) => `m-${String(i).padStart(6, '0')}`;
/** Half the rows are the account's, all approved but one in fifty; the other half are other accounts', all declined. */
const accountOf = (i: number) => (i % 2 === 0 ? ACCOUNT : `fa-${1 + (i % 7)}`);
const isDeclined = (i: number) => accountOf(i) !== ACCOUNT || i % 100 === 0;
const ROW_INDEXES = Array.from({ length: ROWS }, (_, i) => i);
/** The account's declines, newest first. */
const DECLINED_ON_ACCOUNT = ROW_INDEXES.filter((i) => accountOf(i) === ACCOUNT && isDeclined(i)).reverse().map(tokenOf);

interface Movement {
  program_id: string;
  token: string;
  account: string;
  status: 'DECLINED' | 'SETTLED';
  result: 'DECLINED' | 'APPROVED';
  created_ms: number;
}

const movements: Movement[] = ROW_INDEXES.map((i) => ({
  program_id: PROGRAM,
  token: tokenOf(i),
  account: accountOf(i),
  status: isDeclined(i) ? 'DECLINED' : 'SETTLED',
  result: isDeclined(i) ? 'DECLINED' : 'APPROVED',
  created_ms: BASE_MS + i,
}));

type Read = (exec: Executor, asked: KeysetWalk) => Promise<Array<{ token: string }>>;

/** Each source: its table, its partial index, and its read of the account's declines. */
const SOURCES: Array<{ table: string; index: string; read: Read }> = [
  { table: 'book_transfers', index: 'book_transfers_declined_by_from_financial_account', read: (exec, asked) => bookTransfers.declinedFrom(exec, PROGRAM, ACCOUNT, asked) },
  { table: 'management_operations', index: 'management_operations_declined_by_financial_account', read: (exec, asked) => managementOperations.declinedOn(exec, PROGRAM, ACCOUNT, asked) },
  { table: 'external_payments', index: 'external_payments_declined_by_financial_account', read: (exec, asked) => externalPayments.declinedOn(exec, PROGRAM, ACCOUNT, asked) },
];

/** The newest ten declines before the 20th newest one's place. */
const WALK: KeysetWalk = { direction: 'desc', after: { token: DECLINED_ON_ACCOUNT[19] as string, created_ms: BASE_MS + Number((DECLINED_ON_ACCOUNT[19] as string).slice(2)) }, limit: 10 };

describeWithDb('declined movements of a financial account: plans', () => {
  const storage = useMigratedDb();

  beforeAll(async () => {
    const { kysely } = storage.db;
    const common = (m: Movement) => ({ program_id: m.program_id, token: m.token, status: m.status, result: m.result, amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: 0, created_ms: m.created_ms, updated_ms: m.created_ms });
    await seedRows(kysely, 'book_transfers', movements.map((m) => ({
      ...common(m), category: 'TRANSFER', type: 'TRANSFER', subtype: 'P2P', from_financial_account_token: m.account, to_financial_account_token: 'fa-to', external_id: null, credit_in_suspense: 0,
    })));
    await seedRows(kysely, 'management_operations', movements.map((m) => ({
      ...common(m), category: 'MANAGEMENT_FEE', direction: 'DEBIT', event_type: 'LOSS_WRITE_OFF', subtype: null, financial_account_token: m.account, effective_date: '2030-01-01', user_defined_id: null, credit_in_suspense: 0,
    })));
    await seedRows(kysely, 'external_payments', movements.map((m) => ({
      ...common(m), category: 'EXTERNAL_TRANSFER', payment_type: 'WITHDRAWAL', financial_account_token: m.account, is_settled: m.status === 'SETTLED' ? 1 : 0, user_defined_id: null,
    })));
    await analyzed(kysely, SOURCES.map((source) => source.table));
  }, 120_000);

  for (const source of SOURCES) {
    it(`${source.table}: the account's declines, and a chunk of a walk over them: one range of ${source.index}`, async () => {
      const { kysely } = storage.db;
      const whole: KeysetWalk = { direction: 'asc', after: null, limit: DECLINED_ON_ACCOUNT.length + 1 };
      expect((await source.read(kysely, whole)).map((row) => row.token)).toEqual([...DECLINED_ON_ACCOUNT].reverse());
      expect((await source.read(kysely, WALK)).map((row) => row.token)).toEqual(DECLINED_ON_ACCOUNT.slice(20, 30));
      // The plan of a chunk, as a page reads it (a read of them all, which no page makes, PostgreSQL may answer
      // with a scan of these few thousand rows).
      const plan = await pagePlan(kysely as never, (watched) => source.read(watched, WALK));
      const said = plan.join('\n');
      if (engine === 'sqlite') {
        expect(plan, said).toHaveLength(1);
        expect(plan[0], said).toMatch(new RegExp(`^SEARCH ${source.table} USING (COVERING )?INDEX ${source.index} \\(program_id=\\? AND \\w+=\\? AND created_ms<\\?\\)$`));
      } else {
        expect(said).toMatch(new RegExp(`Index (Only )?Scan (Backward )?using ${source.index}`));
        expect(said).not.toMatch(/Seq Scan|Sort {2}\(/);
      }
    });
  }
});
