/** Request and response schemas of cards (spec 2.7, 4.7; Lithic's Card). */
import { LimitCents } from '../accounts/schemas.js';
import { CreatedRangeProperties, ListQuery } from '../http/pagination.js';
import { DateTime, EmptyOrVisibleText, FREE_TEXT_MAX_LENGTH, Nullable, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';
import { SPEND_LIMIT_DURATIONS } from './spend.js';
import { CARD_STATES, INITIAL_STATES, REQUESTABLE_STATES } from './state.js';

const CARD_TYPES = ['MERCHANT_LOCKED', 'PHYSICAL', 'SINGLE_USE', 'VIRTUAL', 'UNLOCKED', 'DIGITAL_WALLET'] as const;
const PIN_STATUSES = ['OK', 'BLOCKED', 'NOT_SET'] as const;
const CARD_SUBSTATUSES = [
  'LOST',
  'COMPROMISED',
  'DAMAGED',
  'END_USER_REQUEST',
  'ISSUER_REQUEST',
  'NOT_ACTIVE',
  'SUSPICIOUS_ACTIVITY',
  'INTERNAL_REVIEW',
  'EXPIRED',
  'UNDELIVERABLE',
  'OTHER',
] as const;
export const SHIPPING_METHODS = ['2_DAY', 'EXPEDITED', 'EXPRESS', 'PRIORITY', 'STANDARD', 'STANDARD_WITH_TRACKING'] as const;
const FUNDING_STATES = ['DELETED', 'ENABLED', 'PENDING'] as const;

const TEXT_MAX = 255;
/** The financial account that funds the card (Lithic's deprecated `funding` shape). */
export const Funding = Type.Object({
  token: Uuid,
  created: DateTime,
  last_four: Type.String(),
  state: StringEnum(FUNDING_STATES),
  type: StringEnum(['DEPOSITORY_CHECKING', 'DEPOSITORY_SAVINGS']),
  account_name: Type.Optional(Type.String()),
  nickname: Type.Optional(Type.String()),
});
export type Funding = Static<typeof Funding>;

export const Card = Type.Object(
  {
    token: Uuid,
    account_token: Uuid,
    card_program_token: Uuid,
    created: DateTime,
    funding: Funding,
    last_four: Type.String(),
    pin_status: StringEnum(PIN_STATUSES),
    spend_limit: Type.Integer({ description: 'Cents; 0 means no limit' }),
    spend_limit_duration: StringEnum(SPEND_LIMIT_DURATIONS),
    state: StringEnum(CARD_STATES),
    type: StringEnum(CARD_TYPES),
    auth_rule_tokens: Type.Array(Type.String()),
    cardholder_currency: Type.String(),
    digital_card_art_token: Type.Optional(Uuid),
    exp_month: Type.String(),
    exp_year: Type.String(),
    hostname: Type.String({ description: "Locked merchant's descriptor; empty when not applicable" }),
    memo: Type.String(),
    pending_commands: Type.Array(Type.String()),
    product_id: Type.Optional(Type.String()),
    replacement_for: Nullable(Uuid),
    comment: Type.Optional(Type.String()),
    substatus: Type.Optional(StringEnum(CARD_SUBSTATUSES)),
    /** SDK 0.119: "Null if the card is not associated with a network program". */
    network_program_token: Nullable(Uuid),
    pan: Type.Optional(Type.String({ description: 'Create, retrieve and update responses only' })),
    cvv: Type.Optional(Type.String({ description: 'Create, retrieve and update responses only' })),
  },
  { description: 'Card' },
);
export type Card = Static<typeof Card>;

const PeriodAmounts = (description: string) =>
  Type.Object({ annually: Type.Optional(Type.Integer()), forever: Type.Optional(Type.Integer()), monthly: Type.Optional(Type.Integer()) }, { description });

/** SDK 0.119's CardSpendLimits: only the duration of the card's limit, when it has a window (ANNUALLY, FOREVER, MONTHLY). */
export const CardSpendLimits = Type.Object(
  {
    available_spend_limit: PeriodAmounts('Cents left under the limit in its window: the limit less the approved spend, never below 0'),
    spend_limit: PeriodAmounts('The card’s spend limit in cents, under its duration; empty without a limit or with a TRANSACTION one'),
    spend_velocity: PeriodAmounts('Approved spend in cents in the window of the limit (debits net of reversals, as the authorizations are checked)'),
  },
  { description: 'Card spend limits' },
);
export type CardSpendLimits = Static<typeof CardSpendLimits>;

/** A card in a list: never its PAN or CVV. */
export const CardListItem = Type.Omit(Card, ['pan', 'cvv'], { description: 'Card (lists carry no PAN or CVV)' });

const ShippingAddressInput = StrictObject({
  address1: VisibleText(TEXT_MAX),
  address2: Type.Optional(EmptyOrVisibleText(TEXT_MAX)),
  city: VisibleText(TEXT_MAX),
  country: Type.String({ minLength: 3, maxLength: 3, description: 'Uppercase ISO 3166-1 alpha-3' }),
  first_name: VisibleText(TEXT_MAX),
  last_name: VisibleText(TEXT_MAX),
  postal_code: VisibleText(12, 'Five-digit ZIP or ZIP+4 (12345-6789) in USA; not blank, no control characters'),
  state: EmptyOrVisibleText(24, 'Uppercase ISO 3166-2 code in USA and CAN; elsewhere free text: empty, or not blank and without control characters'),
  email: Type.Optional(Type.String({ format: 'email', maxLength: TEXT_MAX })),
  line2_text: Type.Optional(EmptyOrVisibleText(TEXT_MAX)),
  phone_number: Type.Optional(Type.String({ maxLength: 16 })),
});
type ShippingAddressInput = Static<typeof ShippingAddressInput>;

const Memo = EmptyOrVisibleText(FREE_TEXT_MAX_LENGTH, 'Friendly name of the card: "" (none; on update, clears it) or not blank and without control characters');
/** Additional context on a card (`comment`, or the replaced card's `replacement_comment`). */
const CardComment = EmptyOrVisibleText(FREE_TEXT_MAX_LENGTH, 'Additional context on the card: "" (none; clears it) or not blank and without control characters');
const PinBlock = Type.String({ maxLength: 1024, description: 'Base64 PIN block (PHYSICAL and VIRTUAL cards)' });

export const CreateCardBody = StrictObject({
  type: StringEnum(CARD_TYPES),
  account_token: Type.Optional(Uuid),
  card_program_token: Type.Optional(Uuid),
  carrier: Type.Optional(StrictObject({ qr_code_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })) })),
  digital_card_art_token: Type.Optional(Uuid),
  exp_month: Type.Optional(Type.String({ maxLength: 2, description: 'MM; give with exp_year, or neither to have one generated' })),
  exp_year: Type.Optional(Type.String({ maxLength: 4, description: 'YYYY' })),
  memo: Type.Optional(Memo),
  pin: Type.Optional(PinBlock),
  product_id: Type.Optional(VisibleText(TEXT_MAX, 'The physical card configuration (card art) to manufacture with, PHYSICAL only; not blank, no control characters')),
  replacement_account_token: Type.Optional(Uuid),
  replacement_comment: Type.Optional(CardComment),
  replacement_for: Type.Optional(Uuid),
  replacement_substatus: Type.Optional(StringEnum(CARD_SUBSTATUSES)),
  shipping_address: Type.Optional(ShippingAddressInput),
  shipping_method: Type.Optional(StringEnum(SHIPPING_METHODS)),
  spend_limit: Type.Optional(LimitCents),
  spend_limit_duration: Type.Optional(StringEnum(SPEND_LIMIT_DURATIONS)),
  state: Type.Optional(StringEnum(INITIAL_STATES)),
});
export type CreateCardBody = Static<typeof CreateCardBody>;

export const UpdateCardBody = StrictObject({
  comment: Type.Optional(CardComment),
  digital_card_art_token: Type.Optional(Uuid),
  memo: Type.Optional(Memo),
  network_program_token: Type.Optional(Uuid),
  pin: Type.Optional(PinBlock),
  pin_status: Type.Optional(StringEnum(['OK'])),
  spend_limit: Type.Optional(LimitCents),
  spend_limit_duration: Type.Optional(StringEnum(SPEND_LIMIT_DURATIONS)),
  state: Type.Optional(StringEnum(REQUESTABLE_STATES)),
  substatus: Type.Optional(StringEnum(CARD_SUBSTATUSES)),
});
export type UpdateCardBody = Static<typeof UpdateCardBody>;

export const ListCardsQuery = ListQuery({
  account_token: Type.Optional(Uuid),
  memo: Type.Optional(Type.String({ maxLength: FREE_TEXT_MAX_LENGTH, description: 'Partial match, case-insensitive' })),
  state: Type.Optional(StringEnum(CARD_STATES)),
  ...CreatedRangeProperties,
});
export type ListCardsQuery = Static<typeof ListCardsQuery>;
