/**
 * The black-box shapes tests' runner: for each resource, every step that makes or changes one (or
 * reads it) answers its shape (shapes.ts), and some step answers each key the shape declares, so
 * an optional key no answer ever carries is seen too; where the shape has unions, some step answers
 * each of their variants. A key these steps cannot answer (a field of holders the answered operation
 * never serves) is listed in `unanswered` with the reason, and must then stay unanswered.
 */
import { describe, expect, it } from 'vitest';
import { shapeProblems, unionVariants, unionVariantsTaken, type Shape } from './shapes.js';

/** Each step by its name, giving the answers it got (at least one). */
export type Steps = Record<string, () => Promise<unknown[]>>;

export function describeShapeSteps(table: ReadonlyArray<{ resource: string; shape: Shape; steps: Steps; unanswered?: Record<string, string> }>): void {
  for (const { resource, shape, steps, unanswered = {} } of table) {
    describe(resource, () => {
      const seenKeys = new Set<string>();
      const seenVariants = new Set<string>();
      for (const [step, produce] of Object.entries(steps)) {
        it(step, async () => {
          const answers = await produce();
          expect(answers.length).toBeGreaterThan(0);
          for (const answer of answers) {
            expect(shapeProblems(answer, shape), JSON.stringify(answer)).toEqual([]);
            for (const key of Object.keys(answer as object)) seenKeys.add(key);
            for (const variant of unionVariantsTaken(answer, shape)) seenVariants.add(variant);
          }
        });
      }
      it('answers every key the type declares in some step', () => {
        const declared = Object.keys(shape).map((key) => key.replace(/\?$/, ''));
        expect(declared.filter((key) => !seenKeys.has(key) && !(key in unanswered))).toEqual([]);
        expect(Object.keys(unanswered).filter((key) => seenKeys.has(key) || !declared.includes(key))).toEqual([]);
      });
      const variants = unionVariants(shape);
      if (variants.length > 0) {
        it('answers every variant of its unions in some step', () => {
          expect(variants.filter((variant) => !seenVariants.has(variant))).toEqual([]);
        });
      }
    });
  }
}
