/**
 * The money resources answer exactly the SDK 0.119 types (node_modules/lithic/resources): for each
 * resource, its shape copied from the type (keys, optional ones, JSON types, nullability, enums),
 * checked against the answer of every step that makes or changes one: creation in each variant,
 * every action, a clock move, retrieve and list. Where the reference chose otherwise, the shape
 * says so (a comment on the line).
 */
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { acceptedAccountToken, US_ADDRESS } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { bookTransfer, fund, manualBankAccount, newAccount } from '../testing/money.js';
import { arrayOf, nullable, object, oneOf, shapeProblems, type Shape } from '../testing/shapes.js';

const BALANCE_TYPES = oneOf('ISSUING', 'OPERATING', 'RESERVE', 'SECURITY');
const RESULT = oneOf('APPROVED', 'DECLINED');
const FAMILY = oneOf('CARD', 'PAYMENT', 'TRANSFER', 'INTERNAL', 'EXTERNAL_PAYMENT', 'MANAGEMENT_OPERATION');
const TRANSACTION_STATUS = oneOf('PENDING', 'SETTLED', 'DECLINED', 'REVERSED', 'CANCELED');
const TRANSACTION_SERIES = nullable(object({ related_transaction_event_token: nullable('uuid'), related_transaction_token: nullable('uuid'), type: 'string' }));
const EXTERNAL_RESOURCE = nullable(
  object({ external_resource_token: 'string', external_resource_type: oneOf('STATEMENT', 'COLLECTION', 'DISPUTE', 'UNKNOWN'), 'external_resource_sub_token?': 'string' }),
);

/** FinancialAccount (financial-accounts.d.ts). */
const FINANCIAL_ACCOUNT: Shape = {
  token: 'uuid',
  account_token: nullable('uuid'),
  created: 'date-time',
  credit_configuration: nullable(
    object({
      charged_off_reason: nullable(oneOf('DELINQUENT', 'FRAUD')),
      credit_limit: nullable('integer'),
      credit_product_token: nullable('string'),
      external_bank_account_token: nullable('uuid'),
      financial_account_state: nullable(oneOf('PENDING', 'CURRENT', 'DELINQUENT', 'CHARGED_OFF')),
      is_spend_blocked: 'boolean',
      tier: nullable('string'),
      'auto_collection_configuration?': object({ auto_collection_enabled: 'boolean' }),
    }),
  ),
  is_for_benefit_of: 'boolean',
  nickname: nullable('string'),
  status: oneOf('OPEN', 'CLOSED', 'SUSPENDED', 'PENDING'),
  type: oneOf(
    'ISSUING', 'RESERVE', 'OPERATING', 'CHARGED_OFF_FEES', 'CHARGED_OFF_INTEREST', 'CHARGED_OFF_PRINCIPAL',
    'SECURITY', 'PROGRAM_RECEIVABLES', 'COLLECTION', 'PROGRAM_BANK_ACCOUNTS_PAYABLE',
  ),
  updated: 'date-time',
  'account_number?': nullable('string'),
  'routing_number?': nullable('string'),
  'substatus?': nullable(oneOf('CHARGED_OFF_DELINQUENT', 'CHARGED_OFF_FRAUD', 'END_USER_REQUEST', 'BANK_REQUEST', 'DELINQUENT')),
};

const BALANCE_AMOUNTS: Shape = {
  available_amount: 'integer',
  created: 'date-time',
  currency: 'string',
  last_transaction_event_token: 'string',
  last_transaction_token: 'string',
  pending_amount: 'integer',
  total_amount: 'integer',
  updated: 'date-time',
};
/** BalanceListResponse (financial-accounts/balances.d.ts). */
const FINANCIAL_ACCOUNT_BALANCE: Shape = { token: 'uuid', type: BALANCE_TYPES, ...BALANCE_AMOUNTS };
/** Balance (balances.d.ts). */
const PROGRAM_BALANCE: Shape = { financial_account_token: 'uuid', financial_account_type: BALANCE_TYPES, ...BALANCE_AMOUNTS };

/** FinancialTransaction (financial-accounts.d.ts). */
const FINANCIAL_TRANSACTION: Shape = {
  token: 'uuid',
  category: oneOf('ACH', 'CARD', 'INTERNAL', 'TRANSFER'),
  created: 'date-time',
  currency: 'string',
  descriptor: 'string',
  events: arrayOf(
    object({
      'token?': 'uuid',
      'amount?': 'integer',
      'created?': 'date-time',
      'result?': RESULT,
      'type?': oneOf(
        'ACH_ORIGINATION_CANCELLED', 'ACH_ORIGINATION_INITIATED', 'ACH_ORIGINATION_PROCESSED', 'ACH_ORIGINATION_RELEASED',
        'ACH_ORIGINATION_REJECTED', 'ACH_ORIGINATION_REVIEWED', 'ACH_ORIGINATION_SETTLED', 'ACH_RECEIPT_PROCESSED',
        'ACH_RECEIPT_SETTLED', 'ACH_RETURN_INITIATED', 'ACH_RETURN_PROCESSED', 'ACH_RETURN_REJECTED', 'ACH_RETURN_SETTLED',
        'AUTHORIZATION', 'AUTHORIZATION_ADVICE', 'AUTHORIZATION_EXPIRY', 'AUTHORIZATION_REVERSAL', 'BALANCE_INQUIRY',
        'BILLING_ERROR', 'BILLING_ERROR_REVERSAL', 'CARD_TO_CARD', 'CASH_BACK', 'CASH_BACK_REVERSAL', 'CLEARING', 'COLLECTION',
        'CORRECTION_CREDIT', 'CORRECTION_DEBIT', 'CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE', 'CURRENCY_CONVERSION',
        'CURRENCY_CONVERSION_REVERSAL', 'DISPUTE_WON', 'EXTERNAL_ACH_CANCELED', 'EXTERNAL_ACH_INITIATED', 'EXTERNAL_ACH_RELEASED',
        'EXTERNAL_ACH_REVERSED', 'EXTERNAL_ACH_SETTLED', 'EXTERNAL_CHECK_CANCELED', 'EXTERNAL_CHECK_INITIATED',
        'EXTERNAL_CHECK_RELEASED', 'EXTERNAL_CHECK_REVERSED', 'EXTERNAL_CHECK_SETTLED', 'EXTERNAL_TRANSFER_CANCELED',
        'EXTERNAL_TRANSFER_INITIATED', 'EXTERNAL_TRANSFER_RELEASED', 'EXTERNAL_TRANSFER_REVERSED', 'EXTERNAL_TRANSFER_SETTLED',
        'EXTERNAL_WIRE_CANCELED', 'EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_RELEASED', 'EXTERNAL_WIRE_REVERSED',
        'EXTERNAL_WIRE_SETTLED', 'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION', 'INTEREST', 'INTEREST_REVERSAL',
        'INTERNAL_ADJUSTMENT', 'LATE_PAYMENT', 'LATE_PAYMENT_REVERSAL', 'LOSS_WRITE_OFF', 'PROVISIONAL_CREDIT',
        'PROVISIONAL_CREDIT_REVERSAL', 'SERVICE', 'RETURN', 'RETURN_REVERSAL', 'TRANSFER', 'TRANSFER_INSUFFICIENT_FUNDS',
        'RETURNED_PAYMENT', 'RETURNED_PAYMENT_REVERSAL', 'LITHIC_NETWORK_PAYMENT',
        // Not the SDK's: a sandbox micro-deposit round shows its deposits apart (README).
        'MICRO_DEPOSIT', 'MICRO_DEPOSIT_WITHDRAWAL',
      ),
    }),
  ),
  pending_amount: 'integer',
  result: RESULT,
  settled_amount: 'integer',
  status: oneOf('DECLINED', 'EXPIRED', 'PENDING', 'RETURNED', 'SETTLED', 'VOIDED'),
  updated: 'date-time',
};

/** ExternalBankAccount*Response (external-bank-accounts.d.ts, micro-deposits.d.ts). */
const EXTERNAL_BANK_ACCOUNT: Shape = {
  token: 'uuid',
  country: 'string',
  created: 'date-time',
  currency: 'string',
  last_four: 'string',
  owner: 'string',
  owner_type: oneOf('BUSINESS', 'INDIVIDUAL'),
  routing_number: 'string',
  state: oneOf('ENABLED', 'CLOSED', 'PAUSED'),
  type: oneOf('CHECKING', 'SAVINGS'),
  verification_attempts: 'integer',
  // The request's methods are echoed (reference 06); retry_prenote's response type declares all six.
  verification_method: oneOf('MANUAL', 'MICRO_DEPOSIT', 'PLAID', 'PRENOTE', 'EXTERNALLY_VERIFIED', 'UNVERIFIED'),
  verification_state: oneOf('PENDING', 'ENABLED', 'FAILED_VERIFICATION', 'INSUFFICIENT_FUNDS'),
  // null for the program's own accounts, as the type's comment says.
  'account_token?': nullable('uuid'),
  'address?': object({ address1: 'string', city: 'string', country: 'string', postal_code: 'string', state: 'string', 'address2?': 'string' }),
  'company_id?': 'string',
  'dob?': 'date',
  'doing_business_as?': 'string',
  'financial_account_token?': 'uuid',
  'name?': 'string',
  'user_defined_id?': 'string',
  'verification_failed_reason?': 'string',
};

/** The fields every event of an external payment or a management operation has. */
const DATED_EVENT: Shape = {
  token: 'uuid',
  amount: 'integer',
  created: 'date-time',
  detailed_results: arrayOf(oneOf('APPROVED', 'INSUFFICIENT_FUNDS')),
  effective_date: 'date',
  memo: 'string',
  result: RESULT,
};

const EXTERNAL_PAYMENT_CATEGORIES = ['EXTERNAL_WIRE', 'EXTERNAL_ACH', 'EXTERNAL_CHECK', 'EXTERNAL_TRANSFER'];
/** ExternalPayment (external-payments.d.ts). */
const EXTERNAL_PAYMENT: Shape = {
  token: 'uuid',
  created: 'date-time',
  family: FAMILY,
  status: TRANSACTION_STATUS,
  updated: 'date-time',
  'category?': oneOf(...EXTERNAL_PAYMENT_CATEGORIES),
  'currency?': 'string',
  'events?': arrayOf(
    object({
      ...DATED_EVENT,
      type: oneOf(...EXTERNAL_PAYMENT_CATEGORIES.flatMap((category) => ['INITIATED', 'CANCELED', 'SETTLED', 'REVERSED', 'RELEASED'].map((step) => `${category}_${step}`))),
    }),
  ),
  'financial_account_token?': 'uuid',
  'payment_type?': oneOf('DEPOSIT', 'WITHDRAWAL'),
  'pending_amount?': 'integer',
  'result?': RESULT,
  'settled_amount?': 'integer',
  'user_defined_id?': 'string',
};

const BOOK_TRANSFER_CATEGORY = oneOf('ADJUSTMENT', 'BALANCE_OR_FUNDING', 'DERECOGNITION', 'DISPUTE', 'FEE', 'INTERNAL', 'REWARD', 'PROGRAM_FUNDING', 'TRANSFER');
/** BookTransferResponse (book-transfers.d.ts). */
const BOOK_TRANSFER: Shape = {
  token: 'uuid',
  category: BOOK_TRANSFER_CATEGORY,
  created: 'date-time',
  currency: 'string',
  events: arrayOf(
    object({
      token: 'uuid',
      amount: 'integer',
      created: 'date-time',
      // 0.119 types one string; Lithic answers an array (reference 07).
      detailed_results: arrayOf(oneOf('APPROVED', 'FUNDS_INSUFFICIENT')),
      memo: 'string',
      result: RESULT,
      subtype: 'string',
      type: oneOf(
        'ATM_BALANCE_INQUIRY', 'ATM_WITHDRAWAL', 'ATM_DECLINE', 'INTERNATIONAL_ATM_WITHDRAWAL', 'INACTIVITY', 'STATEMENT', 'MONTHLY',
        'QUARTERLY', 'ANNUAL', 'CUSTOMER_SERVICE', 'ACCOUNT_MAINTENANCE', 'ACCOUNT_ACTIVATION', 'ACCOUNT_CLOSURE', 'CARD_REPLACEMENT',
        'CARD_DELIVERY', 'CARD_CREATE', 'CURRENCY_CONVERSION', 'INTEREST', 'LATE_PAYMENT', 'BILL_PAYMENT', 'CASH_BACK',
        'ACCOUNT_TO_ACCOUNT', 'CARD_TO_CARD', 'DISBURSE', 'BILLING_ERROR', 'LOSS_WRITE_OFF', 'EXPIRED_CARD', 'EARLY_DERECOGNITION',
        'ESCHEATMENT', 'INACTIVITY_FEE_DOWN', 'PROVISIONAL_CREDIT', 'DISPUTE_WON', 'SERVICE', 'TRANSFER', 'COLLECTION',
      ),
    }),
  ),
  external_id: nullable('string'),
  external_resource: EXTERNAL_RESOURCE,
  from_financial_account_token: 'uuid',
  pending_amount: 'integer',
  result: RESULT,
  settled_amount: 'integer',
  status: oneOf('DECLINED', 'REVERSED', 'SETTLED'),
  to_financial_account_token: 'uuid',
  transaction_series: TRANSACTION_SERIES,
  updated: 'date-time',
};

/** ManagementOperationTransaction (management-operations.d.ts). */
const MANAGEMENT_OPERATION: Shape = {
  token: 'uuid',
  created: 'date-time',
  family: FAMILY,
  status: TRANSACTION_STATUS,
  updated: 'date-time',
  'category?': oneOf('MANAGEMENT_FEE', 'MANAGEMENT_DISPUTE', 'MANAGEMENT_REWARD', 'MANAGEMENT_ADJUSTMENT', 'MANAGEMENT_DISBURSEMENT'),
  'currency?': 'string',
  'direction?': oneOf('CREDIT', 'DEBIT'),
  'events?': arrayOf(
    object({
      ...DATED_EVENT,
      type: oneOf(
        'LOSS_WRITE_OFF', 'CASH_BACK', 'CASH_BACK_REVERSAL', 'CURRENCY_CONVERSION', 'CURRENCY_CONVERSION_REVERSAL', 'INTEREST',
        'INTEREST_REVERSAL', 'LATE_PAYMENT', 'LATE_PAYMENT_REVERSAL', 'BILLING_ERROR', 'BILLING_ERROR_REVERSAL', 'PROVISIONAL_CREDIT',
        'PROVISIONAL_CREDIT_REVERSAL', 'RETURNED_PAYMENT', 'RETURNED_PAYMENT_REVERSAL', 'DISPUTE_WON', 'DISPUTE_WON_REVERSAL',
        'DISBURSE', 'DISBURSE_REVERSAL',
      ),
      'subtype?': 'string',
    }),
  ),
  'external_resource?': EXTERNAL_RESOURCE,
  'financial_account_token?': 'uuid',
  'pending_amount?': 'integer',
  'result?': RESULT,
  'settled_amount?': 'integer',
  'transaction_series?': TRANSACTION_SERIES,
  'user_defined_id?': 'string',
};

type Steps = Record<string, () => Promise<unknown[]>>;

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

  for (const { resource, shape, steps } of TABLE) {
    describe(resource, () => {
      const seenKeys = new Set<string>();
      for (const [step, produce] of Object.entries(steps)) {
        it(step, async () => {
          const answers = await produce();
          expect(answers.length).toBeGreaterThan(0);
          for (const answer of answers) {
            expect(shapeProblems(answer, shape), JSON.stringify(answer)).toEqual([]);
            for (const key of Object.keys(answer as object)) seenKeys.add(key);
          }
        });
      }
      it('answers every key the type declares in some step', () => {
        const declared = Object.keys(shape).map((key) => key.replace(/\?$/, ''));
        expect(declared.filter((key) => !seenKeys.has(key))).toEqual([]);
      });
    });
  }
});
