/**
 * Conditions compiled once into predicates (a Set for lists, a RegExp for patterns), so that
 * evaluating a rule on an authorization does no parsing. Pure.
 *
 * A condition on an attribute the event does not have (RISK_SCORE when the network sent none) never
 * holds, whatever the operation.
 */
import { TRANSACTION_COUNT_WINDOWS_MS, type Operation } from './attributes.js';
import type { Condition } from './parameters.js';
import { conditionRegExp } from './patterns.js';

export type AttributeValue = string | number | null;

export interface CompiledCondition {
  attribute: string;
  /** Needs a history query (CARD_TRANSACTION_COUNT_*): evaluated after the others. */
  needsHistory: boolean;
  holds(value: AttributeValue): boolean;
  /** "MCC 7995 is one of 7995, 7801" for the value the event had. */
  explain(value: AttributeValue): string;
}

const PHRASES: Readonly<Record<Operation, string>> = {
  IS_ONE_OF: 'is one of',
  IS_NOT_ONE_OF: 'is not one of',
  MATCHES: 'matches',
  DOES_NOT_MATCH: 'does not match',
  IS_EQUAL_TO: 'is equal to',
  IS_NOT_EQUAL_TO: 'is not equal to',
  IS_GREATER_THAN: 'is greater than',
  IS_GREATER_THAN_OR_EQUAL_TO: 'is greater than or equal to',
  IS_LESS_THAN: 'is less than',
  IS_LESS_THAN_OR_EQUAL_TO: 'is less than or equal to',
};
const LISTED_IN_EXPLANATION = 5;

function describeValue(value: Condition['value']): string {
  if (!Array.isArray(value)) return typeof value === 'string' ? `/${value}/` : String(value);
  const shown = value.slice(0, LISTED_IN_EXPLANATION).join(', ');
  return value.length > LISTED_IN_EXPLANATION ? `${shown}, … (${value.length} values)` : shown;
}

function numericTest(operation: Operation, limit: number): (value: number) => boolean {
  switch (operation) {
    case 'IS_EQUAL_TO':
      return (value) => value === limit;
    case 'IS_NOT_EQUAL_TO':
      return (value) => value !== limit;
    case 'IS_GREATER_THAN':
      return (value) => value > limit;
    case 'IS_GREATER_THAN_OR_EQUAL_TO':
      return (value) => value >= limit;
    case 'IS_LESS_THAN':
      return (value) => value < limit;
    default:
      return (value) => value <= limit;
  }
}

function testFor(condition: Condition): (value: string | number) => boolean {
  const { operation, value } = condition;
  if (Array.isArray(value)) {
    const set = new Set(value);
    return operation === 'IS_ONE_OF' ? (actual) => set.has(String(actual)) : (actual) => !set.has(String(actual));
  }
  if (typeof value === 'string') {
    const pattern = conditionRegExp(value);
    return operation === 'MATCHES' ? (actual) => pattern.test(String(actual)) : (actual) => !pattern.test(String(actual));
  }
  const test = numericTest(operation, value);
  return (actual) => typeof actual === 'number' && test(actual);
}

export function compileCondition(condition: Condition): CompiledCondition {
  const test = testFor(condition);
  const phrase = `${PHRASES[condition.operation]} ${describeValue(condition.value)}`;
  return {
    attribute: condition.attribute,
    needsHistory: condition.attribute in TRANSACTION_COUNT_WINDOWS_MS,
    holds: (value) => value !== null && test(value),
    explain: (value) => `${condition.attribute} ${value === null ? '(none)' : String(value)} ${phrase}`,
  };
}

/** A compiled condition with its place in the rule's `conditions` (from 0). */
export interface PlacedCondition extends CompiledCondition {
  position: number;
}

/** Cheap conditions first, so that a condition needing history is only queried when it can matter. */
export function compileConditions(conditions: readonly Condition[]): PlacedCondition[] {
  const compiled = conditions.map((condition, position) => ({ ...compileCondition(condition), position }));
  return [...compiled.filter((condition) => !condition.needsHistory), ...compiled.filter((condition) => condition.needsHistory)];
}

/**
 * Whether every condition holds (AND), reading values through `valueOf` in the order given; stops
 * at the first that does not. Returns the explanations of the conditions when all hold, in the
 * rule's order (`position`), whatever the order they were evaluated in; else null.
 */
export async function allHold(
  conditions: readonly PlacedCondition[],
  valueOf: (attribute: string) => AttributeValue | Promise<AttributeValue>,
): Promise<string[] | null> {
  const explanations: string[] = new Array<string>(conditions.length);
  for (const condition of conditions) {
    const value = await valueOf(condition.attribute);
    if (!condition.holds(value)) return null;
    explanations[condition.position] = condition.explain(value);
  }
  return explanations;
}

/**
 * The detailed_results code of a conditional decline (reference 01): the first MCC or COUNTRY
 * condition names it (a block list: AUTH_RULE_BLOCKED_*; an allow list, i.e. IS_NOT_ONE_OF or
 * DOES_NOT_MATCH: AUTH_RULE_ALLOWED_*); otherwise DECLINED.
 */
export function conditionalDeclineResult(conditions: readonly Condition[]): string {
  const first = conditions.find((condition) => condition.attribute === 'MCC' || condition.attribute === 'COUNTRY');
  if (first === undefined) return 'DECLINED';
  const allowList = first.operation === 'IS_NOT_ONE_OF' || first.operation === 'DOES_NOT_MATCH';
  return `AUTH_RULE_${allowList ? 'ALLOWED' : 'BLOCKED'}_${first.attribute}`;
}
