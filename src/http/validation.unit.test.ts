import { describe, expect, it } from 'vitest';
import { nulCharacterPath } from './validation.js';

describe('NUL characters', () => {
  it('finds the first string or key holding U+0000 and names its path', () => {
    expect(nulCharacterPath({ a: 'x', b: { c: ['ok', 'n\u0000l'] } })).toBe('b.c[1]');
    expect(nulCharacterPath({ 'k\u0000': 1 })).toBe('k\u0000');
    expect(nulCharacterPath('\u0000')).toBe('');
    expect(nulCharacterPath([{ memo: '\u0000' }])).toBe('[0].memo');
  });

  it('passes everything else', () => {
    for (const value of [undefined, null, 0, true, 'text', { a: ['b', { c: 'd' }] }, 'escaped \\u0000 text']) {
      expect(nulCharacterPath(value)).toBeUndefined();
    }
  });
});
