/**
 * Runs a query over a token list of any length in bounded `in (…)` lists: engines cap the number
 * of bound parameters of a statement (SQLite 32,766, PostgreSQL 65,535), and an account's whole
 * history can name more transactions than that. Store functions that take such a list use it, so
 * their callers need not know.
 */
export const TOKENS_PER_QUERY = 1_000;

export async function inChunks<T>(tokens: readonly string[], select: (chunk: readonly string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let start = 0; start < tokens.length; start += TOKENS_PER_QUERY) {
    rows.push(...(await select(tokens.slice(start, start + TOKENS_PER_QUERY))));
  }
  return rows;
}
