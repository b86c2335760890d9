import { describe, expect, it } from 'vitest';
import { Nullable, StringEnum, Type } from './schemas.js';
import { validatorCompiler } from './validation.js';

function validates(schema: object, value: unknown): boolean {
  const validate = validatorCompiler({ schema, method: 'POST', url: '/', httpPart: 'body' }) as unknown as (value: unknown) => boolean;
  return validate(value);
}

describe('Nullable', () => {
  it('accepts null and the values of a nullable enum, nothing else', () => {
    const schema = Type.Object({ substatus: Nullable(StringEnum(['A', 'B'])) });
    expect(validates(schema, { substatus: null })).toBe(true);
    expect(validates(schema, { substatus: 'A' })).toBe(true);
    expect(validates(schema, { substatus: 'C' })).toBe(false);
  });

  it('accepts null and the type of a nullable primitive', () => {
    const schema = Type.Object({ limit: Nullable(Type.Integer()) });
    expect(validates(schema, { limit: null })).toBe(true);
    expect(validates(schema, { limit: 3 })).toBe(true);
    expect(validates(schema, { limit: 'x' })).toBe(false);
  });
});
