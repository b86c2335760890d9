/**
 * What each network message does to a card transaction: its status, its amounts, the event it
 * appends, and the ledger movement it posts. Pure: the service loads and locks, calls one of these,
 * then writes what it returns, all in one database transaction.
 *
 * Amounts are signed from the cardholder's side (reference 03: credits negative). Debit kinds:
 * AUTHORIZATION, FINANCIAL_AUTHORIZATION, BALANCE_INQUIRY (0). Credit kinds: CREDIT_AUTHORIZATION,
 * CREDIT_AUTHORIZATION_ADVICE, FINANCIAL_CREDIT_AUTHORIZATION, RETURN. An event's amount carries the
 * sign of its effect: a reversal or expiry of a debit hold is a CREDIT (negative), a return
 * reversal a DEBIT (positive); `effective_polarity` says the same in words.
 *
 * States: dual-message kinds start PENDING (AUTHORIZATION, CREDIT_AUTHORIZATION, CREDIT_AUTHORIZATION_ADVICE)
 * and end SETTLED (clearing, once: a partial clearing settles too), VOIDED (reversals down to 0) or
 * EXPIRED; single-message kinds and BALANCE_INQUIRY are SETTLED at once; declines are DECLINED.
 * A RETURN_REVERSAL leaves a settled credit SETTLED with nothing settled left.
 *
 * Ledger postings (FA = the card account's ISSUING financial account, NET = the CARD_NETWORK system
 * account; a = amount, h = pending amount, c = cleared amount, r = released amount, all ≥ 0):
 *
 *   | message                              | journal kind                    | FA.available | FA.pending | NET       |
 *   |--------------------------------------|---------------------------------|--------------|------------|-----------|
 *   | AUTHORIZATION approved               | CARD_AUTHORIZATION_HOLD         | −a           | +a         |           |
 *   | AUTHORIZATION_ADVICE (debit h → a)   | CARD_AUTHORIZATION_ADVICE       | −(a−h)       | +(a−h)     |           |
 *   | CLEARING of a debit                  | CARD_CLEARING                   | −(c−h)       | −h         | +c        |
 *   | AUTHORIZATION_REVERSAL / _EXPIRY     | CARD_AUTHORIZATION_RELEASE      | +r           | −r         |           |
 *   | FINANCIAL_AUTHORIZATION approved     | CARD_FINANCIAL_AUTHORIZATION    | −a           |            | +a        |
 *   | CREDIT_AUTHORIZATION(_ADVICE) approved | CARD_CREDIT_AUTHORIZATION     |              | +a         | −a        |
 *   | CLEARING of a credit                 | CARD_CREDIT_CLEARING            | +c           | −h         | −(c−h)    |
 *   | AUTHORIZATION_REVERSAL of a credit   | CARD_CREDIT_AUTHORIZATION_RELEASE |            | −r         | +r        |
 *   | FINANCIAL_CREDIT_AUTHORIZATION, RETURN | CARD_CREDIT                   | +a           |            | −a        |
 *   | RETURN_REVERSAL                      | CARD_RETURN_REVERSAL            | −a           |            | +a        |
 *   | any decline, BALANCE_INQUIRY         | (none)                          |              |            |           |
 *
 * So a debit hold moves money from available to pending (the total stays), its clearing takes the
 * cleared amount out of the account (a different cleared amount adjusts available), and a release
 * gives it back; a pending credit is incoming money in pending until cleared into available.
 * Zero postings are left out; a movement that is all zeros is not posted.
 */
import { MS_PER_DAY } from '../clock.js';
import { invariant, UnprocessableError } from '../errors.js';
import type { RuleResult } from '../engine/rules-seam.js';
import type { CardTransactionsTable, TransactionStatus } from './tables.js';

const AUTHORIZATION_KINDS = ['AUTHORIZATION', 'BALANCE_INQUIRY', 'CREDIT_AUTHORIZATION', 'FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'] as const;
export type AuthorizationKind = (typeof AUTHORIZATION_KINDS)[number];
/** Kinds that start a transaction: the authorization kinds plus the network's own messages. */
export type OpeningKind = AuthorizationKind | 'RETURN' | 'CREDIT_AUTHORIZATION_ADVICE';

const CREDIT_KINDS: readonly string[] = ['CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE', 'FINANCIAL_CREDIT_AUTHORIZATION', 'RETURN'];
const DUAL_MESSAGE_KINDS: readonly string[] = ['AUTHORIZATION', 'CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE'];
const SETTLED_CREDIT_KINDS = CREDIT_KINDS;

/** A PENDING debit authorization that is neither cleared nor voided expires this long after it was made. */
export const AUTHORIZATION_EXPIRY_MS = 7 * MS_PER_DAY;

type Bucket = 'available' | 'pending' | 'network';
interface Posting {
  bucket: Bucket;
  amount_cents: number;
}

export interface NewEvent {
  type: string;
  amount_cents: number;
  settlement_cents: number | null;
  effective_polarity: 'CREDIT' | 'DEBIT';
  result: string;
  detailed_results: readonly string[];
  rule_results: readonly RuleResult[];
}

/** The transaction's money columns. */
export type Amounts = Pick<
  CardTransactionsTable,
  'status' | 'authorization_amount_cents' | 'hold_cents' | 'settled_cents' | 'spend_cents' | 'return_reversed' | 'expires_ms'
>;

export interface Effect {
  amounts: Amounts;
  event: NewEvent;
  /** null: no money moves. */
  movement: { kind: string; postings: Posting[] } | null;
}

function isCreditKind(kind: string): boolean {
  return CREDIT_KINDS.includes(kind);
}

/**
 * Whether an approved message of this kind counts as spend (history.ts: spend limits, velocity
 * counts): the debit authorizations, AUTHORIZATION and FINANCIAL_AUTHORIZATION, whatever their
 * amount (a $0 one too); never a balance inquiry or a credit.
 */
export function countsAsSpend(kind: string): boolean {
  return kind === 'AUTHORIZATION' || kind === 'FINANCIAL_AUTHORIZATION';
}

/** +1 for debit kinds, −1 for credit kinds. */
export function signOf(kind: string): 1 | -1 {
  return isCreditKind(kind) ? -1 : 1;
}

type Polarity = 'CREDIT' | 'DEBIT';

/** The polarity of a signed amount; `ifZero` for an event of 0. */
function polarity(signedCents: number, ifZero: Polarity): Polarity {
  if (signedCents === 0) return ifZero;
  return signedCents > 0 ? 'DEBIT' : 'CREDIT';
}

function kindPolarity(kind: string): Polarity {
  return isCreditKind(kind) ? 'CREDIT' : 'DEBIT';
}

function approvedEvent(type: string, amountCents: number, settlementCents: number | null, ifZero: Polarity): NewEvent {
  return {
    type,
    amount_cents: amountCents,
    settlement_cents: settlementCents,
    effective_polarity: polarity(amountCents, ifZero),
    result: 'APPROVED',
    detailed_results: ['APPROVED'],
    rule_results: [],
  };
}

function movement(kind: string, postings: Posting[]): Effect['movement'] {
  const nonZero = postings.filter((posting) => posting.amount_cents !== 0);
  return nonZero.length === 0 ? null : { kind, postings: nonZero };
}

export interface Decision {
  approved: boolean;
  result: string;
  detailed_results: readonly string[];
  rule_results: readonly RuleResult[];
}

/**
 * The first message of a transaction: `magnitudeCents` ≥ 0 as the request gave it, signed here by
 * the kind. Declines move nothing and leave nothing pending.
 */
export function open(kind: OpeningKind, magnitudeCents: number, decision: Decision, nowMs: number): Effect {
  const signed = signOf(kind) * magnitudeCents;
  if (!decision.approved) {
    return {
      amounts: { status: 'DECLINED', authorization_amount_cents: signed, hold_cents: 0, settled_cents: 0, spend_cents: 0, return_reversed: 0, expires_ms: null },
      event: {
        type: kind,
        amount_cents: signed,
        settlement_cents: null,
        effective_polarity: polarity(signed, kindPolarity(kind)),
        result: decision.result,
        detailed_results: decision.detailed_results,
        rule_results: decision.rule_results,
      },
      movement: null,
    };
  }
  const a = magnitudeCents;
  // Each amounts object a literal (keys in one order), not { ...base, more keys }: on Node 20 that
  // spread gets a new hidden class per object once optimised (see money_events/events.ts).
  const opened = (fields: Pick<Amounts, 'status' | 'hold_cents' | 'settled_cents' | 'spend_cents' | 'expires_ms'>): Amounts => ({
    authorization_amount_cents: signed,
    return_reversed: 0,
    expires_ms: fields.expires_ms,
    status: fields.status,
    hold_cents: fields.hold_cents,
    settled_cents: fields.settled_cents,
    spend_cents: fields.spend_cents,
  });
  switch (kind) {
    case 'AUTHORIZATION':
      return {
        amounts: opened({ status: 'PENDING', hold_cents: a, settled_cents: 0, spend_cents: a, expires_ms: nowMs + AUTHORIZATION_EXPIRY_MS }),
        event: approvedEvent(kind, a, null, 'DEBIT'),
        movement: movement('CARD_AUTHORIZATION_HOLD', [
          { bucket: 'available', amount_cents: -a },
          { bucket: 'pending', amount_cents: a },
        ]),
      };
    case 'BALANCE_INQUIRY':
      return { amounts: opened({ status: 'SETTLED', hold_cents: 0, settled_cents: 0, spend_cents: 0, expires_ms: null }), event: approvedEvent(kind, 0, null, 'DEBIT'), movement: null };
    case 'FINANCIAL_AUTHORIZATION':
      return {
        amounts: opened({ status: 'SETTLED', hold_cents: 0, settled_cents: a, spend_cents: a, expires_ms: null }),
        event: approvedEvent(kind, a, a, 'DEBIT'),
        movement: movement('CARD_FINANCIAL_AUTHORIZATION', [
          { bucket: 'available', amount_cents: -a },
          { bucket: 'network', amount_cents: a },
        ]),
      };
    case 'CREDIT_AUTHORIZATION':
    case 'CREDIT_AUTHORIZATION_ADVICE':
      return {
        amounts: opened({ status: 'PENDING', hold_cents: -a, settled_cents: 0, spend_cents: 0, expires_ms: null }),
        event: approvedEvent(kind, -a, null, 'CREDIT'),
        movement: movement('CARD_CREDIT_AUTHORIZATION', [
          { bucket: 'pending', amount_cents: a },
          { bucket: 'network', amount_cents: -a },
        ]),
      };
    case 'FINANCIAL_CREDIT_AUTHORIZATION':
    case 'RETURN':
      return {
        amounts: opened({ status: 'SETTLED', hold_cents: 0, settled_cents: -a, spend_cents: 0, expires_ms: null }),
        event: approvedEvent(kind, -a, -a, 'CREDIT'),
        movement: movement('CARD_CREDIT', [
          { bucket: 'available', amount_cents: a },
          { bucket: 'network', amount_cents: -a },
        ]),
      };
  }
}

type Current = Pick<CardTransactionsTable, 'token' | 'kind' | 'status'> & Amounts;

function amountsOf(row: Current): Amounts {
  const { status, authorization_amount_cents, hold_cents, settled_cents, spend_cents, return_reversed, expires_ms } = row;
  return { status, authorization_amount_cents, hold_cents, settled_cents, spend_cents, return_reversed, expires_ms };
}

function refuse(row: Current, what: string): never {
  throw new UnprocessableError(`token: transaction '${row.token}' is ${row.status} (${row.kind}); ${what}`);
}

function requirePendingDualMessage(row: Current, action: string): void {
  if (!DUAL_MESSAGE_KINDS.includes(row.kind)) refuse(row, `only a dual-message authorization can be ${action}`);
  if (row.status !== 'PENDING') refuse(row, `only a PENDING transaction can be ${action}`);
}

/** AUTHORIZATION_ADVICE: the pending amount of a PENDING debit authorization becomes `amountCents`. */
export function advise(row: Current, amountCents: number): Effect {
  if (row.kind !== 'AUTHORIZATION') refuse(row, 'only an AUTHORIZATION takes an authorization advice');
  if (row.status !== 'PENDING') refuse(row, 'only a PENDING authorization takes an authorization advice');
  const delta = amountCents - row.hold_cents;
  return {
    amounts: { ...amountsOf(row), authorization_amount_cents: amountCents, hold_cents: amountCents, spend_cents: amountCents },
    event: approvedEvent('AUTHORIZATION_ADVICE', amountCents, null, 'DEBIT'),
    movement: movement('CARD_AUTHORIZATION_ADVICE', [
      { bucket: 'available', amount_cents: -delta },
      { bucket: 'pending', amount_cents: delta },
    ]),
  };
}

/** Whether a clearing of this transaction comes after its hold expired (an EXPIRED debit authorization). */
export function clearsAfterExpiry(row: Pick<Current, 'kind' | 'status'>): boolean {
  return row.kind === 'AUTHORIZATION' && row.status === 'EXPIRED';
}

/**
 * CLEARING: settles a PENDING dual-message transaction for `magnitudeCents` (default: what is
 * pending). Also an EXPIRED debit authorization: the network may clear after the issuer released
 * the hold (Lithic, "Expiring Authorizations"); its hold is 0, so the clearing takes the whole
 * amount from available, and the caller gives it (by default what the expiry released).
 */
export function clear(row: Current, magnitudeCents: number | undefined): Effect {
  const afterExpiry = clearsAfterExpiry(row);
  if (!afterExpiry) requirePendingDualMessage(row, 'cleared');
  invariant(!afterExpiry || magnitudeCents !== undefined, `clearing EXPIRED transaction '${row.token}' needs its amount`);
  const sign = signOf(row.kind);
  const h = Math.abs(row.hold_cents);
  const c = magnitudeCents ?? h;
  const debit = sign === 1;
  const postings: Posting[] = debit
    ? [
        { bucket: 'pending', amount_cents: -h },
        { bucket: 'available', amount_cents: -(c - h) },
        { bucket: 'network', amount_cents: c },
      ]
    : [
        { bucket: 'pending', amount_cents: -h },
        { bucket: 'available', amount_cents: c },
        { bucket: 'network', amount_cents: -(c - h) },
      ];
  return {
    amounts: { ...amountsOf(row), status: 'SETTLED', hold_cents: 0, settled_cents: sign * c, spend_cents: debit ? c : 0, expires_ms: null },
    event: approvedEvent('CLEARING', sign * c, sign * c, kindPolarity(row.kind)),
    movement: movement(debit ? 'CARD_CLEARING' : 'CARD_CREDIT_CLEARING', postings),
  };
}

export type VoidType = 'AUTHORIZATION_REVERSAL' | 'AUTHORIZATION_EXPIRY';

/**
 * AUTHORIZATION_REVERSAL releases `magnitudeCents` (default: all) of what is pending; all of it
 * makes the transaction VOIDED. AUTHORIZATION_EXPIRY always releases all of it (EXPIRED) and is not
 * supported on credit authorizations (as in Lithic's simulator).
 */
export function release(row: Current, type: VoidType, magnitudeCents: number | undefined): Effect {
  requirePendingDualMessage(row, type === 'AUTHORIZATION_EXPIRY' ? 'expired' : 'voided');
  const sign = signOf(row.kind);
  if (type === 'AUTHORIZATION_EXPIRY' && sign === -1) refuse(row, 'an AUTHORIZATION_EXPIRY is not supported on credit authorizations');
  const h = Math.abs(row.hold_cents);
  const r = type === 'AUTHORIZATION_EXPIRY' ? h : (magnitudeCents ?? h);
  if (r > h) throw new UnprocessableError(`amount: ${r} exceeds the pending amount ${h} of transaction '${row.token}'`);
  const left = h - r;
  const status: TransactionStatus = left > 0 ? 'PENDING' : type === 'AUTHORIZATION_EXPIRY' ? 'EXPIRED' : 'VOIDED';
  const debit = sign === 1;
  const postings: Posting[] = [
    { bucket: 'pending', amount_cents: -r },
    debit ? { bucket: 'available', amount_cents: r } : { bucket: 'network', amount_cents: r },
  ];
  return {
    amounts: { ...amountsOf(row), status, hold_cents: sign * left, spend_cents: debit ? left : 0, expires_ms: left > 0 ? row.expires_ms : null },
    event: approvedEvent(type, -sign * r, null, debit ? 'CREDIT' : 'DEBIT'),
    movement: movement(debit ? 'CARD_AUTHORIZATION_RELEASE' : 'CARD_CREDIT_AUTHORIZATION_RELEASE', postings),
  };
}

/** RETURN_REVERSAL: takes back a settled credit (a return, a financial credit, a cleared credit authorization), once. */
export function reverseReturn(row: Current): Effect {
  if (!SETTLED_CREDIT_KINDS.includes(row.kind) || row.status !== 'SETTLED') refuse(row, 'only a SETTLED credit can be reversed');
  if (row.return_reversed === 1) refuse(row, 'its return was already reversed');
  const a = -row.settled_cents;
  return {
    amounts: { ...amountsOf(row), settled_cents: 0, return_reversed: 1 },
    event: approvedEvent('RETURN_REVERSAL', a, a, 'DEBIT'),
    movement: movement('CARD_RETURN_REVERSAL', [
      { bucket: 'available', amount_cents: -a },
      { bucket: 'network', amount_cents: a },
    ]),
  };
}
