/**
 * Which Auth Rules apply to a card or an account: what the `auth_rule_tokens` of card and account
 * responses show. The ACTIVE rules (either stream) that would be evaluated for them: for an account,
 * the program-level rules and those bound to the account; for a card, the program-level rules that
 * do not exclude it, those bound to its account, and those bound to the card (program-level rules
 * first, then the bound ones, each oldest first).
 * Two queries for a whole batch (a list page), whatever its size.
 */
import type { Executor } from '../db/database.js';
import * as store from './store.js';

/** Rule tokens per card token, for a batch of cards of one program. */
export async function ruleTokensForCards(
  exec: Executor,
  programId: string,
  cards: ReadonlyArray<{ token: string; account_token: string }>,
): Promise<Map<string, string[]>> {
  if (cards.length === 0) return new Map();
  const programRules = await store.activeProgramRules(exec, programId);
  const targets = await store.activeTargetsNaming(exec, programId, [...new Set(cards.flatMap((card) => [card.token, card.account_token]))]);
  return new Map(
    cards.map((card) => {
      const excluded = new Set(targets.filter((t) => t.kind === 'EXCLUDED_CARD' && t.target_token === card.token).map((t) => t.rule_token));
      const bound = targets
        .filter((t) => (t.kind === 'CARD' && t.target_token === card.token) || (t.kind === 'ACCOUNT' && t.target_token === card.account_token))
        .map((t) => t.rule_token);
      return [card.token, [...programRules.map((rule) => rule.token).filter((token) => !excluded.has(token)), ...bound]];
    }),
  );
}

/** Rule tokens per account token, for a batch of accounts of one program. */
export async function ruleTokensForAccounts(exec: Executor, programId: string, accountTokens: readonly string[]): Promise<Map<string, string[]>> {
  if (accountTokens.length === 0) return new Map();
  const programRules = (await store.activeProgramRules(exec, programId)).map((rule) => rule.token);
  const targets = await store.activeTargetsNaming(exec, programId, [...new Set(accountTokens)]);
  return new Map(
    accountTokens.map((token) => [token, [...programRules, ...targets.filter((t) => t.kind === 'ACCOUNT' && t.target_token === token).map((t) => t.rule_token)]]),
  );
}
