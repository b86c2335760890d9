import { describe, expect, it } from 'vitest';
import { arrayOf, jsonStructure, nullable, object, oneOf, shapeProblems, union, unionVariants, unionVariantsTaken, type Shape } from './shapes.js';

const SHAPE: Shape = {
  token: 'uuid',
  amount: 'integer',
  created: 'date-time',
  effective_date: 'date',
  status: oneOf('PENDING', 'SETTLED'),
  nickname: nullable('string'),
  events: arrayOf(object({ type: oneOf('A', 'B'), 'memo?': 'string' })),
  'flag?': 'boolean',
  'series?': nullable(object({ type: 'string' })),
  'payload?': 'any-object',
  'latitude?': 'number',
};

const VALID = {
  token: '01a20666-5d73-75ff-8de8-47e682e36112',
  amount: -5,
  created: '2026-11-23T03:15:01.617Z',
  effective_date: '2026-11-23',
  status: 'PENDING',
  nickname: null,
  events: [{ type: 'A' }, { type: 'B', memo: '' }],
};

describe('shapeProblems', () => {
  it('accepts a value that has every required key, right types, and optional keys absent, null or set', () => {
    expect(shapeProblems(VALID, SHAPE)).toEqual([]);
    expect(shapeProblems({ ...VALID, flag: false, series: null }, SHAPE)).toEqual([]);
    expect(shapeProblems({ ...VALID, series: { type: 'FEE' } }, SHAPE)).toEqual([]);
    expect(shapeProblems({ ...VALID, payload: { anything: [1] }, latitude: 40.7 }, SHAPE)).toEqual([]);
  });

  it('names each missing required key and each undeclared key', () => {
    const { amount: _amount, ...missing } = VALID;
    expect(shapeProblems({ ...missing, family: 'X' }, SHAPE)).toEqual(['amount: is missing', 'family: is not declared']);
  });

  it('names wrong types, formats, enum values and nulls, nested ones by their path', () => {
    const problems = shapeProblems(
      { ...VALID, amount: 1.5, token: 'abc', created: '2026-11-23', status: 'DONE', events: [{ type: 'C', memo: null }], flag: null, series: { type: 3 } },
      SHAPE,
    );
    expect(problems).toEqual([
      "token: 'abc' is not a uuid",
      'amount: 1.5 is not an integer',
      "created: '2026-11-23' is not a date-time",
      'status: "DONE" is not one of PENDING, SETTLED',
      'events[0].type: "C" is not one of A, B',
      'events[0].memo: null is not a string',
      'flag: null is not a boolean',
      'series.type: number is not a string',
    ]);
  });

  it('refuses what is not an object or not an array', () => {
    expect(shapeProblems([], SHAPE)).toEqual(['(root): array is not an object']);
    expect(shapeProblems({ ...VALID, events: {} }, SHAPE)).toEqual(['events: object is not an array']);
    expect(shapeProblems({ ...VALID, payload: [] }, SHAPE)).toEqual(['payload: array is not an object']);
    expect(shapeProblems({ ...VALID, latitude: '40.7' }, SHAPE)).toEqual(['latitude: string is not a number']);
  });
});

describe('shapeProblems of a union', () => {
  const PERIOD: Shape = {
    period: union({ number: 'integer', string: oneOf('DAY', 'WEEK'), Week: object({ type: oneOf('WEEK'), 'day_of_week?': 'integer' }), Custom: object({ type: oneOf('CUSTOM'), duration: 'integer' }) }),
  };

  it('accepts a value that matches any one variant', () => {
    for (const period of [60, 'DAY', { type: 'WEEK' }, { type: 'WEEK', day_of_week: 3 }, { type: 'CUSTOM', duration: 10 }]) expect(shapeProblems({ period }, PERIOD)).toEqual([]);
  });

  it('refuses one that matches none, naming the problems of each variant of its JSON type (or all when none is)', () => {
    expect(shapeProblems({ period: { type: 'CUSTOM' } }, PERIOD)).toEqual([
      'period: matches no variant: Week (period.type: "CUSTOM" is not one of WEEK), Custom (period.duration: is missing)',
    ]);
    expect(shapeProblems({ period: 'HOUR' }, PERIOD)).toEqual([
      'period: matches no variant: number (period: "HOUR" is not an integer), string (period: "HOUR" is not one of DAY, WEEK), ' +
        'Week (period: string is not an object), Custom (period: string is not an object)',
    ]);
  });
});

describe('unionVariants and unionVariantsTaken', () => {
  const RULE: Shape = {
    'version?': nullable(object({ parameters: union({ Block: object({ conditions: arrayOf(object({ value: union({ string: 'string', array: arrayOf('string') }) })) }), Lock: object({ merchants: arrayOf('string') }) }) })),
  };

  it('lists every variant of every union, nested ones by their path, and those a value takes', () => {
    expect(unionVariants(RULE)).toEqual(['version.parameters<Block>', 'version.parameters<Block>.conditions[].value<string>', 'version.parameters<Block>.conditions[].value<array>', 'version.parameters<Lock>']);
    const block = { version: { parameters: { conditions: [{ value: ['a'] }, { value: ['b'] }] } } };
    expect(unionVariantsTaken(block, RULE)).toEqual(['version.parameters<Block>', 'version.parameters<Block>.conditions[].value<array>', 'version.parameters<Block>.conditions[].value<array>']);
    expect(unionVariantsTaken({ version: null }, RULE)).toEqual([]);
    expect(unionVariantsTaken({ version: { parameters: { merchants: 'x' } } }, RULE)).toEqual([]);
  });
});

describe('jsonStructure', () => {
  it("keeps keys and JSON types, not values, and an array's distinct item structures", () => {
    const value = { token: 'a', amount: 5, ok: true, gone: null, tags: ['x', 'y'], items: [{ n: 1 }, { n: 2 }, { n: null }], none: [] };
    expect(jsonStructure(value)).toEqual({ token: 'string', amount: 'number', ok: 'boolean', gone: 'null', tags: ['string'], items: [{ n: 'null' }, { n: 'number' }], none: [] });
    expect(jsonStructure({ b: 1, a: [{ y: 1, x: 2 }, { x: 3, y: 4 }] })).toEqual(jsonStructure({ a: [{ x: 0, y: 0 }], b: 9 }));
  });

  it('tells apart a missing key, a null and a value of another type', () => {
    const structure = jsonStructure({ a: 'x', b: 1 });
    expect(jsonStructure({ a: 'x' })).not.toEqual(structure);
    expect(jsonStructure({ a: null, b: 1 })).not.toEqual(structure);
    expect(jsonStructure({ a: 'x', b: '1' })).not.toEqual(structure);
    expect(jsonStructure({ a: 'x', b: 1, c: 2 })).not.toEqual(structure);
  });
});
