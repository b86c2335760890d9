/** Paging a filtered list every way the SDK pages it, for list tests. */
import { expect } from 'vitest';

interface Item {
  token: string;
}

/** A list as the SDK gives it: awaited, one page; iterated, every item from there on (auto-pagination with starting_after). */
export type PagedList = (query: Record<string, unknown>) => PromiseLike<{ data: Item[]; has_more: boolean }> & AsyncIterable<Item>;

/**
 * Expects `list` with `filters` to hold exactly `expected` (tokens, newest first) at page sizes 1
 * to 3, read forwards by auto-pagination and backwards from the oldest with ending_before: every
 * page full but the last, and has_more true on every page but the last.
 */
export async function expectPagedBothWays(list: PagedList, filters: object, expected: readonly string[]): Promise<void> {
  for (const pageSize of [1, 2, 3]) {
    const label = `${JSON.stringify(filters)}, page_size ${pageSize}`;
    expect((await list({ ...filters, page_size: pageSize })).has_more, `${label}: first page`).toBe(expected.length > pageSize);
    const forward: string[] = [];
    for await (const item of list({ ...filters, page_size: pageSize })) forward.push(item.token);
    expect(forward, `${label}: forwards`).toEqual(expected);

    const oldest = expected.at(-1);
    if (oldest === undefined) continue;
    const backward = [oldest];
    let pages = 0;
    for (let more = true; more; pages++) {
      const page = await list({ ...filters, page_size: pageSize, ending_before: backward[0] });
      backward.unshift(...page.data.map((item) => item.token));
      more = page.has_more;
      if (more) expect(page.data, `${label}: a page before the last`).toHaveLength(pageSize);
    }
    expect(backward, `${label}: backwards`).toEqual(expected);
    expect(pages, `${label}: pages backwards`).toBe(Math.max(1, Math.ceil((expected.length - 1) / pageSize)));
  }
}
