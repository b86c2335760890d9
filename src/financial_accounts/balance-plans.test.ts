/**
 * Reads of card transactions that wrote no ledger entries, by financial account:
 *  - the balance right after a card event that moved no money (`last_transaction_event_token`: a
 *    declined authorization, a balance inquiry) finds the event by its token in
 *    `card_transaction_events_by_token` (migration 0030, covering on SQLite), then its transaction
 *    by primary key: never a walk of the program's events;
 *  - the declined card transactions a financial account's financial transactions show are one range
 *    of `card_transactions_declined_by_financial_account` (migration 0033, partial): never a walk of
 *    the program's declines, nor of the account's other card transactions.
 * PostgreSQL plans by cost, so its tables hold enough rows and are ANALYZEd.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { analyzed, seedRows } from '../testing/list-plans.js';
import { pagePlan } from '../testing/plans.js';
import * as cardTransactions from '../transactions/store.js';

const PROGRAM = 'p-event-plans';
const TRANSACTIONS = 2_000;
const EVENTS_PER_TRANSACTION = 3;
const BASE_MS = Date.parse('2030-01-01T00:00:00Z');
const transactionToken = (i: number) => `t-${String(i).padStart(6, '0')}`;
const eventToken = (i: number, seq: number) => `e-${String(i).padStart(6, '0')}-${seq}`;
/** A third of the transactions are declines, spread over the ten financial accounts. */
const isDeclined = (i: number) => i % 3 === 0;

describeWithDb('balance right after a card event: plans', () => {
  const storage = useMigratedDb();

  beforeAll(async () => {
    const { kysely } = storage.db;
    const indexes = Array.from({ length: TRANSACTIONS }, (_, i) => i);
    await seedRows(
      kysely,
      'card_transactions',
      indexes.map((i) => ({
        program_id: PROGRAM, token: transactionToken(i), account_token: 'a-1', card_token: 'c-1', financial_account_token: `fa-${i % 10}`, kind: 'AUTHORIZATION',
        status: isDeclined(i) ? ('DECLINED' as const) : ('SETTLED' as const), result: isDeclined(i) ? 'CARD_PAUSED' : 'APPROVED', authorization_amount_cents: 100, hold_cents: 0, settled_cents: 0, merchant_authorization_amount_cents: 100,
        merchant_currency: 'USD', spend_cents: 0, counts_as_spend: 0, return_reversed: 0, merchant_acceptor_id: 'm', merchant_descriptor: 'M', merchant_mcc: '5812',
        merchant_city: 'X', merchant_country: 'USA', merchant_state: 'NY', card_present: 0, partial_approval_capable: 0, expires_ms: null, created_ms: BASE_MS + i, updated_ms: BASE_MS + i,
      })),
    );
    await seedRows(
      kysely,
      'card_transaction_events',
      indexes.flatMap((i) =>
        Array.from({ length: EVENTS_PER_TRANSACTION }, (_, seq) => ({
          program_id: PROGRAM, transaction_token: transactionToken(i), seq, token: eventToken(i, seq), type: 'AUTHORIZATION', amount_cents: 100, settlement_cents: null,
          effective_polarity: 'DEBIT' as const, result: 'CARD_PAUSED', detailed_results: '[]', rule_results: '[]', created_ms: BASE_MS + i,
        })),
      ),
    );
    await analyzed(kysely, ['card_transactions', 'card_transaction_events']);
  }, 60_000);

  it('finds the event by its token, then its transaction by primary key', async () => {
    const { kysely } = storage.db;
    expect(await cardTransactions.eventOnAccountMs(kysely, PROGRAM, 'fa-7', eventToken(1_237, 2))).toBe(BASE_MS + 1_237);
    expect(await cardTransactions.eventOnAccountMs(kysely, PROGRAM, 'fa-6', eventToken(1_237, 2))).toBeUndefined();
    const plan = await pagePlan(kysely, (watched) => cardTransactions.eventOnAccountMs(watched, PROGRAM, 'fa-7', eventToken(1_237, 2)));
    if (engine === 'sqlite') {
      expect(plan).toEqual([
        expect.stringMatching(/^SEARCH event USING COVERING INDEX card_transaction_events_by_token \(program_id=\? AND token=\?\)$/),
        expect.stringMatching(/^SEARCH transaction USING PRIMARY KEY \(program_id=\? AND token=\?\)$/),
      ]);
    } else {
      const text = plan.join('\n');
      expect(text).toMatch(/Index (Only )?Scan using card_transaction_events_by_token on card_transaction_events/);
      expect(text).not.toMatch(/Seq Scan/);
    }
  });

  it('reads the declined card transactions of a financial account as one range of their partial index', async () => {
    const { kysely } = storage.db;
    const expected = Array.from({ length: TRANSACTIONS }, (_, i) => i).filter((i) => i % 10 === 7 && isDeclined(i)).map(transactionToken);
    const all = { direction: 'asc', after: null, limit: TRANSACTIONS } as const;
    expect((await cardTransactions.declinedOn(kysely, PROGRAM, 'fa-7', all)).map((row) => row.token)).toEqual(expected);
    expect((await cardTransactions.declinedOn(kysely, PROGRAM, 'fa-7', transactionToken(1_227))).map((row) => row.token)).toEqual([transactionToken(1_227)]);
    // Approved, or declined on another account: not one of the account's declines.
    for (const i of [1_237, 1_230]) expect(await cardTransactions.declinedOn(kysely, PROGRAM, 'fa-7', transactionToken(i))).toEqual([]);
    const plan = await pagePlan(kysely, (watched) => cardTransactions.declinedOn(watched, PROGRAM, 'fa-7', all));
    if (engine === 'sqlite') {
      expect(plan).toEqual([expect.stringMatching(/^SEARCH card_transactions USING INDEX card_transactions_declined_by_financial_account \(program_id=\? AND financial_account_token=\?\)$/)]);
    } else {
      const text = plan.join('\n');
      expect(text).toMatch(/Index Scan (using|on) card_transactions_declined_by_financial_account/);
      expect(text).not.toMatch(/Seq Scan/);
    }
  });
});
