import { PageQueryProperties } from '../http/pagination.js';
import { DateTime, Nullable, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';

const FINANCIAL_ACCOUNT_TYPES = [
  'ISSUING',
  'RESERVE',
  'OPERATING',
  'CHARGED_OFF_FEES',
  'CHARGED_OFF_INTEREST',
  'CHARGED_OFF_PRINCIPAL',
  'SECURITY',
  'PROGRAM_RECEIVABLES',
  'COLLECTION',
  'PROGRAM_BANK_ACCOUNTS_PAYABLE',
] as const;
export type FinancialAccountType = (typeof FINANCIAL_ACCOUNT_TYPES)[number];

const FINANCIAL_ACCOUNT_STATUSES = ['OPEN', 'CLOSED', 'SUSPENDED', 'PENDING'] as const;
const FINANCIAL_ACCOUNT_SUBSTATUSES = [
  'CHARGED_OFF_DELINQUENT',
  'CHARGED_OFF_FRAUD',
  'END_USER_REQUEST',
  'BANK_REQUEST',
  'DELINQUENT',
] as const;

const CreditConfiguration = Type.Object({
  charged_off_reason: Nullable(StringEnum(['DELINQUENT', 'FRAUD'])),
  credit_limit: Nullable(Type.Integer()),
  credit_product_token: Nullable(Type.String()),
  external_bank_account_token: Nullable(Uuid),
  financial_account_state: Nullable(StringEnum(['PENDING', 'CURRENT', 'DELINQUENT', 'CHARGED_OFF'])),
  is_spend_blocked: Type.Boolean(),
  tier: Nullable(Type.String()),
});

export const FinancialAccount = Type.Object(
  {
    token: Uuid,
    account_token: Nullable(Uuid),
    created: DateTime,
    updated: DateTime,
    credit_configuration: Type.Union([CreditConfiguration, Type.Null()]),
    is_for_benefit_of: Type.Boolean(),
    nickname: Nullable(Type.String()),
    status: StringEnum(FINANCIAL_ACCOUNT_STATUSES),
    substatus: Nullable(StringEnum(FINANCIAL_ACCOUNT_SUBSTATUSES)),
    type: StringEnum(FINANCIAL_ACCOUNT_TYPES),
    account_number: Nullable(Type.String()),
    routing_number: Nullable(Type.String()),
  },
  { description: 'Financial account' },
);
export type FinancialAccount = Static<typeof FinancialAccount>;

const Nickname = VisibleText(256);

export const CreateFinancialAccountBody = StrictObject({
  nickname: Nickname,
  type: StringEnum(['OPERATING']),
  account_token: Type.Optional(Uuid),
  is_for_benefit_of: Type.Optional(Type.Boolean()),
});
export type CreateFinancialAccountBody = Static<typeof CreateFinancialAccountBody>;

/** `page_size` of the lists Lithic answers whole (its SDK reads them as one page); `without` says what is answered without it. */
const WholeOrPageSize = (without: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `Items per page, 1 to 100; without it, ${without}` }));

/**
 * The SDK reads this list as one page (Lithic's is not paged): without `page_size` or a cursor it
 * is the whole list (`has_more` false); with them it pages like any other list.
 */
export const ListFinancialAccountsQuery = StrictObject({
  account_token: Type.Optional(Uuid),
  business_account_token: Type.Optional(Uuid),
  type: Type.Optional(StringEnum(['ISSUING', 'OPERATING', 'RESERVE', 'SECURITY'])),
  ...PageQueryProperties,
  page_size: WholeOrPageSize('and without a cursor, every account'),
});
export type ListFinancialAccountsQuery = Static<typeof ListFinancialAccountsQuery>;

export const UpdateFinancialAccountBody = StrictObject({
  nickname: Type.Optional(Nickname),
});
export type UpdateFinancialAccountBody = Static<typeof UpdateFinancialAccountBody>;

/** Statuses a client may set (PENDING is the platform's, while an account is being opened). */
const SETTABLE_STATUSES = ['OPEN', 'CLOSED', 'SUSPENDED', 'PENDING'] as const;
const SETTABLE_SUBSTATUSES = ['CHARGED_OFF_FRAUD', 'END_USER_REQUEST', 'BANK_REQUEST', 'CHARGED_OFF_DELINQUENT'] as const;

export const UpdateFinancialAccountStatusBody = StrictObject({
  status: StringEnum(SETTABLE_STATUSES),
  substatus: Nullable(StringEnum(SETTABLE_SUBSTATUSES)),
});
export type UpdateFinancialAccountStatusBody = Static<typeof UpdateFinancialAccountStatusBody>;

export const BALANCE_ACCOUNT_TYPES = ['ISSUING', 'OPERATING', 'RESERVE', 'SECURITY'] as const;

const balanceAmounts = {
  currency: Type.String(),
  available_amount: Type.Integer({ description: 'Spendable funds, cents' }),
  pending_amount: Type.Integer({ description: 'Held for authorizations or incoming funds not yet released, cents' }),
  total_amount: Type.Integer({ description: 'available + pending, cents' }),
  created: DateTime,
  updated: DateTime,
  last_transaction_token: Type.String({ description: 'Empty until a transaction has touched the account' }),
  last_transaction_event_token: Type.String({ description: 'Empty until a transaction has touched the account' }),
};

export const FinancialAccountBalance = Type.Object(
  { token: Uuid, type: StringEnum(FINANCIAL_ACCOUNT_TYPES), ...balanceAmounts },
  { description: 'Balance of a financial account' },
);
export type FinancialAccountBalance = Static<typeof FinancialAccountBalance>;

export const ProgramBalance = Type.Object(
  { financial_account_token: Uuid, financial_account_type: StringEnum(FINANCIAL_ACCOUNT_TYPES), ...balanceAmounts },
  { description: 'Balance of one of the program’s financial accounts' },
);
export type ProgramBalance = Static<typeof ProgramBalance>;

export const AccountBalancesQuery = StrictObject({
  balance_date: Type.Optional(Type.String({ format: 'date-time', description: 'The balance as it was at this time' })),
  last_transaction_event_token: Type.Optional(Type.String({ format: 'uuid', description: 'The balance right after this event' })),
});
export type AccountBalancesQuery = Static<typeof AccountBalancesQuery>;

export const ProgramBalancesQuery = StrictObject({
  account_token: Type.Optional(Uuid),
  business_account_token: Type.Optional(Uuid),
  financial_account_type: Type.Optional(StringEnum(BALANCE_ACCOUNT_TYPES)),
  balance_date: Type.Optional(Type.String({ format: 'date-time', description: 'The balances as they were at this time' })),
});
export type ProgramBalancesQuery = Static<typeof ProgramBalancesQuery>;

const FINANCIAL_TRANSACTION_CATEGORIES = ['ACH', 'CARD', 'INTERNAL', 'TRANSFER'] as const;
const FINANCIAL_TRANSACTION_STATUSES = ['DECLINED', 'EXPIRED', 'PENDING', 'RETURNED', 'SETTLED', 'VOIDED'] as const;
export type FinancialTransactionStatus = (typeof FINANCIAL_TRANSACTION_STATUSES)[number];

/** The event types of a financial transaction (SDK 0.119 `FinancialTransaction.Event.type`). */
export const FINANCIAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  'ACH_ORIGINATION_CANCELLED', 'ACH_ORIGINATION_INITIATED', 'ACH_ORIGINATION_PROCESSED',
  'ACH_ORIGINATION_RELEASED', 'ACH_ORIGINATION_REJECTED', 'ACH_ORIGINATION_REVIEWED',
  'ACH_ORIGINATION_SETTLED', 'ACH_RECEIPT_PROCESSED', 'ACH_RECEIPT_SETTLED', 'ACH_RETURN_INITIATED',
  'ACH_RETURN_PROCESSED', 'ACH_RETURN_REJECTED', 'ACH_RETURN_SETTLED', 'AUTHORIZATION',
  'AUTHORIZATION_ADVICE', 'AUTHORIZATION_EXPIRY', 'AUTHORIZATION_REVERSAL', 'BALANCE_INQUIRY',
  'BILLING_ERROR', 'BILLING_ERROR_REVERSAL', 'CARD_TO_CARD', 'CASH_BACK', 'CASH_BACK_REVERSAL',
  'CLEARING', 'COLLECTION', 'CORRECTION_CREDIT', 'CORRECTION_DEBIT', 'CREDIT_AUTHORIZATION',
  'CREDIT_AUTHORIZATION_ADVICE', 'CURRENCY_CONVERSION', 'CURRENCY_CONVERSION_REVERSAL', 'DISPUTE_WON',
  'EXTERNAL_ACH_CANCELED', 'EXTERNAL_ACH_INITIATED', 'EXTERNAL_ACH_RELEASED', 'EXTERNAL_ACH_REVERSED',
  'EXTERNAL_ACH_SETTLED', 'EXTERNAL_CHECK_CANCELED', 'EXTERNAL_CHECK_INITIATED',
  'EXTERNAL_CHECK_RELEASED', 'EXTERNAL_CHECK_REVERSED', 'EXTERNAL_CHECK_SETTLED',
  'EXTERNAL_TRANSFER_CANCELED', 'EXTERNAL_TRANSFER_INITIATED', 'EXTERNAL_TRANSFER_RELEASED',
  'EXTERNAL_TRANSFER_REVERSED', 'EXTERNAL_TRANSFER_SETTLED', 'EXTERNAL_WIRE_CANCELED',
  'EXTERNAL_WIRE_INITIATED', 'EXTERNAL_WIRE_RELEASED', 'EXTERNAL_WIRE_REVERSED', 'EXTERNAL_WIRE_SETTLED',
  'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION', 'INTEREST', 'INTEREST_REVERSAL',
  'INTERNAL_ADJUSTMENT', 'LATE_PAYMENT', 'LATE_PAYMENT_REVERSAL', 'LOSS_WRITE_OFF', 'PROVISIONAL_CREDIT',
  'PROVISIONAL_CREDIT_REVERSAL', 'SERVICE', 'RETURN', 'RETURN_REVERSAL', 'TRANSFER',
  'TRANSFER_INSUFFICIENT_FUNDS', 'RETURNED_PAYMENT', 'RETURNED_PAYMENT_REVERSAL', 'LITHIC_NETWORK_PAYMENT',
]);

export const FinancialTransaction = Type.Object(
  {
    token: Uuid,
    category: StringEnum(FINANCIAL_TRANSACTION_CATEGORIES),
    created: DateTime,
    updated: DateTime,
    currency: Type.String(),
    descriptor: Type.String(),
    events: Type.Array(
      Type.Object({
        token: Uuid,
        amount: Type.Integer({ description: 'Change to available, or to pending when available did not change, cents' }),
        created: DateTime,
        result: StringEnum(['APPROVED', 'DECLINED']),
        type: Type.String({ description: 'One of the SDK’s event types; a sandbox micro-deposit round shows MICRO_DEPOSIT and MICRO_DEPOSIT_WITHDRAWAL' }),
      }),
    ),
    pending_amount: Type.Integer(),
    settled_amount: Type.Integer(),
    result: StringEnum(['APPROVED', 'DECLINED']),
    status: StringEnum(FINANCIAL_TRANSACTION_STATUSES),
  },
  { description: 'A transaction as one financial account saw it, read from the ledger' },
);
export type FinancialTransaction = Static<typeof FinancialTransaction>;

export const FinancialTransactionsQuery = StrictObject({
  category: Type.Optional(StringEnum(FINANCIAL_TRANSACTION_CATEGORIES)),
  result: Type.Optional(StringEnum(['APPROVED', 'DECLINED'])),
  status: Type.Optional(StringEnum(FINANCIAL_TRANSACTION_STATUSES)),
  begin: Type.Optional(Type.String({ format: 'date-time' })),
  end: Type.Optional(Type.String({ format: 'date-time' })),
  starting_after: Type.Optional(Type.String({ format: 'uuid' })),
  ending_before: Type.Optional(Type.String({ format: 'uuid' })),
  page_size: WholeOrPageSize('every transaction the cursor and filters leave (the SDK sends no page_size)'),
});
export type FinancialTransactionsQuery = Static<typeof FinancialTransactionsQuery>;
