import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, Nullable, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';
import { Amount, ClientToken, Memo, OnClosedAccount, RESULTS, TransactionSeries } from '../money_events/schemas.js';

const BOOK_TRANSFER_CATEGORIES = [
  'ADJUSTMENT',
  'BALANCE_OR_FUNDING',
  'DERECOGNITION',
  'DISPUTE',
  'FEE',
  'INTERNAL',
  'REWARD',
  'PROGRAM_FUNDING',
  'TRANSFER',
] as const;

const BOOK_TRANSFER_TYPES = [
  'ATM_BALANCE_INQUIRY',
  'ATM_WITHDRAWAL',
  'ATM_DECLINE',
  'INTERNATIONAL_ATM_WITHDRAWAL',
  'INACTIVITY',
  'STATEMENT',
  'MONTHLY',
  'QUARTERLY',
  'ANNUAL',
  'CUSTOMER_SERVICE',
  'ACCOUNT_MAINTENANCE',
  'ACCOUNT_ACTIVATION',
  'ACCOUNT_CLOSURE',
  'CARD_REPLACEMENT',
  'CARD_DELIVERY',
  'CARD_CREATE',
  'CURRENCY_CONVERSION',
  'INTEREST',
  'LATE_PAYMENT',
  'BILL_PAYMENT',
  'CASH_BACK',
  'ACCOUNT_TO_ACCOUNT',
  'CARD_TO_CARD',
  'DISBURSE',
  'BILLING_ERROR',
  'LOSS_WRITE_OFF',
  'EXPIRED_CARD',
  'EARLY_DERECOGNITION',
  'ESCHEATMENT',
  'INACTIVITY_FEE_DOWN',
  'PROVISIONAL_CREDIT',
  'DISPUTE_WON',
  'SERVICE',
  'TRANSFER',
  'COLLECTION',
] as const;

export const BOOK_TRANSFER_STATUSES = ['SETTLED', 'DECLINED', 'REVERSED'] as const;
const BOOK_TRANSFER_DETAILED_RESULTS = ['APPROVED', 'FUNDS_INSUFFICIENT'] as const;


const BookTransferEvent = Type.Object({
  token: Uuid,
  amount: Type.Integer(),
  created: DateTime,
  detailed_results: Type.Array(StringEnum(BOOK_TRANSFER_DETAILED_RESULTS)),
  memo: Type.String(),
  result: StringEnum(RESULTS),
  subtype: Type.String(),
  type: Type.String(),
});

export const BookTransfer = Type.Object(
  {
    token: Uuid,
    category: StringEnum(BOOK_TRANSFER_CATEGORIES),
    created: DateTime,
    updated: DateTime,
    currency: Type.String(),
    events: Type.Array(BookTransferEvent),
    external_id: Nullable(Type.String()),
    external_resource: Type.Null(),
    from_financial_account_token: Uuid,
    to_financial_account_token: Uuid,
    pending_amount: Type.Integer(),
    settled_amount: Type.Integer(),
    result: StringEnum(RESULTS),
    status: StringEnum(BOOK_TRANSFER_STATUSES),
    transaction_series: TransactionSeries,
  },
  { description: 'Book transfer' },
);
export type BookTransfer = Static<typeof BookTransfer>;

export const CreateBookTransferBody = StrictObject({
  amount: Amount,
  category: StringEnum(BOOK_TRANSFER_CATEGORIES),
  from_financial_account_token: Uuid,
  to_financial_account_token: Uuid,
  type: StringEnum(BOOK_TRANSFER_TYPES),
  subtype: VisibleText(256, 'Program-specific subtype code; not blank, no control characters'),
  token: Type.Optional(ClientToken),
  memo: Type.Optional(Memo),
  external_id: Type.Optional(VisibleText(256, 'Your identifier for the transfer; not blank, no control characters')),
  on_closed_account: Type.Optional(OnClosedAccount),
});
export type CreateBookTransferBody = Static<typeof CreateBookTransferBody>;

export const ReverseBookTransferBody = StrictObject({ memo: Type.Optional(Memo) });

export const ListBookTransfersQuery = ListQuery({
  account_token: Type.Optional(Uuid),
  business_account_token: Type.Optional(Uuid),
  financial_account_token: Type.Optional(Uuid),
  category: Type.Optional(StringEnum(BOOK_TRANSFER_CATEGORIES)),
  result: Type.Optional(StringEnum(RESULTS)),
  status: Type.Optional(StringEnum(BOOK_TRANSFER_STATUSES)),
  ...CreatedRangeProperties,
});
export type ListBookTransfersQuery = Static<typeof ListBookTransfersQuery>;
