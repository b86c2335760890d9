import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { AUTHORIZATION_ACTION_ATTRIBUTES, AUTHORIZATION_ATTRIBUTES, operationsFor, THREE_DS_ATTRIBUTES, type AuthRuleType, type EventStream } from './attributes.js';
import { parseParameters } from './parameters.js';

function errorOf(type: AuthRuleType, stream: EventStream, raw: unknown): string {
  try {
    parseParameters(type, stream, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as Error).message;
  }
  throw new Error('expected a 400');
}

const block = (conditions: unknown) => errorOf('CONDITIONAL_BLOCK', 'AUTHORIZATION', { conditions });
const condition = (attribute: string, operation: string, value: unknown) => ({ attribute, operation, value });
const VALID_VALUES: Record<string, Record<string, unknown>> = {
  text: { IS_ONE_OF: ['A'], IS_NOT_ONE_OF: ['A', 'B'], MATCHES: '^A', DOES_NOT_MATCH: 'B$' },
  integer: { IS_EQUAL_TO: 1, IS_NOT_EQUAL_TO: 0, IS_GREATER_THAN: 5, IS_GREATER_THAN_OR_EQUAL_TO: 5, IS_LESS_THAN: 7, IS_LESS_THAN_OR_EQUAL_TO: 7 },
};
const listValue: Record<string, string> = { MCC: '5411', COUNTRY: 'USA', CURRENCY: 'USD' };

describe('condition parameters', () => {
  const streams = [
    ['CONDITIONAL_BLOCK', 'AUTHORIZATION', AUTHORIZATION_ATTRIBUTES],
    ['CONDITIONAL_ACTION', 'AUTHORIZATION', AUTHORIZATION_ACTION_ATTRIBUTES],
    ['CONDITIONAL_3DS_ACTION', 'THREE_DS_AUTHENTICATION', THREE_DS_ATTRIBUTES],
  ] as const;

  it.each(streams)('%s on %s accepts every attribute with each operation it allows, and refuses the others', (type, stream, attributes) => {
    for (const [attribute, spec] of Object.entries(attributes)) {
      const allowed = operationsFor(spec);
      for (const operation of allowed) {
        let value = spec.kind === 'integer' ? VALID_VALUES.integer?.[operation] : VALID_VALUES.text?.[operation];
        if (spec.kind === 'enum') value = [spec.values[0]];
        if (spec.kind === 'text' && Array.isArray(value) && listValue[attribute]) value = [listValue[attribute]];
        const conditions = [condition(attribute, operation, value)];
        const raw = type === 'CONDITIONAL_BLOCK' ? { conditions } : { action: 'DECLINE', conditions };
        expect(parseParameters(type, stream, raw)).toEqual(raw);
      }
      const refused = (['IS_ONE_OF', 'MATCHES', 'IS_GREATER_THAN'] as const).find((operation) => !allowed.includes(operation));
      if (refused !== undefined) {
        const conditions = [condition(attribute, refused, 1)];
        const raw = type === 'CONDITIONAL_BLOCK' ? { conditions } : { action: 'DECLINE', conditions };
        expect(errorOf(type, stream, raw)).toMatch(new RegExp(`^parameters\\.conditions\\[0\\]\\.operation: ${refused} does not apply to ${attribute}; use one of `));
      }
    }
  });

  it.each([
    [[condition('MCC', 'IS_ONE_OF', ['5411']), condition('MCC', 'IS_ONE_OF', '5411')], 'parameters.conditions[1].value: must be an array of strings for IS_ONE_OF, not string'],
    [[condition('MCC', 'IS_ONE_OF', [])], 'parameters.conditions[0].value: must not be empty'],
    [[condition('MCC', 'IS_ONE_OF', ['5411', 5411])], 'parameters.conditions[0].value[1]: must be a string, not number'],
    [[condition('MCC', 'IS_ONE_OF', ['541'])], 'parameters.conditions[0].value[0]: must be a 4-digit merchant category code'],
    [[condition('COUNTRY', 'IS_NOT_ONE_OF', ['US'])], 'parameters.conditions[0].value[0]: must be an uppercase ISO 3166-1 alpha-3 code, e.g. USA'],
    [[condition('CURRENCY', 'IS_ONE_OF', ['usd'])], 'parameters.conditions[0].value[0]: must be an uppercase ISO 4217 code, e.g. USD'],
    [[condition('PAN_ENTRY_MODE', 'IS_ONE_OF', ['ICC', 'CHIP'])], 'parameters.conditions[0].value[1]: must be one of AUTO_ENTRY, BAR_CODE'],
    [[condition('DESCRIPTOR', 'MATCHES', '(unclosed')], 'parameters.conditions[0].value: must be a valid regular expression'],
    [[condition('DESCRIPTOR', 'MATCHES', ['A'])], 'parameters.conditions[0].value: must be a string, not array'],
    [[condition('TRANSACTION_AMOUNT', 'IS_GREATER_THAN', '100')], 'parameters.conditions[0].value: must be an integer, not string'],
    [[condition('TRANSACTION_AMOUNT', 'IS_GREATER_THAN', 1.5)], 'parameters.conditions[0].value: must be an integer, not number'],
    [[condition('TRANSACTION_AMOUNT', 'IS_GREATER_THAN', 2 ** 53)], 'parameters.conditions[0].value: must be between -9007199254740991 and 9007199254740991'],
    [[condition('TRANSACTION_AMOUNT', 'IS_LESS_THAN', -1e20)], 'parameters.conditions[0].value: must be between -9007199254740991 and 9007199254740991'],
    [[condition('RISK_SCORE', 'IS_GREATER_THAN', 1000)], 'parameters.conditions[0].value: must be between 0 and 999'],
    [[condition('CARD_TRANSACTION_COUNT_1H', 'IS_GREATER_THAN', -1)], 'parameters.conditions[0].value: must be between 0 and'],
    [[condition('CASH_AMOUNT', 'IS_GREATER_THAN', 1)], 'parameters.conditions[0].attribute: must be one of MCC'],
    [[condition('MESSAGE_CATEGORY', 'IS_ONE_OF', ['PAYMENT_AUTHENTICATION'])], 'parameters.conditions[0].attribute: must be one of'],
    [[condition('MCC', 'STARTS_WITH', ['5411'])], 'parameters.conditions[0].operation: must be one of IS_ONE_OF'],
    [[{ attribute: 'MCC', operation: 'IS_ONE_OF' }], 'parameters.conditions[0].value: is required'],
    [[{ ...condition('MCC', 'IS_ONE_OF', ['5411']), extra: 1 }], 'parameters.conditions[0].extra: is not a recognised field'],
    [['MCC'], 'parameters.conditions[0]: must be an object, not string'],
    [[], 'parameters.conditions: must not be empty'],
    ['MCC', 'parameters.conditions: must be an array, not string'],
  ])('CONDITIONAL_BLOCK refuses %j: %s', (conditions, message) => {
    expect(block(conditions)).toContain(message);
  });

  it('3DS and CONDITIONAL_ACTION need an action, DECLINE or CHALLENGE on either stream; 0.119 attributes only on CONDITIONAL_ACTION', () => {
    const conditions = [condition('MCC', 'IS_ONE_OF', ['5411'])];
    expect(errorOf('CONDITIONAL_3DS_ACTION', 'THREE_DS_AUTHENTICATION', { conditions })).toBe('parameters.action: is required');
    expect(errorOf('CONDITIONAL_3DS_ACTION', 'THREE_DS_AUTHENTICATION', { action: 'BLOCK', conditions })).toBe('parameters.action: must be one of DECLINE, CHALLENGE');
    expect(parseParameters('CONDITIONAL_ACTION', 'AUTHORIZATION', { action: 'CHALLENGE', conditions })).toEqual({ action: 'CHALLENGE', conditions });
    expect(errorOf('CONDITIONAL_ACTION', 'AUTHORIZATION', { action: 'ALLOW', conditions })).toBe('parameters.action: must be one of DECLINE, CHALLENGE');
    const cash = { action: 'DECLINE', conditions: [condition('CASH_AMOUNT', 'IS_GREATER_THAN', 0), condition('TRANSACTION_INITIATOR', 'IS_ONE_OF', ['MERCHANT'])] };
    expect(parseParameters('CONDITIONAL_ACTION', 'AUTHORIZATION', cash)).toEqual(cash);
  });
});

describe('velocity limit parameters', () => {
  const velocity = (overrides: Record<string, unknown>) => errorOf('VELOCITY_LIMIT', 'AUTHORIZATION', { scope: 'CARD', period: 'DAY', filters: {}, limit_amount: 100, ...overrides });
  const accepts = (parameters: Record<string, unknown>) => {
    const raw = { scope: 'ACCOUNT', period: 'DAY', filters: {}, limit_count: 1, ...parameters };
    expect(parseParameters('VELOCITY_LIMIT', 'AUTHORIZATION', raw)).toEqual(raw);
  };

  it('accepts every period form, filters and limits', () => {
    for (const period of [10, 2_678_400, 'DAY', 'WEEK', 'MONTH', 'YEAR', { type: 'CUSTOM', duration: 3600 }, { type: 'DAY' }, { type: 'WEEK' }, { type: 'WEEK', day_of_week: 7 }, { type: 'MONTH', day_of_month: 31 }, { type: 'YEAR', month: 2, day_of_month: 29 }, { type: 'YEAR' }]) {
      accepts({ period });
    }
    accepts({ filters: { include_mccs: ['5411'], exclude_mccs: null, include_countries: ['USA', 'CAN'], exclude_countries: ['QZZ'] } });
    accepts({ filters: { include_pan_entry_modes: ['ICC', 'CONTACTLESS'] } });
    accepts({ filters: { include_pan_entry_modes: null } });
    accepts({ limit_amount: 0, limit_count: null });
    accepts({ limit_amount: null, limit_count: 0 });
  });

  it.each([
    [{ scope: 'MERCHANT' }, 'parameters.scope: must be one of CARD, ACCOUNT'],
    [{ period: 9 }, 'parameters.period: must be between 10 and 2678400'],
    [{ period: 2_678_401 }, 'parameters.period: must be between 10 and 2678400'],
    [{ period: 60.5 }, 'parameters.period: must be an integer'],
    [{ period: 'HOUR' }, 'parameters.period: must be one of DAY, WEEK, MONTH, YEAR'],
    [{ period: null }, 'parameters.period: must be a number of seconds, DAY, WEEK, MONTH, YEAR, or an object with a type'],
    [{ period: {} }, 'parameters.period.type: must be one of CUSTOM, DAY, WEEK, MONTH, YEAR'],
    [{ period: { type: 'CUSTOM' } }, 'parameters.period.duration: is required'],
    [{ period: { type: 'CUSTOM', duration: 5 } }, 'parameters.period.duration: must be between 10 and 2678400'],
    [{ period: { type: 'DAY', day_of_week: 1 } }, 'parameters.period.day_of_week: is not a recognised field'],
    [{ period: { type: 'WEEK', day_of_week: 8 } }, 'parameters.period.day_of_week: must be between 1 and 7'],
    [{ period: { type: 'MONTH', day_of_month: 0 } }, 'parameters.period.day_of_month: must be between 1 and 31'],
    [{ period: { type: 'YEAR', month: 13 } }, 'parameters.period.month: must be between 1 and 12'],
    [{ period: { type: 'YEAR', month: 4, day_of_month: 31 } }, 'parameters.period.day_of_month: month 4 has at most 30 days'],
    [{ period: { type: 'YEAR', day_of_month: 32 } }, 'parameters.period.day_of_month: must be between 1 and 31'],
    [{ filters: undefined }, 'parameters.filters: is required'],
    [{ filters: { include_mccs: [] } }, 'parameters.filters.include_mccs: must not be empty'],
    [{ filters: { exclude_mccs: ['54111'] } }, 'parameters.filters.exclude_mccs[0]: must be a 4-digit merchant category code'],
    [{ filters: { include_countries: ['USA', 'us'] } }, 'parameters.filters.include_countries[1]: must be an uppercase ISO 3166-1 alpha-3 code'],
    [{ filters: { include_pan_entry_modes: ['CHIP'] } }, 'parameters.filters.include_pan_entry_modes[0]: must be one of AUTO_ENTRY, BAR_CODE'],
    [{ filters: { include_pan_entry_modes: [] } }, 'parameters.filters.include_pan_entry_modes: must not be empty'],
    [{ limit_amount: -1 }, 'parameters.limit_amount: must be between 0 and'],
    [{ limit_amount: 1e20 }, 'parameters.limit_amount: must be between 0 and 9007199254740991'],
    [{ period: 2 ** 60 }, 'parameters.period: must be between 10 and 2678400'],
    [{ limit_count: 'many' }, 'parameters.limit_count: must be an integer, not string'],
    [{ limit_amount: null, limit_count: null }, 'parameters: give limit_amount or limit_count (or both)'],
    [{ limit_amount: undefined }, 'parameters: give limit_amount or limit_count (or both)'],
  ])('refuses %j', (overrides, message) => {
    expect(velocity(overrides)).toContain(message);
  });
});

describe('merchant lock parameters', () => {
  it('accepts entries with a merchant_id, a descriptor or both, each with an optional comment', () => {
    const raw = { merchants: [{ merchant_id: 'M1' }, { descriptor: 'SHOP', comment: 'our shop' }, { merchant_id: 'M2', descriptor: 'OTHER', comment: '' }] };
    expect(parseParameters('MERCHANT_LOCK', 'AUTHORIZATION', raw)).toEqual(raw);
  });

  it.each([
    [{ merchants: [] }, 'parameters.merchants: must not be empty'],
    [{ merchants: [{ merchant_id: 'M1' }, { comment: 'nothing to match' }] }, 'parameters.merchants[1]: give merchant_id or descriptor (or both)'],
    [{ merchants: [{ merchant_id: '' }] }, 'parameters.merchants[0].merchant_id: must not be empty'],
    [{ merchants: [{ descriptor: 7 }] }, 'parameters.merchants[0].descriptor: must be a string, not number'],
    [{ merchants: [{ mcc: '5411' }] }, 'parameters.merchants[0].mcc: is not a recognised field'],
    [{}, 'parameters.merchants: is required'],
    [[], 'parameters: must be an object, not array'],
  ])('refuses %j', (raw, message) => {
    expect(errorOf('MERCHANT_LOCK', 'AUTHORIZATION', raw)).toContain(message);
  });
});

describe('regular expressions', () => {
  const errorOfPattern = (pattern: string) => block([{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: pattern }]);

  it.each([
    ['(?<=A)B', 'must be a regular expression that runs in linear time: no backreferences, no lookaround'],
    ['(?=x)a+', 'must be a regular expression that runs in linear time: no backreferences, no lookaround'],
    ['(a)\\1', 'must be a regular expression that runs in linear time: no backreferences, no lookaround'],
    ['.{17}', 'must be a regular expression that runs in linear time: no backreferences, no lookaround, no counted repetition of more than 16'],
    ['\\p{L}+', 'must not use Unicode escapes (\\p{…})'],
    ['\\u{41}', 'must not use Unicode escapes (\\u{…})'],
    ['[z-a]', 'must be a valid regular expression'],
  ])('refuses %s', (pattern, message) => {
    expect(errorOfPattern(pattern)).toContain(`parameters.conditions[0].value: ${message}`);
  });

  it.each(['^BET', '(ab)+', '(a+)?', 'a+b*c{2,3}', '[(+)]+', '\\(a+\\)+', '(?:CASINO|POKER)+', '^(?<prefix>[A-Z]+)-\\d{3}$', '(a+)+$', '([a-z]+\\.)+com', '^(A|A|A)*$', '\\u0041', '\\\\p', '.{16}', '\\d{4}-\\d{4}'])(
    'accepts %s',
    (pattern) => {
      expect(parseParameters('CONDITIONAL_BLOCK', 'AUTHORIZATION', { conditions: [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: pattern }] })).toBeDefined();
    },
  );
});
