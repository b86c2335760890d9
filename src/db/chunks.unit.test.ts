import { describe, expect, it } from 'vitest';
import { inChunks, TOKENS_PER_QUERY } from './chunks.js';

describe('inChunks', () => {
  it('queries every token once, in lists no longer than the bound, and keeps the order of the results', async () => {
    const tokens = Array.from({ length: 2 * TOKENS_PER_QUERY + 7 }, (_, index) => `t${index}`);
    const sizes: number[] = [];
    const rows = await inChunks(tokens, async (chunk) => {
      sizes.push(chunk.length);
      return chunk.map((token) => token.toUpperCase());
    });
    expect(sizes).toEqual([TOKENS_PER_QUERY, TOKENS_PER_QUERY, 7]);
    expect(rows).toEqual(tokens.map((token) => token.toUpperCase()));
    expect(await inChunks([], async () => ['never'])).toEqual([]);
  });
});
