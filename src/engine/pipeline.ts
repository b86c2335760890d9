/**
 * The authorization decision pipeline: the one place that decides whether a card may make an
 * authorization-type request (AUTHORIZATION, BALANCE_INQUIRY, CREDIT_AUTHORIZATION,
 * FINANCIAL_AUTHORIZATION, FINANCIAL_CREDIT_AUTHORIZATION). It records nothing; the caller
 * (transactions/service.ts) stores the decision.
 *
 * Steps, in this fixed order; the first decline wins and later steps are not asked:
 *   1. card        the card is usable: state, single use, expiry, activation, merchant lock,
 *                  then the PIN when one was entered (cards/spend.ts)
 *   2. account     the account's state, then its ISSUING financial account's status (accounts/spend.ts)
 *   3. account limits  daily / monthly / lifetime approved spend + amount (accounts/spend.ts)
 *   4. card limit  the card's spend limit in its window: TRANSACTION, MONTHLY (the 6-day rule),
 *                  ANNUALLY, FOREVER (cards/spend.ts)
 *   5. Auth Rules  the evaluator behind engine/rules-seam.ts (enforced declines only)
 *   6. funds       when the program requires funds: a debit above the available balance of the
 *                  card account's ISSUING financial account. A terminal capable of partial
 *                  approval gets the available balance instead, when there is some (a $40
 *                  purchase on a $25 balance approves $25; the POS asks for the rest): the
 *                  decision's `partial_amount_cents`. Only funds approve partially: limits and
 *                  rules decide on the requested amount.
 *
 * Steps 1–4 and 6 are pure functions of the facts they are given. What costs a query (spend in
 * the windows, the rules, the locked balance) comes from `EngineSources`, asked lazily so that a
 * card declined at step 1 costs no sum and no rule evaluation. Credits and zero amounts are never
 * limited and never need funds (limits and funds look at debits only), but still need a usable
 * card and account.
 *
 * Decline mapping (result / detailed_results):
 *   card CLOSED                 CARD_CLOSED / CARD_CLOSED
 *   SINGLE_USE reused           SINGLE_USE_RECHARGED / SINGLE_USE_CARD_REATTEMPTED
 *   card PAUSED                 CARD_PAUSED / CARD_PAUSED
 *   card expired                DECLINED / CARD_EXPIRED
 *   PHYSICAL not activated, card present   DECLINED / CARD_NOT_ACTIVATED
 *   MERCHANT_LOCKED elsewhere   UNAUTHORIZED_MERCHANT / MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE
 *   PIN blocked                 INCORRECT_PIN / PIN_BLOCKED
 *   PIN wrong                   INCORRECT_PIN / CARD_PIN_INCORRECT
 *   account PAUSED              ACCOUNT_STATE_TRANSACTION_FAIL / ACCOUNT_PAUSED
 *   account CLOSED              INACTIVE_ACCOUNT / ACCOUNT_INACTIVE
 *   ISSUING account SUSPENDED or PENDING   ACCOUNT_STATE_TRANSACTION_FAIL / ACCOUNT_PAUSED
 *   ISSUING account CLOSED      INACTIVE_ACCOUNT / ACCOUNT_INACTIVE
 *   account limits              USER_TRANSACTION_LIMIT / ACCOUNT_{DAILY,MONTHLY,LIFETIME}_SPEND_LIMIT_EXCEEDED
 *   card limit                  USER_TRANSACTION_LIMIT / CARD_SPEND_LIMIT_EXCEEDED
 *   Auth Rules                  see `ruleDeclineResult`; detailed_results = the rules' results
 *                               (a CHALLENGE rule's: DECLINED, its explanation naming the challenge)
 *   funds                       INSUFFICIENT_FUNDS / INSUFFICIENT_FUNDS
 * Approved: result APPROVED, detailed_results [APPROVED], rule_results [].
 */
import { accountUsability, checkAccountSpendLimits, fundingUsability, type AccountForSpend, type AccountSpent } from '../accounts/spend.js';
import type { Hasher } from '../cards/pin.js';
import { cardUsability, checkCardPin, checkCardSpendLimit, type AuthorizationContext, type CardForSpend } from '../cards/spend.js';
import type { RuleResult } from './rules-seam.js';

export const AUTHORIZATION_STEPS = ['card', 'account', 'account_limits', 'card_limit', 'auth_rules', 'funds'] as const;
type AuthorizationStep = (typeof AUTHORIZATION_STEPS)[number];

export interface EngineInput {
  card: CardForSpend;
  account: AccountForSpend;
  /** Status of the account's ISSUING financial account, the one every card of the account draws on. */
  issuing_financial_account_status: string;
  /** Signed, cents: debits positive, credits negative, 0 for a balance inquiry. */
  amount_cents: number;
  now_ms: number;
  context: AuthorizationContext;
  /** The PIN entered at the terminal, if any, and what hashes it. */
  pin?: { entered: string; hasher: Hasher } | undefined;
  funds_required: boolean;
  /** The terminal can take an approval of less than the amount asked (pos.terminal.partial_approval_capable). */
  partial_approval_capable: boolean;
}

/** What the pipeline may need beyond the input, each asked at most once and only when reached. */
export interface EngineSources {
  /** Approved spend of the account in its daily, monthly and lifetime windows. */
  accountSpent(): Promise<AccountSpent>;
  /** Approved spend of the card in its limit's window (0 for TRANSACTION or no limit). */
  cardWindowSpent(): Promise<number>;
  /** The enforced Auth Rules declines (empty: the rules approve). */
  authRules(): Promise<RuleResult[]>;
  /** Available balance of the card account's ISSUING financial account, locked for this decision. */
  availableCents(): Promise<number>;
}

/** How the PIN check went: null when no PIN was checked (none entered, or an earlier check declined, or blocked). */
type PinOutcome = 'correct' | 'incorrect' | null;

export interface EngineDecision {
  approved: boolean;
  result: string;
  detailed_results: string[];
  rule_results: RuleResult[];
  /** The step that declined, or null when approved. */
  declined_by: AuthorizationStep | null;
  pin: PinOutcome;
  /** When approved for less than asked (partial approval): the amount approved, in cents, > 0; else null. */
  partial_amount_cents: number | null;
}

const APPROVED_RESULT = 'APPROVED';

/** One step's verdict (the cards/accounts seam's `StepDecision` is one). */
export type StepDecision = { approved: true } | { approved: false; result: string; detailed_results: readonly string[] };

/** Transaction `result` of an Auth Rules decline, from the first rule's detailed result (reference 01). */
export function ruleDeclineResult(ruleResults: readonly RuleResult[]): string {
  const first = ruleResults[0]?.result;
  if (first === 'CARD_SPEND_LIMIT_EXCEEDED' || (first?.startsWith('ACCOUNT_') && first.endsWith('_SPEND_LIMIT_EXCEEDED'))) return 'USER_TRANSACTION_LIMIT';
  if (first === 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE') return 'UNAUTHORIZED_MERCHANT';
  return 'DECLINED';
}

/** Step 6: a debit above the available funds, when the program requires funds. */
export function checkFunds(amountCents: number, availableCents: number): StepDecision {
  return amountCents > availableCents ? { approved: false, result: 'INSUFFICIENT_FUNDS', detailed_results: ['INSUFFICIENT_FUNDS'] } : { approved: true };
}

function approved(pin: PinOutcome, partialAmountCents: number | null = null): EngineDecision {
  return { approved: true, result: APPROVED_RESULT, detailed_results: [APPROVED_RESULT], rule_results: [], declined_by: null, pin, partial_amount_cents: partialAmountCents };
}

function declined(step: AuthorizationStep, decision: StepDecision, pin: PinOutcome, ruleResults: RuleResult[] = []): EngineDecision {
  if (decision.approved) throw new Error('declined() needs a decline');
  return { approved: false, result: decision.result, detailed_results: [...decision.detailed_results], rule_results: ruleResults, declined_by: step, pin, partial_amount_cents: null };
}

/** Step 1: the card's own checks, then the PIN. */
function checkCard(input: EngineInput): { decision: StepDecision; pin: PinOutcome } {
  const usable = cardUsability(input.card, input.now_ms, input.context);
  if (!usable.approved || !input.pin) return { decision: usable, pin: null };
  const decision = checkCardPin(input.card, input.pin.entered, input.pin.hasher);
  if (decision.approved) return { decision, pin: 'correct' };
  // Only a PIN that is set (OK) counts wrong entries toward blocking: not a BLOCKED one, and not
  // a card without a PIN (NOT_SET), which Lithic never blocks.
  return { decision, pin: input.card.pin_status === 'OK' ? 'incorrect' : null };
}

/** Runs the steps in order (see the header) and returns the decision; records nothing. */
export async function decideAuthorization(input: EngineInput, sources: EngineSources): Promise<EngineDecision> {
  const card = checkCard(input);
  if (!card.decision.approved) return declined('card', card.decision, card.pin);
  const account = accountUsability(input.account);
  if (!account.approved) return declined('account', account, card.pin);
  const funding = fundingUsability(input.issuing_financial_account_status);
  if (!funding.approved) return declined('account', funding, card.pin);

  const isDebit = input.amount_cents > 0;
  if (isDebit) {
    const accountLimits = checkAccountSpendLimits(input.account, input.amount_cents, await sources.accountSpent());
    if (!accountLimits.approved) return declined('account_limits', accountLimits, card.pin);
    const cardLimit = checkCardSpendLimit(input.card, input.amount_cents, await sources.cardWindowSpent());
    if (!cardLimit.approved) return declined('card_limit', cardLimit, card.pin);
  }

  const ruleResults = await sources.authRules();
  if (ruleResults.length > 0) {
    const detailed = [...new Set(ruleResults.map((rule) => rule.result))];
    return {
      approved: false,
      result: ruleDeclineResult(ruleResults),
      detailed_results: detailed,
      rule_results: ruleResults,
      declined_by: 'auth_rules',
      pin: card.pin,
      partial_amount_cents: null,
    };
  }

  if (input.funds_required && isDebit) {
    const availableCents = await sources.availableCents();
    const funds = checkFunds(input.amount_cents, availableCents);
    if (!funds.approved) {
      if (input.partial_approval_capable && availableCents > 0) return approved(card.pin, availableCents);
      return declined('funds', funds, card.pin);
    }
  }
  return approved(card.pin);
}
