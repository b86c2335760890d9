/**
 * The Auth Rules evaluator the authorization engine calls (see engine/rules-seam.ts). Auth Rules
 * cannot be created yet (their own issue builds them), so no rule applies and nothing declines;
 * that issue replaces this file with the real evaluator.
 */
import type { AuthRulesEvaluator } from '../engine/rules-seam.js';

export const authRulesEvaluator: AuthRulesEvaluator = {
  evaluateAuthorization: async () => [],
};
