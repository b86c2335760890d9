/**
 * Which Auth Rules apply to a card or an account: what the `auth_rule_tokens` of card and account
 * responses show. The ACTIVE rules (either stream) that would be evaluated for them: for an account,
 * the program-level rules and those bound to the account, to it as a business account, or to the
 * business account its holder is an authorized user of; for a card, the program-level rules that do
 * not exclude it, those that apply to its account that way, and those bound to the card
 * (program-level rules first, then the bound ones, each oldest first, each once).
 * Three queries for a whole batch (a list page), whatever its size.
 */
import type { Executor } from '../db/database.js';
import * as store from './store.js';

type Target = Awaited<ReturnType<typeof store.activeTargetsNaming>>[number];

/** The bound rules (not program-level) that apply to an account, and to a card of it when `cardToken` is given. */
function boundRules(targets: readonly Target[], accountToken: string, businessAccountToken: string | undefined, cardToken?: string): string[] {
  const applies = (target: Target) =>
    (target.kind === 'CARD' && target.target_token === cardToken) ||
    (target.kind === 'ACCOUNT' && target.target_token === accountToken) ||
    (target.kind === 'BUSINESS_ACCOUNT' && (target.target_token === accountToken || target.target_token === businessAccountToken));
  return [...new Set(targets.filter(applies).map((target) => target.rule_token))];
}

/** The rules bound to any of these cards and accounts (or their business accounts), with each account's business account. */
async function boundTargets(exec: Executor, programId: string, accountTokens: readonly string[], cardTokens: readonly string[] = []) {
  const businessOf = await store.businessAccountsOf(exec, programId, accountTokens);
  const targets = await store.activeTargetsNaming(exec, programId, [...new Set([...cardTokens, ...accountTokens, ...businessOf.values()])]);
  return { businessOf, targets };
}

/** Rule tokens per card token, for a batch of cards of one program. */
export async function ruleTokensForCards(
  exec: Executor,
  programId: string,
  cards: ReadonlyArray<{ token: string; account_token: string }>,
): Promise<Map<string, string[]>> {
  if (cards.length === 0) return new Map();
  const programRules = await store.activeProgramRules(exec, programId);
  const { businessOf, targets } = await boundTargets(exec, programId, [...new Set(cards.map((card) => card.account_token))], cards.map((card) => card.token));
  return new Map(
    cards.map((card) => {
      const excluded = new Set(targets.filter((t) => t.kind === 'EXCLUDED_CARD' && t.target_token === card.token).map((t) => t.rule_token));
      const bound = boundRules(targets, card.account_token, businessOf.get(card.account_token), card.token);
      return [card.token, [...programRules.map((rule) => rule.token).filter((token) => !excluded.has(token)), ...bound]];
    }),
  );
}

/** Rule tokens per account token, for a batch of accounts of one program. */
export async function ruleTokensForAccounts(exec: Executor, programId: string, accountTokens: readonly string[]): Promise<Map<string, string[]>> {
  if (accountTokens.length === 0) return new Map();
  const programRules = (await store.activeProgramRules(exec, programId)).map((rule) => rule.token);
  const { businessOf, targets } = await boundTargets(exec, programId, [...new Set(accountTokens)]);
  return new Map(accountTokens.map((token) => [token, [...programRules, ...boundRules(targets, token, businessOf.get(token))]]));
}
