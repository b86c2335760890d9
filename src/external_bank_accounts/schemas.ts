import { Address, AddressInput } from '../account_holders/schemas.js';
import { ListQuery } from '../http/pagination.js';
import { DateTime, IsoDate, Nullable, ShapeChosenBy, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';

export const OWNER_TYPES = ['BUSINESS', 'INDIVIDUAL'] as const;
export const ACCOUNT_TYPES = ['CHECKING', 'SAVINGS'] as const;
export const STATES = ['ENABLED', 'CLOSED', 'PAUSED'] as const;
export const VERIFICATION_STATES = ['PENDING', 'ENABLED', 'FAILED_VERIFICATION', 'INSUFFICIENT_FUNDS'] as const;
/** The methods of a body that gives the account's numbers; PLAID's body gives a Plaid processor token instead. */
const NUMBERED_METHODS = ['MANUAL', 'MICRO_DEPOSIT', 'PRENOTE', 'EXTERNALLY_VERIFIED', 'UNVERIFIED'] as const;
const VERIFICATION_METHODS = [...NUMBERED_METHODS, 'PLAID'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export const ExternalBankAccount = Type.Object(
  {
    token: Uuid,
    account_token: Nullable(Uuid),
    financial_account_token: Type.Optional(Uuid),
    country: Type.String(),
    created: DateTime,
    currency: Type.String(),
    last_four: Type.String(),
    owner: Type.String(),
    owner_type: StringEnum(OWNER_TYPES),
    routing_number: Type.String(),
    state: StringEnum(STATES),
    type: StringEnum(ACCOUNT_TYPES),
    verification_attempts: Type.Integer(),
    verification_method: StringEnum(VERIFICATION_METHODS),
    verification_state: StringEnum(VERIFICATION_STATES),
    verification_failed_reason: Type.Optional(Type.String()),
    address: Type.Optional(Address),
    company_id: Type.Optional(Type.String()),
    dob: Type.Optional(IsoDate),
    doing_business_as: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    user_defined_id: Type.Optional(Type.String()),
  },
  { description: 'External bank account (the account number itself is never returned)' },
);
export type ExternalBankAccount = Static<typeof ExternalBankAccount>;

/** What every create body and an update may say about the owner. */
const described = {
  company_id: Type.Optional(VisibleText(256)),
  dob: Type.Optional(IsoDate),
  doing_business_as: Type.Optional(VisibleText(256)),
  user_defined_id: Type.Optional(VisibleText(256)),
};

/** Addresses are checked as account holders' are: the schema here, the content rules in account_holders/rules.ts. */
const editable = {
  ...described,
  address: Type.Optional(AddressInput),
  name: Type.Optional(VisibleText(256)),
};

const owner = { owner: VisibleText(256), owner_type: StringEnum(OWNER_TYPES), account_token: Type.Optional(Uuid) };

/** Lithic's bank-verified, externally verified and unverified create requests: the account's numbers are given. */
export const NumberedAccountBody = StrictObject({
  ...owner,
  account_number: Type.String({ pattern: '^[0-9]{4,17}$', description: '4 to 17 digits; stored encrypted' }),
  country: StringEnum(['USA'], { description: 'Only US bank accounts' }),
  currency: StringEnum(['USD']),
  routing_number: Type.String({ pattern: '^[0-9]{9}$', description: 'ABA routing number (9 digits, checksum verified, not all zeros)' }),
  type: StringEnum(ACCOUNT_TYPES),
  verification_method: StringEnum(NUMBERED_METHODS),
  financial_account_token: Type.Optional(Uuid),
  verification_enforcement: Type.Optional(
    Type.Boolean({ description: 'Accepted and checked, not stored: Cardwright moves no money to external bank accounts, so there is nothing to enforce' }),
  ),
  ...editable,
});
export type NumberedAccountBody = Static<typeof NumberedAccountBody>;

/** Lithic's Plaid create request: a Plaid processor token stands for the account's numbers. */
const PlaidAccountBody = StrictObject({
  ...owner,
  processor_token: Type.String({ minLength: 1, maxLength: 256, description: 'Plaid processor token; the sandbox derives the account from it and does not keep it' }),
  verification_method: Type.Literal('PLAID'),
  ...described,
});
type PlaidAccountBody = Static<typeof PlaidAccountBody>;

export type CreateExternalBankAccountBody = NumberedAccountBody | PlaidAccountBody;
export const CreateExternalBankAccountBody = ShapeChosenBy<CreateExternalBankAccountBody>(
  'verification_method',
  [
    [NUMBERED_METHODS, NumberedAccountBody],
    [['PLAID'], PlaidAccountBody],
  ],
  'The account by its numbers (MANUAL, MICRO_DEPOSIT, PRENOTE, EXTERNALLY_VERIFIED, UNVERIFIED) or by a Plaid processor token (PLAID); `verification_method` selects the shape',
);

export const UpdateExternalBankAccountBody = StrictObject({
  ...editable,
  owner: Type.Optional(VisibleText(256)),
  owner_type: Type.Optional(StringEnum(OWNER_TYPES)),
  type: Type.Optional(StringEnum(ACCOUNT_TYPES)),
});
export type UpdateExternalBankAccountBody = Static<typeof UpdateExternalBankAccountBody>;

export const MicroDepositsBody = StrictObject({
  micro_deposits: Type.Array(Type.Integer({ minimum: 1, maximum: 99 }), { minItems: 2, maxItems: 2, description: 'The two amounts, in cents' }),
});
export type MicroDepositsBody = Static<typeof MicroDepositsBody>;

export const RetryBody = StrictObject({ financial_account_token: Type.Optional(Uuid) });
export type RetryBody = Static<typeof RetryBody>;

export const ListExternalBankAccountsQuery = ListQuery({
  account_token: Type.Optional(Uuid),
  account_types: Type.Optional(Type.Array(StringEnum(ACCOUNT_TYPES))),
  countries: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 3 }))),
  owner_types: Type.Optional(Type.Array(StringEnum(OWNER_TYPES))),
  states: Type.Optional(Type.Array(StringEnum(STATES))),
  verification_states: Type.Optional(Type.Array(StringEnum(VERIFICATION_STATES))),
});
export type ListExternalBankAccountsQuery = Static<typeof ListExternalBankAccountsQuery>;
