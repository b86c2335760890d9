/**
 * A stored card transaction as the API shows it (spec 2.4, SDK `Transaction`). Every field is
 * present; what the simulated network message did not carry takes a sandbox default that says so:
 *   - network VISA (Cardwright's test BINs start with 4), network ids derived from the tokens, so
 *     they are stable and every event of a transaction links to its first one;
 *   - pos from how the card was used: a PIN entered means a card-present chip transaction at an
 *     attended terminal, otherwise card-not-present e-commerce;
 *   - cardholder_authentication: no 3-D Secure took place (NONE / NOT_ATTEMPTED);
 *   - avs, network_risk_score, token_info: null (no address check, no network score, no wallet);
 *   - acquirer_fee 0; the conversion rate is the one the transaction opened with (`Rate`).
 * Amounts: hold = still pending, settlement = settled, cardholder = the estimated final amount
 * (pending + settled), merchant = settled in the merchant's currency; credits are negative. The
 * deprecated `amount` is the pending amount while PENDING, the settled amount once SETTLED, and
 * the authorization amount otherwise (DECLINED, VOIDED, EXPIRED).
 */
import { isoTimestamp } from '../clock.js';
import type { RuleResult } from '../engine/rules-seam.js';
import { panEntryMode } from './entry-mode.js';
import type { Transaction, TransactionEvent } from './schemas.js';
import type { EventRow, TransactionRow } from './store.js';

export const SETTLEMENT_CURRENCY = 'USD';
const NETWORK = 'VISA';
const ACQUIRING_INSTITUTION_ID = '400000';

const PURPOSE_SEEDS = { 'authorization code': 0x2545f491, rrn: 0x6c8e9cf5, visa: 0x3c6ef372, arn: 0x1b873593 } as const;

/**
 * A network identifier of `length` digits for a token and a purpose: stable, different per
 * purpose. The token's random bits (its last hex digits first: a UUIDv7 starts with its time) are
 * mixed with a multiplicative hash, 8 digits per round; cheap enough for every item of a list.
 */
export function digitsOf(token: string, length: number, purpose: keyof typeof PURPOSE_SEEDS): string {
  const hex = token.replace(/-/g, '');
  let state = PURPOSE_SEEDS[purpose];
  let digits = '';
  for (let round = 0; digits.length < length; round++) {
    const offset = hex.length - 8 * ((round % 4) + 1);
    state = Math.imul(state ^ Number.parseInt(hex.slice(offset, offset + 8), 16), 0x9e3779b1) >>> 0;
    state = Math.imul(state ^ (state >>> 15), 0x85ebca6b) >>> 0;
    digits += String(state % 100_000_000).padStart(8, '0');
  }
  return digits.slice(0, length);
}

/**
 * The merchant → cardholder exchange of a transaction, fixed when it was opened: the first event's
 * amount in the settlement currency and the merchant amount the network gave for it. Later messages
 * (an advice, a partial reversal) change amounts, never the rate, so no event's amounts move.
 */
export interface Rate {
  cardholder_cents: number;
  merchant_cents: number;
}

/** The rate of a transaction: its opening event's amount against its merchant authorization amount. */
function rateOf(row: Pick<TransactionRow, 'merchant_authorization_amount_cents'>, opening: Pick<EventRow, 'amount_cents'> | undefined): Rate {
  const merchantCents = row.merchant_authorization_amount_cents;
  return { cardholder_cents: opening?.amount_cents ?? merchantCents, merchant_cents: merchantCents };
}

/** Below it, a product and its quotient in floating point round as the exact ones would. */
const EXACT_PRODUCT_MAX = 2 ** 52;

/**
 * `value` × `numerator` ÷ `denominator` for non-negative integers (`denominator` > 0), rounded half
 * up; exact for any amounts (in integers where floating point would not be).
 */
export function scaledHalfUp(value: number, numerator: number, denominator: number): number {
  const product = value * numerator;
  if (product < EXACT_PRODUCT_MAX) return Math.round(product / denominator);
  return Number((BigInt(value) * BigInt(numerator) * 2n + BigInt(denominator)) / (2n * BigInt(denominator)));
}

/**
 * Merchant-currency amount of a settlement-currency amount, at the transaction's rate. Its size
 * depends on the amount's size alone (halves round away from 0), so a reversal, a credit and a
 * debit of one amount convert to one merchant amount, signed as they are.
 */
export function merchantCents(rate: Rate, cents: number): number {
  if (rate.cardholder_cents === 0 || rate.merchant_cents === 0) return cents;
  const size = scaledHalfUp(Math.abs(cents), Math.abs(rate.merchant_cents), Math.abs(rate.cardholder_cents));
  const negative = Math.sign(cents) * Math.sign(rate.merchant_cents) * Math.sign(rate.cardholder_cents) < 0;
  return negative && size !== 0 ? -size : size;
}

/** Merchant → cardholder rate, six decimals (e.g. "1.000000"). */
export function conversionRate(rate: Rate): string {
  if (rate.cardholder_cents === 0 || rate.merchant_cents === 0) return (1).toFixed(6);
  return (rate.cardholder_cents / rate.merchant_cents).toFixed(6);
}

/**
 * The events of the clearing records an acquirer sends when a dual-message transaction settles: a
 * clearing, a return and its reversal. A single-message transaction (FINANCIAL_AUTHORIZATION,
 * FINANCIAL_CREDIT_AUTHORIZATION) settles, and has its return reversed, without one: SDK 0.119
 * documents the ARN as "applicable to dual-message transactions only".
 */
const CLEARING_RECORD_EVENTS: readonly string[] = ['CLEARING', 'RETURN', 'RETURN_REVERSAL'];
const SINGLE_MESSAGE_KINDS: readonly string[] = ['FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'];

/** An approved clearing record of a dual-message transaction: it carries an acquirer reference number. */
function carriesArn(row: Pick<TransactionRow, 'kind'>, event: EventRow): boolean {
  return CLEARING_RECORD_EVENTS.includes(event.type) && event.result === 'APPROVED' && !SINGLE_MESSAGE_KINDS.includes(row.kind);
}

function acquirerReferenceNumber(row: Pick<TransactionRow, 'kind'>, event: EventRow | undefined): string | null {
  return event !== undefined && carriesArn(row, event) ? digitsOf(event.token, 23, 'arn') : null;
}

function networkInfo(row: TransactionRow, event: EventRow): TransactionEvent['network_info'] {
  const visaTransactionId = digitsOf(row.token, 15, 'visa');
  const first = event.seq === 0;
  return {
    acquirer: {
      acquirer_reference_number: acquirerReferenceNumber(row, event),
      retrieval_reference_number: digitsOf(row.token, 12, 'rrn'),
    },
    amex: null,
    mastercard: null,
    visa: { original_transaction_id: first ? null : visaTransactionId, transaction_id: first ? visaTransactionId : digitsOf(event.token, 15, 'visa') },
  };
}

const NETWORK_SPECIFIC_DATA: TransactionEvent['network_specific_data'] = {
  mastercard: { ecommerce_security_level_indicator: null, on_behalf_service_result: null, transaction_type_identifier: null },
  visa: { business_application_identifier: null },
};

function eventToApi(row: TransactionRow, rate: Rate, event: EventRow): TransactionEvent {
  const rateText = conversionRate(rate);
  return {
    token: event.token,
    amount: event.amount_cents,
    amounts: {
      cardholder: { amount: event.amount_cents, conversion_rate: rateText, currency: SETTLEMENT_CURRENCY },
      merchant: { amount: merchantCents(rate, event.amount_cents), currency: row.merchant_currency },
      settlement: event.settlement_cents === null ? null : { amount: event.settlement_cents, conversion_rate: rateText, currency: SETTLEMENT_CURRENCY },
    },
    created: isoTimestamp(event.created_ms),
    detailed_results: JSON.parse(event.detailed_results) as TransactionEvent['detailed_results'],
    effective_polarity: event.effective_polarity,
    network_info: networkInfo(row, event),
    result: event.result as TransactionEvent['result'],
    rule_results: JSON.parse(event.rule_results) as RuleResult[] as TransactionEvent['rule_results'],
    type: event.type as TransactionEvent['type'],
    network_specific_data: NETWORK_SPECIFIC_DATA,
  };
}

function pos(row: TransactionRow): Transaction['pos'] {
  const present = row.card_present === 1;
  return {
    entry_mode: present
      ? { card: 'PRESENT', cardholder: 'PRESENT', pan: panEntryMode(true), pin_entered: true }
      : { card: 'NOT_PRESENT', cardholder: 'ELECTRONIC_ORDER', pan: panEntryMode(false), pin_entered: false },
    terminal: {
      attended: present,
      card_retention_capable: false,
      on_premise: present,
      operator: present ? 'CARD_ACCEPTOR' : 'CARDHOLDER',
      partial_approval_capable: row.partial_approval_capable === 1,
      pin_capability: present ? 'CAPABLE' : 'NOT_CAPABLE',
      type: present ? 'POS_TERMINAL' : 'ECOMMERCE',
      acceptor_terminal_id: null,
    },
  };
}

const NO_3DS: NonNullable<Transaction['cardholder_authentication']> = {
  '3ds_version': null,
  acquirer_exemption: 'NONE',
  authentication_result: 'NONE',
  decision_made_by: 'UNKNOWN',
  liability_shift: 'NONE',
  three_ds_authentication_token: null,
  verification_attempted: 'NONE',
  verification_result: 'NOT_ATTEMPTED',
  authentication_method: 'NONE',
};

/** The deprecated `amount`: pending while PENDING, settled once SETTLED, else what was asked. */
function headlineCents(row: TransactionRow): number {
  if (row.status === 'PENDING') return row.hold_cents;
  if (row.status === 'SETTLED') return row.settled_cents;
  return row.authorization_amount_cents;
}

/** `events` are the transaction's events in order (the first one opened it). */
export function toApi(row: TransactionRow, events: readonly EventRow[]): Transaction {
  const rate = rateOf(row, events[0]);
  const rateText = conversionRate(rate);
  // The deprecated transaction-level ARN is the one of its first clearing record (a clearing, a
  // return), as that event's network_info shows it.
  const arn = acquirerReferenceNumber(row, events.find((event) => carriesArn(row, event)));
  const amount = headlineCents(row);
  return {
    token: row.token,
    account_token: row.account_token,
    card_token: row.card_token,
    financial_account_token: row.financial_account_token,
    acquirer_fee: 0,
    acquirer_reference_number: arn,
    amount,
    amounts: {
      cardholder: { amount: row.hold_cents + row.settled_cents, conversion_rate: rateText, currency: SETTLEMENT_CURRENCY },
      hold: { amount: row.hold_cents, currency: SETTLEMENT_CURRENCY },
      merchant: { amount: merchantCents(rate, row.settled_cents), currency: row.merchant_currency },
      settlement: { amount: row.settled_cents, conversion_rate: rateText, currency: SETTLEMENT_CURRENCY },
    },
    authorization_amount: row.authorization_amount_cents,
    authorization_code: row.status === 'DECLINED' ? null : digitsOf(row.token, 6, 'authorization code'),
    avs: null,
    cardholder_authentication: NO_3DS,
    created: isoTimestamp(row.created_ms),
    updated: isoTimestamp(row.updated_ms),
    merchant: {
      acceptor_id: row.merchant_acceptor_id,
      acquiring_institution_id: ACQUIRING_INSTITUTION_ID,
      city: row.merchant_city,
      country: row.merchant_country,
      descriptor: row.merchant_descriptor,
      mcc: row.merchant_mcc,
      state: row.merchant_state,
    },
    merchant_amount: merchantCents(rate, amount),
    merchant_authorization_amount: merchantCents(rate, row.authorization_amount_cents),
    merchant_currency: row.merchant_currency,
    network: NETWORK,
    network_risk_score: null,
    pos: pos(row),
    result: row.result as Transaction['result'],
    settled_amount: row.settled_cents,
    status: row.status,
    token_info: null,
    events: events.map((event) => eventToApi(row, rate, event)),
  };
}
