/**
 * Financial transaction list scenarios: `GET /v1/financial_accounts/{token}/financial_transactions
 * ?page_size=50` on a financial account with 1,000 and then 1,000,000 book transfers touching it,
 * seeded directly with one INSERT … SELECT per table, and the same list with `status=SETTLED` on the
 * 1M account (reported, no target: every seeded transfer is SETTLED, so it finds its page as the
 * plain list does, through the walk that derives candidates before filtering them).
 *
 * Target: the 1M line's p99 within 1.5× the 1k line's. It is Cardwright's own: the issues set it for
 * the card transaction list (bench/transactions.ts), and it is carried over to this list, which is
 * derived from the ledger as that one is from the card transactions, so that a page stays a bounded
 * read of the account's history (migration 0037, `walkTransactions`) however long that history is.
 *
 * The seed writes what `POST /v1/book_transfers` writes for an approved transfer (book_transfers/
 * service.ts `create`, ledger.ts `journalEntries`): the transfer, its one event, and its journal of
 * two entries (from.available −amount, to.available +amount), every row at one program instant,
 * then the two balance rows once (each the sum of its entries, stamped with the last transfer). The
 * transfers alternate direction between the listed account and a funded counterparty, so neither
 * balance ever goes below zero. Their times follow each other, 1 ms apart, from the program's "now";
 * the program clock is then moved past the last one (as a sandbox user moves it), so that the
 * history lies between the accounts' creation and the program's present, as the server writes it.
 * The seed writes no `book_transfer_transaction.created` or `balance.updated` events (the event
 * stream is not what the list reads). Seeding 1M transfers, checks included, took about 30 s on
 * SQLite and 45 s on PostgreSQL (2 shared CPUs), so the bench seeds the full 1M.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type Lithic from 'lithic';
import { verifyProgramLedger } from '../src/ledger/ledger.js';
import type { BenchContext } from './context.js';
import type { Scenario, ScenarioRequest } from './scenarios.js';
import { maintainSeeded, numberedRows } from './transactions.js';

const LIST_1K = 'GET …/financial_transactions (1k transfers)';
const LIST_1M = 'GET …/financial_transactions (1M transfers)';
const LIST_1M_SETTLED = 'GET …/financial_transactions?status=SETTLED (1M)';

/** What each seeded transfer moves, in cents. */
const TRANSFER_CENTS = 100;
/** The counterparty's funding: enough for its transfers out, each returned before the next leaves. */
const COUNTERPARTY_FUNDING_CENTS = 10_000;
/** How far past the last seeded transfer the program clock is moved, so that it lies in the past. */
const CLOCK_MARGIN_MS = 1_000;
/** The category and type of the seeded transfers, and their subtype (those of the book transfer scenario). */
const TRANSFER_TYPE = 'TRANSFER';
const TRANSFER_SUBTYPE = 'bench';
/** The journal kind of a book transfer (book_transfers/service.ts `JOURNAL_KIND`). */
const JOURNAL_KIND = 'BOOK_TRANSFER';

type FinancialTransaction = Lithic.FinancialAccounts.FinancialTransaction;

interface SeededAccount {
  /** The listed financial account. */
  token: string;
  /** The other side of every transfer. */
  counterparty: string;
  /** Transfers seeded: numbered 0 … rows − 1, in time order. */
  rows: number;
  /** The prefix of the tokens of each seeded range, by the range's first number. */
  prefixes: Map<number, string>;
}

/** The listed account of each engine's run (each run has its own server, database and context). */
const listedAccounts = new WeakMap<BenchContext, SeededAccount>();

/** Transfer n moves money into the listed account when n is even, out of it when n is odd. */
const isInbound = (n: number) => n % 2 === 0;

/** The listed account's net change over transfers [from, to): +amount per even number, −amount per odd one. */
function listedNetCents(from: number, to: number): number {
  const evens = Math.ceil(to / 2) - Math.ceil(from / 2);
  return (evens - (to - from - evens)) * TRANSFER_CENTS;
}

/**
 * The first four groups of a seeded token (a UUID whose last group is the transfer's number in hex):
 * the range's random prefix, then a fourth group that tells the transfer, its event and its journal apart.
 */
const SEEDED_GROUP = { transfer: '8000', event: '9000', journal: 'a000' } as const;
const tokenStart = (prefix: string, of: keyof typeof SEEDED_GROUP) => `${prefix}-0000-7000-${SEEDED_GROUP[of]}-`;

async function programNowMs(context: BenchContext): Promise<number> {
  return Date.parse((await context.client.get<unknown, { now: string }>('/v1/simulate/clock')).now);
}

/**
 * Transfers [from, to) with their events and journals, by one statement per table, written 1 ms
 * apart from the program's "now"; then the two balance rows, and the program clock moved past them.
 */
async function seedTransfers(context: BenchContext, account: SeededAccount, from: number, to: number): Promise<void> {
  const { db, engine, programId } = context;
  const prefix = crypto.randomBytes(4).toString('hex');
  account.prefixes.set(from, prefix);
  const firstMs = (await programNowMs(context)) + 1;
  const { series, hex } = numberedRows(engine, from, to);
  const token = sql`${sql.lit(tokenStart(prefix, 'transfer'))} || ${hex}`;
  const eventToken = sql`${sql.lit(tokenStart(prefix, 'event'))} || ${hex}`;
  const journalToken = sql`${sql.lit(tokenStart(prefix, 'journal'))} || ${hex}`;
  const created = sql`${sql.lit(firstMs - from)} + s.n`;
  const inbound = sql`s.n % 2 = 0`;
  const fromAccount = sql`case when ${inbound} then ${account.counterparty} else ${account.token} end`;
  const toAccount = sql`case when ${inbound} then ${account.token} else ${account.counterparty} end`;
  await sql`insert into book_transfers (program_id, token, category, type, subtype, from_financial_account_token, to_financial_account_token,
      status, result, amount_cents, pending_amount_cents, settled_amount_cents, external_id, credit_in_suspense, created_ms, updated_ms)
    select ${programId}, ${token}, ${TRANSFER_TYPE}, ${TRANSFER_TYPE}, ${TRANSFER_SUBTYPE}, ${fromAccount}, ${toAccount},
      'SETTLED', 'APPROVED', ${sql.lit(TRANSFER_CENTS)}, 0, ${sql.lit(TRANSFER_CENTS)}, null, 0, ${created}, ${created}
    from ${series}`.execute(db.kysely);
  await sql`insert into money_events (program_id, transaction_token, seq, token, type, amount_cents, result, detailed_results, memo,
      effective_date, subtype, created_ms)
    select ${programId}, ${token}, 0, ${eventToken}, ${TRANSFER_TYPE}, ${sql.lit(TRANSFER_CENTS)}, 'APPROVED', '["APPROVED"]', '', null,
      ${TRANSFER_SUBTYPE}, ${created}
    from ${series}`.execute(db.kysely);
  // The journal's two postings, in `transferMovement`'s order: seq 0 takes from one side, seq 1 gives to the other.
  await sql`insert into ledger_entries (program_id, journal_token, seq, ledger_account, bucket, amount_cents, created_ms, kind,
      transaction_token, event_token)
    select ${programId}, ${journalToken}, p.seq, case when p.seq = 0 then ${fromAccount} else ${toAccount} end, 'available',
      case when p.seq = 0 then ${sql.lit(-TRANSFER_CENTS)} else ${sql.lit(TRANSFER_CENTS)} end, ${created}, ${JOURNAL_KIND},
      ${token}, ${eventToken}
    from ${series} cross join (select 0 as seq union all select 1) as p`.execute(db.kysely);

  // Each balance row is the sum of its entries (ledger invariant 4), stamped with the last movement that touched it.
  const last = to - 1;
  const lastHex = last.toString(16).padStart(12, '0');
  const net = listedNetCents(from, to);
  await db.kysely
    .updateTable('balances')
    .set({
      available_cents: sql`available_cents + case when financial_account_token = ${account.token} then ${sql.lit(net)} else ${sql.lit(-net)} end`,
      last_transaction_token: `${tokenStart(prefix, 'transfer')}${lastHex}`,
      last_transaction_event_token: `${tokenStart(prefix, 'event')}${lastHex}`,
      updated_ms: firstMs - from + last,
    })
    .where('program_id', '=', programId)
    .where('financial_account_token', 'in', [account.token, account.counterparty])
    .execute();

  await maintainSeeded(context, ['book_transfers', 'money_events', 'ledger_entries']);
  const { discrepancies, entries_sum_cents } = await verifyProgramLedger(db.kysely, programId);
  if (discrepancies.length > 0 || entries_sum_cents !== 0) {
    throw new Error(`bench: the seeded ledger is inconsistent: ${JSON.stringify({ discrepancies, entries_sum_cents })}`);
  }
  const pastLastMs = firstMs - from + last + CLOCK_MARGIN_MS;
  if ((await programNowMs(context)) < pastLastMs) {
    await context.client.post('/v1/simulate/clock', { body: { now: new Date(pastLastMs).toISOString() } });
  }
}

/** The seeded transfer's number, from its token's last 12 hex digits (its range's prefix checked). */
function transferNumber(account: SeededAccount, token: string): number | undefined {
  const n = Number.parseInt(token.slice(-12), 16);
  const [rangeFrom] = [...account.prefixes.keys()].filter((from) => from <= n).sort((a, b) => b - a);
  const prefix = rangeFrom === undefined ? undefined : account.prefixes.get(rangeFrom);
  return prefix !== undefined && token === `${tokenStart(prefix, 'transfer')}${token.slice(-12)}` ? n : undefined;
}

/**
 * Whether `page` is the newest 50 of the seeded transfers, newest first, each shown as the server
 * shows an approved book transfer on the account (one TRANSFER event, SETTLED, its sign the side).
 */
function isNewestSeededPage(account: SeededAccount, page: { data: FinancialTransaction[]; has_more: boolean }): boolean {
  return (
    page.has_more &&
    page.data.length === 50 &&
    page.data.every((item, index) => {
      const n = account.rows - 1 - index;
      const amount = isInbound(n) ? TRANSFER_CENTS : -TRANSFER_CENTS;
      return (
        transferNumber(account, item.token) === n &&
        item.category === 'TRANSFER' &&
        item.result === 'APPROVED' &&
        item.status === 'SETTLED' &&
        item.descriptor === TRANSFER_TYPE &&
        item.pending_amount === 0 &&
        item.settled_amount === amount &&
        item.events?.length === 1 &&
        item.events[0]?.type === 'TRANSFER' &&
        item.events[0]?.amount === amount &&
        item.created === item.events[0]?.created
      );
    })
  );
}

/** The list path of the scenarios (`query` without the leading `&`). */
const listPath = (account: SeededAccount, query = '') => `/v1/financial_accounts/${account.token}/financial_transactions?page_size=50${query && `&${query}`}`;

/**
 * The listed account with at least `rows` transfers (created on first use, topped up after), and
 * proof that the list the scenario measures is the newest page of its seeded transfers, that the
 * newest transfer reads back as the server's own, and that the account's balance is its transfers' sum.
 */
async function accountWithTransfers(context: BenchContext, rows: number, query = ''): Promise<SeededAccount> {
  const { client } = context;
  let listed = listedAccounts.get(context);
  if (!listed) {
    const account = await client.financialAccounts.create({ nickname: 'bench financial transactions', type: 'OPERATING' });
    const counterparty = await client.financialAccounts.create({ nickname: 'bench counterparty', type: 'OPERATING' });
    const now = new Date(await programNowMs(context)).toISOString();
    await client.managementOperations.create({
      amount: COUNTERPARTY_FUNDING_CENTS,
      category: 'MANAGEMENT_ADJUSTMENT',
      direction: 'CREDIT',
      effective_date: now.slice(0, 10),
      event_type: 'CASH_BACK',
      financial_account_token: counterparty.token,
    });
    listed = { token: account.token, counterparty: counterparty.token, rows: 0, prefixes: new Map() };
    listedAccounts.set(context, listed);
  }
  if (listed.rows < rows) {
    await seedTransfers(context, listed, listed.rows, rows);
    listed.rows = rows;
  }
  const page = await client.get<unknown, { data: FinancialTransaction[]; has_more: boolean }>(listPath(listed, query));
  if (!isNewestSeededPage(listed, page)) {
    throw new Error(`bench: ${listPath(listed, query)} is not the newest 50 of the account's seeded transfers: ${JSON.stringify(page.data[0])}`);
  }
  const newest = await client.bookTransfers.retrieve(page.data[0]?.token as string);
  const newestFrom = isInbound(listed.rows - 1) ? listed.counterparty : listed.token;
  if (newest.status !== 'SETTLED' || newest.from_financial_account_token !== newestFrom || newest.events.length !== 1 || newest.settled_amount !== TRANSFER_CENTS) {
    throw new Error(`bench: the newest seeded transfer does not read back as a settled book transfer: ${JSON.stringify(newest)}`);
  }
  const [balance] = (await client.financialAccounts.balances.list(listed.token)).data;
  if (balance?.available_amount !== listedNetCents(0, listed.rows) || balance.last_transaction_token !== newest.token) {
    throw new Error(`bench: the listed account's balance is not its seeded transfers': ${JSON.stringify(balance)}`);
  }
  return listed;
}

export const financialTransactionScenarios: Scenario[] = [
  {
    name: LIST_1K,
    reference: 'a',
    target: { note: 'reported for the 1M ratio below' },
    prepare: async (context): Promise<ScenarioRequest> => ({ method: 'GET', path: listPath(await accountWithTransfers(context, 1_000)) }),
  },
  {
    name: LIST_1M,
    reference: 'a',
    target: { maxP99RatioTo: { scenario: LIST_1K, ratio: 1.5 } },
    prepare: async (context): Promise<ScenarioRequest> => ({ method: 'GET', path: listPath(await accountWithTransfers(context, 1_000_000)) }),
  },
  {
    name: LIST_1M_SETTLED,
    reference: 'a',
    target: { note: 'no target; every seeded transfer is SETTLED' },
    prepare: async (context): Promise<ScenarioRequest> => ({
      method: 'GET',
      path: listPath(await accountWithTransfers(context, 1_000_000, 'status=SETTLED'), 'status=SETTLED'),
    }),
  },
];
