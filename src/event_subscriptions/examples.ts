/**
 * Example payloads for `POST /v1/simulate/event_subscriptions/{token}/send_example`. For each type
 * of event Cardwright records, the payload has the shape of the real one (same fields, types and
 * nulls), made by the functions that make the real one (the resource's `toApi`, or its event's
 * payload function) from an example row: plausible sandbox values (a KYC individual, a $15.00 card
 * authorization, a $10.00 book transfer…), new tokens that nothing in the program has, dated now.
 * Each is marked `example: true`. A type Cardwright never records (EVENT_TYPES lists Lithic's) gets
 * only `{token, created, example}` (`card_token` for card events).
 */
import * as accountHolders from '../account_holders/service.js';
import type { Profile } from '../account_holders/profile.js';
import type { Address, Person } from '../account_holders/schemas.js';
import * as bookTransfers from '../book_transfers/service.js';
import * as cards from '../cards/service.js';
import { shippedPayload } from '../cards/jobs.js';
import { isoDate, isoTimestamp } from '../clock.js';
import type { EventType } from '../events/types.js';
import * as externalBankAccounts from '../external_bank_accounts/service.js';
import * as externalPayments from '../external_payments/service.js';
import * as financialAccounts from '../financial_accounts/service.js';
import { newToken } from '../ids.js';
import { balancesUpdatedPayload } from '../ledger/ledger.js';
import * as managementOperations from '../management_operations/service.js';
import { APPROVED } from '../money_events/events.js';
import type { MoneyEventsTable } from '../money_events/tables.js';
import type { ProgramScope } from '../programs/scope.js';
import * as threeDs from '../three_ds/service.js';
import { toApi as transactionToApi } from '../transactions/render.js';

type Scope = Pick<ProgramScope, 'programId' | 'nowMs'>;

const ADDRESS: Address = { address1: '5 Broad Street', city: 'New York', country: 'USA', postal_code: '10001', state: 'NY' };

/** An ACCEPTED KYC_BASIC individual, as GET answers it. */
function holder({ programId, nowMs }: Scope) {
  const individual: Person = {
    entity_token: newToken(),
    first_name: 'Jane',
    last_name: 'Doe',
    email: 'jane.doe@example.com',
    phone_number: '+15555550100',
    dob: '1990-04-12',
    address: ADDRESS,
  };
  return accountHolders.toApi({
    program_id: programId,
    token: newToken(),
    account_token: newToken(),
    workflow: 'KYC_BASIC',
    user_type: 'INDIVIDUAL',
    status: 'ACCEPTED',
    status_reasons: '[]',
    verification_created_ms: nowMs,
    verification_updated_ms: nowMs,
    exemption_type: null,
    business_account_token: null,
    external_id: null,
    email: individual.email,
    email_lower: individual.email,
    phone_number: individual.phone_number ?? null,
    first_name: individual.first_name,
    last_name: individual.last_name,
    legal_business_name: null,
    nature_of_business: null,
    website_url: null,
    tos_timestamp: isoTimestamp(nowMs),
    passed_timestamp: null,
    profile: JSON.stringify({ individual } satisfies Profile),
    government_ids_encrypted: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  });
}

/** A client's OPEN OPERATING account. */
function financialAccount({ programId, nowMs }: Scope) {
  return financialAccounts.toApi({
    program_id: programId,
    token: newToken(),
    account_token: null,
    type: 'OPERATING',
    nickname: 'Example operating',
    status: 'OPEN',
    substatus: null,
    is_for_benefit_of: 0,
    account_number: '123456789012',
    routing_number: financialAccounts.SANDBOX_ROUTING_NUMBER,
    credit_configuration: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  });
}

/** An approved event of a ledger transaction (external payment, book transfer, management operation). */
function moneyEvent({ programId, nowMs }: Scope, transactionToken: string, seq: number, event: Pick<MoneyEventsTable, 'type' | 'amount_cents' | 'effective_date' | 'subtype'>): MoneyEventsTable {
  const approved = { result: 'APPROVED', detailed_results: JSON.stringify(APPROVED) } as const;
  return { program_id: programId, transaction_token: transactionToken, seq, token: newToken(), ...approved, memo: '', created_ms: nowMs, ...event };
}

/** A $10.00 peer-to-peer transfer between two accounts of the program, settled. */
function bookTransfer(scope: Scope) {
  const token = newToken();
  const amountCents = 1_000;
  const row = {
    program_id: scope.programId,
    token,
    category: 'TRANSFER',
    type: 'ACCOUNT_TO_ACCOUNT',
    subtype: 'P2P',
    from_financial_account_token: newToken(),
    to_financial_account_token: newToken(),
    status: 'SETTLED',
    result: 'APPROVED',
    amount_cents: amountCents,
    pending_amount_cents: 0,
    settled_amount_cents: amountCents,
    external_id: null,
    credit_in_suspense: 0,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  } as const;
  return bookTransfers.toApi(row, [moneyEvent(scope, token, 0, { type: 'ACCOUNT_TO_ACCOUNT', amount_cents: amountCents, effective_date: null, subtype: 'P2P' })]);
}

/** A $15.00 e-commerce authorization at a coffee shop, approved and pending. */
function cardTransaction({ programId, nowMs }: Scope) {
  const token = newToken();
  const amountCents = 1_500;
  const row = {
    program_id: programId,
    token,
    account_token: newToken(),
    card_token: newToken(),
    financial_account_token: newToken(),
    kind: 'AUTHORIZATION',
    status: 'PENDING',
    result: 'APPROVED',
    authorization_amount_cents: amountCents,
    hold_cents: amountCents,
    settled_cents: 0,
    merchant_authorization_amount_cents: amountCents,
    merchant_currency: 'USD',
    spend_cents: amountCents,
    counts_as_spend: 1,
    return_reversed: 0,
    merchant_acceptor_id: 'COFFEESHOP',
    merchant_descriptor: 'COFFEE SHOP',
    merchant_mcc: '5814',
    merchant_city: 'NEW YORK',
    merchant_country: 'USA',
    merchant_state: 'NY',
    card_present: 0,
    partial_approval_capable: 0,
    expires_ms: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  } as const;
  const event = {
    program_id: programId,
    transaction_token: token,
    seq: 0,
    token: newToken(),
    type: 'AUTHORIZATION',
    amount_cents: amountCents,
    settlement_cents: null,
    effective_polarity: 'DEBIT',
    result: 'APPROVED',
    detailed_results: JSON.stringify(APPROVED),
    rule_results: '[]',
    created_ms: nowMs,
  } as const;
  return transactionToApi(row, [event]);
}

/** The program's checking account at another bank, verified by hand (MANUAL), funded from an OPERATING account. */
function externalBankAccount({ programId, nowMs }: Scope) {
  return externalBankAccounts.toApi({
    program_id: programId,
    token: newToken(),
    account_token: null,
    financial_account_token: newToken(),
    country: 'USA',
    currency: 'USD',
    account_number_encrypted: '', // never answered
    last_four: '4567',
    owner: 'Ada Lovelace',
    owner_type: 'INDIVIDUAL',
    routing_number: '021000021',
    state: 'ENABLED',
    type: 'CHECKING',
    verification_attempts: 0,
    verification_method: 'MANUAL',
    verification_state: 'ENABLED',
    verification_failed_reason: null,
    micro_deposits_encrypted: null,
    prenote_due_ms: null,
    address: null,
    company_id: null,
    dob: null,
    doing_business_as: null,
    name: null,
    user_defined_id: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  });
}

/** A $5.00 ACH deposit: initiated (created), or also settled and released (updated). */
function externalPayment(scope: Scope, steps: readonly ('INITIATED' | 'SETTLED' | 'RELEASED')[]) {
  const token = newToken();
  const amountCents = 500;
  const released = steps.includes('RELEASED');
  const row = {
    program_id: scope.programId,
    token,
    category: 'EXTERNAL_ACH',
    payment_type: 'DEPOSIT',
    financial_account_token: newToken(),
    status: released ? 'SETTLED' : 'PENDING',
    result: 'APPROVED',
    is_settled: steps.includes('SETTLED') ? 1 : 0,
    amount_cents: amountCents,
    pending_amount_cents: released ? 0 : amountCents,
    settled_amount_cents: released ? amountCents : 0,
    user_defined_id: null,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  } as const;
  const effectiveDate = isoDate(scope.nowMs);
  const events = steps.map((step, seq) => moneyEvent(scope, token, seq, { type: `EXTERNAL_ACH_${step}`, amount_cents: amountCents, effective_date: effectiveDate, subtype: null }));
  return externalPayments.toApi(row, events);
}

/** A $100.00 provisional credit to an account, effective today: settled (created), or reversed (updated). */
function managementOperation(scope: Scope, reversed: boolean) {
  const token = newToken();
  const amountCents = 10_000;
  const effectiveDate = isoDate(scope.nowMs);
  const row = {
    program_id: scope.programId,
    token,
    category: 'MANAGEMENT_ADJUSTMENT',
    direction: 'CREDIT',
    event_type: 'PROVISIONAL_CREDIT',
    subtype: null,
    financial_account_token: newToken(),
    status: reversed ? 'REVERSED' : 'SETTLED',
    result: 'APPROVED',
    amount_cents: amountCents,
    pending_amount_cents: 0,
    settled_amount_cents: reversed ? 0 : amountCents,
    effective_date: effectiveDate,
    user_defined_id: null,
    credit_in_suspense: 0,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  } as const;
  const types = reversed ? ['PROVISIONAL_CREDIT', 'PROVISIONAL_CREDIT_REVERSAL'] : ['PROVISIONAL_CREDIT'];
  const events = types.map((type, seq) => moneyEvent(scope, token, seq, { type, amount_cents: amountCents, effective_date: effectiveDate, subtype: null }));
  return managementOperations.toApi(row, events);
}

/** A $25.00 purchase at a grocer authenticated at once (created), or after the cardholder passed a challenge (updated). */
function threeDsAuthentication({ programId, nowMs }: Scope, challenged: boolean) {
  return threeDs.toApi({
    program_id: programId,
    token: newToken(),
    card_token: newToken(),
    account_token: newToken(),
    authentication_result: 'SUCCESS',
    challenge_status: challenged ? 'SUCCESS' : null,
    challenge_phone_number: challenged ? '+15555550100' : null,
    decision_made_by: 'LITHIC_DEFAULT',
    card_expiry_check: 'MATCH',
    message_category: 'PAYMENT_AUTHENTICATION',
    merchant_id: 'M-1',
    merchant_country: 'USA',
    merchant_mcc: '5411',
    merchant_name: challenged ? 'GROCER CHALLENGE' : 'GROCER',
    amount_cents: 2_500,
    currency: 'USD',
    created_ms: nowMs,
  });
}

/** The example payload of each type Cardwright records. */
const EXAMPLES: Partial<Record<EventType, (scope: Scope) => object>> = {
  'account_holder.created': (scope) => accountHolders.createdEventPayload(holder(scope)),
  'account_holder.updated': holder,
  'account_holder.verification': (scope) => accountHolders.verificationEventPayload(holder(scope)),
  'balance.updated': ({ nowMs }) =>
    balancesUpdatedPayload([
      {
        financial_account_token: newToken(),
        financial_account_type: 'ISSUING',
        available_cents: 8_500,
        pending_cents: 1_500,
        last_transaction_token: newToken(),
        last_transaction_event_token: newToken(),
        created_ms: nowMs,
        updated_ms: nowMs,
      },
    ]),
  'book_transfer_transaction.created': bookTransfer,
  'card.created': () => cards.createdEventPayload(newToken(), null),
  'card.shipped': () => shippedPayload({ token: newToken(), shipping: JSON.stringify({ shipping_method: 'STANDARD' }) }),
  'card_transaction.updated': cardTransaction,
  'external_bank_account.created': externalBankAccount,
  'external_bank_account.updated': externalBankAccount,
  'external_payment.created': (scope) => externalPayment(scope, ['INITIATED']),
  'external_payment.updated': (scope) => externalPayment(scope, ['INITIATED', 'SETTLED', 'RELEASED']),
  'financial_account.created': financialAccount,
  'financial_account.updated': financialAccount,
  'management_operation.created': (scope) => managementOperation(scope, false),
  'management_operation.updated': (scope) => managementOperation(scope, true),
  'three_ds_authentication.created': (scope) => threeDsAuthentication(scope, false),
  'three_ds_authentication.updated': (scope) => threeDsAuthentication(scope, true),
};

/** The payload of an example event of `eventType` in the program of `scope`, at its time. */
export function exampleFor(eventType: EventType, scope: Scope): Record<string, unknown> {
  const example = EXAMPLES[eventType];
  if (example !== undefined) return { ...example(scope), example: true };
  const tokenField = eventType.startsWith('card.') ? 'card_token' : 'token';
  return { [tokenField]: newToken(), created: isoTimestamp(scope.nowMs), example: true };
}
