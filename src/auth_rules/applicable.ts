/**
 * Which Auth Rules apply to a card or an account: what the `auth_rule_tokens` of card and account
 * responses show. Auth Rules do not exist yet (their own issue), so no rule applies to anything and
 * every list is empty. The Auth Rules issue fills these two functions in (program-level rules plus
 * those scoped to the card's account or to the card); every response reads them from here.
 */
import type { Executor } from '../db/database.js';

/** Rule tokens per card token, for a batch of cards of one program. */
export async function ruleTokensForCards(
  _exec: Executor,
  _programId: string,
  cards: ReadonlyArray<{ token: string; account_token: string }>,
): Promise<Map<string, string[]>> {
  return new Map(cards.map((card) => [card.token, []]));
}

/** Rule tokens per account token, for a batch of accounts of one program. */
export async function ruleTokensForAccounts(
  _exec: Executor,
  _programId: string,
  accountTokens: readonly string[],
): Promise<Map<string, string[]>> {
  return new Map(accountTokens.map((token) => [token, []]));
}
