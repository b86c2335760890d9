/**
 * Cards and card programs.
 *
 * A card program is the BIN range a program's cards are numbered under: created with the program's
 * first card, its 6-digit test BIN derived from the program id. Its numbers come from a keyed
 * permutation (pan.ts); `pan_offset` is 0, or the offset of the former public numbering in a card
 * program created before numbers were keyed.
 * `next_pan_sequence` numbers the cards (see pan.ts); taking a number locks the row, so PANs
 * are unique by construction (the unique `(program_id, pan_lookup_hash)` index double-checks).
 *
 * A card's PAN and CVV are stored AES-256-GCM encrypted; `pan_lookup_hash` (keyed HMAC) finds a
 * card by PAN. The PIN is stored only as a keyed hash of (card token, PIN).
 */
export interface CardProgramsTable {
  program_id: string;
  token: string;
  bin: string;
  pan_offset: number;
  next_pan_sequence: number;
  created_ms: number;
}

export interface CardsTable {
  program_id: string;
  token: string;
  account_token: string;
  card_program_token: string;
  type: string;
  state: string;
  pan_encrypted: string;
  pan_lookup_hash: string;
  last_four: string;
  cvv_encrypted: string;
  /** "MM" and "YYYY"; the card is valid through the last day of that month (UTC). */
  exp_month: string;
  exp_year: string;
  pin_hash: string | null;
  pin_status: string;
  /** Consecutive incorrect PIN entries; the PIN is BLOCKED at MAX_PIN_ATTEMPTS. */
  pin_failed_attempts: number;
  /** 0 = no limit. */
  spend_limit_cents: number;
  spend_limit_duration: string;
  memo: string;
  comment: string | null;
  substatus: string | null;
  /** The card's network program (SDK 0.119; Visa Account Level Management), set by PATCH; null until then. */
  network_program_token: string | null;
  digital_card_art_token: string | null;
  product_id: string | null;
  replacement_for: string | null;
  /** JSON `{shipping_address, shipping_method, carrier}` of a PHYSICAL card, else null. */
  shipping: string | null;
  /** Locked merchant's descriptor (MERCHANT_LOCKED cards, after their first approval), else ''. */
  hostname: string;
  locked_merchant_acceptor_id: string | null;
  /** Time of the first approved authorization (a SINGLE_USE card is spent from then on). */
  first_approved_ms: number | null;
  /** When the fulfilment batch sent this PHYSICAL card (cards/jobs.ts); null until then, and for other types. */
  shipped_ms: number | null;
  created_ms: number;
  updated_ms: number;
}

export interface CardTables {
  card_programs: CardProgramsTable;
  cards: CardsTable;
}
