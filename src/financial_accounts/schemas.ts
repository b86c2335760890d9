import { DateTime, Nullable, StrictObject, StringEnum, Type, Uuid, type Static } from '../http/schemas.js';

export const FINANCIAL_ACCOUNT_TYPES = [
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

export const FINANCIAL_ACCOUNT_STATUSES = ['OPEN', 'CLOSED', 'SUSPENDED', 'PENDING'] as const;
export const FINANCIAL_ACCOUNT_SUBSTATUSES = [
  'CHARGED_OFF_DELINQUENT',
  'CHARGED_OFF_FRAUD',
  'END_USER_REQUEST',
  'BANK_REQUEST',
  'DELINQUENT',
] as const;

export const CreditConfiguration = Type.Object({
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

export const CreateFinancialAccountBody = StrictObject({
  nickname: Type.String({ minLength: 1, maxLength: 256 }),
  type: StringEnum(['OPERATING']),
  account_token: Type.Optional(Uuid),
  is_for_benefit_of: Type.Optional(Type.Boolean()),
});
export type CreateFinancialAccountBody = Static<typeof CreateFinancialAccountBody>;

