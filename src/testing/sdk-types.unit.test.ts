/**
 * How sdk-types.ts compares a union variant by variant, on the copy of a velocity limit's
 * parameters (one variant of an auth rule's) whose `period` is seconds, a window's name or an
 * object per window; sdk-shapes.unit.test.ts covers the rest of the comparison.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_RULE } from './auth-rule-shapes.js';
import { sdkFields, shapeDrift, shapeFields } from './sdk-types.js';
import { arrayOf, object, oneOf, union, type Shape, type Spec } from './shapes.js';

/** The spec inside `spec` at a key of an object or the name of a union's variant (through nullables). */
function inside(spec: Spec | undefined, step: string): Spec {
  if (spec === undefined || typeof spec === 'string' || spec.kind === 'enum' || spec.kind === 'array') throw new Error(`no ${step} inside`);
  if (spec.kind === 'nullable') return inside(spec.of, step);
  const next = spec.kind === 'object' ? spec.shape[step] : spec.variants[step];
  if (next === undefined) throw new Error(`no ${step} inside`);
  return next;
}

const VELOCITY = inside(inside(AUTH_RULE.current_version, 'parameters'), 'VelocityLimitParams') as { kind: 'object'; shape: Shape };
const PERIOD = VELOCITY.shape.period as { kind: 'union'; variants: Record<string, Spec> };

describe('shapeDrift of a union', () => {
  let sdk: Parameters<typeof shapeDrift>[1];
  beforeAll(() => {
    sdk = sdkFields(['AuthRules.VelocityLimitParams']).get('AuthRules.VelocityLimitParams')!;
  });
  const driftOf = (period: Spec) => shapeDrift(shapeFields({ ...VELOCITY.shape, period }), sdk);

  it('finds none when the copy has every variant by its SDK name', () => {
    expect(driftOf(PERIOD)).toEqual([]);
  });

  it('names a variant missing, one the SDK lacks, and differences inside a variant by its path', () => {
    const { FixedWindowYear: _year, ...rest } = PERIOD.variants;
    const drifted = { ...rest, FixedWindowWeek: object({ day_of_week: 'string', 'type?': oneOf('WEEK') }), array: arrayOf('string') };
    expect(driftOf(union(drifted))).toEqual([
      'period<FixedWindowWeek>.day_of_week: not optional in the copy, optional in the SDK',
      'period<FixedWindowWeek>.day_of_week: string in the copy, number in the SDK',
      'period<FixedWindowYear>: missing from the copy',
      'period<array>: not in the SDK type',
    ]);
  });

  it('does not compare the variants of a union the copy types otherwise', () => {
    expect(driftOf('integer')).toEqual(['period: number in the copy, union in the SDK']);
  });
});
