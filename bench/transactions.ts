/**
 * Card transaction scenarios (issues 3 and 4):
 *  - the approve path of `POST /v1/simulate/authorize` on a card with a spend limit and a card-level
 *    Auth Rule: ≥ 50% of reference (b), p99 < 30 ms;
 *  - the same with 100 active Auth Rules applying to the card (program-level and card-level, half of
 *    them with a draft in shadow): at most 2× the time of the 1-rule line;
 *  - `GET /v1/transactions?card_token=…&page_size=50` with 1,000 and then 1,000,000 transactions of
 *    that card in the database, seeded directly with one INSERT … SELECT per table: the second
 *    scenario's p99 must stay within 1.5× the first's.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type Lithic from 'lithic';
import type { BenchContext } from './context.js';
import type { Scenario, ScenarioRequest } from './scenarios.js';

/** A monthly card limit the bench never reaches (1 cent per authorization). */
const CARD_SPEND_LIMIT_CENTS = 1_000_000_000;
const LIST_1K = 'GET /v1/transactions?card_token (1k rows)';
const AUTHORIZE_1_RULE = 'POST /v1/simulate/authorize (approve, 1 Auth Rule)';
const LIST_1M = 'GET /v1/transactions?card_token (1M rows)';

interface SeededCard {
  token: string;
  account_token: string;
  financial_account_token: string;
  rows: number;
}

/** The listed card of each engine's run (each run has its own server, database and context). */
const listedCards = new WeakMap<BenchContext, SeededCard>();

/**
 * The numbers [from, to) as rows `s.n` of one SELECT (the source of a seed's INSERT … SELECT), and
 * `s.n` as 12 hex digits (the last group of a seeded token), on either engine.
 */
export function numberedRows(engine: BenchContext['engine'], from: number, to: number) {
  const series =
    engine === 'postgres'
      ? sql`(select n from generate_series(${sql.lit(from)}::bigint, ${sql.lit(to - 1)}::bigint) as n) as s`
      : sql`(with recursive seq(n) as (select ${sql.lit(from)} union all select n + 1 from seq where n < ${sql.lit(to - 1)}) select n from seq) as s`;
  const hex = engine === 'postgres' ? sql`lpad(to_hex(s.n), 12, '0')` : sql`printf('%012x', s.n)`;
  return { series, hex };
}

/** One transaction (SETTLED authorization) and its event per number in [from, to), by one statement per table. */
async function seedTransactions(context: BenchContext, card: SeededCard, from: number, to: number): Promise<void> {
  const prefix = crypto.randomBytes(4).toString('hex');
  const createdBaseMs = Date.now() - 10_000_000;
  const { series, hex } = numberedRows(context.engine, from, to);
  const token = sql`${sql.lit(`${prefix}-0000-7000-8000-`)} || ${hex}`;
  const eventToken = sql`${sql.lit(`${prefix}-0000-7000-9000-`)} || ${hex}`;
  const created = sql`${sql.lit(createdBaseMs)} + s.n`;
  await sql`insert into card_transactions (program_id, token, account_token, card_token, financial_account_token, kind, status, result,
      authorization_amount_cents, hold_cents, settled_cents, merchant_authorization_amount_cents, merchant_currency, spend_cents,
      counts_as_spend, return_reversed, merchant_acceptor_id, merchant_descriptor, merchant_mcc, merchant_city, merchant_country,
      merchant_state, card_present, partial_approval_capable, expires_ms, created_ms, updated_ms)
    select ${context.programId}, ${token}, ${card.account_token}, ${card.token}, ${card.financial_account_token}, 'AUTHORIZATION', 'SETTLED',
      'APPROVED', 100, 0, 100, 100, 'USD', 100, 1, 0, 'BENCHSHOP', 'BENCH SHOP', '5999', 'NEW YORK', 'USA', 'NY', 0, 0, null, ${created}, ${created}
    from ${series}`.execute(context.db.kysely);
  await sql`insert into card_transaction_events (program_id, transaction_token, seq, token, type, amount_cents, settlement_cents,
      effective_polarity, result, detailed_results, rule_results, created_ms)
    select ${context.programId}, ${token}, 0, ${eventToken}, 'AUTHORIZATION', 100, null, 'DEBIT', 'APPROVED', '["APPROVED"]', '[]', ${created}
    from ${series}`.execute(context.db.kysely);
  await maintainSeeded(context, ['card_transactions', 'card_transaction_events']);
}

/** The maintenance a bulk seed of `tables` calls for before it is measured (and the planner's statistics of them). */
export async function maintainSeeded(context: BenchContext, tables: readonly string[]): Promise<void> {
  if (context.engine === 'postgres') {
    // The bulk insert would have autovacuum visit the tables during the measurement that follows
    // (its insert threshold): do that maintenance now, so the figure is the list's, not the vacuum's.
    await sql`vacuum (analyze) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(context.db.kysely);
  } else {
    await sql`analyze`.execute(context.db.kysely);
  }
}

/**
 * The listed card with at least `rows` transactions (created on first use, topped up after), and
 * proof that the list the scenario measures is a full page of that card's transactions.
 */
async function cardWithTransactions(context: BenchContext, rows: number): Promise<SeededCard> {
  let listed = listedCards.get(context);
  if (!listed) {
    const card = await context.client.cards.create({ type: 'VIRTUAL', memo: 'bench list' });
    listed = { token: card.token, account_token: card.account_token, financial_account_token: card.funding.token, rows: 0 };
    listedCards.set(context, listed);
  }
  if (listed.rows < rows) {
    await seedTransactions(context, listed, listed.rows, rows);
    listed.rows = rows;
  }
  const page = await context.client.transactions.list({ card_token: listed.token, page_size: 50 });
  if (page.data.length !== 50 || page.data.some((transaction) => transaction.card_token !== listed.token)) {
    throw new Error(`bench: the list of card ${listed.token} is not a full page of its transactions`);
  }
  return listed;
}

/**
 * A card with a spend limit and `rules` active Auth Rules applying to it that never decline (they
 * block a gambling MCC; the bench buys coffee): the first on the card, the others alternately on
 * the program and on the card, every other one with a draft evaluated in shadow.
 */
async function authorizeWithRules(context: BenchContext, rules: number): Promise<ScenarioRequest> {
  const card = await context.client.cards.create({ type: 'VIRTUAL', spend_limit: CARD_SPEND_LIMIT_CENTS, spend_limit_duration: 'MONTHLY' });
  const parameters = { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }] };
  for (let index = 0; index < rules; index++) {
    const scope = index % 2 === 0 ? { card_tokens: [card.token] } : { program_level: true };
    const rule = await context.client.authRules.v2.create({ type: 'CONDITIONAL_BLOCK', parameters, ...scope } as unknown as Lithic.AuthRules.V2CreateParams);
    await context.client.authRules.v2.promote(rule.token);
    if (index % 2 === 1) await context.client.authRules.v2.draft(rule.token, { parameters } as unknown as Lithic.AuthRules.V2DraftParams);
  }
  return { method: 'POST', path: '/v1/simulate/authorize', body: { amount: 1, descriptor: 'BENCH COFFEE', mcc: '5814', pan: card.pan } };
}

export const cardTransactionScenarios: Scenario[] = [
  {
    name: AUTHORIZE_1_RULE,
    reference: 'b',
    target: { minRatio: 0.5, maxP99Ms: 30, note: 'card: MONTHLY spend limit, 1 card-level Auth Rule; account: $5,000 daily and monthly limits' },
    prepare: (context) => authorizeWithRules(context, 1),
  },
  {
    name: 'POST /v1/simulate/authorize (approve, 100 Auth Rules)',
    reference: 'b',
    target: { minThroughputRatioTo: { scenario: AUTHORIZE_1_RULE, ratio: 0.5 } },
    prepare: (context) => authorizeWithRules(context, 100),
  },
  {
    name: LIST_1K,
    reference: 'a',
    target: { note: 'reported for the 1M ratio below' },
    prepare: async (context) => {
      const card = await cardWithTransactions(context, 1_000);
      return { method: 'GET', path: `/v1/transactions?card_token=${card.token}&page_size=50` };
    },
  },
  {
    name: LIST_1M,
    reference: 'a',
    target: { maxP99RatioTo: { scenario: LIST_1K, ratio: 1.5 } },
    prepare: async (context) => {
      const card = await cardWithTransactions(context, 1_000_000);
      return { method: 'GET', path: `/v1/transactions?card_token=${card.token}&page_size=50` };
    },
  },
];
