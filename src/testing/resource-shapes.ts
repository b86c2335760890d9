/**
 * The shapes of enrollment answers, accounts, cards (and their spend limits), 3DS authentications,
 * card transactions, events, event subscriptions and their message attempts, each a hand-kept
 * copy of its SDK 0.119 type (node_modules/lithic/resources), as money-shapes.ts keeps the money
 * resources': the black-box shapes tests of those folders check live answers against them,
 * sdk-shapes.unit.test.ts checks them against the SDK's declarations.
 */
import { arrayOf, nullable, object, oneOf, type Shape } from './shapes.js';

/** The status reasons of a verification any holder may get (account-holders.d.ts). */
const GENERAL_STATUS_REASONS = [
  'ADDRESS_VERIFICATION_FAILURE', 'AGE_THRESHOLD_FAILURE', 'COMPLETE_VERIFICATION_FAILURE', 'DOB_VERIFICATION_FAILURE',
  'ID_VERIFICATION_FAILURE', 'MAX_DOCUMENT_ATTEMPTS', 'MAX_RESUBMISSION_ATTEMPTS', 'NAME_VERIFICATION_FAILURE',
  'OTHER_VERIFICATION_FAILURE', 'RISK_THRESHOLD_FAILURE', 'WATCHLIST_ALERT_FAILURE',
];
/** The status reasons of a business's verification: AccountHolderCreateResponse has them, AccountHolder does not. */
export const BUSINESS_STATUS_REASONS = [
  'PRIMARY_BUSINESS_ENTITY_ID_VERIFICATION_FAILURE', 'PRIMARY_BUSINESS_ENTITY_ADDRESS_VERIFICATION_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_NAME_VERIFICATION_FAILURE', 'PRIMARY_BUSINESS_ENTITY_BUSINESS_OFFICERS_NOT_MATCHED',
  'PRIMARY_BUSINESS_ENTITY_SOS_FILING_INACTIVE', 'PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED', 'PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_WATCHLIST_FAILURE', 'PRIMARY_BUSINESS_ENTITY_REGISTERED_AGENT_FAILURE', 'CONTROL_PERSON_BLOCKLIST_ALERT_FAILURE',
  'CONTROL_PERSON_ID_VERIFICATION_FAILURE', 'CONTROL_PERSON_DOB_VERIFICATION_FAILURE', 'CONTROL_PERSON_NAME_VERIFICATION_FAILURE',
];
const STATUS_REASONS = arrayOf(oneOf(...GENERAL_STATUS_REASONS, ...BUSINESS_STATUS_REASONS));
const HOLDER_STATUS = oneOf('ACCEPTED', 'PENDING_REVIEW', 'PENDING_DOCUMENT', 'PENDING_RESUBMIT', 'REJECTED');
const REQUIRED_DOCUMENTS = arrayOf(object({ entity_token: 'uuid', status_reasons: arrayOf('string'), valid_documents: arrayOf('string') }));

/** AccountHolderCreateResponse (account-holders.d.ts): the answer of an enrollment. */
export const ACCOUNT_HOLDER_CREATED: Shape = {
  token: 'uuid',
  account_token: 'uuid',
  status: HOLDER_STATUS,
  status_reasons: STATUS_REASONS,
  'created?': 'date-time',
  'external_id?': 'string',
  'required_documents?': REQUIRED_DOCUMENTS,
};

/** An address as the SDK's account holders and accounts show it. */
const ADDRESS = object({ address1: 'string', city: 'string', country: 'string', postal_code: 'string', state: 'string', 'address2?': 'string' });
const PERSON = object({
  address: ADDRESS,
  dob: 'string',
  email: 'string',
  entity_token: 'uuid',
  first_name: 'string',
  last_name: 'string',
  phone_number: 'string',
});
const BUSINESS_ENTITY = object({
  address: ADDRESS,
  dba_business_name: 'string',
  entity_token: 'uuid',
  government_id: 'string',
  legal_business_name: 'string',
  phone_numbers: arrayOf('string'),
  'parent_company?': 'string',
});

/** AccountHolder (account-holders.d.ts): a holder as retrieved or listed. */
export const ACCOUNT_HOLDER: Shape = {
  token: 'uuid',
  created: 'date-time',
  'account_token?': 'uuid',
  'beneficial_owner_entities?': arrayOf(BUSINESS_ENTITY),
  'beneficial_owner_individuals?': arrayOf(PERSON),
  'business_account_token?': 'uuid',
  'business_entity?': BUSINESS_ENTITY,
  'control_person?': PERSON,
  'email?': 'string',
  'exemption_type?': oneOf('AUTHORIZED_USER', 'PREPAID_CARD_USER'),
  'external_id?': 'string',
  'individual?': PERSON,
  'nature_of_business?': 'string',
  'phone_number?': 'string',
  'required_documents?': REQUIRED_DOCUMENTS,
  'status?': HOLDER_STATUS,
  // Not the SDK's: the spec (2.3) lists the business reasons for the holder too, and a review records them.
  'status_reasons?': STATUS_REASONS,
  'user_type?': oneOf('BUSINESS', 'INDIVIDUAL'),
  'verification_application?': object({ 'created?': 'date-time', 'status?': HOLDER_STATUS, 'status_reasons?': STATUS_REASONS, 'updated?': 'date-time' }),
  'website_url?': 'string',
};

/** Account (accounts.d.ts). */
export const ACCOUNT: Shape = {
  token: 'uuid',
  created: nullable('date-time'),
  spend_limit: object({ daily: 'integer', lifetime: 'integer', monthly: 'integer' }),
  state: oneOf('ACTIVE', 'PAUSED', 'CLOSED'),
  'account_holder?': object({ token: 'uuid', business_account_token: 'string', email: 'string', phone_number: 'string' }),
  'auth_rule_tokens?': arrayOf('uuid'),
  'cardholder_currency?': 'string',
  'comment?': 'string',
  'substatus?': oneOf('FRAUD_IDENTIFIED', 'SUSPICIOUS_ACTIVITY', 'RISK_VIOLATION', 'END_USER_REQUEST', 'ISSUER_REQUEST', 'NOT_ACTIVE', 'INTERNAL_REVIEW', 'OTHER'),
  'verification_address?': ADDRESS,
};

/** The spend limits of an account or a card: each of three objects has the same optional windows. */
function spendLimits(...windows: string[]): Shape {
  const amounts = object(Object.fromEntries(windows.map((window) => [`${window}?`, 'integer'])));
  return { available_spend_limit: amounts, 'spend_limit?': amounts, 'spend_velocity?': amounts };
}
/** AccountSpendLimits (accounts.d.ts). */
export const ACCOUNT_SPEND_LIMITS = spendLimits('daily', 'lifetime', 'monthly');
/** CardSpendLimits (cards.d.ts). */
export const CARD_SPEND_LIMITS = spendLimits('annually', 'forever', 'monthly');

/** Card (cards.d.ts; the retrieve, list and update answers are the same type). */
export const CARD: Shape = {
  token: 'uuid',
  account_token: 'uuid',
  card_program_token: 'uuid',
  created: 'date-time',
  funding: object({
    token: 'uuid',
    created: 'date-time',
    last_four: 'string',
    state: oneOf('DELETED', 'ENABLED', 'PENDING'),
    type: oneOf('DEPOSITORY_CHECKING', 'DEPOSITORY_SAVINGS'),
    'account_name?': 'string',
    'nickname?': 'string',
  }),
  last_four: 'string',
  pin_status: oneOf('OK', 'BLOCKED', 'NOT_SET'),
  spend_limit: 'integer',
  spend_limit_duration: oneOf('ANNUALLY', 'FOREVER', 'MONTHLY', 'TRANSACTION', 'DAILY'),
  state: oneOf('PAUSED', 'CLOSED', 'OPEN', 'PENDING_ACTIVATION', 'PENDING_FULFILLMENT'),
  type: oneOf('MERCHANT_LOCKED', 'PHYSICAL', 'SINGLE_USE', 'VIRTUAL', 'UNLOCKED', 'DIGITAL_WALLET'),
  'auth_rule_tokens?': arrayOf('uuid'),
  'cardholder_currency?': 'string',
  'comment?': 'string',
  'cvv?': 'string',
  'digital_card_art_token?': 'uuid',
  'exp_month?': 'string',
  'exp_year?': 'string',
  'hostname?': 'string',
  'memo?': 'string',
  'network_program_token?': nullable('uuid'),
  'pan?': 'string',
  'pending_commands?': arrayOf('string'),
  'product_id?': 'string',
  'replacement_for?': nullable('uuid'),
  'substatus?': oneOf(
    'SUSPICIOUS_ACTIVITY', 'END_USER_REQUEST', 'ISSUER_REQUEST', 'NOT_ACTIVE', 'INTERNAL_REVIEW', 'OTHER', 'LOST', 'COMPROMISED',
    'DAMAGED', 'EXPIRED', 'UNDELIVERABLE',
  ),
};

/** Transaction.result and each event's result (transactions.d.ts). */
const TRANSACTION_RESULT = oneOf(
  'ACCOUNT_PAUSED', 'ACCOUNT_STATE_TRANSACTION_FAIL', 'APPROVED', 'BANK_CONNECTION_ERROR', 'BANK_NOT_VERIFIED', 'CARD_CLOSED',
  'CARD_PAUSED', 'DECLINED', 'FRAUD_ADVICE', 'IGNORED_TTL_EXPIRY', 'SUSPECTED_FRAUD', 'INACTIVE_ACCOUNT', 'INCORRECT_PIN',
  'INVALID_CARD_DETAILS', 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS_PRELOAD', 'INVALID_TRANSACTION', 'MERCHANT_BLACKLIST',
  'ORIGINAL_NOT_FOUND', 'PREVIOUSLY_COMPLETED', 'SINGLE_USE_RECHARGED', 'SWITCH_INOPERATIVE_ADVICE', 'UNAUTHORIZED_MERCHANT',
  'UNKNOWN_HOST_TIMEOUT', 'USER_TRANSACTION_LIMIT',
);

/** An event's detailed_results and each rule result's result (transactions.d.ts). */
const DETAILED_RESULT = oneOf(
  'ACCOUNT_PAUSED', 'APPROVED', 'CARD_CLOSED', 'CARD_PAUSED', 'DECLINED', 'SUSPECTED_FRAUD', 'INSUFFICIENT_FUNDS',
  'UNAUTHORIZED_MERCHANT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED', 'ACCOUNT_DELINQUENT', 'ACCOUNT_INACTIVE',
  'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED', 'ACCOUNT_UNDER_REVIEW',
  'ADDRESS_INCORRECT', 'AUTH_RULE_ALLOWED_COUNTRY', 'AUTH_RULE_ALLOWED_MCC', 'AUTH_RULE_BLOCKED_COUNTRY',
  'AUTH_RULE_BLOCKED_MCC', 'CARD_CRYPTOGRAM_VALIDATION_FAILURE', 'CARD_EXPIRED', 'CARD_EXPIRY_DATE_INCORRECT',
  'CARD_INVALID', 'CARD_NOT_ACTIVATED', 'CARD_PIN_INCORRECT', 'CARD_RESTRICTED', 'CARD_SECURITY_CODE_INCORRECT',
  'CARD_SPEND_LIMIT_EXCEEDED', 'CONTACT_CARD_ISSUER', 'CUSTOMER_ASA_TIMEOUT', 'CUSTOM_ASA_RESULT', 'DO_NOT_HONOR',
  'DRIVER_NUMBER_INVALID', 'FORMAT_ERROR', 'INSUFFICIENT_FUNDING_SOURCE_BALANCE', 'LITHIC_SYSTEM_ERROR',
  'LITHIC_SYSTEM_RATE_LIMIT', 'MALFORMED_ASA_RESPONSE', 'MERCHANT_INVALID', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE',
  'MERCHANT_NOT_PERMITTED', 'OVER_REVERSAL_ATTEMPTED', 'PIN_BLOCKED', 'PROGRAM_CARD_SPEND_LIMIT_EXCEEDED',
  'PROGRAM_SUSPENDED', 'PROGRAM_USAGE_RESTRICTION', 'REVERSAL_UNMATCHED', 'SECURITY_VIOLATION',
  'SINGLE_USE_CARD_REATTEMPTED', 'TRANSACTION_INVALID', 'TRANSACTION_NOT_PERMITTED_TO_ACQUIRER_OR_TERMINAL',
  'TRANSACTION_NOT_PERMITTED_TO_ISSUER_OR_CARDHOLDER', 'TRANSACTION_PREVIOUSLY_COMPLETED', 'VEHICLE_NUMBER_INVALID',
);

/**
 * Transaction (transactions.d.ts); tokens are uuids, created and updated date-times. Written from
 * the SDK's fields (testing/sdk-types.ts) and kept by hand since.
 */
export const TRANSACTION: Shape = {
  token: 'uuid',
  account_token: 'uuid',
  acquirer_fee: nullable('integer'),
  acquirer_reference_number: nullable('string'),
  amount: 'integer',
  amounts: object({
    cardholder: object({ amount: 'integer', conversion_rate: 'string', currency: 'string' }),
    hold: object({ amount: 'integer', currency: 'string' }),
    merchant: object({ amount: 'integer', currency: 'string' }),
    // Not the SDK's: the spec shows conversion_rate on the transaction's settlement too (reference 03).
    settlement: object({ amount: 'integer', conversion_rate: 'string', currency: 'string' }),
  }),
  authorization_amount: nullable('integer'),
  authorization_code: nullable('string'),
  avs: nullable(object({ address: 'string', zipcode: 'string' })),
  card_token: 'uuid',
  cardholder_authentication: nullable(object({
    '3ds_version': nullable('string'),
    acquirer_exemption: oneOf(
      'AUTHENTICATION_OUTAGE_EXCEPTION', 'LOW_VALUE', 'MERCHANT_INITIATED_TRANSACTION', 'NONE', 'RECURRING_PAYMENT',
      'SECURE_CORPORATE_PAYMENT', 'STRONG_CUSTOMER_AUTHENTICATION_DELEGATION', 'TRANSACTION_RISK_ANALYSIS',
    ),
    authentication_result: oneOf('NONE', 'ATTEMPTS', 'DECLINE', 'SUCCESS'),
    decision_made_by: oneOf('CUSTOMER_RULES', 'CUSTOMER_ENDPOINT', 'LITHIC_DEFAULT', 'LITHIC_RULES', 'NETWORK', 'UNKNOWN'),
    liability_shift: oneOf('NONE', '3DS_AUTHENTICATED', 'TOKEN_AUTHENTICATED'),
    three_ds_authentication_token: nullable('uuid'),
    verification_attempted: oneOf('NONE', 'OTHER'),
    verification_result: oneOf('SUCCESS', 'CANCELLED', 'FAILED', 'FRICTIONLESS', 'NOT_ATTEMPTED', 'REJECTED'),
    'authentication_method?': oneOf('NONE', 'FRICTIONLESS', 'CHALLENGE'),
  })),
  created: 'date-time',
  financial_account_token: nullable('uuid'),
  merchant: object({
    acceptor_id: 'string',
    acquiring_institution_id: 'string',
    city: 'string',
    country: 'string',
    descriptor: 'string',
    mcc: 'string',
    state: 'string',
  }),
  merchant_amount: nullable('integer'),
  merchant_authorization_amount: nullable('integer'),
  merchant_currency: 'string',
  network: nullable(oneOf('UNKNOWN', 'AMEX', 'INTERLINK', 'MAESTRO', 'MASTERCARD', 'VISA')),
  network_risk_score: nullable('integer'),
  pos: object({
    entry_mode: object({
      card: oneOf('UNKNOWN', 'NOT_PRESENT', 'PREAUTHORIZED', 'PRESENT'),
      cardholder: oneOf(
        'UNKNOWN', 'NOT_PRESENT', 'PREAUTHORIZED', 'PRESENT', 'DEFERRED_BILLING', 'ELECTRONIC_ORDER', 'INSTALLMENT',
        'MAIL_ORDER', 'REOCCURRING', 'TELEPHONE_ORDER',
      ),
      pan: oneOf(
        'UNKNOWN', 'AUTO_ENTRY', 'BAR_CODE', 'CONTACTLESS', 'CREDENTIAL_ON_FILE', 'ECOMMERCE', 'ERROR_KEYED',
        'ERROR_MAGNETIC_STRIPE', 'ICC', 'KEY_ENTERED', 'MAGNETIC_STRIPE', 'MANUAL', 'OCR', 'SECURE_CARDLESS', 'UNSPECIFIED',
      ),
      pin_entered: 'boolean',
    }),
    terminal: object({
      attended: 'boolean',
      card_retention_capable: 'boolean',
      on_premise: 'boolean',
      operator: oneOf('UNKNOWN', 'ADMINISTRATIVE', 'CARDHOLDER', 'CARD_ACCEPTOR'),
      partial_approval_capable: 'boolean',
      pin_capability: oneOf('UNSPECIFIED', 'CAPABLE', 'INOPERATIVE', 'NOT_CAPABLE'),
      type: oneOf(
        'UNKNOWN', 'ECOMMERCE', 'ADMINISTRATIVE', 'ATM', 'AUTHORIZATION', 'COUPON_MACHINE', 'DIAL_TERMINAL', 'ECR',
        'FUEL_MACHINE', 'HOME_TERMINAL', 'MICR', 'OFF_PREMISE', 'PAYMENT', 'PDA', 'PHONE', 'POINT', 'POS_TERMINAL',
        'PUBLIC_UTILITY', 'SELF_SERVICE', 'TELEVISION', 'TELLER', 'TRAVELERS_CHECK_MACHINE', 'VENDING', 'VOICE',
      ),
      'acceptor_terminal_id?': nullable('string'),
    }),
  }),
  result: TRANSACTION_RESULT,
  settled_amount: 'integer',
  status: oneOf('DECLINED', 'EXPIRED', 'PENDING', 'SETTLED', 'VOIDED'),
  token_info: nullable(object({ wallet_type: oneOf('OTHER', 'APPLE_PAY', 'GOOGLE_PAY', 'MASTERPASS', 'MERCHANT', 'SAMSUNG_PAY') })),
  updated: 'date-time',
  'events?': arrayOf(object({
    token: 'uuid',
    amount: 'integer',
    amounts: object({
      cardholder: object({ amount: 'integer', conversion_rate: 'string', currency: 'string' }),
      merchant: object({ amount: 'integer', currency: 'string' }),
      settlement: nullable(object({ amount: 'integer', conversion_rate: 'string', currency: 'string' })),
    }),
    created: 'date-time',
    detailed_results: arrayOf(DETAILED_RESULT),
    effective_polarity: oneOf('CREDIT', 'DEBIT'),
    network_info: nullable(object({
      acquirer: nullable(object({ acquirer_reference_number: nullable('string'), retrieval_reference_number: nullable('string') })),
      amex: nullable(object({ original_transaction_id: nullable('string'), transaction_id: nullable('string') })),
      mastercard: nullable(object({
        banknet_reference_number: nullable('string'),
        original_banknet_reference_number: nullable('string'),
        original_switch_serial_number: nullable('string'),
        switch_serial_number: nullable('string'),
      })),
      visa: nullable(object({ original_transaction_id: nullable('string'), transaction_id: nullable('string') })),
    })),
    result: TRANSACTION_RESULT,
    rule_results: arrayOf(object({
      auth_rule_token: nullable('uuid'),
      explanation: nullable('string'),
      name: nullable('string'),
      result: DETAILED_RESULT,
    })),
    type: oneOf(
      'AUTHORIZATION', 'AUTHORIZATION_ADVICE', 'AUTHORIZATION_EXPIRY', 'AUTHORIZATION_REVERSAL', 'BALANCE_INQUIRY', 'CLEARING',
      'CORRECTION_CREDIT', 'CORRECTION_DEBIT', 'CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE', 'FINANCIAL_AUTHORIZATION',
      'FINANCIAL_CREDIT_AUTHORIZATION', 'RETURN', 'RETURN_REVERSAL',
    ),
    'account_type?': oneOf('CHECKING', 'SAVINGS'),
    'network_specific_data?': object({
      mastercard: object({
        ecommerce_security_level_indicator: nullable('string'),
        on_behalf_service_result: nullable(arrayOf(object({ result_1: 'string', result_2: 'string', service: 'string' }))),
        transaction_type_identifier: nullable('string'),
      }),
      visa: object({ business_application_identifier: nullable('string') }),
    }),
  })),
};

/** The event types the SDK declares (events.d.ts). */
const EVENT_TYPE = oneOf(
  'account_holder.created', 'account_holder.updated', 'account_holder.verification', 'auth_rules.performance_report.created',
  'balance.updated', 'book_transfer_transaction.created', 'card.created', 'card.renewed', 'card.reissued', 'card.converted',
  'card.shipped', 'card_transaction.updated', 'digital_wallet.tokenization_approval_request',
  'digital_wallet.tokenization_result', 'digital_wallet.tokenization_two_factor_authentication_code',
  'digital_wallet.tokenization_two_factor_authentication_code_sent', 'digital_wallet.tokenization_updated', 'dispute.updated',
  'dispute_evidence.upload_failed', 'dispute_transaction.created', 'dispute_transaction.updated',
  'external_bank_account.created', 'external_bank_account.updated', 'external_payment.created', 'external_payment.updated',
  'financial_account.created', 'financial_account.updated', 'funding_event.created', 'loan_tape.created', 'loan_tape.updated',
  'management_operation.created', 'management_operation.updated', 'network_total.created', 'network_total.updated',
  'payment_transaction.created', 'payment_transaction.updated', 'internal_transaction.created', 'internal_transaction.updated',
  'settlement_report.updated', 'statements.created', 'three_ds_authentication.created', 'three_ds_authentication.updated',
  'tokenization.approval_request', 'tokenization.result', 'tokenization.two_factor_authentication_code',
  'tokenization.two_factor_authentication_code_sent', 'tokenization.updated',
);

/** Event (events.d.ts): the payload is any object. */
export const EVENT: Shape = { token: 'uuid', created: 'date-time', event_type: EVENT_TYPE, payload: 'any-object' };

/** EventSubscription (events.d.ts). */
export const EVENT_SUBSCRIPTION: Shape = {
  token: 'uuid',
  description: 'string',
  disabled: 'boolean',
  url: 'string',
  'event_types?': nullable(arrayOf(EVENT_TYPE)),
};

/** MessageAttempt (events.d.ts): one delivery of an event to a subscription. */
export const MESSAGE_ATTEMPT: Shape = {
  token: 'uuid',
  created: 'date-time',
  event_subscription_token: 'uuid',
  event_token: 'uuid',
  response: 'string',
  response_status_code: 'integer',
  status: oneOf('SUCCESS', 'FAILED', 'PENDING', 'SENDING'),
  url: 'string',
};

/** A 3DS cardholder's billing or shipping address: every line optional and nullable. */
const THREE_DS_ADDRESS = object(
  Object.fromEntries(['address1', 'address2', 'address3', 'city', 'country', 'postal_code'].map((line) => [`${line}?`, nullable('string')])),
);

/**
 * ThreeDS.AuthenticationRetrieveResponse (three-ds/authentication.d.ts); tokens are uuids, created
 * and transaction.date_time date-times. Written from the SDK's fields (testing/sdk-types.ts) and
 * kept by hand since.
 */
export const THREE_DS_AUTHENTICATION: Shape = {
  token: 'uuid',
  account_type: nullable(oneOf('CREDIT', 'DEBIT', 'NOT_APPLICABLE')),
  authentication_result: oneOf('DECLINE', 'SUCCESS', 'PENDING_CHALLENGE', 'PENDING_DECISION'),
  card_expiry_check: oneOf('MATCH', 'MISMATCH', 'NOT_PRESENT'),
  card_token: 'uuid',
  cardholder: object({
    'address_match?': nullable('boolean'),
    'billing_address?': THREE_DS_ADDRESS,
    'email?': nullable('string'),
    'name?': nullable('string'),
    'phone_number_home?': nullable('string'),
    'phone_number_mobile?': nullable('string'),
    'phone_number_work?': nullable('string'),
    'shipping_address?': THREE_DS_ADDRESS,
  }),
  channel: oneOf('APP_BASED', 'BROWSER', 'THREE_DS_REQUESTOR_INITIATED'),
  created: 'date-time',
  merchant: object({
    risk_indicator: object({
      'delivery_email_address?': nullable('string'),
      'delivery_time_frame?': nullable(oneOf('ELECTRONIC_DELIVERY', 'OVERNIGHT_SHIPPING', 'SAME_DAY_SHIPPING', 'TWO_DAY_OR_MORE_SHIPPING')),
      'gift_card_amount?': nullable('integer'),
      'gift_card_count?': nullable('integer'),
      'gift_card_currency?': nullable('string'),
      'order_availability?': nullable(oneOf('FUTURE_AVAILABILITY', 'MERCHANDISE_AVAILABLE')),
      'pre_order_available_date?': nullable('string'),
      'reorder_items?': nullable(oneOf('FIRST_TIME_ORDERED', 'REORDERED')),
      'shipping_method?': nullable(oneOf(
        'DIGITAL_GOODS', 'LOCKER_DELIVERY', 'OTHER', 'PICK_UP_AND_GO_DELIVERY', 'SHIP_TO_BILLING_ADDRESS',
        'SHIP_TO_NON_BILLING_ADDRESS', 'SHIP_TO_OTHER_VERIFIED_ADDRESS', 'SHIP_TO_STORE', 'TRAVEL_AND_EVENT_TICKETS',
      )),
    }),
    'id?': nullable('string'),
    'country?': nullable('string'),
    'mcc?': nullable('string'),
    'name?': nullable('string'),
  }),
  message_category: oneOf('NON_PAYMENT_AUTHENTICATION', 'PAYMENT_AUTHENTICATION'),
  three_ds_requestor_challenge_indicator: oneOf(
    'OTHER', 'NO_PREFERENCE', 'NO_CHALLENGE_REQUESTED', 'CHALLENGE_PREFERENCE', 'CHALLENGE_MANDATE',
    'NO_CHALLENGE_RISK_ALREADY_ASSESSED', 'DATA_SHARE_ONLY',
  ),
  'additional_data?': nullable(object({
    'network_decision?': nullable(oneOf('LOW_RISK', 'NOT_LOW_RISK')),
    'network_risk_score?': nullable('integer'),
  })),
  'app?': nullable(object({
    'device?': nullable('string'),
    'device_info?': nullable('string'),
    'ip?': 'string',
    'latitude?': nullable('number'),
    'locale?': nullable('string'),
    'longitude?': nullable('number'),
    'os?': nullable('string'),
    'platform?': nullable('string'),
    'screen_height?': nullable('integer'),
    'screen_width?': nullable('integer'),
    'time_zone?': nullable('string'),
  })),
  'authentication_request_type?': nullable(oneOf(
    'ADD_CARD', 'BILLING_AGREEMENT', 'DELAYED_SHIPMENT', 'EMV_TOKEN_CARDHOLDER_VERIFICATION', 'INSTALLMENT_TRANSACTION',
    'MAINTAIN_CARD', 'PAYMENT_TRANSACTION', 'RECURRING_TRANSACTION', 'SPLIT_PAYMENT', 'SPLIT_SHIPMENT',
  )),
  'browser?': nullable(object({
    'accept_header?': nullable('string'),
    'ip?': nullable('string'),
    'java_enabled?': nullable('boolean'),
    'javascript_enabled?': nullable('boolean'),
    'language?': nullable('string'),
    'time_zone?': nullable('string'),
    'user_agent?': nullable('string'),
  })),
  'challenge_metadata?': nullable(object({
    method_type: oneOf('SMS_OTP', 'OUT_OF_BAND'),
    status: oneOf(
      'SUCCESS', 'PENDING', 'SMS_DELIVERY_FAILED', 'CARDHOLDER_TIMEOUT', 'CANCELED_VIA_CHALLENGE_UI', 'CANCELED_OOB',
      'ATTEMPTS_EXCEEDED', 'ABORTED', 'ERROR',
    ),
    'phone_number?': nullable('string'),
  })),
  'challenge_orchestrated_by?': nullable(oneOf('LITHIC', 'CUSTOMER', 'NO_CHALLENGE')),
  'decision_made_by?': nullable(oneOf('LITHIC_RULES', 'LITHIC_DEFAULT', 'CUSTOMER_RULES', 'CUSTOMER_ENDPOINT', 'NETWORK', 'UNKNOWN')),
  'three_ri_request_type?': nullable(oneOf(
    'ADD_CARD', 'BILLING_AGREEMENT', 'DELAYED_SHIPMENT', 'INSTALLMENT_TRANSACTION', 'RECURRING_TRANSACTION', 'SPLIT_PAYMENT',
    'SPLIT_SHIPMENT', 'ACCOUNT_VERIFICATION', 'CARD_SECURITY_CODE_STATUS_CHECK', 'DEVICE_BINDING_STATUS_CHECK', 'MAIL_ORDER',
    'MAINTAIN_CARD_INFO', 'OTHER_PAYMENT', 'TELEPHONE_ORDER', 'TOP_UP', 'TRUST_LIST_STATUS_CHECK',
  )),
  'transaction?': nullable(object({
    amount: 'integer',
    cardholder_amount: nullable('integer'),
    currency: 'string',
    currency_exponent: 'integer',
    date_time: 'date-time',
    type: nullable(oneOf(
      'ACCOUNT_FUNDING', 'CHECK_ACCEPTANCE', 'GOODS_SERVICE_PURCHASE', 'PREPAID_ACTIVATION_AND_LOAD', 'QUASI_CASH_TRANSACTION',
    )),
  })),
};
