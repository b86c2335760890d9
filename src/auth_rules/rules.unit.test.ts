/** Evaluation semantics of each rule type, on plain inputs (no database). */
import { describe, expect, it } from 'vitest';
import type { AuthorizationHistory } from '../engine/rules-seam.js';
import { authorizationFacts, fakeHistory } from '../testing/auth_rules.js';
import type { AuthRuleType } from './attributes.js';
import { compileCondition, conditionalDeclineResult } from './conditions.js';
import { authorizationInput } from './evaluator.js';
import { parseParameters, type Condition } from './parameters.js';
import { compileRule, countsTowardsVelocity } from './rules.js';

const NOW = Date.parse('2024-05-01T16:00:00Z');
const CARD = { token: 'card-1', account_token: 'account-1' };

function run(type: AuthRuleType, raw: unknown, overrides: Parameters<typeof authorizationFacts>[2] = {}, history: AuthorizationHistory = fakeHistory().history) {
  const stream = type === 'CONDITIONAL_3DS_ACTION' ? 'THREE_DS_AUTHENTICATION' : 'AUTHORIZATION';
  const rule = compileRule(type, parseParameters(type, stream, raw));
  return rule(authorizationInput(authorizationFacts(CARD, NOW, overrides), history));
}

describe('conditions', () => {
  const holds = (condition: Condition, value: string | number | null) => compileCondition(condition).holds(value);

  it('list operations compare the value as text; regex operations search it', () => {
    expect(holds({ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411', '7995'] }, '7995')).toBe(true);
    expect(holds({ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }, '5412')).toBe(false);
    expect(holds({ attribute: 'MCC', operation: 'IS_NOT_ONE_OF', value: ['5411'] }, '5412')).toBe(true);
    expect(holds({ attribute: 'MCC', operation: 'IS_NOT_ONE_OF', value: ['5411'] }, '5411')).toBe(false);
    expect(holds({ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^BET' }, 'BETTING CO')).toBe(true);
    expect(holds({ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: 'CASINO' }, 'LAS VEGAS CASINO 7')).toBe(true);
    expect(holds({ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^BET' }, 'ABET')).toBe(false);
    expect(holds({ attribute: 'DESCRIPTOR', operation: 'DOES_NOT_MATCH', value: '^BET' }, 'ABET')).toBe(true);
    expect(holds({ attribute: 'DESCRIPTOR', operation: 'DOES_NOT_MATCH', value: '^BET' }, 'BET')).toBe(false);
  });

  it('numeric comparisons at and around their limit', () => {
    const cases: Array<[Condition['operation'], boolean, boolean, boolean]> = [
      // operation, below, at, above (value 100)
      ['IS_EQUAL_TO', false, true, false],
      ['IS_NOT_EQUAL_TO', true, false, true],
      ['IS_GREATER_THAN', false, false, true],
      ['IS_GREATER_THAN_OR_EQUAL_TO', false, true, true],
      ['IS_LESS_THAN', true, false, false],
      ['IS_LESS_THAN_OR_EQUAL_TO', true, true, false],
    ];
    for (const [operation, below, at, above] of cases) {
      const condition = { attribute: 'TRANSACTION_AMOUNT', operation, value: 100 };
      expect([holds(condition, 99), holds(condition, 100), holds(condition, 101)], operation).toEqual([below, at, above]);
    }
  });

  it('a condition on a value the event does not have never holds', () => {
    expect(holds({ attribute: 'RISK_SCORE', operation: 'IS_LESS_THAN', value: 500 }, null)).toBe(false);
    expect(holds({ attribute: 'RISK_SCORE', operation: 'IS_NOT_EQUAL_TO', value: 500 }, null)).toBe(false);
  });

  it('explains with the value the event had', () => {
    const condition = compileCondition({ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['1', '2', '3', '4', '5', '6', '7'] });
    expect(condition.explain('3')).toBe('MCC 3 is one of 1, 2, 3, 4, 5, … (7 values)');
    expect(compileCondition({ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^A' }).explain('AB')).toBe('DESCRIPTOR AB matches /^A/');
  });

  it('names the detailed result of a conditional decline after its first MCC or COUNTRY condition', () => {
    const amount = { attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 1 } as const;
    expect(conditionalDeclineResult([amount, { attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }])).toBe('AUTH_RULE_BLOCKED_MCC');
    expect(conditionalDeclineResult([{ attribute: 'MCC', operation: 'IS_NOT_ONE_OF', value: ['5411'] }])).toBe('AUTH_RULE_ALLOWED_MCC');
    expect(conditionalDeclineResult([{ attribute: 'COUNTRY', operation: 'MATCHES', value: '^R' }])).toBe('AUTH_RULE_BLOCKED_COUNTRY');
    expect(conditionalDeclineResult([{ attribute: 'COUNTRY', operation: 'DOES_NOT_MATCH', value: '^USA$' }])).toBe('AUTH_RULE_ALLOWED_COUNTRY');
    expect(conditionalDeclineResult([amount])).toBe('DECLINED');
  });
});

describe('every AUTHORIZATION attribute reads its fact', () => {
  const cases: Array<[string, unknown, Parameters<typeof authorizationFacts>[2]]> = [
    ['MCC', ['7995'], { merchant: { ...authorizationFacts(CARD, NOW).merchant, mcc: '7995' } }],
    ['COUNTRY', ['RUS'], { merchant: { ...authorizationFacts(CARD, NOW).merchant, country: 'RUS' } }],
    ['CURRENCY', ['EUR'], { merchant: { ...authorizationFacts(CARD, NOW).merchant, currency: 'EUR' } }],
    ['MERCHANT_ID', ['M-9'], { merchant: { ...authorizationFacts(CARD, NOW).merchant, acceptor_id: 'M-9' } }],
    ['DESCRIPTOR', ['CASINO'], { merchant: { ...authorizationFacts(CARD, NOW).merchant, descriptor: 'CASINO' } }],
    ['LIABILITY_SHIFT', ['3DS_AUTHENTICATED'], { liability_shift: '3DS_AUTHENTICATED' }],
    ['PAN_ENTRY_MODE', ['MAGNETIC_STRIPE'], { pan_entry_mode: 'MAGNETIC_STRIPE' }],
    ['CARD_STATE', ['PENDING_ACTIVATION'], { card: { ...CARD, state: 'PENDING_ACTIVATION', pin_status: 'OK' } }],
    ['PIN_ENTERED', ['TRUE'], { pin_entered: true }],
    ['PIN_STATUS', ['BLOCKED'], { card: { ...CARD, state: 'OPEN', pin_status: 'BLOCKED' } }],
    ['WALLET_TYPE', ['APPLE_PAY'], { wallet_type: 'APPLE_PAY' }],
  ];
  it.each(cases)('%s IS_ONE_OF %j', async (attribute, value, overrides) => {
    const raw = { conditions: [{ attribute, operation: 'IS_ONE_OF', value }] };
    expect((await run('CONDITIONAL_BLOCK', raw, overrides)).decision).toBe('DECLINED');
    expect((await run('CONDITIONAL_BLOCK', raw)).decision).toBe('APPROVED');
  });

  it('TRANSACTION_AMOUNT, RISK_SCORE, CASH_AMOUNT and TRANSACTION_INITIATOR', async () => {
    const amount = { conditions: [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 5_000 }] };
    expect((await run('CONDITIONAL_BLOCK', amount, { amount_cents: 5_001 })).decision).toBe('DECLINED');
    expect((await run('CONDITIONAL_BLOCK', amount, { amount_cents: 5_000 })).decision).toBe('APPROVED');
    const risk = { conditions: [{ attribute: 'RISK_SCORE', operation: 'IS_GREATER_THAN_OR_EQUAL_TO', value: 800 }] };
    expect((await run('CONDITIONAL_BLOCK', risk, { risk_score: 800 })).decision).toBe('DECLINED');
    expect((await run('CONDITIONAL_BLOCK', risk, { risk_score: null })).decision).toBe('APPROVED');
    const cash = { action: 'DECLINE', conditions: [{ attribute: 'CASH_AMOUNT', operation: 'IS_GREATER_THAN', value: 0 }, { attribute: 'TRANSACTION_INITIATOR', operation: 'IS_ONE_OF', value: ['CARDHOLDER'] }] };
    expect((await run('CONDITIONAL_ACTION', cash, { cash_amount_cents: 2_000 })).decision).toBe('DECLINED');
    expect((await run('CONDITIONAL_ACTION', cash, { cash_amount_cents: 2_000, transaction_initiator: 'MERCHANT' })).decision).toBe('APPROVED');
  });

  it('CARD_TRANSACTION_COUNT_* ask the history for the trailing window, only when the other conditions hold; the explanation keeps the rule\'s order', async () => {
    const fake = fakeHistory(undefined, 4);
    const raw = {
      conditions: [
        { attribute: 'CARD_TRANSACTION_COUNT_1H', operation: 'IS_GREATER_THAN', value: 3 },
        { attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] },
      ],
    };
    expect(await run('CONDITIONAL_BLOCK', raw, {}, fake.history)).toMatchObject({
      decision: 'DECLINED',
      result: 'AUTH_RULE_BLOCKED_MCC',
      explanation: 'CARD_TRANSACTION_COUNT_1H 4 is greater than 3; MCC 5411 is one of 5411',
    });
    expect(fake.countQueries).toEqual([{ card: 'card-1', since_ms: NOW - 3_600_000, until_ms: NOW + 1 }]);
    const other = fakeHistory(undefined, 4);
    expect((await run('CONDITIONAL_BLOCK', raw, { merchant: { ...authorizationFacts(CARD, NOW).merchant, mcc: '5999' } }, other.history)).decision).toBe('APPROVED');
    expect(other.countQueries).toEqual([]);
    for (const [attribute, windowMs] of [['CARD_TRANSACTION_COUNT_15M', 900_000], ['CARD_TRANSACTION_COUNT_24H', 86_400_000]] as const) {
      const counted = fakeHistory(undefined, 1);
      await run('CONDITIONAL_BLOCK', { conditions: [{ attribute, operation: 'IS_EQUAL_TO', value: 1 }] }, {}, counted.history);
      expect(counted.countQueries[0]?.since_ms).toBe(NOW - windowMs);
    }
  });

  it('every condition must hold (AND)', async () => {
    const raw = { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }, { attribute: 'COUNTRY', operation: 'IS_ONE_OF', value: ['CAN'] }] };
    expect((await run('CONDITIONAL_BLOCK', raw)).decision).toBe('APPROVED');
    expect((await run('CONDITIONAL_BLOCK', raw, { merchant: { ...authorizationFacts(CARD, NOW).merchant, country: 'CAN' } })).decision).toBe('DECLINED');
  });
});

describe('velocity limits', () => {
  const velocity = (parameters: Record<string, unknown>) => ({ scope: 'CARD', period: { type: 'DAY' }, filters: {}, ...parameters });

  it('declines when this authorization would push the amount above the limit (not at it)', async () => {
    const fake = fakeHistory({ amount_cents: 9_000, count: 2 });
    expect((await run('VELOCITY_LIMIT', velocity({ limit_amount: 10_000 }), { amount_cents: 1_000 }, fake.history)).decision).toBe('APPROVED');
    const declined = await run('VELOCITY_LIMIT', velocity({ limit_amount: 10_000 }), { amount_cents: 1_001 }, fake.history);
    expect(declined).toEqual({
      decision: 'DECLINED',
      result: 'CARD_SPEND_LIMIT_EXCEEDED',
      explanation: 'Card spend in the current DAY (US Eastern) would be 10001 cents, above the limit of 10000',
    });
    expect(fake.spendQueries[0]).toEqual({ scope: 'CARD', token: 'card-1', since_ms: Date.parse('2024-05-01T04:00:00Z'), until_ms: NOW + 1, filters: {} });
  });

  it('declines when this authorization would push the count above the limit', async () => {
    const three = fakeHistory({ amount_cents: 0, count: 3 });
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 4 }), {}, three.history)).decision).toBe('APPROVED');
    expect(await run('VELOCITY_LIMIT', velocity({ limit_count: 3 }), {}, three.history)).toMatchObject({
      decision: 'DECLINED',
      explanation: 'Card spend in the current DAY (US Eastern): this would be the 4th authorization, above the limit of 3',
    });
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 0, scope: 'ACCOUNT', period: 600 }), {}, fakeHistory().history)).decision).toBe('DECLINED');
  });

  it('sums per account over the right window, with the filters', async () => {
    const fake = fakeHistory();
    const filters = { include_mccs: ['5411'], exclude_countries: ['CAN'] };
    await run('VELOCITY_LIMIT', velocity({ scope: 'ACCOUNT', period: { type: 'CUSTOM', duration: 3600 }, filters, limit_amount: 1 }), {}, fake.history);
    expect(fake.spendQueries).toEqual([{ scope: 'ACCOUNT', token: 'account-1', since_ms: NOW - 3_600_000, until_ms: NOW + 1, filters }]);
  });

  it('an authorization the filters leave out, or that does not count as spend, does not count and is approved without a history query', async () => {
    const grocery = { merchant: { mcc: '5411', country: 'USA' }, pan_entry_mode: 'ECOMMERCE' };
    expect(countsTowardsVelocity({ include_mccs: ['5411'] }, { ...grocery, merchant: { mcc: '5999', country: 'USA' } })).toBe(false);
    expect(countsTowardsVelocity({ exclude_mccs: ['5411'] }, grocery)).toBe(false);
    expect(countsTowardsVelocity({ include_countries: ['CAN'] }, grocery)).toBe(false);
    expect(countsTowardsVelocity({ exclude_countries: ['USA'] }, grocery)).toBe(false);
    expect(countsTowardsVelocity({ include_pan_entry_modes: ['ICC', 'CONTACTLESS'] }, grocery)).toBe(false);
    expect(countsTowardsVelocity({ include_pan_entry_modes: ['ICC', 'ECOMMERCE'] }, grocery)).toBe(true);
    expect(countsTowardsVelocity({ include_mccs: ['5411'], include_countries: ['USA'], exclude_mccs: null, include_pan_entry_modes: null }, grocery)).toBe(true);
    const fake = fakeHistory({ amount_cents: 1_000_000, count: 100 });
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 1, filters: { exclude_mccs: ['5411'] } }), {}, fake.history)).decision).toBe('APPROVED');
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 1 }), { amount_cents: -500, counts_as_spend: false }, fake.history)).decision).toBe('APPROVED');
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 1 }), { amount_cents: 0, counts_as_spend: false }, fake.history)).decision).toBe('APPROVED');
    expect(fake.spendQueries).toEqual([]);
  });

  it('a $0 authorization that counts as spend is limited by limit_count, never by limit_amount', async () => {
    const full = fakeHistory({ amount_cents: 5_000, count: 1 });
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 1 }), { amount_cents: 0 }, full.history)).decision).toBe('DECLINED');
    expect((await run('VELOCITY_LIMIT', velocity({ limit_count: 2 }), { amount_cents: 0 }, full.history)).decision).toBe('APPROVED');
    expect((await run('VELOCITY_LIMIT', velocity({ limit_amount: 1_000 }), { amount_cents: 0 }, full.history)).decision).toBe('APPROVED');
    expect((await run('VELOCITY_LIMIT', velocity({ limit_amount: 1_000 }), { amount_cents: 1 }, full.history)).decision).toBe('DECLINED');
  });
});

describe('merchant locks', () => {
  const merchant = authorizationFacts(CARD, NOW).merchant;
  const lock = { merchants: [{ merchant_id: 'ACME-1' }, { descriptor: 'COFFEE BAR' }, { merchant_id: 'M-2', descriptor: 'BOOKS' }] };

  it('approves a merchant matching an entry on every field it gives, exactly', async () => {
    expect((await run('MERCHANT_LOCK', lock)).decision).toBe('APPROVED');
    expect((await run('MERCHANT_LOCK', lock, { merchant: { ...merchant, acceptor_id: 'X', descriptor: 'COFFEE BAR' } })).decision).toBe('APPROVED');
    expect((await run('MERCHANT_LOCK', lock, { merchant: { ...merchant, acceptor_id: 'M-2', descriptor: 'BOOKS' } })).decision).toBe('APPROVED');
  });

  it('declines any other merchant', async () => {
    expect(await run('MERCHANT_LOCK', lock, { merchant: { ...merchant, acceptor_id: 'M-2', descriptor: 'MUSIC' } })).toEqual({
      decision: 'DECLINED',
      result: 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE',
      explanation: "Merchant 'MUSIC' (acceptor id M-2) is not one of the 3 merchant(s) the rule allows",
    });
    expect((await run('MERCHANT_LOCK', lock, { merchant: { ...merchant, acceptor_id: 'acme-1' } })).decision).toBe('DECLINED');
    expect((await run('MERCHANT_LOCK', lock, { merchant: { ...merchant, acceptor_id: 'X', descriptor: 'coffee bar' } })).decision).toBe('DECLINED');
  });
});

describe('3DS actions', () => {
  it('decide the action when every condition holds', async () => {
    const stream = 'THREE_DS_AUTHENTICATION';
    const values: Record<string, string | number> = { MCC: '5411', TRANSACTION_AMOUNT: 20_000, MESSAGE_CATEGORY: 'PAYMENT_AUTHENTICATION' };
    const input = { valueOf: (attribute: string) => values[attribute] ?? null };
    const conditions = [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 10_000 }];
    const challenge = compileRule('CONDITIONAL_3DS_ACTION', parseParameters('CONDITIONAL_3DS_ACTION', stream, { action: 'CHALLENGE', conditions }));
    expect(await challenge(input)).toMatchObject({ decision: 'CHALLENGED', result: 'DECLINED', explanation: expect.stringMatching(/^Cardholder challenged: /) });
    const decline = compileRule('CONDITIONAL_ACTION', parseParameters('CONDITIONAL_ACTION', stream, { action: 'DECLINE', conditions }));
    expect(await decline(input)).toMatchObject({ decision: 'DECLINED' });
    expect(await decline({ valueOf: () => 5 })).toMatchObject({ decision: 'APPROVED' });
  });
});
