import { describe, expect, it } from 'vitest';
import type { AccountForSpend, AccountSpent } from '../accounts/spend.js';
import { pinHash } from '../cards/pin.js';
import type { CardForSpend } from '../cards/spend.js';
import { AUTHORIZATION_STEPS, checkFunds, decideAuthorization, ruleDeclineResult, type EngineInput, type EngineSources } from './pipeline.js';
import type { RuleResult } from './rules-seam.js';

const at = (iso: string) => Date.parse(iso);
const NOW = at('2024-03-15T10:30:00Z');
const hasher = { lookupHash: (value: string) => `h(${value})` };

const card: CardForSpend = {
  token: 'card-1',
  type: 'VIRTUAL',
  state: 'OPEN',
  exp_month: '12',
  exp_year: '2026',
  spend_limit_cents: 10_000,
  spend_limit_duration: 'MONTHLY',
  created_ms: at('2023-01-10T00:00:00Z'),
  first_approved_ms: null,
  locked_merchant_acceptor_id: null,
  pin_hash: pinHash(hasher, 'card-1', '1234'),
  pin_status: 'OK',
};
const account: AccountForSpend = {
  state: 'ACTIVE',
  daily_spend_limit_cents: 5_000,
  monthly_spend_limit_cents: 20_000,
  lifetime_spend_limit_cents: 50_000,
  created_ms: at('2023-01-01T00:00:00Z'),
};
const input: EngineInput = { card, account, issuing_financial_account_status: 'OPEN', amount_cents: 1_000, now_ms: NOW, context: {}, funds_required: true, partial_approval_capable: false };
const nothingSpent: AccountSpent = { daily_cents: 0, monthly_cents: 0, lifetime_cents: 0 };
const blockedMcc: RuleResult = { auth_rule_token: 'rule-1', explanation: 'MCC 7995 is blocked', name: 'no gambling', result: 'AUTH_RULE_BLOCKED_MCC' };

/** Sources that answer from fixed values and record which were asked. */
function sources(overrides: { accountSpent?: AccountSpent; cardSpent?: number; rules?: RuleResult[]; available?: number } = {}) {
  const asked: string[] = [];
  const fake: EngineSources = {
    accountSpent: async () => (asked.push('accountSpent'), overrides.accountSpent ?? nothingSpent),
    cardWindowSpent: async () => (asked.push('cardWindowSpent'), overrides.cardSpent ?? 0),
    authRules: async () => (asked.push('authRules'), overrides.rules ?? []),
    availableCents: async () => (asked.push('availableCents'), overrides.available ?? 1_000_000),
  };
  return { fake, asked };
}

describe('the authorization pipeline', () => {
  it('approves when every step passes, asking every source once, in order', async () => {
    const { fake, asked } = sources();
    expect(await decideAuthorization(input, fake)).toEqual({
      approved: true,
      result: 'APPROVED',
      detailed_results: ['APPROVED'],
      rule_results: [],
      declined_by: null,
      pin: null,
      partial_amount_cents: null,
    });
    expect(asked).toEqual(['accountSpent', 'cardWindowSpent', 'authRules', 'availableCents']);
  });

  it('runs its steps in the documented order: with everything wrong, each fix reveals the next step', async () => {
    type State = { input: EngineInput; overrides: Parameters<typeof sources>[0] };
    let state: State = {
      input: { ...input, card: { ...card, state: 'PAUSED' }, account: { ...account, state: 'PAUSED' }, amount_cents: 6_000 },
      overrides: { cardSpent: 9_000, rules: [blockedMcc], available: 100 },
    };
    const fixes: Array<(current: State) => State> = [
      (current) => ({ ...current, input: { ...current.input, card } }),
      (current) => ({ ...current, input: { ...current.input, account: { ...account } } }),
      (current) => ({ ...current, input: { ...current.input, account: { ...account, daily_spend_limit_cents: 6_000 } } }),
      (current) => ({ ...current, overrides: { ...current.overrides, cardSpent: 0 } }),
      (current) => ({ ...current, overrides: { ...current.overrides, rules: [] } }),
      (current) => ({ ...current, overrides: { ...current.overrides, available: 6_000 } }),
    ];
    const seen: Array<string | null> = [];
    for (const fix of [...fixes, undefined]) {
      seen.push((await decideAuthorization(state.input, sources(state.overrides).fake)).declined_by);
      if (fix) state = fix(state);
    }
    expect(seen).toEqual([...AUTHORIZATION_STEPS, null]);
  });

  it('declines at each step with its result and detail, and asks nothing after the step that declined', async () => {
    const cases: Array<{ name: string; input: EngineInput; overrides?: Parameters<typeof sources>[0]; expected: [string, string, string]; asked: string[] }> = [
      { name: 'card closed', input: { ...input, card: { ...card, state: 'CLOSED' } }, expected: ['card', 'CARD_CLOSED', 'CARD_CLOSED'], asked: [] },
      {
        name: 'single use reused',
        input: { ...input, card: { ...card, type: 'SINGLE_USE', state: 'CLOSED', first_approved_ms: NOW - 1 } },
        expected: ['card', 'SINGLE_USE_RECHARGED', 'SINGLE_USE_CARD_REATTEMPTED'],
        asked: [],
      },
      { name: 'card paused', input: { ...input, card: { ...card, state: 'PAUSED' } }, expected: ['card', 'CARD_PAUSED', 'CARD_PAUSED'], asked: [] },
      { name: 'card expired', input: { ...input, now_ms: at('2027-01-01T00:00:00Z') }, expected: ['card', 'DECLINED', 'CARD_EXPIRED'], asked: [] },
      {
        name: 'merchant locked elsewhere',
        input: { ...input, card: { ...card, type: 'MERCHANT_LOCKED', locked_merchant_acceptor_id: 'SHOP-1' }, context: { merchant_acceptor_id: 'SHOP-2' } },
        expected: ['card', 'UNAUTHORIZED_MERCHANT', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE'],
        asked: [],
      },
      {
        name: 'physical card not activated, card present',
        input: { ...input, card: { ...card, type: 'PHYSICAL', state: 'PENDING_ACTIVATION' }, context: { card_present: true } },
        expected: ['card', 'DECLINED', 'CARD_NOT_ACTIVATED'],
        asked: [],
      },
      { name: 'wrong PIN', input: { ...input, pin: { entered: '9999', hasher } }, expected: ['card', 'INCORRECT_PIN', 'CARD_PIN_INCORRECT'], asked: [] },
      { name: 'PIN blocked', input: { ...input, card: { ...card, pin_status: 'BLOCKED' }, pin: { entered: '1234', hasher } }, expected: ['card', 'INCORRECT_PIN', 'PIN_BLOCKED'], asked: [] },
      { name: 'account paused', input: { ...input, account: { ...account, state: 'PAUSED' } }, expected: ['account', 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED'], asked: [] },
      { name: 'account closed', input: { ...input, account: { ...account, state: 'CLOSED' } }, expected: ['account', 'INACTIVE_ACCOUNT', 'ACCOUNT_INACTIVE'], asked: [] },
      {
        name: 'ISSUING account suspended',
        input: { ...input, issuing_financial_account_status: 'SUSPENDED' },
        expected: ['account', 'ACCOUNT_STATE_TRANSACTION_FAIL', 'ACCOUNT_PAUSED'],
        asked: [],
      },
      { name: 'ISSUING account closed', input: { ...input, issuing_financial_account_status: 'CLOSED' }, expected: ['account', 'INACTIVE_ACCOUNT', 'ACCOUNT_INACTIVE'], asked: [] },
      {
        name: 'account daily',
        input,
        overrides: { accountSpent: { daily_cents: 4_001, monthly_cents: 0, lifetime_cents: 0 } },
        expected: ['account_limits', 'USER_TRANSACTION_LIMIT', 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED'],
        asked: ['accountSpent'],
      },
      {
        name: 'account monthly',
        input,
        overrides: { accountSpent: { daily_cents: 0, monthly_cents: 19_001, lifetime_cents: 0 } },
        expected: ['account_limits', 'USER_TRANSACTION_LIMIT', 'ACCOUNT_MONTHLY_SPEND_LIMIT_EXCEEDED'],
        asked: ['accountSpent'],
      },
      {
        name: 'account lifetime',
        input,
        overrides: { accountSpent: { daily_cents: 0, monthly_cents: 0, lifetime_cents: 49_001 } },
        expected: ['account_limits', 'USER_TRANSACTION_LIMIT', 'ACCOUNT_LIFETIME_SPEND_LIMIT_EXCEEDED'],
        asked: ['accountSpent'],
      },
      {
        name: 'card limit in its window',
        input,
        overrides: { cardSpent: 9_001 },
        expected: ['card_limit', 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED'],
        asked: ['accountSpent', 'cardWindowSpent'],
      },
      {
        name: 'card TRANSACTION limit',
        input: { ...input, card: { ...card, spend_limit_duration: 'TRANSACTION', spend_limit_cents: 999 } },
        expected: ['card_limit', 'USER_TRANSACTION_LIMIT', 'CARD_SPEND_LIMIT_EXCEEDED'],
        asked: ['accountSpent', 'cardWindowSpent'],
      },
      {
        name: 'Auth Rules',
        input,
        overrides: { rules: [blockedMcc] },
        expected: ['auth_rules', 'DECLINED', 'AUTH_RULE_BLOCKED_MCC'],
        asked: ['accountSpent', 'cardWindowSpent', 'authRules'],
      },
      {
        name: 'funds',
        input,
        overrides: { available: 999 },
        expected: ['funds', 'INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS'],
        asked: ['accountSpent', 'cardWindowSpent', 'authRules', 'availableCents'],
      },
    ];
    for (const testCase of cases) {
      const { fake, asked } = sources(testCase.overrides);
      const decision = await decideAuthorization(testCase.input, fake);
      expect([decision.declined_by, decision.result, decision.detailed_results.join()], testCase.name).toEqual(testCase.expected);
      expect(decision.approved, testCase.name).toBe(false);
      expect(asked, testCase.name).toEqual(testCase.asked);
    }
  });

  it('admits exactly up to a limit: spent + amount equal to the limit approves', async () => {
    expect((await decideAuthorization(input, sources({ cardSpent: 9_000 }).fake)).approved).toBe(true);
    expect((await decideAuthorization(input, sources({ accountSpent: { daily_cents: 4_000, monthly_cents: 0, lifetime_cents: 0 } }).fake)).approved).toBe(true);
    expect((await decideAuthorization(input, sources({ available: 1_000 }).fake)).approved).toBe(true);
  });

  it('never limits or asks funds for credits and zero amounts, but still needs a usable card and account', async () => {
    for (const amount of [-50_000, 0]) {
      const { fake, asked } = sources({ cardSpent: 1_000_000, accountSpent: { daily_cents: 1e9, monthly_cents: 1e9, lifetime_cents: 1e9 }, available: -1 });
      expect((await decideAuthorization({ ...input, amount_cents: amount }, fake)).approved).toBe(true);
      expect(asked).toEqual(['authRules']);
      expect((await decideAuthorization({ ...input, amount_cents: amount, card: { ...card, state: 'CLOSED' } }, sources().fake)).result).toBe('CARD_CLOSED');
    }
  });

  it('asks no funds when the program does not require them (balances may go negative)', async () => {
    const { fake, asked } = sources({ available: -5_000 });
    expect((await decideAuthorization({ ...input, funds_required: false }, fake)).approved).toBe(true);
    expect(asked).not.toContain('availableCents');
  });

  it('approves the available funds on a terminal capable of partial approval, only when funds are what is short', async () => {
    const partial = { ...input, partial_approval_capable: true };
    const decision = await decideAuthorization(partial, sources({ available: 250 }).fake);
    expect(decision).toMatchObject({ approved: true, result: 'APPROVED', declined_by: null, partial_amount_cents: 250 });
    expect((await decideAuthorization(partial, sources({ available: 1_000 }).fake)).partial_amount_cents).toBeNull();
    for (const available of [0, -10]) {
      expect(await decideAuthorization(partial, sources({ available }).fake)).toMatchObject({ approved: false, declined_by: 'funds', partial_amount_cents: null });
    }
    expect((await decideAuthorization(input, sources({ available: 250 }).fake)).declined_by).toBe('funds');
    expect((await decideAuthorization(partial, sources({ available: 250, cardSpent: 9_500 }).fake)).declined_by).toBe('card_limit');
    expect((await decideAuthorization(partial, sources({ available: 250, rules: [blockedMcc] }).fake)).declined_by).toBe('auth_rules');
    expect((await decideAuthorization({ ...partial, funds_required: false }, sources({ available: 250 }).fake)).partial_amount_cents).toBeNull();
  });

  it('reports how the PIN check went, for the card to count incorrect attempts', async () => {
    const withPin = (entered: string, extra: Partial<EngineInput> = {}) => decideAuthorization({ ...input, ...extra, pin: { entered, hasher } }, sources().fake);
    expect((await withPin('1234')).pin).toBe('correct');
    expect((await withPin('1234', { card: { ...card, spend_limit_cents: 1, spend_limit_duration: 'TRANSACTION' } })).pin).toBe('correct');
    expect((await withPin('0000')).pin).toBe('incorrect');
    expect((await withPin('1234', { card: { ...card, pin_status: 'BLOCKED' } })).pin).toBeNull();
    expect((await withPin('0000', { card: { ...card, state: 'PAUSED' } })).pin).toBeNull();
    expect((await decideAuthorization(input, sources().fake)).pin).toBeNull();
  });

  it('lists the rules behind an Auth Rules decline and maps them to a result', async () => {
    const velocity: RuleResult = { auth_rule_token: 'rule-2', explanation: null, name: null, result: 'CARD_SPEND_LIMIT_EXCEEDED' };
    const decision = await decideAuthorization(input, sources({ rules: [blockedMcc, velocity, blockedMcc] }).fake);
    expect(decision.rule_results).toEqual([blockedMcc, velocity, blockedMcc]);
    expect(decision.detailed_results).toEqual(['AUTH_RULE_BLOCKED_MCC', 'CARD_SPEND_LIMIT_EXCEEDED']);
    expect(ruleDeclineResult([velocity])).toBe('USER_TRANSACTION_LIMIT');
    expect(ruleDeclineResult([{ ...velocity, result: 'ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED' }])).toBe('USER_TRANSACTION_LIMIT');
    expect(ruleDeclineResult([{ ...velocity, result: 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE' }])).toBe('UNAUTHORIZED_MERCHANT');
    expect(ruleDeclineResult([blockedMcc])).toBe('DECLINED');
  });

  it('names its steps in order', () => {
    expect(AUTHORIZATION_STEPS).toEqual(['card', 'account', 'account_limits', 'card_limit', 'auth_rules', 'funds']);
    expect(checkFunds(1, 0)).toEqual({ approved: false, result: 'INSUFFICIENT_FUNDS', detailed_results: ['INSUFFICIENT_FUNDS'] });
    expect(checkFunds(5, 5)).toEqual({ approved: true });
  });
});
