/**
 * The money resources answer exactly the SDK 0.119 types (node_modules/lithic/resources): for each
 * resource, its shape copied from the type (testing/money-shapes.ts: keys, optional ones, JSON
 * types, nullability, enums; testing/sdk-shapes.unit.test.ts checks the copies against the SDK),
 * checked against the answer of every step that makes or changes one: creation in each variant,
 * every action, a clock move, retrieve and list.
 */
import Lithic from 'lithic';
import { beforeAll, expect } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { acceptedAccountToken, US_ADDRESS } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, manualBankAccount, newAccount } from '../testing/money.js';
import {
  BOOK_TRANSFER,
  EXTERNAL_BANK_ACCOUNT,
  EXTERNAL_PAYMENT,
  FINANCIAL_ACCOUNT,
  FINANCIAL_ACCOUNT_BALANCE,
  FINANCIAL_TRANSACTION,
  MANAGEMENT_OPERATION,
  PROGRAM_BALANCE,
} from '../testing/money-shapes.js';
import { describeShapeSteps, type Steps } from '../testing/shape-steps.js';
import type { Shape } from '../testing/shapes.js';

describeWithDb('money resources answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });

  const now = async () => (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
  const today = async () => (await now()).slice(0, 10);
  const daysFromToday = async (days: number) => new Date(Date.parse(await now()) + days * MS_PER_DAY).toISOString().slice(0, 10);
  const moveClockDays = async (days: number) => client.post('/v1/simulate/clock', { body: { now: new Date(Date.parse(await now()) + days * MS_PER_DAY).toISOString() } });
  const funded = async (cents: number) => {
    const account = await newAccount(client, 'shapes');
    if (cents > 0) await fund(client, account, cents);
    return account;
  };
  const payment = async (account: string, payment_type: 'DEPOSIT' | 'WITHDRAWAL', extra: Partial<Lithic.ExternalPaymentCreateParams> = {}) =>
    client.externalPayments.create({ amount: 100, category: 'EXTERNAL_ACH', effective_date: await today(), financial_account_token: account, payment_type, ...extra });
  const operation = async (account: string, extra: Partial<Lithic.ManagementOperationCreateParams> = {}) =>
    client.managementOperations.create({
      amount: 100,
      category: 'MANAGEMENT_FEE',
      direction: 'DEBIT',
      effective_date: await today(),
      event_type: 'LATE_PAYMENT',
      financial_account_token: account,
      ...extra,
    });
  const bankAccount = (body: Record<string, unknown>) => client.externalBankAccounts.create(body as never) as Promise<Lithic.ExternalBankAccountCreateResponse>;
  /** A funding account (with enough for the deposits) and a MICRO_DEPOSIT bank account with the amounts it was sent. */
  async function microDepositAccount() {
    const funding = await funded(1_000);
    const eba = await bankAccount({ ...manualBankAccount(funding), verification_method: 'MICRO_DEPOSIT' });
    const transaction = (await client.financialAccounts.financialTransactions.list(funding)).data.find((item) => item.token === eba.token);
    const amounts = (transaction?.events ?? []).filter((event) => (event.type as string) === 'MICRO_DEPOSIT').map((event) => -(event.amount ?? 0));
    return { funding, eba, amounts };
  }

  const TABLE: Array<{ resource: string; shape: Shape; steps: Steps }> = [
    {
      resource: 'financial account',
      shape: FINANCIAL_ACCOUNT,
      steps: {
        'the program’s own, listed': async () => (await client.financialAccounts.list()).data,
        create: async () => [await client.financialAccounts.create({ nickname: 'shapes', type: 'OPERATING' })],
        'create for an account, for the benefit of another': async () => [
          await client.financialAccounts.create({ nickname: 'fbo', type: 'OPERATING', account_token: await acceptedAccountToken(client), is_for_benefit_of: true }),
        ],
        retrieve: async () => [await client.financialAccounts.retrieve(await funded(0))],
        PATCH: async () => [await client.financialAccounts.update(await funded(0), { nickname: 'renamed' })],
        'update_status SUSPENDED, OPEN, CLOSED': async () => {
          const account = await funded(0);
          return [
            await client.financialAccounts.updateStatus(account, { status: 'SUSPENDED', substatus: 'BANK_REQUEST' }),
            await client.financialAccounts.updateStatus(account, { status: 'OPEN', substatus: null }),
            await client.financialAccounts.updateStatus(account, { status: 'CLOSED', substatus: 'END_USER_REQUEST' }),
          ];
        },
        'list with page_size': async () => (await client.financialAccounts.list({ page_size: 3 } as never)).data,
      },
    },
    {
      resource: 'financial account balance',
      shape: FINANCIAL_ACCOUNT_BALANCE,
      steps: {
        'untouched account': async () => (await client.financialAccounts.balances.list(await funded(0))).data,
        'after a hold': async () => {
          const account = await funded(500);
          await payment(account, 'WITHDRAWAL');
          return (await client.financialAccounts.balances.list(account)).data;
        },
        'as of balance_date and after an event': async () => {
          const account = await funded(500);
          const held = await payment(account, 'WITHDRAWAL');
          const at = (await client.financialAccounts.balances.list(account, { balance_date: await now() })).data;
          const after = (await client.financialAccounts.balances.list(account, { last_transaction_event_token: held.events?.[0]?.token as string })).data;
          return [...at, ...after];
        },
      },
    },
    {
      resource: 'program balance',
      shape: PROGRAM_BALANCE,
      steps: {
        'every account': async () => (await client.balances.list()).data,
        'filtered, as of a date': async () => (await client.balances.list({ financial_account_type: 'OPERATING', balance_date: await now() })).data,
      },
    },
    {
      resource: 'financial transaction',
      shape: FINANCIAL_TRANSACTION,
      steps: {
        'every kind of movement, declines and micro-deposits': async () => {
          const { funding } = await microDepositAccount();
          await fund(client, funding, 1_000);
          const other = await funded(0);
          const deposit = await payment(funding, 'DEPOSIT', { category: 'EXTERNAL_WIRE', progress_to: 'RELEASED' });
          await client.externalPayments.reverse(deposit.token, { effective_date: await today() });
          await payment(funding, 'WITHDRAWAL', { category: 'EXTERNAL_CHECK' });
          await payment(funding, 'WITHDRAWAL', { amount: 1_000_000 });
          const transfer = await bookTransfer(client, funding, other, 100);
          await client.bookTransfers.reverse(transfer.token, {});
          await bookTransfer(client, funding, other, 1_000_000);
          await operation(funding, { amount: 1_000_000 });
          const listed = (await client.financialAccounts.financialTransactions.list(funding)).data;
          expect(listed.length).toBeGreaterThanOrEqual(8);
          return [...listed, await client.financialAccounts.financialTransactions.retrieve(funding, transfer.token)];
        },
      },
    },
    {
      resource: 'external bank account',
      shape: EXTERNAL_BANK_ACCOUNT,
      steps: {
        'create with every optional field': async () => [
          await bankAccount({
            ...manualBankAccount(await funded(0)),
            account_token: await acceptedAccountToken(client),
            address: { ...US_ADDRESS, address2: 'Apt 1' },
            company_id: 'c-1',
            dob: '1990-05-17',
            doing_business_as: 'Ada Co',
            name: 'Savings',
            user_defined_id: 'u-1',
          }),
        ],
        'create by each method': async () => {
          const funding = await funded(0);
          const created = [];
          for (const verification_method of ['MANUAL', 'MICRO_DEPOSIT', 'PRENOTE', 'EXTERNALLY_VERIFIED', 'UNVERIFIED']) {
            created.push(await bankAccount({ ...manualBankAccount(funding), verification_method }));
          }
          created.push(await bankAccount({ owner: 'Ada', owner_type: 'INDIVIDUAL', processor_token: `processor-${Date.now()}`, verification_method: 'PLAID' }));
          return created;
        },
        'micro-deposits: wrong, failed, retried, verified': async () => {
          const { eba, amounts } = await microDepositAccount();
          const wrong = amounts.map((amount) => (amount % 99) + 1);
          const answers = [];
          for (let attempt = 0; attempt < 3; attempt += 1) answers.push(await client.externalBankAccounts.microDeposits.create(eba.token, { micro_deposits: wrong }));
          expect(answers.at(-1)?.verification_state).toBe('FAILED_VERIFICATION');
          answers.push(await client.externalBankAccounts.retryMicroDeposits(eba.token, {}));
          return answers;
        },
        'prenote: retried, enabled by a clock move': async () => {
          const eba = await bankAccount({ ...manualBankAccount(await funded(0)), verification_method: 'PRENOTE' });
          const retried = await client.externalBankAccounts.retryPrenote(eba.token);
          await moveClockDays(4);
          const enabled = await client.externalBankAccounts.retrieve(eba.token);
          expect(enabled.verification_state).toBe('ENABLED');
          return [retried, enabled];
        },
        'PATCH, list': async () => {
          const eba = await bankAccount(manualBankAccount(await funded(0)));
          const updated = await client.externalBankAccounts.update(eba.token, { name: 'n', owner_type: 'BUSINESS', type: 'SAVINGS', address: US_ADDRESS });
          return [updated, ...(await client.externalBankAccounts.list({ page_size: 100 })).data];
        },
      },
    },
    {
      resource: 'external payment',
      shape: EXTERNAL_PAYMENT,
      steps: {
        'create, settle, release, reverse': async () => {
          const account = await funded(0);
          const created = await payment(account, 'DEPOSIT', { memo: 'm', user_defined_id: 'u-1' });
          return [
            created,
            await client.externalPayments.settle(created.token, { effective_date: await today() }),
            await client.externalPayments.release(created.token, { effective_date: await today(), memo: 'r' }),
            await client.externalPayments.reverse(created.token, { effective_date: await today() }),
          ];
        },
        'withdrawal held, canceled; declined; progress_to': async () => {
          const account = await funded(500);
          const held = await payment(account, 'WITHDRAWAL', { category: 'EXTERNAL_TRANSFER' });
          return [
            held,
            await client.externalPayments.cancel(held.token, { effective_date: await today() }),
            await payment(account, 'WITHDRAWAL', { amount: 1_000_000 }),
            await payment(account, 'WITHDRAWAL', { category: 'EXTERNAL_CHECK', progress_to: 'SETTLED' }),
            await payment(account, 'DEPOSIT', { category: 'EXTERNAL_WIRE', progress_to: 'RELEASED' }),
          ];
        },
        'retrieve, list': async () => {
          const created = await payment(await funded(0), 'DEPOSIT');
          return [await client.externalPayments.retrieve(created.token), ...(await client.externalPayments.list({ page_size: 100 })).data];
        },
      },
    },
    {
      resource: 'book transfer',
      shape: BOOK_TRANSFER,
      steps: {
        'create, reverse; declined': async () => {
          const [from, to] = [await funded(500), await funded(0)];
          const created = await bookTransfer(client, from, to, 100, { memo: 'm', external_id: 'x-1' });
          return [created, await client.bookTransfers.reverse(created.token, { memo: 'back' }), await bookTransfer(client, from, to, 1_000_000)];
        },
        'held in suspense for a CLOSED account': async () => {
          const closed = await funded(0);
          await client.financialAccounts.updateStatus(closed, { status: 'CLOSED', substatus: null });
          return [await bookTransfer(client, await funded(100), closed, 100, { on_closed_account: 'USE_SUSPENSE' })];
        },
        'retrieve, list': async () => {
          const created = await bookTransfer(client, await funded(100), await funded(0), 100);
          return [await client.bookTransfers.retrieve(created.token), ...(await client.bookTransfers.list({ page_size: 100 })).data];
        },
      },
    },
    {
      resource: 'management operation',
      shape: MANAGEMENT_OPERATION,
      steps: {
        'create settled, reversed; declined': async () => {
          const account = await funded(500);
          const created = await operation(account, { subtype: 's', user_defined_id: 'u-1', memo: 'm' });
          return [created, await client.managementOperations.reverse(created.token, { effective_date: await today() }), await operation(account, { amount: 1_000_000 })];
        },
        'pending, then settled and declined by a clock move; a pending one withdrawn': async () => {
          const account = await funded(150);
          const credit = await operation(account, { direction: 'CREDIT', event_type: 'CASH_BACK', effective_date: await daysFromToday(2) });
          const debit = await operation(account, { amount: 1_000, effective_date: await daysFromToday(1) });
          const withdrawn = await operation(account, { effective_date: await daysFromToday(3) });
          const reversed = await client.managementOperations.reverse(withdrawn.token, { effective_date: await today() });
          await moveClockDays(3);
          const [settled, declined] = [await client.managementOperations.retrieve(credit.token), await client.managementOperations.retrieve(debit.token)];
          expect([settled.status, declined.status]).toEqual(['SETTLED', 'DECLINED']);
          return [credit, debit, reversed, settled, declined];
        },
        list: async () => (await client.managementOperations.list({ page_size: 100 })).data,
      },
    },
  ];

  describeShapeSteps(TABLE);
});
