/**
 * A create (book transfer, external payment, management operation) whose request read the program
 * clock before a move, and that commits after a movement stamped by the moved clock on its
 * account, is stamped when that movement was, not before it: the account's history up to then
 * stays as it was read.
 */
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import * as bookTransfers from '../book_transfers/service.js';
import * as externalBankAccounts from '../external_bank_accounts/service.js';
import * as externalPayments from '../external_payments/service.js';
import * as managementOperations from '../management_operations/service.js';
import type { Tx } from '../db/database.js';
import type { ProgramScope } from '../programs/scope.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, newAccount } from '../testing/money.js';
import { authorize, cardOnOwnAccount, setRequireFunds, type Card } from '../testing/transactions.js';
import * as transactions from '../transactions/service.js';
import { authRulesEvaluator } from '../auth_rules/evaluator.js';

/**
 * The straggler's clock (a scope read before the move), then a move of `days` on the program's
 * clock and a funding of `account` at the moved clock; with the account's balance as its history
 * reads it just before that funding.
 */
async function movedAndFunded(program: { programId: string; client: Lithic }, account: string, days: number) {
  const before: ProgramScope = { programId: program.programId, clockOffsetMs: 0, nowMs: Date.now() };
  await program.client.post('/v1/simulate/clock', { body: { now: new Date(Date.now() + days * MS_PER_DAY).toISOString() } });
  await fund(program.client, account, 1_000);
  const [funded] = (await program.client.financialAccounts.balances.list(account)).data;
  const fundedMs = Date.parse(funded?.updated as string);
  const justBefore = { balance_date: new Date(fundedMs - 1).toISOString() };
  const historyBefore = (await program.client.financialAccounts.balances.list(account, justBefore)).data[0];
  return { before, fundedMs, justBefore, historyBefore, funded };
}

describeWithDb('a create by a request that read the clock before a move', () => {
  const context = useTestServer();

  type Create = (scope: ProgramScope, account: string, other: string, today: string) => (tx: Tx) => Promise<{ token: string; created: string }>;
  const creates: Record<'book_transfer' | 'external_payment' | 'management_operation', Create> = {
    book_transfer: (scope, account, other) => (tx) =>
      bookTransfers.create(context.server.server.db, tx, scope, { amount: 20, category: 'TRANSFER', type: 'TRANSFER', subtype: 'x', from_financial_account_token: account, to_financial_account_token: other }),
    external_payment: (scope, account, _other, today) => (tx) =>
      externalPayments.create(context.server.server.db, tx, scope, { amount: 20, category: 'EXTERNAL_ACH', effective_date: today, financial_account_token: account, payment_type: 'WITHDRAWAL' }),
    management_operation: (scope, account, _other, today) => (tx) =>
      managementOperations.create(context.server.server.db, tx, scope, { amount: 20, category: 'MANAGEMENT_FEE', direction: 'DEBIT', effective_date: today, event_type: 'CASH_BACK', financial_account_token: account }),
  };

  it.each(Object.keys(creates) as Array<keyof typeof creates>)('a %s is stamped no earlier than its account’s last movement', async (resource) => {
    const program = await context.server.newProgram(resource);
    const { client } = program;
    const [account, other] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
    // The straggler's clock: the one its request read before the move.
    const { before, fundedMs, justBefore } = await movedAndFunded(program, account, 10);
    const { db } = context.server.server;
    const straggler = await db.transaction(creates[resource](before, account, other, new Date(before.nowMs).toISOString().slice(0, 10)));
    expect(Date.parse(straggler.created)).toBeGreaterThanOrEqual(fundedMs);
    const [beforeFunding] = (await client.financialAccounts.balances.list(account, justBefore)).data;
    expect(beforeFunding).toMatchObject({ available_amount: 0 });
    const [now] = (await client.financialAccounts.balances.list(account)).data;
    expect(now).toMatchObject({ available_amount: 980, last_transaction_token: straggler.token });
    expect(Date.parse(now?.updated as string)).toBeGreaterThanOrEqual(fundedMs);
  });
});

describeWithDb('an action by a request that read the clock before a move', () => {
  const context = useTestServer();
  const db = () => context.server.server.db;

  type Act = (scope: ProgramScope, token: string, today: string) => (tx: Tx) => Promise<unknown>;
  /** Each resource: made (before the move) on `account`, and its action that moves money. */
  const actions: Record<string, { make: (client: Lithic, account: string, other: string, today: string) => Promise<string>; act: Act }> = {
    'book transfer reverse': {
      make: async (client, account, other) => (await bookTransfer(client, account, other, 20)).token,
      act: (scope, token) => (tx) => bookTransfers.reverse(db(), tx, scope, token, undefined),
    },
    'external payment release': {
      make: async (client, account, _other, today) =>
        (await client.externalPayments.create({ amount: 20, category: 'EXTERNAL_ACH', effective_date: today, financial_account_token: account, payment_type: 'WITHDRAWAL' })).token,
      act: (scope, token, today) => (tx) => externalPayments.act(db(), tx, scope, token, 'release', { effective_date: today }),
    },
    'bank account retry_micro_deposits': {
      make: async (client, account) =>
        (
          await client.externalBankAccounts.create({
            owner: 'Jo',
            owner_type: 'INDIVIDUAL',
            account_number: '123456789',
            country: 'USA',
            currency: 'USD',
            routing_number: '011000015',
            type: 'CHECKING',
            verification_method: 'MICRO_DEPOSIT',
            financial_account_token: account,
          })
        ).token,
      act: (scope, token) => (tx) =>
        externalBankAccounts.retry(db(), tx, scope, context.server.server.app.deps.secrets, token, 'MICRO_DEPOSIT', {}),
    },
    'management operation reverse': {
      make: async (client, account, _other, today) =>
        (await client.managementOperations.create({ amount: 20, category: 'MANAGEMENT_FEE', direction: 'DEBIT', effective_date: today, event_type: 'CASH_BACK', financial_account_token: account })).token,
      act: (scope, token, today) => (tx) => managementOperations.reverse(db(), tx, scope, token, { effective_date: today }),
    },
  };

  it.each(Object.keys(actions))('a %s is stamped no earlier than its account’s last movement', async (name) => {
    const { make, act } = actions[name] as (typeof actions)[string];
    const program = await context.server.newProgram(name);
    const { client } = program;
    const [account, other] = [await newAccount(client, 'a'), await newAccount(client, 'b')];
    await fund(client, account, 100);
    const today = new Date(Date.now()).toISOString().slice(0, 10);
    const token = await make(client, account, other, today);
    const { before, fundedMs, justBefore, historyBefore } = await movedAndFunded(program, account, 10);
    await db().transaction(act(before, token, today));
    const acted = await client.financialAccounts.financialTransactions.retrieve(account, token);
    expect(Date.parse(acted.updated)).toBeGreaterThanOrEqual(fundedMs);
    expect((await client.financialAccounts.balances.list(account, justBefore)).data[0]).toEqual(historyBefore);
    expect((await client.financialAccounts.balances.list(account)).data[0]).toMatchObject({ last_transaction_token: token });
  });
});

/**
 * Card messages (programs/scope.ts `actingOn` over the ISSUING balance they lock): a card's
 * transaction is created, decided (a decline too: on the balance and spend windows as of then) and
 * moved no earlier than its account's last movement.
 */
describeWithDb('a card message by a request that read the clock before a move', () => {
  const context = useTestServer();
  const op = (scope: ProgramScope, tx: Tx) => ({ db: context.server.server.db, tx, scope });
  const deps = () => ({ secrets: context.server.server.app.deps.secrets, evaluator: authRulesEvaluator });

  type Open = (scope: ProgramScope, pan: string) => (tx: Tx) => Promise<{ token: string }>;
  const opens: Record<string, { requireFunds: boolean; moves: boolean; open: Open }> = {
    authorization: { requireFunds: false, moves: true, open: (scope, pan) => (tx) => transactions.authorize(op(scope, tx), deps(), { amount: 20, descriptor: 'SHOP', pan }) },
    'authorization deciding on funds': { requireFunds: true, moves: true, open: (scope, pan) => (tx) => transactions.authorize(op(scope, tx), deps(), { amount: 20, descriptor: 'SHOP', pan }) },
    'declined authorization': { requireFunds: true, moves: false, open: (scope, pan) => (tx) => transactions.authorize(op(scope, tx), deps(), { amount: 5_000, descriptor: 'SHOP', pan }) },
    return: { requireFunds: false, moves: true, open: (scope, pan) => (tx) => transactions.simulateReturn(op(scope, tx), deps().secrets, { amount: 20, descriptor: 'SHOP', pan }) },
    'credit authorization advice': {
      requireFunds: false,
      moves: true,
      open: (scope, pan) => (tx) => transactions.creditAuthorizationAdvice(op(scope, tx), deps().secrets, { amount: 20, descriptor: 'SHOP', pan }),
    },
  };

  it.each(Object.keys(opens))('a new %s is stamped no earlier than its account’s last movement', async (name) => {
    const { requireFunds, moves, open } = opens[name] as (typeof opens)[string];
    const program = await context.server.newProgram(name);
    const { client } = program;
    await setRequireFunds(client, requireFunds);
    const card = await cardOnOwnAccount(client);
    const { before, fundedMs, justBefore, historyBefore, funded } = await movedAndFunded(program, card.funding.token, 10);
    const { token } = await context.server.server.db.transaction(open(before, card.pan));
    const opened = await client.transactions.retrieve(token);
    expect(opened.status === 'DECLINED').toBe(!moves);
    expect(Date.parse(opened.created)).toBeGreaterThanOrEqual(fundedMs);
    expect((await client.financialAccounts.balances.list(card.funding.token, justBefore)).data[0]).toEqual(historyBefore);
    const [now] = (await client.financialAccounts.balances.list(card.funding.token)).data;
    expect(now?.last_transaction_token).toBe(moves ? token : funded?.last_transaction_token);
  });

  type Act = (scope: ProgramScope, token: string) => (tx: Tx) => Promise<unknown>;
  /** Each message: the transaction it acts on (made before the move), and the message. */
  const messages: Record<string, { make: (client: Lithic, card: Card) => Promise<string>; act: Act }> = {
    clearing: { make: (client, card) => authorize(client, card, 20), act: (scope, token) => (tx) => transactions.clearing(op(scope, tx), { token }) },
    void: { make: (client, card) => authorize(client, card, 20), act: (scope, token) => (tx) => transactions.voidAuthorization(op(scope, tx), { token }) },
    'changed amount (authorization advice)': { make: (client, card) => authorize(client, card, 20), act: (scope, token) => (tx) => transactions.authorizationAdvice(op(scope, tx), { token, amount: 30 }) },
    'return reversal': {
      make: async (client, card) => (await client.transactions.simulateReturn({ amount: 20, descriptor: 'SHOP', pan: card.pan })).token as string,
      act: (scope, token) => (tx) => transactions.returnReversal(op(scope, tx), { token }),
    },
  };

  it.each(Object.keys(messages))('a %s is stamped no earlier than its account’s last movement', async (name) => {
    const { make, act } = messages[name] as (typeof messages)[string];
    const program = await context.server.newProgram(name);
    const { client } = program;
    const card = await cardOnOwnAccount(client);
    const token = await make(client, card);
    // Two days: the authorizations are still PENDING (they expire after seven).
    const { before, fundedMs, justBefore, historyBefore } = await movedAndFunded(program, card.funding.token, 2);
    await context.server.server.db.transaction(act(before, token));
    const acted = await client.transactions.retrieve(token);
    expect(Date.parse(acted.updated)).toBeGreaterThanOrEqual(fundedMs);
    expect(Date.parse(acted.events?.at(-1)?.created as string)).toBeGreaterThanOrEqual(fundedMs);
    expect((await client.financialAccounts.balances.list(card.funding.token, justBefore)).data[0]).toEqual(historyBefore);
    expect((await client.financialAccounts.balances.list(card.funding.token)).data[0]).toMatchObject({ last_transaction_token: token });
  });
});
