/**
 * The seam between the authorization engine and Auth Rules.
 *
 * The engine (this folder) decides every authorization-type event in a fixed order: card usable →
 * account state → account spend limits → card spend limit → **Auth Rules** → funds. At the Auth
 * Rules step it hands the event's facts to an `AuthRulesEvaluator` and gets back the enforced
 * declines (an Authorization Challenge is one). The evaluator:
 *  - finds the ACTIVE rules of the AUTHORIZATION stream that apply to the card (program-level
 *    minus excluded cards, the card's account's, its business account's, the card's own);
 *  - evaluates each rule's current version (enforced) and its draft version, if any (shadow: its
 *    verdict is recorded, never returned as a decline);
 *  - records the event's verdicts (enforced and shadow) as one outcome, counted per day, in the same
 *    database transaction, for the performance report: as its last write, just before it commits,
 *    after every lock the engine and its caller take (the counter row is shared by all the events
 *    of that outcome, day and shard: see the lock order in docs/architecture.md);
 *  - reads history only through `AuthorizationHistory` (indexed sums over the transactions table,
 *    provided by the engine), never by loading past transactions.
 *
 * The engine does not know how rules are stored or evaluated; Auth Rules do not know how
 * transactions are stored. `evaluator.ts` in auth_rules/ provides the implementation.
 */
import type { Db, Tx } from '../db/database.js';
import type { ProgramScope } from '../programs/scope.js';

/** One entry of a transaction event's `rule_results` (reference 01). */
export interface RuleResult {
  auth_rule_token: string | null;
  explanation: string | null;
  name: string | null;
  /** A `detailed_results` value, e.g. AUTH_RULE_BLOCKED_MCC. */
  result: string;
}

/** What an authorization looks like to Auth Rules: every attribute a condition can test. */
export interface AuthorizationFacts {
  /** The event being decided (the report's example `event_token`) and its transaction. */
  event_token: string;
  transaction_token: string;
  card: {
    token: string;
    account_token: string;
    state: string;
    pin_status: string;
  };
  /** TRANSACTION_AMOUNT: the authorization amount including the acquirer fee, in cents. */
  amount_cents: number;
  /**
   * Approved, it would count as spend (`AuthorizationHistory.approvedSpend` counts it): a debit
   * authorization, of any amount ($0 too); not a balance inquiry or a credit. Velocity limits count it.
   */
  counts_as_spend: boolean;
  /** CASH_AMOUNT, in cents (0 when none). */
  cash_amount_cents: number;
  merchant: {
    acceptor_id: string;
    descriptor: string;
    mcc: string;
    /** ISO 3166-1 alpha-3. */
    country: string;
    /** ISO 4217 merchant currency. */
    currency: string;
  };
  pan_entry_mode: string;
  pin_entered: boolean;
  risk_score: number | null;
  /** APPLE_PAY, GOOGLE_PAY, … or NONE. */
  wallet_type: string;
  /** NONE, 3DS_AUTHENTICATED or TOKEN_AUTHENTICATED. */
  liability_shift: string;
  transaction_initiator: 'CARDHOLDER' | 'MERCHANT' | 'UNKNOWN';
  now_ms: number;
}

export interface VelocityFilters {
  include_mccs?: readonly string[] | null;
  exclude_mccs?: readonly string[] | null;
  include_countries?: readonly string[] | null;
  exclude_countries?: readonly string[] | null;
  include_pan_entry_modes?: readonly string[] | null;
}

/** Past authorizations, as indexed aggregates (the engine implements it over its transactions). */
export interface AuthorizationHistory {
  /**
   * Approved authorizations (settled or not, including force posts; declines never count) of a card
   * or of all cards of an account, created in [since_ms, until_ms), optionally filtered by the
   * merchant's MCC and country: their total amount in cents and their number.
   */
  approvedSpend(query: {
    scope: 'CARD' | 'ACCOUNT';
    token: string;
    since_ms: number;
    until_ms: number;
    filters?: VelocityFilters;
  }): Promise<{ amount_cents: number; count: number }>;
  /** Authorization attempts (any result) on the card created in [since_ms, until_ms). */
  cardTransactionCount(cardToken: string, since_ms: number, until_ms: number): Promise<number>;
}

export interface AuthRulesEvaluator {
  /**
   * Evaluates the rules that apply to this authorization, records every evaluation (enforced and
   * shadow) in `tx` (just before it commits), and returns the enforced declines in evaluation
   * order (empty: rules approve).
   */
  evaluateAuthorization(input: {
    db: Db;
    tx: Tx;
    scope: ProgramScope;
    facts: AuthorizationFacts;
    history: AuthorizationHistory;
    /**
     * The program's rules version (programs.rules_version), when the caller read it in `tx`
     * already (with the card): the evaluator then does not read it again.
     */
    rules_version?: string;
  }): Promise<RuleResult[]>;
}
