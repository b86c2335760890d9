import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { describeValidationError, fieldPath, inputProblem, MAX_INPUT_DEPTH, refuseEmptyValues, splitCommaSeparated } from './validation.js';

const nul = (path: string) => ({ path, problem: 'nul' });
const reserved = (path: string) => ({ path, problem: 'reserved' });

describe('validation messages', () => {
  it('renders JSON pointers as readable field paths', () => {
    expect(fieldPath('/parameters/conditions/1/value')).toBe('parameters.conditions[1].value');
    expect(fieldPath('', 'nickname')).toBe('nickname');
    expect(fieldPath('/a~1b/0')).toBe('a/b[0]');
  });

  it('names the field in every kind of error', () => {
    const error = (keyword: string, instancePath: string, params: object, message = 'is invalid') =>
      describeValidationError({ keyword, instancePath, params, message, schemaPath: '' }, 'body');
    expect(error('required', '/individual', { missingProperty: 'dob' })).toBe('individual.dob: is required');
    expect(error('additionalProperties', '', { additionalProperty: 'colour' })).toBe('colour: is not a recognised field');
    expect(error('enum', '/type', { allowedValues: ['A', 'B'] })).toBe('type: must be one of A, B');
    expect(error('enum', '/substatus', { allowedValues: ['A', null] })).toBe('substatus: must be one of A, null');
    expect(error('format', '/token', { format: 'uuid' })).toBe('token: must be a valid uuid');
    expect(error('maximum', '/page_size', {}, 'must be <= 100')).toBe('page_size: must be <= 100');
    expect(error('type', '', {}, 'must be object')).toBe('body: must be object');
  });

  it('splits comma-separated and repeated array query values', () => {
    const query: Record<string, unknown> = { states: 'ENABLED,PAUSED', countries: ['USA', 'CAN,MEX'], page_size: '5' };
    splitCommaSeparated(query, ['states', 'countries', 'verification_states']);
    expect(query).toEqual({ states: ['ENABLED', 'PAUSED'], countries: ['USA', 'CAN', 'MEX'], page_size: '5' });
  });

  it('keeps empty items for refuseEmptyValues, which names the parameter', () => {
    const query: Record<string, unknown> = { states: 'ENABLED,', countries: ',', category: 'FEE' };
    splitCommaSeparated(query, ['states', 'countries']);
    expect(query).toEqual({ states: ['ENABLED', ''], countries: ['', ''], category: 'FEE' });
    expect(() => refuseEmptyValues(query, ['category', 'page_size'])).not.toThrow();
    expect(() => refuseEmptyValues(query, ['states'])).toThrow(new InvalidRequestError('states: must not be empty or have an empty item (leave the parameter out for no filter)'));
    expect(() => refuseEmptyValues({ status: ['SETTLED', ''] }, ['status'])).toThrow(/^status: /);
  });
});

describe('NUL characters', () => {
  it('finds the first string or key holding U+0000 and names its path', () => {
    expect(inputProblem({ a: 'x', b: { c: ['ok', 'n\u0000l'] } })).toEqual(nul('b.c[1]'));
    expect(inputProblem({ 'k\u0000': 1 })).toEqual(nul('k\u0000'));
    expect(inputProblem('\u0000')).toEqual(nul(''));
    expect(inputProblem([{ memo: '\u0000' }])).toEqual(nul('[0].memo'));
  });

  it('finds a lone UTF-16 surrogate, high or low, in a string or a key', () => {
    expect(inputProblem({ a: ['ok', 'x\ud800'] })).toEqual({ path: 'a[1]', problem: 'surrogate' });
    expect(inputProblem({ a: '\udfff' })).toEqual({ path: 'a', problem: 'surrogate' });
    expect(inputProblem({ 'k\udc00': 1 })).toEqual({ path: 'k\udc00', problem: 'surrogate' });
    expect(inputProblem('\udc00\ud800')).toEqual({ path: '', problem: 'surrogate' });
  });

  it('passes everything else', () => {
    for (const value of [undefined, null, 0, true, 'text', { a: ['b', { c: 'd' }] }, 'escaped \\u0000 text', 'pair 💳 \ud83d\udcb3']) {
      expect(inputProblem(value)).toBeUndefined();
    }
  });

  it('refuses nesting past MAX_INPUT_DEPTH without recursing, however deep', () => {
    const nested = (depth: number) => {
      let value: unknown = 'leaf';
      for (let level = 0; level < depth; level++) value = [value];
      return value;
    };
    expect(inputProblem(nested(MAX_INPUT_DEPTH))).toBeUndefined();
    expect(inputProblem(nested(MAX_INPUT_DEPTH + 1))).toEqual({ path: '[0]'.repeat(MAX_INPUT_DEPTH), problem: 'depth' });
    expect(inputProblem(nested(1_000_000))).toMatchObject({ problem: 'depth' });
    expect(inputProblem({ first: 'a\u0000', second: nested(100) })).toEqual({ path: 'first', problem: 'nul' });
  });
});

describe('reserved keys', () => {
  it('finds the first __proto__ or constructor key and names its path', () => {
    expect(inputProblem(JSON.parse('{"a": {"__proto__": {"x": 1}}}'))).toEqual(reserved('a.__proto__'));
    expect(inputProblem(JSON.parse('[{"b": 1}, {"constructor": {"prototype": {}}}]'))).toEqual(reserved('[1].constructor'));
  });

  it('passes everything else, values named like them included', () => {
    for (const value of [null, 'constructor', { a: ['__proto__'] }, { prototype: 1, proto: 2 }]) {
      expect(inputProblem(value)).toBeUndefined();
    }
  });
});
