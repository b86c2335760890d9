import { expect, it } from 'vitest';
import { GenerationalMap } from './generational-map.js';

it('keeps in its two generations what was used since the older one began', () => {
  const map = new GenerationalMap<string>(2);
  map.set('card-1', 'rules of card 1');
  map.set('card-2', 'rules of card 2');
  map.set('card-3', 'rules of card 3'); // the young generation was full: cards 1 and 2 are now old
  expect(map.get('card-1')).toBe('rules of card 1'); // used: back in the young generation
  map.set('card-4', 'rules of card 4'); // full again: card 2 goes with the old generation
  expect(map.get('card-2')).toBeUndefined();
  expect(map.get('card-1')).toBe('rules of card 1');
  expect(map.get('card-3')).toBe('rules of card 3');
  expect(map.get('card-4')).toBe('rules of card 4');
});
