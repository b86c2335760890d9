/**
 * The reads that build one answer from several statements (a row and its events, a card or account
 * and its Auth Rule tokens, a limit and its spend, a balance and the entries after a date, an
 * account's journals and their events) run them in one `db.snapshot`: a write committing between two
 * of them is in the whole answer or nowhere in it. Each case reads through `readingThrough`, which
 * commits the write right after the first statement whose rows name the resource; without the
 * snapshot the answer mixes the state before it with the state after it.
 *
 * PostgreSQL only: on SQLite the statement still holds the one connection when its rows come back,
 * so the write cannot commit there (and a snapshot holds that connection to its end).
 */
import { expect, it } from 'vitest';
import * as accounts from '../accounts/service.js';
import * as bookTransfers from '../book_transfers/service.js';
import * as cards from '../cards/service.js';
import { spendLimits as cardSpendLimits } from '../cards/spend-limits.js';
import * as externalPayments from '../external_payments/service.js';
import { accountBalances } from '../financial_accounts/balances.js';
import * as financialTransactions from '../financial_accounts/financial_transactions.js';
import * as managementOperations from '../management_operations/service.js';
import type { ProgramScope } from '../programs/scope.js';
import * as transactions from '../transactions/service.js';
import { createRule, velocityLimit, type RuleScope } from '../testing/auth_rules.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { afterRowsNaming, readingThrough } from '../testing/interleave.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount } from '../testing/transactions.js';
import type { Db } from './database.js';

describeWithDb('reads of several statements', () => {
  const context = useTestServer();
  const db = () => context.server.server.db;
  const client = () => context.program.client;

  async function scope(): Promise<ProgramScope> {
    const now = (await client().get<unknown, { now: string }>('/v1/simulate/clock')).now;
    return { programId: context.program.programId, clockOffsetMs: 0, nowMs: Date.parse(now) };
  }

  /**
   * Reads with `read` while `write` commits right after its first statement naming `token`: the
   * answer is the one `read` gives before the write (never a mix), and the write did commit.
   */
  async function readAcross<T>(token: string, read: (db: Db, scope: ProgramScope) => Promise<T>, write: () => Promise<unknown>): Promise<void> {
    const readScope = await scope();
    const before = await read(db(), readScope);
    const hook = afterRowsNaming(token, write);
    const answer = await read(readingThrough(db(), hook), readScope);
    expect(hook.ran).toBe(true);
    expect(answer).toEqual(before);
    expect(await read(db(), readScope)).not.toEqual(before);
  }

  const today = async () => new Date((await scope()).nowMs).toISOString().slice(0, 10);
  const secrets = () => context.server.server.app.deps.secrets;

  /** A PATCH of the card or account, then a new Auth Rule on it: its old row never comes with the new rule. */
  const patchThenRule = (patch: () => Promise<unknown>, target: RuleScope) => async () => {
    await patch();
    await createRule(client(), velocityLimit({ limit_count: 100 }, target));
  };

  /** What a case reads, naming `token` in its first statement's rows, and the write that comes between. */
  interface Case {
    token: string;
    read: (db: Db, scope: ProgramScope) => Promise<unknown>;
    write: () => Promise<unknown>;
  }

  const authorization = async () => {
    const card = await cardOnOwnAccount(client());
    return { card, token: await authorize(client(), card, 500) };
  };
  const payment = async () => {
    const effective_date = await today();
    const account = await newAccount(client());
    const created = await client().externalPayments.create({ amount: 900, category: 'EXTERNAL_WIRE', effective_date, financial_account_token: account, payment_type: 'DEPOSIT' });
    return { account, token: created.token, write: () => client().externalPayments.settle(created.token, { effective_date }) };
  };
  const transfer = async () => {
    const [from, to] = [await newAccount(client()), await newAccount(client())];
    await fund(client(), from, 10_000);
    const created = await bookTransfer(client(), from, to, 300);
    return { account: from, token: created.token, write: () => client().bookTransfers.reverse(created.token, {}) };
  };
  const operation = async () => {
    const effective_date = await today();
    const account = await newAccount(client());
    const created = await client().managementOperations.create({
      amount: 200,
      category: 'MANAGEMENT_ADJUSTMENT',
      direction: 'CREDIT',
      effective_date,
      event_type: 'PROVISIONAL_CREDIT',
      financial_account_token: account,
    });
    return { account, token: created.token, write: () => client().managementOperations.reverse(created.token, { effective_date }) };
  };
  const limitedCard = () => cardOnOwnAccount(client(), { spend_limit: 10_000, spend_limit_duration: 'FOREVER' });
  const fundedAccount = async () => {
    const account = await newAccount(client());
    await fund(client(), account, 1_000);
    return account;
  };

  const cases: Array<[string, () => Promise<Case>]> = [
    ['GET /v1/transactions/{token}: the row and its events', async () => {
      const { token } = await authorization();
      return { token, read: (db, s) => transactions.get(db, s, token), write: () => client().transactions.simulateClearing({ token, amount: 500 }) };
    }],
    ['GET /v1/transactions: the rows and their events', async () => {
      const { card, token } = await authorization();
      return { token, read: (db, s) => transactions.list(db, s, { card_token: card.token }), write: () => client().transactions.simulateClearing({ token, amount: 500 }) };
    }],
    ['GET /v1/external_payments/{token}: the row and its events', async () => {
      const { token, write } = await payment();
      return { token, read: (db, s) => externalPayments.get(db, s, token), write };
    }],
    ['GET /v1/external_payments: the rows and their events', async () => {
      const { account, token, write } = await payment();
      return { token, read: (db, s) => externalPayments.list(db, s, { financial_account_token: account }), write };
    }],
    ['GET /v1/book_transfers/{token}: the row and its events', async () => {
      const { token, write } = await transfer();
      return { token, read: (db, s) => bookTransfers.get(db, s, token), write };
    }],
    ['GET /v1/book_transfers: the rows and their events', async () => {
      const { account, token, write } = await transfer();
      return { token, read: (db, s) => bookTransfers.list(db, s, { financial_account_token: account }), write };
    }],
    ['GET /v1/management_operations/{token}: the row and its events', async () => {
      const { token, write } = await operation();
      return { token, read: (db, s) => managementOperations.get(db, s, token), write };
    }],
    ['GET /v1/management_operations: the rows and their events', async () => {
      const { account, token, write } = await operation();
      return { token, read: (db, s) => managementOperations.list(db, s, { financial_account_token: account }), write };
    }],
    ['GET /v1/cards/{token}: the card and its Auth Rule tokens', async () => {
      const { token } = await limitedCard();
      return { token, read: (db, s) => cards.retrieve(db, s, secrets(), token), write: patchThenRule(() => client().cards.update(token, { memo: 'patched' }), { card_tokens: [token] }) };
    }],
    ['GET /v1/cards: the cards and their Auth Rule tokens', async () => {
      const card = await limitedCard();
      const { token } = card;
      return {
        token,
        read: (db, s) => cards.list(db, s, { account_token: card.account_token }),
        write: patchThenRule(() => client().cards.update(token, { memo: 'patched' }), { card_tokens: [token] }),
      };
    }],
    ['GET /v1/cards/{token}/spend_limits: the limit and the spend', async () => {
      const card = await limitedCard();
      const { token } = card;
      return {
        token,
        read: (db, s) => cardSpendLimits(db, s, token),
        write: async () => {
          await client().cards.update(token, { spend_limit: 20_000 });
          await authorize(client(), card, 600);
        },
      };
    }],
    ['GET /v1/accounts/{token}: the account and its Auth Rule tokens', async () => {
      const token = (await limitedCard()).account_token;
      return { token, read: (db, s) => accounts.retrieve(db, s, token), write: patchThenRule(() => client().accounts.update(token, { daily_spend_limit: 40_000 }), { account_tokens: [token] }) };
    }],
    ['GET /v1/accounts: the accounts and their Auth Rule tokens', async () => {
      const token = (await limitedCard()).account_token; // the newest account: the first of a page of 1
      return {
        token,
        read: (db, s) => accounts.list(db, s, {}, { page_size: 1 }),
        write: patchThenRule(() => client().accounts.update(token, { daily_spend_limit: 40_000 }), { account_tokens: [token] }),
      };
    }],
    ['GET /v1/accounts/{token}/spend_limits: the limits and the spend', async () => {
      const card = await limitedCard();
      const token = card.account_token;
      return {
        token,
        read: (db, s) => accounts.spendLimits(db, s, token),
        write: async () => {
          await client().accounts.update(token, { daily_spend_limit: 40_000 });
          await authorize(client(), card, 800);
        },
      };
    }],
    ['GET /v1/financial_accounts/{token}/balances as of a date: the account and its balance then', async () => {
      const token = await fundedAccount();
      const { nowMs } = await scope();
      return { token, read: (db, s) => accountBalances(db, s, token, { balance_date: new Date(nowMs + 60_000).toISOString() }), write: () => fund(client(), token, 2_000) };
    }],
    ['GET /v1/financial_accounts/{token}/financial_transactions: the journals, their events and card transactions', async () => {
      const token = await fundedAccount();
      return { token, read: (db, s) => financialTransactions.list(db, s, token, {}), write: () => fund(client(), token, 3_000) };
    }],
  ];

  it.skipIf(engine !== 'postgres').each(cases)('%s are read in one state', async (_read, setUp) => {
    const { token, read, write } = await setUp();
    await readAcross(token, read, write);
  });
});
