/** Request and response schemas of 3DS authentications (reference 03; Lithic's three_ds types). */
import { DateTime, Nullable, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';

const CARD_EXPIRY_CHECKS = ['MATCH', 'MISMATCH', 'NOT_PRESENT'] as const;
const AUTHENTICATION_RESULTS = ['DECLINE', 'SUCCESS', 'PENDING_CHALLENGE', 'PENDING_DECISION'] as const;
const DECISION_MAKERS = ['LITHIC_RULES', 'LITHIC_DEFAULT', 'CUSTOMER_RULES', 'CUSTOMER_ENDPOINT', 'NETWORK', 'UNKNOWN'] as const;
const CHALLENGE_STATUSES = [
  'SUCCESS',
  'PENDING',
  'SMS_DELIVERY_FAILED',
  'CARDHOLDER_TIMEOUT',
  'CANCELED_VIA_CHALLENGE_UI',
  'CANCELED_OOB',
  'ATTEMPTS_EXCEEDED',
  'ABORTED',
  'ERROR',
] as const;
const CHALLENGE_RESULTS = ['APPROVE', 'DECLINE_BY_CUSTOMER'] as const;
const REQUESTOR_CHALLENGE_INDICATORS = [
  'NO_PREFERENCE',
  'NO_CHALLENGE_REQUESTED',
  'CHALLENGE_PREFERENCE',
  'CHALLENGE_MANDATE',
  'NO_CHALLENGE_RISK_ALREADY_ASSESSED',
  'DATA_SHARE_ONLY',
  'OTHER',
] as const;
const AUTHENTICATION_REQUEST_TYPES = [
  'ADD_CARD',
  'BILLING_AGREEMENT',
  'DELAYED_SHIPMENT',
  'EMV_TOKEN_CARDHOLDER_VERIFICATION',
  'INSTALLMENT_TRANSACTION',
  'MAINTAIN_CARD',
  'PAYMENT_TRANSACTION',
  'RECURRING_TRANSACTION',
  'SPLIT_PAYMENT',
  'SPLIT_SHIPMENT',
] as const;
const TRANSACTION_TYPES = ['ACCOUNT_FUNDING', 'CHECK_ACCEPTANCE', 'GOODS_SERVICE_PURCHASE', 'PREPAID_ACTIVATION_AND_LOAD', 'QUASI_CASH_TRANSACTION'] as const;

export const SimulateAuthenticationBody = StrictObject({
  pan: Type.String({ pattern: '^[0-9]{16}$', description: 'Sixteen-digit card number' }),
  merchant: StrictObject({
    id: VisibleText(15, 'Card acceptor id: not blank, no control characters'),
    country: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 3166-1 alpha-3; a code that does not exist is a 400' }),
    mcc: Type.String({ pattern: '^[0-9]{4}$' }),
    name: VisibleText(25, 'Descriptor, not blank, no control characters; a name containing CHALLENGE forces a challenge'),
  }),
  transaction: StrictObject({
    amount: Type.Integer({ minimum: 0, maximum: 2_000_000_000, description: 'Cents' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217; a code that does not exist, or one EMV 3DS excludes (XXX, XTS, XDR, metals, bond units), is a 400' }),
  }),
  card_expiry_check: Type.Optional(StringEnum(CARD_EXPIRY_CHECKS, { description: 'Default MATCH' })),
});
export type SimulateAuthenticationBody = Static<typeof SimulateAuthenticationBody>;

export const SimulateAuthenticationResponse = Type.Object({ token: Uuid });

/** SDK 0.119's DecisioningChallengeResponseParams. */
export const ChallengeResponseBody = StrictObject({
  token: Uuid,
  challenge_response: StringEnum(CHALLENGE_RESULTS, { description: 'APPROVE → SUCCESS; DECLINE_BY_CUSTOMER → DECLINE' }),
});
export type ChallengeResponseBody = Static<typeof ChallengeResponseBody>;

/** SDK 0.119's AuthenticationSimulateOtpEntryParams. */
export const SimulateOtpEntryBody = StrictObject({
  token: Uuid,
  otp: Type.String({ pattern: '^[0-9]{4,8}$', description: 'The OTP the cardholder entered: 4 to 8 digits' }),
});
export type SimulateOtpEntryBody = Static<typeof SimulateOtpEntryBody>;

/** SDK 0.119's DecisioningRetrieveSecretResponse. */
export const DecisioningSecret = Type.Object({ secret: Type.String({ description: 'The 3DS Decisioning HMAC secret' }) });

const Nothing = Type.Null();
const NullableText = Nullable(Type.String());

/** SDK 0.119's AuthenticationRetrieveResponse.Browser: present when the channel is BROWSER. */
const Browser = Type.Object({
  accept_header: NullableText,
  ip: NullableText,
  java_enabled: Nullable(Type.Boolean()),
  javascript_enabled: Nullable(Type.Boolean()),
  language: NullableText,
  time_zone: NullableText,
  user_agent: NullableText,
});

export const ThreeDsAuthentication = Type.Object(
  {
    token: Uuid,
    account_type: Nullable(StringEnum(['CREDIT', 'DEBIT', 'NOT_APPLICABLE'])),
    authentication_result: StringEnum(AUTHENTICATION_RESULTS),
    card_expiry_check: StringEnum(CARD_EXPIRY_CHECKS),
    card_token: Uuid,
    cardholder: Type.Object({ address_match: Nullable(Type.Boolean()) }),
    channel: StringEnum(['APP_BASED', 'BROWSER', 'THREE_DS_REQUESTOR_INITIATED']),
    created: DateTime,
    merchant: Type.Object({
      id: Type.String(),
      country: Type.String(),
      mcc: Type.String(),
      name: Type.String(),
      risk_indicator: Type.Object({}),
    }),
    message_category: StringEnum(['NON_PAYMENT_AUTHENTICATION', 'PAYMENT_AUTHENTICATION']),
    three_ds_requestor_challenge_indicator: StringEnum(REQUESTOR_CHALLENGE_INDICATORS),
    authentication_request_type: Nullable(StringEnum(AUTHENTICATION_REQUEST_TYPES)),
    challenge_metadata: Type.Union([
      Type.Object({ method_type: StringEnum(['SMS_OTP', 'OUT_OF_BAND']), status: StringEnum(CHALLENGE_STATUSES), phone_number: Nullable(Type.String()) }),
      Nothing,
    ]),
    challenge_orchestrated_by: Nullable(StringEnum(['LITHIC', 'CUSTOMER', 'NO_CHALLENGE'])),
    decision_made_by: Nullable(StringEnum(DECISION_MAKERS)),
    transaction: Type.Object({
      amount: Type.Integer(),
      cardholder_amount: Nullable(Type.Integer()),
      currency: Type.String(),
      currency_exponent: Type.Integer(),
      date_time: DateTime,
      type: Nullable(StringEnum(TRANSACTION_TYPES)),
    }),
    additional_data: Nothing,
    app: Nothing,
    browser: Type.Union([Browser, Nothing]),
    three_ri_request_type: Nothing,
  },
  { description: '3DS authentication' },
);
export type ThreeDsAuthentication = Static<typeof ThreeDsAuthentication>;
