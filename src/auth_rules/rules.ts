/**
 * A rule version compiled into a function from an event to a verdict. Pure apart from the history
 * it reads through its input. Semantics (reference 01):
 *
 * - CONDITIONAL_BLOCK, CONDITIONAL_ACTION with DECLINE: every condition holds → DECLINED.
 * - CONDITIONAL_3DS_ACTION / CONDITIONAL_ACTION: every condition holds → the action (DECLINE →
 *   DECLINED, CHALLENGE → CHALLENGED). On 3DS a challenge asks for an OTP (three_ds/service.ts); on
 *   AUTHORIZATION it is Lithic's Authorization Challenge: the authorization is declined at once
 *   and the cardholder asked to confirm before retrying (docs.lithic.com/docs/authorization-challenges).
 *   Lithic's docs name that decline CARDHOLDER_CHALLENGED, a code SDK 0.119 (the field-level truth
 *   here) does not list: the result is DECLINED, and the explanation says it was a challenge.
 * - VELOCITY_LIMIT: DECLINED when this authorization would push the card's or account's approved
 *   spend in the window above `limit_amount`, or their number above `limit_count`. An
 *   authorization the filters leave out (MCC, country, PAN entry mode), or that does not count as
 *   spend (a balance inquiry, a credit), does not count towards the window, so the rule approves it
 *   without looking at history. A $0 debit authorization counts (the history counts it), so
 *   `limit_count` limits it; adding nothing, it never goes over `limit_amount`.
 * - MERCHANT_LOCK: the merchant must match an entry (every field the entry gives, exactly);
 *   otherwise DECLINED.
 *
 * A decline's `result` is the detailed_results code its rule_results entry carries.
 */
import { invariant } from '../errors.js';
import type { AuthorizationHistory } from '../engine/rules-seam.js';
import type { AuthRuleType } from './attributes.js';
import { allHold, compileConditions, conditionalDeclineResult, type AttributeValue } from './conditions.js';
import type {
  AuthRuleParameters,
  ConditionalActionParameters,
  ConditionalBlockParameters,
  MerchantLockParameters,
  VelocityFiltersParameters,
  VelocityLimitParameters,
} from './parameters.js';
import { describePeriod, windowStartMs } from './periods.js';

type Decision = 'APPROVED' | 'DECLINED' | 'CHALLENGED';

export interface Verdict {
  decision: Decision;
  /** detailed_results code: APPROVED, or why the rule declined. */
  result: string;
  explanation: string | null;
}

interface AuthorizationInput {
  card_token: string;
  account_token: string;
  amount_cents: number;
  /** Approved, it counts as spend (engine/rules-seam.ts `AuthorizationFacts`). */
  counts_as_spend: boolean;
  now_ms: number;
  merchant: { acceptor_id: string; descriptor: string; mcc: string; country: string };
  pan_entry_mode: string;
  approvedSpend: AuthorizationHistory['approvedSpend'];
}

export interface RuleInput {
  valueOf(attribute: string): AttributeValue | Promise<AttributeValue>;
  /** Present on the AUTHORIZATION stream (velocity and merchant lock read it). */
  authorization?: AuthorizationInput;
}

export type CompiledRule = (input: RuleInput) => Promise<Verdict>;

/** The detailed_results code of an authorization a CHALLENGE rule declined: SDK 0.119 has no CARDHOLDER_CHALLENGED. */
const CHALLENGE_RESULT = 'DECLINED';

const APPROVED_VERDICT: Verdict = Object.freeze({ decision: 'APPROVED', result: 'APPROVED', explanation: null });

function conditionalRule(parameters: ConditionalBlockParameters | ConditionalActionParameters, action: 'DECLINE' | 'CHALLENGE'): CompiledRule {
  const conditions = compileConditions(parameters.conditions);
  const result = action === 'CHALLENGE' ? CHALLENGE_RESULT : conditionalDeclineResult(parameters.conditions);
  return async (input) => {
    const explanations = await allHold(conditions, input.valueOf);
    if (explanations === null) return APPROVED_VERDICT;
    const explanation = explanations.join('; ');
    if (action === 'CHALLENGE') return { decision: 'CHALLENGED', result, explanation: `Cardholder challenged: ${explanation}` };
    return { decision: 'DECLINED', result, explanation };
  };
}

/** Whether an authorization (its merchant, its PAN entry mode) counts towards a velocity window with these filters. */
export function countsTowardsVelocity(
  filters: VelocityFiltersParameters,
  { merchant, pan_entry_mode }: { merchant: { mcc: string; country: string }; pan_entry_mode: string },
): boolean {
  if (filters.include_pan_entry_modes && !filters.include_pan_entry_modes.includes(pan_entry_mode)) return false;
  if (filters.include_mccs && !filters.include_mccs.includes(merchant.mcc)) return false;
  if (filters.exclude_mccs?.includes(merchant.mcc)) return false;
  if (filters.include_countries && !filters.include_countries.includes(merchant.country)) return false;
  if (filters.exclude_countries?.includes(merchant.country)) return false;
  return true;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

function velocityRule(parameters: VelocityLimitParameters): CompiledRule {
  const limitAmount = parameters.limit_amount ?? null;
  const limitCount = parameters.limit_count ?? null;
  const where = `${parameters.scope === 'CARD' ? 'Card' : 'Account'} spend in ${describePeriod(parameters.period)}`;
  return async ({ authorization }) => {
    invariant(authorization, 'VELOCITY_LIMIT rules run on the AUTHORIZATION stream');
    if (!authorization.counts_as_spend || !countsTowardsVelocity(parameters.filters, authorization)) return APPROVED_VERDICT;
    const spent = await authorization.approvedSpend({
      scope: parameters.scope,
      token: parameters.scope === 'CARD' ? authorization.card_token : authorization.account_token,
      since_ms: windowStartMs(parameters.period, authorization.now_ms),
      until_ms: authorization.now_ms + 1,
      filters: parameters.filters,
    });
    const amount = spent.amount_cents + authorization.amount_cents;
    if (limitAmount !== null && authorization.amount_cents > 0 && amount > limitAmount) {
      return { decision: 'DECLINED', result: 'CARD_SPEND_LIMIT_EXCEEDED', explanation: `${where} would be ${amount} cents, above the limit of ${limitAmount}` };
    }
    if (limitCount !== null && spent.count + 1 > limitCount) {
      const count = spent.count + 1;
      return { decision: 'DECLINED', result: 'CARD_SPEND_LIMIT_EXCEEDED', explanation: `${where}: this would be the ${ordinal(count)} authorization, above the limit of ${limitCount}` };
    }
    return APPROVED_VERDICT;
  };
}

function merchantLockRule(parameters: MerchantLockParameters): CompiledRule {
  const { merchants } = parameters;
  return async ({ authorization }) => {
    invariant(authorization, 'MERCHANT_LOCK rules run on the AUTHORIZATION stream');
    const { acceptor_id, descriptor } = authorization.merchant;
    const allowed = merchants.some(
      (entry) => (entry.merchant_id === undefined || entry.merchant_id === acceptor_id) && (entry.descriptor === undefined || entry.descriptor === descriptor),
    );
    if (allowed) return APPROVED_VERDICT;
    return {
      decision: 'DECLINED',
      result: 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE',
      explanation: `Merchant '${descriptor}' (acceptor id ${acceptor_id}) is not one of the ${merchants.length} merchant(s) the rule allows`,
    };
  };
}

/** Compiles validated parameters (parameters.ts) of a rule of `type`. */
export function compileRule(type: AuthRuleType, parameters: AuthRuleParameters): CompiledRule {
  switch (type) {
    case 'CONDITIONAL_BLOCK':
      return conditionalRule(parameters as ConditionalBlockParameters, 'DECLINE');
    case 'CONDITIONAL_3DS_ACTION':
    case 'CONDITIONAL_ACTION': {
      const action = parameters as ConditionalActionParameters;
      return conditionalRule(action, action.action);
    }
    case 'VELOCITY_LIMIT':
      return velocityRule(parameters as VelocityLimitParameters);
    case 'MERCHANT_LOCK':
      return merchantLockRule(parameters as MerchantLockParameters);
  }
}
