import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, IsoDate, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';
import { Amount, ClientToken, DatedEventFields, Memo, RESULTS } from '../money_events/schemas.js';

const EXTERNAL_PAYMENT_CATEGORIES = ['EXTERNAL_WIRE', 'EXTERNAL_ACH', 'EXTERNAL_CHECK', 'EXTERNAL_TRANSFER'] as const;
export const PAYMENT_TYPES = ['DEPOSIT', 'WITHDRAWAL'] as const;
export const EXTERNAL_PAYMENT_STATUSES = ['PENDING', 'SETTLED', 'DECLINED', 'REVERSED', 'CANCELED'] as const;
export const STEPS = ['INITIATED', 'SETTLED', 'RELEASED', 'CANCELED', 'REVERSED'] as const;
export type Step = (typeof STEPS)[number];
const EXTERNAL_PAYMENT_EVENT_TYPES = EXTERNAL_PAYMENT_CATEGORIES.flatMap((category) => STEPS.map((step) => `${category}_${step}` as const));
const PROGRESS_TO = ['SETTLED', 'RELEASED'] as const;

const ExternalPaymentEvent = Type.Object({
  ...DatedEventFields,
  type: StringEnum(EXTERNAL_PAYMENT_EVENT_TYPES),
});

export const ExternalPayment = Type.Object(
  {
    token: Uuid,
    family: StringEnum(['EXTERNAL_PAYMENT']),
    category: StringEnum(EXTERNAL_PAYMENT_CATEGORIES),
    created: DateTime,
    updated: DateTime,
    currency: Type.String(),
    events: Type.Array(ExternalPaymentEvent),
    financial_account_token: Uuid,
    payment_type: StringEnum(PAYMENT_TYPES),
    pending_amount: Type.Integer(),
    settled_amount: Type.Integer(),
    result: StringEnum(RESULTS),
    status: StringEnum(EXTERNAL_PAYMENT_STATUSES),
    user_defined_id: Type.Optional(Type.String()),
  },
  { description: 'External payment' },
);
export type ExternalPayment = Static<typeof ExternalPayment>;

export const CreateExternalPaymentBody = StrictObject({
  amount: Amount,
  category: StringEnum(EXTERNAL_PAYMENT_CATEGORIES),
  effective_date: IsoDate,
  financial_account_token: Uuid,
  payment_type: StringEnum(PAYMENT_TYPES),
  token: Type.Optional(ClientToken),
  memo: Type.Optional(Memo),
  progress_to: Type.Optional(StringEnum(PROGRESS_TO)),
  user_defined_id: Type.Optional(VisibleText(256, 'Your identifier for the payment; not blank, no control characters')),
});
export type CreateExternalPaymentBody = Static<typeof CreateExternalPaymentBody>;

export const PaymentActionBody = StrictObject({ effective_date: IsoDate, memo: Type.Optional(Memo) });
export type PaymentActionBody = Static<typeof PaymentActionBody>;

export const SettleExternalPaymentBody = StrictObject({
  effective_date: IsoDate,
  memo: Type.Optional(Memo),
  progress_to: Type.Optional(StringEnum(PROGRESS_TO)),
});
export type SettleExternalPaymentBody = Static<typeof SettleExternalPaymentBody>;

export const ListExternalPaymentsQuery = ListQuery({
  business_account_token: Type.Optional(Uuid),
  financial_account_token: Type.Optional(Uuid),
  category: Type.Optional(StringEnum(EXTERNAL_PAYMENT_CATEGORIES)),
  result: Type.Optional(StringEnum(RESULTS)),
  status: Type.Optional(StringEnum(EXTERNAL_PAYMENT_STATUSES)),
  ...CreatedRangeProperties,
});
export type ListExternalPaymentsQuery = Static<typeof ListExternalPaymentsQuery>;
