/** Request and response schemas of card transactions and the network simulations (Lithic's shapes, SDK 0.119). */
import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, Nullable, ShapeChosenBy, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';

const TRANSACTION_STATUSES = ['PENDING', 'SETTLED', 'DECLINED', 'VOIDED', 'EXPIRED'] as const;

const RESULTS = [
  'ACCOUNT_PAUSED',
  'ACCOUNT_STATE_TRANSACTION_FAIL',
  'APPROVED',
  'BANK_CONNECTION_ERROR',
  'BANK_NOT_VERIFIED',
  'CARD_CLOSED',
  'CARD_PAUSED',
  'DECLINED',
  'FRAUD_ADVICE',
  'IGNORED_TTL_EXPIRY',
  'SUSPECTED_FRAUD',
  'INACTIVE_ACCOUNT',
  'INCORRECT_PIN',
  'INVALID_CARD_DETAILS',
  'INSUFFICIENT_FUNDS',
  'INSUFFICIENT_FUNDS_PRELOAD',
  'INVALID_TRANSACTION',
  'MERCHANT_BLACKLIST',
  'ORIGINAL_NOT_FOUND',
  'PREVIOUSLY_COMPLETED',
  'SINGLE_USE_RECHARGED',
  'SWITCH_INOPERATIVE_ADVICE',
  'UNAUTHORIZED_MERCHANT',
  'UNKNOWN_HOST_TIMEOUT',
  'USER_TRANSACTION_LIMIT',
] as const;

const DETAILED_RESULTS = [
  'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED',
  'ACCOUNT_DELINQUENT',
  'ACCOUNT_INACTIVE',
  'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED',
  'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED',
  'ACCOUNT_PAUSED',
  'ACCOUNT_UNDER_REVIEW',
  'ADDRESS_INCORRECT',
  'APPROVED',
  'AUTH_RULE_ALLOWED_COUNTRY',
  'AUTH_RULE_ALLOWED_MCC',
  'AUTH_RULE_BLOCKED_COUNTRY',
  'AUTH_RULE_BLOCKED_MCC',
  'CARD_CLOSED',
  'CARD_CRYPTOGRAM_VALIDATION_FAILURE',
  'CARD_EXPIRED',
  'CARD_EXPIRY_DATE_INCORRECT',
  'CARD_INVALID',
  'CARD_NOT_ACTIVATED',
  'CARD_PAUSED',
  'CARD_PIN_INCORRECT',
  'CARD_RESTRICTED',
  'CARD_SECURITY_CODE_INCORRECT',
  'CARD_SPEND_LIMIT_EXCEEDED',
  'CONTACT_CARD_ISSUER',
  'CUSTOMER_ASA_TIMEOUT',
  'CUSTOM_ASA_RESULT',
  'DECLINED',
  'DO_NOT_HONOR',
  'DRIVER_NUMBER_INVALID',
  'FORMAT_ERROR',
  'INSUFFICIENT_FUNDING_SOURCE_BALANCE',
  'INSUFFICIENT_FUNDS',
  'LITHIC_SYSTEM_ERROR',
  'LITHIC_SYSTEM_RATE_LIMIT',
  'MALFORMED_ASA_RESPONSE',
  'MERCHANT_INVALID',
  'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE',
  'MERCHANT_NOT_PERMITTED',
  'OVER_REVERSAL_ATTEMPTED',
  'PIN_BLOCKED',
  'PROGRAM_CARD_SPEND_LIMIT_EXCEEDED',
  'PROGRAM_SUSPENDED',
  'PROGRAM_USAGE_RESTRICTION',
  'REVERSAL_UNMATCHED',
  'SECURITY_VIOLATION',
  'SINGLE_USE_CARD_REATTEMPTED',
  'SUSPECTED_FRAUD',
  'TRANSACTION_INVALID',
  'TRANSACTION_NOT_PERMITTED_TO_ACQUIRER_OR_TERMINAL',
  'TRANSACTION_NOT_PERMITTED_TO_ISSUER_OR_CARDHOLDER',
  'TRANSACTION_PREVIOUSLY_COMPLETED',
  'UNAUTHORIZED_MERCHANT',
  'VEHICLE_NUMBER_INVALID',
] as const;

const EVENT_TYPES = [
  'AUTHORIZATION',
  'AUTHORIZATION_ADVICE',
  'AUTHORIZATION_EXPIRY',
  'AUTHORIZATION_REVERSAL',
  'BALANCE_INQUIRY',
  'CLEARING',
  'CORRECTION_CREDIT',
  'CORRECTION_DEBIT',
  'CREDIT_AUTHORIZATION',
  'CREDIT_AUTHORIZATION_ADVICE',
  'FINANCIAL_AUTHORIZATION',
  'FINANCIAL_CREDIT_AUTHORIZATION',
  'RETURN',
  'RETURN_REVERSAL',
] as const;

const Currency = Type.String({ description: 'ISO 4217' });
const ConversionRate = Type.String({ description: 'e.g. "1.000000"' });

const RuleResult = Type.Object({
  auth_rule_token: Nullable(Uuid),
  explanation: Nullable(Type.String()),
  name: Nullable(Type.String()),
  result: StringEnum(DETAILED_RESULTS),
});

const NetworkInfo = Type.Object({
  acquirer: Type.Object({ acquirer_reference_number: Nullable(Type.String()), retrieval_reference_number: Nullable(Type.String()) }),
  amex: Nullable(Type.Object({ original_transaction_id: Nullable(Type.String()), transaction_id: Nullable(Type.String()) })),
  mastercard: Nullable(
    Type.Object({
      banknet_reference_number: Nullable(Type.String()),
      original_banknet_reference_number: Nullable(Type.String()),
      original_switch_serial_number: Nullable(Type.String()),
      switch_serial_number: Nullable(Type.String()),
    }),
  ),
  visa: Nullable(Type.Object({ original_transaction_id: Nullable(Type.String()), transaction_id: Nullable(Type.String()) })),
});

/** An event's settlement: null for events that move no money. */
const Settlement = Type.Object({ amount: Type.Integer(), conversion_rate: ConversionRate, currency: Currency });

export const TransactionEvent = Type.Object({
  token: Uuid,
  amount: Type.Integer({ description: 'Deprecated: the event amount in the settlement currency, signed (credits negative)' }),
  amounts: Type.Object({
    cardholder: Type.Object({ amount: Type.Integer(), conversion_rate: ConversionRate, currency: Currency }),
    merchant: Type.Object({ amount: Type.Integer(), currency: Currency }),
    settlement: Nullable(Settlement),
  }),
  created: DateTime,
  detailed_results: Type.Array(StringEnum(DETAILED_RESULTS)),
  effective_polarity: StringEnum(['CREDIT', 'DEBIT']),
  network_info: Nullable(NetworkInfo),
  result: StringEnum(RESULTS),
  rule_results: Type.Array(RuleResult),
  type: StringEnum(EVENT_TYPES),
  network_specific_data: Type.Object({
    mastercard: Type.Object({
      ecommerce_security_level_indicator: Nullable(Type.String()),
      on_behalf_service_result: Nullable(Type.Array(Type.Object({ result_1: Type.String(), result_2: Type.String(), service: Type.String() }))),
      transaction_type_identifier: Nullable(Type.String()),
    }),
    visa: Type.Object({ business_application_identifier: Nullable(Type.String()) }),
  }),
});

const EntryMode = Type.Object({
  card: StringEnum(['NOT_PRESENT', 'PREAUTHORIZED', 'PRESENT', 'UNKNOWN']),
  cardholder: StringEnum(['DEFERRED_BILLING', 'ELECTRONIC_ORDER', 'INSTALLMENT', 'MAIL_ORDER', 'NOT_PRESENT', 'PREAUTHORIZED', 'PRESENT', 'REOCCURRING', 'TELEPHONE_ORDER', 'UNKNOWN']),
  pan: Type.String({ description: 'PAN entry mode, e.g. ECOMMERCE, ICC' }),
  pin_entered: Type.Boolean(),
});

const Terminal = Type.Object({
  attended: Type.Boolean(),
  card_retention_capable: Type.Boolean(),
  on_premise: Type.Boolean(),
  operator: StringEnum(['ADMINISTRATIVE', 'CARDHOLDER', 'CARD_ACCEPTOR', 'UNKNOWN']),
  partial_approval_capable: Type.Boolean(),
  pin_capability: StringEnum(['CAPABLE', 'INOPERATIVE', 'NOT_CAPABLE', 'UNSPECIFIED']),
  type: Type.String({ description: 'POS type, e.g. ECOMMERCE, POS_TERMINAL' }),
  acceptor_terminal_id: Nullable(Type.String()),
});

const CardholderAuthentication = Type.Object({
  '3ds_version': Nullable(Type.String()),
  acquirer_exemption: Type.String(),
  authentication_result: StringEnum(['ATTEMPTS', 'DECLINE', 'NONE', 'SUCCESS']),
  decision_made_by: StringEnum(['CUSTOMER_RULES', 'CUSTOMER_ENDPOINT', 'LITHIC_DEFAULT', 'LITHIC_RULES', 'NETWORK', 'UNKNOWN']),
  liability_shift: StringEnum(['3DS_AUTHENTICATED', 'TOKEN_AUTHENTICATED', 'NONE']),
  three_ds_authentication_token: Nullable(Uuid),
  verification_attempted: StringEnum(['NONE', 'OTHER']),
  verification_result: StringEnum(['CANCELLED', 'FAILED', 'FRICTIONLESS', 'NOT_ATTEMPTED', 'REJECTED', 'SUCCESS']),
  authentication_method: StringEnum(['FRICTIONLESS', 'CHALLENGE', 'NONE']),
});

export const Transaction = Type.Object(
  {
    token: Uuid,
    account_token: Uuid,
    card_token: Uuid,
    financial_account_token: Nullable(Uuid),
    acquirer_fee: Nullable(Type.Integer()),
    acquirer_reference_number: Nullable(Type.String()),
    amount: Type.Integer(),
    amounts: Type.Object({
      cardholder: Type.Object({ amount: Type.Integer(), conversion_rate: ConversionRate, currency: Currency }),
      hold: Type.Object({ amount: Type.Integer(), currency: Currency }),
      merchant: Type.Object({ amount: Type.Integer(), currency: Currency }),
      settlement: Type.Object({ amount: Type.Integer(), conversion_rate: ConversionRate, currency: Currency }),
    }),
    authorization_amount: Nullable(Type.Integer()),
    authorization_code: Nullable(Type.String()),
    avs: Nullable(Type.Object({ address: Type.String(), zipcode: Type.String() })),
    cardholder_authentication: Nullable(CardholderAuthentication),
    created: DateTime,
    updated: DateTime,
    merchant: Type.Object({
      acceptor_id: Type.String(),
      acquiring_institution_id: Type.String(),
      city: Type.String(),
      country: Type.String(),
      descriptor: Type.String(),
      mcc: Type.String(),
      state: Type.String(),
    }),
    merchant_amount: Nullable(Type.Integer()),
    merchant_authorization_amount: Nullable(Type.Integer()),
    merchant_currency: Currency,
    network: Nullable(StringEnum(['AMEX', 'INTERLINK', 'MAESTRO', 'MASTERCARD', 'UNKNOWN', 'VISA'])),
    network_risk_score: Nullable(Type.Integer()),
    pos: Type.Object({ entry_mode: EntryMode, terminal: Terminal }),
    result: StringEnum(RESULTS),
    settled_amount: Type.Integer(),
    status: StringEnum(TRANSACTION_STATUSES),
    token_info: Nullable(Type.Object({ wallet_type: StringEnum(['APPLE_PAY', 'GOOGLE_PAY', 'MASTERPASS', 'MERCHANT', 'OTHER', 'SAMSUNG_PAY']) })),
    events: Type.Array(TransactionEvent),
  },
  { description: 'A card transaction. Amounts in cents, credits negative.' },
);
export type Transaction = Static<typeof Transaction>;
export type TransactionEvent = Static<typeof TransactionEvent>;

export const ListTransactionsQuery = ListQuery({
  account_token: Type.Optional(Uuid),
  card_token: Type.Optional(Uuid),
  ...CreatedRangeProperties,
  result: Type.Optional(StringEnum(['APPROVED', 'DECLINED'], { description: 'DECLINED matches every result but APPROVED' })),
  status: Type.Optional(StringEnum(TRANSACTION_STATUSES)),
});
export type ListTransactionsQuery = Static<typeof ListTransactionsQuery>;

// ---- simulations ----------------------------------------------------------------------------------

/** Lithic's simulator limits (reference 03). */
const MAX_SIMULATED_AMOUNT_CENTS = 2_000_000_000;
const SimulatedAmount = Type.Integer({ minimum: 0, maximum: MAX_SIMULATED_AMOUNT_CENTS, description: 'Cents, 0 to 2,000,000,000' });
const MerchantAmount = Type.Integer({
  minimum: 0,
  maximum: MAX_SIMULATED_AMOUNT_CENTS,
  description: 'The amount in merchant_currency, cents (default: amount); 0 exactly when amount is 0, amount itself in USD',
});
const Pan = Type.String({ pattern: '^[0-9]{16}$', description: 'Sixteen digit card number' });
const Descriptor = VisibleText(25, 'Merchant descriptor: not blank, no control characters');
const Mcc = Type.String({ pattern: '^[0-9]{4}$', description: 'Merchant category code (ISO 18245)' });
const MerchantAcceptorId = VisibleText(15, 'Card acceptor id: not blank, no control characters');

export const SimulateAuthorizationBody = StrictObject({
  amount: SimulatedAmount,
  descriptor: Descriptor,
  pan: Pan,
  mcc: Type.Optional(Mcc),
  merchant_acceptor_id: Type.Optional(MerchantAcceptorId),
  merchant_amount: Type.Optional(MerchantAmount),
  merchant_currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217; the simulator knows USD, GBP and EUR, any other becomes GBP' })),
  partial_approval_capable: Type.Optional(Type.Boolean()),
  pin: Type.Optional(Type.String({ pattern: '^[0-9]{4,12}$', description: 'The PIN entered at the terminal (4 to 12 digits): a card-present transaction' })),
  status: Type.Optional(StringEnum(['AUTHORIZATION', 'BALANCE_INQUIRY', 'CREDIT_AUTHORIZATION', 'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'])),
});
export type SimulateAuthorizationBody = Static<typeof SimulateAuthorizationBody>;

export const SimulateAuthorizationAdviceBody = StrictObject({ token: Uuid, amount: SimulatedAmount });
export type SimulateAuthorizationAdviceBody = Static<typeof SimulateAuthorizationAdviceBody>;

export const SimulateClearingBody = StrictObject({ token: Uuid, amount: Type.Optional(SimulatedAmount) });
export type SimulateClearingBody = Static<typeof SimulateClearingBody>;

const VoidAmount = (minimumCents: number, description: string) => Type.Optional(Type.Integer({ minimum: minimumCents, maximum: MAX_SIMULATED_AMOUNT_CENTS, description }));
const SimulateReversalBody = StrictObject({
  token: Uuid,
  amount: VoidAmount(1, 'Cents to reverse; default all that is pending'),
  type: Type.Optional(Type.Literal('AUTHORIZATION_REVERSAL')),
});
const SimulateExpiryBody = StrictObject({
  token: Uuid,
  amount: VoidAmount(0, 'Not used: an expiry always releases the whole pending amount (so 0 is taken too)'),
  type: Type.Literal('AUTHORIZATION_EXPIRY'),
});
export type SimulateVoidBody = Static<typeof SimulateReversalBody> | Static<typeof SimulateExpiryBody>;
/** SDK 0.119: `amount` applies to authorization reversals only; an expiry always applies to the whole pending amount. */
export const SimulateVoidBody = ShapeChosenBy<SimulateVoidBody>(
  'type',
  [
    [['AUTHORIZATION_REVERSAL'], SimulateReversalBody],
    [['AUTHORIZATION_EXPIRY'], SimulateExpiryBody],
  ],
  'AUTHORIZATION_REVERSAL (the default) releases `amount` (1 or more; default all that is pending); AUTHORIZATION_EXPIRY releases all, whatever `amount` says',
  'AUTHORIZATION_REVERSAL',
);

export const SimulateReturnBody = StrictObject({ amount: SimulatedAmount, descriptor: Descriptor, pan: Pan });
export type SimulateReturnBody = Static<typeof SimulateReturnBody>;

export const SimulateReturnReversalBody = StrictObject({ token: Uuid });
export type SimulateReturnReversalBody = Static<typeof SimulateReturnReversalBody>;

export const SimulateCreditAuthorizationAdviceBody = StrictObject({
  amount: SimulatedAmount,
  descriptor: Descriptor,
  pan: Pan,
  mcc: Type.Optional(Mcc),
  merchant_acceptor_id: Type.Optional(MerchantAcceptorId),
});
export type SimulateCreditAuthorizationAdviceBody = Static<typeof SimulateCreditAuthorizationAdviceBody>;

export const SimulatedTransactionResponse = Type.Object({ token: Uuid, debugging_request_id: Uuid });
export const SimulatedEventResponse = Type.Object({ debugging_request_id: Uuid });
