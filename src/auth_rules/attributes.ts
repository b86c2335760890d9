/**
 * What a condition may test (reference 01): for each event stream and rule type, the attributes,
 * the kind of value each one has, and so which operations and values it accepts. Validation
 * (parameters.ts) and evaluation (conditions.ts) both read this one table, so an attribute that
 * can be written can always be evaluated.
 */

export const AUTH_RULE_TYPES = ['CONDITIONAL_BLOCK', 'VELOCITY_LIMIT', 'MERCHANT_LOCK', 'CONDITIONAL_3DS_ACTION', 'CONDITIONAL_ACTION'] as const;
export type AuthRuleType = (typeof AUTH_RULE_TYPES)[number];

export const EVENT_STREAMS = ['AUTHORIZATION', 'THREE_DS_AUTHENTICATION'] as const;
export type EventStream = (typeof EVENT_STREAMS)[number];

/** The stream each type runs on (spec 2.1); CONDITIONAL_ACTION (0.119) takes it from `event_stream`. */
export const STREAM_OF_TYPE: Readonly<Record<Exclude<AuthRuleType, 'CONDITIONAL_ACTION'>, EventStream>> = {
  CONDITIONAL_BLOCK: 'AUTHORIZATION',
  VELOCITY_LIMIT: 'AUTHORIZATION',
  MERCHANT_LOCK: 'AUTHORIZATION',
  CONDITIONAL_3DS_ACTION: 'THREE_DS_AUTHENTICATION',
};

export const LIST_OPERATIONS = ['IS_ONE_OF', 'IS_NOT_ONE_OF'] as const;
export const REGEX_OPERATIONS = ['MATCHES', 'DOES_NOT_MATCH'] as const;
const NUMERIC_OPERATIONS = [
  'IS_EQUAL_TO',
  'IS_NOT_EQUAL_TO',
  'IS_GREATER_THAN',
  'IS_GREATER_THAN_OR_EQUAL_TO',
  'IS_LESS_THAN',
  'IS_LESS_THAN_OR_EQUAL_TO',
] as const;
export const OPERATIONS = [...LIST_OPERATIONS, ...REGEX_OPERATIONS, ...NUMERIC_OPERATIONS] as const;
export type Operation = (typeof OPERATIONS)[number];

export const PAN_ENTRY_MODES = [
  'AUTO_ENTRY',
  'BAR_CODE',
  'CONTACTLESS',
  'CREDENTIAL_ON_FILE',
  'ECOMMERCE',
  'ERROR_KEYED',
  'ERROR_MAGNETIC_STRIPE',
  'ICC',
  'KEY_ENTERED',
  'MAGNETIC_STRIPE',
  'MANUAL',
  'OCR',
  'SECURE_CARDLESS',
  'UNSPECIFIED',
  'UNKNOWN',
] as const;

/** Free text (a list of values or a regular expression); `format` constrains listed values. */
interface TextAttribute {
  kind: 'text';
  format?: { pattern: RegExp; description: string };
}
/** One of a closed set of values; only the list operations apply. */
interface EnumAttribute {
  kind: 'enum';
  values: readonly string[];
}
/** An integer; only the numeric comparisons apply. */
interface IntegerAttribute {
  kind: 'integer';
  minimum?: number;
  maximum?: number;
}
export type AttributeSpec = TextAttribute | EnumAttribute | IntegerAttribute;

const MCC: TextAttribute = { kind: 'text', format: { pattern: /^\d{4}$/, description: 'a 4-digit merchant category code' } };
const COUNTRY: TextAttribute = { kind: 'text', format: { pattern: /^[A-Z]{3}$/, description: 'an uppercase ISO 3166-1 alpha-3 code, e.g. USA' } };
const CURRENCY: TextAttribute = { kind: 'text', format: { pattern: /^[A-Z]{3}$/, description: 'an uppercase ISO 4217 code, e.g. USD' } };
const TEXT: TextAttribute = { kind: 'text' };
const AMOUNT: IntegerAttribute = { kind: 'integer' };
const COUNT: IntegerAttribute = { kind: 'integer', minimum: 0 };
const RISK_SCORE: IntegerAttribute = { kind: 'integer', minimum: 0, maximum: 999 };

/** CONDITIONAL_BLOCK on the AUTHORIZATION stream. */
export const AUTHORIZATION_ATTRIBUTES: Readonly<Record<string, AttributeSpec>> = {
  MCC,
  COUNTRY,
  CURRENCY,
  MERCHANT_ID: TEXT,
  DESCRIPTOR: TEXT,
  LIABILITY_SHIFT: { kind: 'enum', values: ['NONE', '3DS_AUTHENTICATED', 'TOKEN_AUTHENTICATED'] },
  PAN_ENTRY_MODE: { kind: 'enum', values: PAN_ENTRY_MODES },
  TRANSACTION_AMOUNT: AMOUNT,
  RISK_SCORE,
  CARD_TRANSACTION_COUNT_15M: COUNT,
  CARD_TRANSACTION_COUNT_1H: COUNT,
  CARD_TRANSACTION_COUNT_24H: COUNT,
  CARD_STATE: { kind: 'enum', values: ['CLOSED', 'OPEN', 'PAUSED', 'PENDING_ACTIVATION', 'PENDING_FULFILLMENT'] },
  PIN_ENTERED: { kind: 'enum', values: ['TRUE', 'FALSE'] },
  PIN_STATUS: { kind: 'enum', values: ['NOT_SET', 'OK', 'BLOCKED'] },
  WALLET_TYPE: { kind: 'enum', values: ['APPLE_PAY', 'GOOGLE_PAY', 'SAMSUNG_PAY', 'MASTERPASS', 'MERCHANT', 'OTHER', 'NONE'] },
};

/** CONDITIONAL_ACTION on the AUTHORIZATION stream (0.119): two attributes more. */
export const AUTHORIZATION_ACTION_ATTRIBUTES: Readonly<Record<string, AttributeSpec>> = {
  ...AUTHORIZATION_ATTRIBUTES,
  CASH_AMOUNT: AMOUNT,
  TRANSACTION_INITIATOR: { kind: 'enum', values: ['CARDHOLDER', 'MERCHANT', 'UNKNOWN'] },
};

/** CONDITIONAL_3DS_ACTION (and CONDITIONAL_ACTION on THREE_DS_AUTHENTICATION). */
export const THREE_DS_ATTRIBUTES: Readonly<Record<string, AttributeSpec>> = {
  MCC,
  COUNTRY,
  CURRENCY,
  MERCHANT_ID: TEXT,
  DESCRIPTOR: TEXT,
  TRANSACTION_AMOUNT: AMOUNT,
  RISK_SCORE,
  MESSAGE_CATEGORY: { kind: 'enum', values: ['PAYMENT_AUTHENTICATION', 'NON_PAYMENT_AUTHENTICATION'] },
};

/** The operations an attribute of this kind accepts. */
export function operationsFor(spec: AttributeSpec): readonly Operation[] {
  switch (spec.kind) {
    case 'text':
      return [...LIST_OPERATIONS, ...REGEX_OPERATIONS];
    case 'enum':
      return LIST_OPERATIONS;
    case 'integer':
      return NUMERIC_OPERATIONS;
  }
}

/** Attributes whose value needs a history query (evaluated after every other condition). */
export const TRANSACTION_COUNT_WINDOWS_MS: Readonly<Record<string, number>> = {
  CARD_TRANSACTION_COUNT_15M: 15 * 60_000,
  CARD_TRANSACTION_COUNT_1H: 60 * 60_000,
  CARD_TRANSACTION_COUNT_24H: 24 * 60 * 60_000,
};
