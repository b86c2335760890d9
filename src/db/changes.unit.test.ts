import { describe, expect, it } from 'vitest';
import { changedColumns, isEmpty } from './changes.js';

describe('changed columns', () => {
  it('keeps only the columns whose value differs', () => {
    const row = { state: 'OPEN', memo: 'a', limit: 0, art: null as string | null };
    expect(changedColumns(row, { state: 'OPEN', memo: 'b', art: null })).toEqual({ memo: 'b' });
    expect(changedColumns(row, { limit: 5, art: 'x' })).toEqual({ limit: 5, art: 'x' });
    expect(isEmpty(changedColumns(row, { state: 'OPEN', memo: 'a' }))).toBe(true);
    expect(isEmpty(changedColumns(row, {}))).toBe(true);
  });
});
