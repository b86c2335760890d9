import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, IsoDate, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';
import { Amount, ClientToken, DatedEventFields, Memo, OnClosedAccount, RESULTS, TransactionSeries } from '../money_events/schemas.js';

export const MANAGEMENT_OPERATION_CATEGORIES = [
  'MANAGEMENT_FEE',
  'MANAGEMENT_DISPUTE',
  'MANAGEMENT_REWARD',
  'MANAGEMENT_ADJUSTMENT',
  'MANAGEMENT_DISBURSEMENT',
] as const;

export const MANAGEMENT_OPERATION_EVENT_TYPES = [
  'LOSS_WRITE_OFF',
  'CASH_BACK',
  'CASH_BACK_REVERSAL',
  'CURRENCY_CONVERSION',
  'CURRENCY_CONVERSION_REVERSAL',
  'INTEREST',
  'INTEREST_REVERSAL',
  'LATE_PAYMENT',
  'LATE_PAYMENT_REVERSAL',
  'BILLING_ERROR',
  'BILLING_ERROR_REVERSAL',
  'PROVISIONAL_CREDIT',
  'PROVISIONAL_CREDIT_REVERSAL',
  'RETURNED_PAYMENT',
  'RETURNED_PAYMENT_REVERSAL',
  'DISPUTE_WON',
  'DISPUTE_WON_REVERSAL',
  'DISBURSE',
  'DISBURSE_REVERSAL',
] as const;
export type ManagementOperationEventType = (typeof MANAGEMENT_OPERATION_EVENT_TYPES)[number];

export const MANAGEMENT_OPERATION_STATUSES = ['PENDING', 'SETTLED', 'DECLINED', 'REVERSED', 'CANCELED'] as const;
const DIRECTIONS = ['CREDIT', 'DEBIT'] as const;

const ManagementOperationEvent = Type.Object({
  ...DatedEventFields,
  type: StringEnum(MANAGEMENT_OPERATION_EVENT_TYPES),
  subtype: Type.Optional(Type.String()),
});

export const ManagementOperation = Type.Object(
  {
    token: Uuid,
    family: StringEnum(['MANAGEMENT_OPERATION']),
    category: StringEnum(MANAGEMENT_OPERATION_CATEGORIES),
    created: DateTime,
    updated: DateTime,
    currency: Type.String(),
    direction: StringEnum(DIRECTIONS),
    events: Type.Array(ManagementOperationEvent),
    external_resource: Type.Null(),
    financial_account_token: Uuid,
    pending_amount: Type.Integer(),
    settled_amount: Type.Integer(),
    result: StringEnum(RESULTS),
    status: StringEnum(MANAGEMENT_OPERATION_STATUSES),
    transaction_series: TransactionSeries,
    user_defined_id: Type.Optional(Type.String()),
  },
  { description: 'Management operation transaction' },
);
export type ManagementOperation = Static<typeof ManagementOperation>;

export const CreateManagementOperationBody = StrictObject({
  amount: Amount,
  category: StringEnum(MANAGEMENT_OPERATION_CATEGORIES),
  direction: StringEnum(DIRECTIONS),
  effective_date: IsoDate,
  event_type: StringEnum(MANAGEMENT_OPERATION_EVENT_TYPES),
  financial_account_token: Uuid,
  token: Type.Optional(ClientToken),
  memo: Type.Optional(Memo),
  subtype: Type.Optional(VisibleText(256, 'Program-specific subtype code; not blank, no control characters')),
  user_defined_id: Type.Optional(VisibleText(256, 'Your identifier for the operation; not blank, no control characters')),
  on_closed_account: Type.Optional(OnClosedAccount),
});
export type CreateManagementOperationBody = Static<typeof CreateManagementOperationBody>;

export const ReverseManagementOperationBody = StrictObject({ effective_date: IsoDate, memo: Type.Optional(Memo) });
export type ReverseManagementOperationBody = Static<typeof ReverseManagementOperationBody>;

export const ListManagementOperationsQuery = ListQuery({
  business_account_token: Type.Optional(Uuid),
  financial_account_token: Type.Optional(Uuid),
  category: Type.Optional(StringEnum(MANAGEMENT_OPERATION_CATEGORIES)),
  status: Type.Optional(StringEnum(MANAGEMENT_OPERATION_STATUSES)),
  ...CreatedRangeProperties,
});
export type ListManagementOperationsQuery = Static<typeof ListManagementOperationsQuery>;
