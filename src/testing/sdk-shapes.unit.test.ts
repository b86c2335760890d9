/**
 * The hand-kept response shapes (testing/money-shapes.ts, resource-shapes.ts, auth-rule-shapes.ts,
 * reply-shapes.ts) are what the `lithic` 0.119 SDK's types declare, read from its .d.ts files by
 * the TypeScript compiler (testing/sdk-types.ts): same keys, optionality, nullability, JSON types,
 * enum values and union variants. Where a copy deliberately differs, the difference is listed below
 * with its reason, so any other drift, and any listed difference that no longer occurs, fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as authRuleCopies from './auth-rule-shapes.js';
import * as moneyCopies from './money-shapes.js';
import * as replyCopies from './reply-shapes.js';
import * as resourceCopies from './resource-shapes.js';
import { sdkFields, shapeDrift, shapeFields } from './sdk-types.js';
import { nullable, oneOf, type Shape } from './shapes.js';

const copies = { ...moneyCopies, ...resourceCopies, ...authRuleCopies, ...replyCopies };

/** Each copy, the SDK types (as `Lithic.<name>`) it copies, and its deliberate differences (why). */
const COPIES: Record<string, { shape: Shape; sdkTypes: string[]; deliberate?: Record<string, string> }> = {
  FINANCIAL_ACCOUNT: { shape: copies.FINANCIAL_ACCOUNT, sdkTypes: ['FinancialAccount'] },
  FINANCIAL_ACCOUNT_BALANCE: { shape: copies.FINANCIAL_ACCOUNT_BALANCE, sdkTypes: ['FinancialAccounts.BalanceListResponse'] },
  PROGRAM_BALANCE: { shape: copies.PROGRAM_BALANCE, sdkTypes: ['Balance'] },
  FINANCIAL_TRANSACTION: {
    shape: copies.FINANCIAL_TRANSACTION,
    sdkTypes: ['FinancialTransaction'],
    deliberate: {
      'events[].type: enum value MICRO_DEPOSIT not in the SDK type': 'a sandbox micro-deposit round shows its deposits apart (README)',
      'events[].type: enum value MICRO_DEPOSIT_WITHDRAWAL not in the SDK type': 'the same, for the withdrawal that takes them back',
    },
  },
  EXTERNAL_BANK_ACCOUNT: {
    shape: copies.EXTERNAL_BANK_ACCOUNT,
    sdkTypes: [
      'ExternalBankAccountCreateResponse',
      'ExternalBankAccountRetrieveResponse',
      'ExternalBankAccountUpdateResponse',
      'ExternalBankAccountListResponse',
      'ExternalBankAccountRetryMicroDepositsResponse',
      'ExternalBankAccountRetryPrenoteResponse',
      'ExternalBankAccounts.MicroDepositCreateResponse',
    ],
    deliberate: {
      'account_token: nullable in the copy, not nullable in the SDK': "the type's own comment says it is null for the program's accounts",
      'verification_method: enum value EXTERNALLY_VERIFIED not in the SDK type': "the request's method is echoed (reference 06); RetryPrenoteResponse declares it",
      'verification_method: enum value UNVERIFIED not in the SDK type': 'the same',
    },
  },
  EXTERNAL_PAYMENT: { shape: copies.EXTERNAL_PAYMENT, sdkTypes: ['ExternalPayment'] },
  BOOK_TRANSFER: {
    shape: copies.BOOK_TRANSFER,
    sdkTypes: ['BookTransferResponse'],
    deliberate: { 'events[].detailed_results: array in the copy, string in the SDK': '0.119 types one string; Lithic answers an array (reference 07)' },
  },
  MANAGEMENT_OPERATION: { shape: copies.MANAGEMENT_OPERATION, sdkTypes: ['ManagementOperationTransaction'] },
  ACCOUNT_HOLDER_CREATED: { shape: copies.ACCOUNT_HOLDER_CREATED, sdkTypes: ['AccountHolderCreateResponse'] },
  ACCOUNT_HOLDER: {
    shape: copies.ACCOUNT_HOLDER,
    sdkTypes: ['AccountHolder'],
    deliberate: Object.fromEntries(
      ['status_reasons[]', 'verification_application.status_reasons[]'].flatMap((path) =>
        copies.BUSINESS_STATUS_REASONS.map((reason) => [`${path}: enum value ${reason} not in the SDK type`, 'the spec (2.3) lists the business reasons for the holder too']),
      ),
    ),
  },
  ACCOUNT: { shape: copies.ACCOUNT, sdkTypes: ['Account'] },
  ACCOUNT_SPEND_LIMITS: { shape: copies.ACCOUNT_SPEND_LIMITS, sdkTypes: ['AccountSpendLimits'] },
  CARD_SPEND_LIMITS: { shape: copies.CARD_SPEND_LIMITS, sdkTypes: ['CardSpendLimits'] },
  CARD: {
    shape: copies.CARD,
    sdkTypes: ['Card', 'NonPCICard'],
    deliberate: {
      'cvv: not in the SDK type': 'one copy serves Card and the NonPCICard of lists, which lacks the PAN and CVV (lists never answer them)',
      'pan: not in the SDK type': 'the same',
    },
  },
  THREE_DS_AUTHENTICATION: { shape: copies.THREE_DS_AUTHENTICATION, sdkTypes: ['ThreeDS.AuthenticationRetrieveResponse'] },
  TRANSACTION: {
    shape: copies.TRANSACTION,
    sdkTypes: ['Transaction'],
    deliberate: { 'amounts.settlement.conversion_rate: not in the SDK type': 'the spec shows it on the transaction’s settlement too (reference 03)' },
  },
  EVENT: { shape: copies.EVENT, sdkTypes: ['Event'] },
  EVENT_SUBSCRIPTION: { shape: copies.EVENT_SUBSCRIPTION, sdkTypes: ['EventSubscription'] },
  MESSAGE_ATTEMPT: { shape: copies.MESSAGE_ATTEMPT, sdkTypes: ['MessageAttempt'] },
  AUTH_RULE: {
    shape: copies.AUTH_RULE,
    sdkTypes: ['V2CreateResponse', 'V2RetrieveResponse', 'V2ListResponse', 'V2UpdateResponse', 'V2DraftResponse', 'V2PromoteResponse'].map((name) => `AuthRules.${name}`),
    deliberate: { 'type: enum value CONDITIONAL_3DS_ACTION not in the SDK type': 'the spec (2.1) types 3DS rules CONDITIONAL_3DS_ACTION; 0.119 says CONDITIONAL_ACTION (reference 01)' },
  },
  AUTH_RULE_REPORT: { shape: copies.AUTH_RULE_REPORT, sdkTypes: ['AuthRules.V2RetrieveReportResponse'] },
  ACCOUNT_HOLDER_REPLY: {
    shape: copies.ACCOUNT_HOLDER_REPLY,
    sdkTypes: ['AccountHolderUpdateResponse.KYBKYCPatchResponse', 'AccountHolderSimulateEnrollmentReviewResponse'],
    deliberate: Object.fromEntries(
      ['status', 'verification_application.status'].map((path) => [
        `${path}: enum value PENDING_REVIEW not in the SDK type`,
        'a KYB_BASIC holder waits in PENDING_REVIEW (reference 02), and can be patched meanwhile',
      ]),
    ),
  },
  ACCOUNT_HOLDER_PATCHED: { shape: copies.ACCOUNT_HOLDER_PATCHED, sdkTypes: ['AccountHolderUpdateResponse.PatchResponse'] },
  SUBSCRIPTION_SECRET: { shape: copies.SUBSCRIPTION_SECRET, sdkTypes: ['Events.SubscriptionRetrieveSecretResponse', 'ThreeDS.DecisioningRetrieveSecretResponse'] },
  SIMULATED_TRANSACTION: {
    shape: copies.SIMULATED_TRANSACTION,
    sdkTypes: [
      'TransactionSimulateAuthorizationResponse',
      'TransactionSimulateAuthorizationAdviceResponse',
      'TransactionSimulateCreditAuthorizationAdviceResponse',
      'TransactionSimulateReturnResponse',
    ],
  },
  SIMULATED_EVENT: {
    shape: copies.SIMULATED_EVENT,
    sdkTypes: ['TransactionSimulateClearingResponse', 'TransactionSimulateVoidResponse', 'TransactionSimulateReturnReversalResponse'],
  },
  SIMULATED_THREE_DS_AUTHENTICATION: { shape: copies.SIMULATED_THREE_DS_AUTHENTICATION, sdkTypes: ['ThreeDS.AuthenticationSimulateResponse'] },
};

let sdk: ReturnType<typeof sdkFields>;
beforeAll(() => {
  sdk = sdkFields(Object.values(COPIES).flatMap(({ sdkTypes }) => sdkTypes));
});

it('maps every shape those files export to the SDK types it copies', () => {
  const exportedShapes = Object.entries(copies).filter(([, value]) => !Array.isArray(value));
  expect(exportedShapes.map(([name]) => name).sort()).toEqual(Object.keys(COPIES).sort());
});

describe.each(Object.entries(COPIES))('%s', (_copy, { shape, sdkTypes, deliberate = {} }) => {
  const driftFrom = (sdkType: string) => shapeDrift(shapeFields(shape), sdk.get(sdkType)!);

  it.each(sdkTypes)('differs from Lithic.%s only where listed', (sdkType) => {
    expect(driftFrom(sdkType).filter((line) => !(line in deliberate))).toEqual([]);
  });

  it('still differs in each listed way from one of its SDK types', () => {
    const seen = new Set(sdkTypes.flatMap(driftFrom));
    expect(Object.keys(deliberate).filter((line) => !seen.has(line))).toEqual([]);
  });
});

describe('shapeDrift', () => {
  it('names each kind of difference once, by its path', () => {
    const { account_token: _token, status: _status, nickname: _nickname, ...rest } = copies.FINANCIAL_ACCOUNT;
    const drifted: Shape = { ...rest, 'status?': oneOf('OPEN', 'CLOSED', 'FROZEN'), nickname: 'string', account_number: nullable('integer'), 'extra?': 'string' };
    expect(shapeDrift(shapeFields(drifted), sdk.get('FinancialAccount')!)).toEqual([
      'account_number: not optional in the copy, optional in the SDK',
      'account_number: number in the copy, string in the SDK',
      'account_token: missing from the copy',
      'extra: not in the SDK type',
      'nickname: not nullable in the copy, nullable in the SDK',
      'status: optional in the copy, not optional in the SDK',
      'status: enum value PENDING missing from the copy',
      'status: enum value SUSPENDED missing from the copy',
      'status: enum value FROZEN not in the SDK type',
    ]);
  });

  it('does not compare the fields inside an object the copy lacks or types otherwise', () => {
    const { credit_configuration: _credit, ...rest } = copies.FINANCIAL_ACCOUNT;
    expect(shapeDrift(shapeFields(rest), sdk.get('FinancialAccount')!)).toEqual(['credit_configuration: missing from the copy']);
    expect(shapeDrift(shapeFields({ ...rest, credit_configuration: nullable('string') }), sdk.get('FinancialAccount')!)).toEqual([
      'credit_configuration: string in the copy, object in the SDK',
    ]);
  });
});
