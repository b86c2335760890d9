/**
 * The money resources' shapes, each a hand-kept copy of its SDK 0.119 type
 * (node_modules/lithic/resources): money_events/shapes.test.ts checks live answers against them,
 * sdk-shapes.unit.test.ts checks them against the SDK's declarations. Where the reference chose
 * otherwise, the shape says so (a comment on the line).
 */
import { arrayOf, nullable, object, oneOf, type Shape } from './shapes.js';
const BALANCE_TYPES = oneOf('ISSUING', 'OPERATING', 'RESERVE', 'SECURITY');
const RESULT = oneOf('APPROVED', 'DECLINED');
const FAMILY = oneOf('CARD', 'PAYMENT', 'TRANSFER', 'INTERNAL', 'EXTERNAL_PAYMENT', 'MANAGEMENT_OPERATION');
const TRANSACTION_STATUS = oneOf('PENDING', 'SETTLED', 'DECLINED', 'REVERSED', 'CANCELED');
const TRANSACTION_SERIES = nullable(object({ related_transaction_event_token: nullable('uuid'), related_transaction_token: nullable('uuid'), type: 'string' }));
const EXTERNAL_RESOURCE = nullable(
  object({ external_resource_token: 'string', external_resource_type: oneOf('STATEMENT', 'COLLECTION', 'DISPUTE', 'UNKNOWN'), 'external_resource_sub_token?': 'string' }),
);

/** FinancialAccount (financial-accounts.d.ts). */
export const FINANCIAL_ACCOUNT: Shape = {
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
export const FINANCIAL_ACCOUNT_BALANCE: Shape = { token: 'uuid', type: BALANCE_TYPES, ...BALANCE_AMOUNTS };
/** Balance (balances.d.ts). */
export const PROGRAM_BALANCE: Shape = { financial_account_token: 'uuid', financial_account_type: BALANCE_TYPES, ...BALANCE_AMOUNTS };

/** FinancialTransaction (financial-accounts.d.ts). */
export const FINANCIAL_TRANSACTION: Shape = {
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
export const EXTERNAL_BANK_ACCOUNT: Shape = {
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
export const EXTERNAL_PAYMENT: Shape = {
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
export const BOOK_TRANSFER: Shape = {
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
export const MANAGEMENT_OPERATION: Shape = {
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
