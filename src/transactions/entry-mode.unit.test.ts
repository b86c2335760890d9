import { describe, expect, it } from 'vitest';
import { cardPresentValuesOf, panEntryMode } from './entry-mode.js';

describe('recorded PAN entry modes', () => {
  it('is ICC with the card present, else ECOMMERCE; a filter of modes selects card_present values', () => {
    expect([panEntryMode(true), panEntryMode(false)]).toEqual(['ICC', 'ECOMMERCE']);
    expect(cardPresentValuesOf(['ICC', 'CONTACTLESS'])).toEqual([1]);
    expect(cardPresentValuesOf(['ECOMMERCE'])).toEqual([0]);
    expect(cardPresentValuesOf(['ECOMMERCE', 'ICC'])).toEqual([1, 0]);
    expect(cardPresentValuesOf(['MAGNETIC_STRIPE'])).toEqual([]);
  });
});
