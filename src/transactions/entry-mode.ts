/**
 * The PAN entry mode a card transaction records, from how the simulated card was used: a PIN
 * entered means the card was at the terminal (chip, ICC), otherwise card-not-present e-commerce
 * (ECOMMERCE). No other mode is ever recorded (`card_transactions.card_present` holds the choice).
 * The response's `pos.entry_mode.pan`, the Auth Rules PAN_ENTRY_MODE attribute and velocity
 * filters by `include_pan_entry_modes` all read it from here, so they always agree.
 */
export type RecordedPanEntryMode = 'ICC' | 'ECOMMERCE';

export function panEntryMode(cardPresent: boolean): RecordedPanEntryMode {
  return cardPresent ? 'ICC' : 'ECOMMERCE';
}

/** The `card_present` column values (1, 0) of the transactions whose entry mode is one of `modes`. */
export function cardPresentValuesOf(modes: readonly string[]): Array<0 | 1> {
  return ([1, 0] as const).filter((value) => modes.includes(panEntryMode(value === 1)));
}
