/** Request and response schemas of accounts (Lithic's Account). */
import { Address, AddressInput } from '../account_holders/schemas.js';
import { DateTime, EmptyOrVisibleText, FREE_TEXT_MAX_LENGTH, StrictObject, StringEnum, Type, Uuid, type Static } from '../http/schemas.js';
import { ACCOUNT_STATES } from './state.js';

const ACCOUNT_SUBSTATUSES = [
  'FRAUD_IDENTIFIED',
  'SUSPICIOUS_ACTIVITY',
  'RISK_VIOLATION',
  'END_USER_REQUEST',
  'ISSUER_REQUEST',
  'NOT_ACTIVE',
  'INTERNAL_REVIEW',
  'OTHER',
] as const;

const limitCents = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

/** A card's spend limit in cents: 0 means no limit (spec 4.7). */
export const LimitCents = limitCents('Amount in cents; 0 means no limit');

/**
 * An account's daily or monthly limit, and its lifetime limit (accounts/spend.ts): 0 declines every
 * debit, except for the lifetime limit, where it is no limit (SDK 0.119 AccountUpdateParams).
 */
const PeriodLimitCents = limitCents('Amount in cents; 0 is a limit of 0: every debit is declined');
const LifetimeLimitCents = limitCents('Amount in cents; 0 means no limit (only 1 or above declines)');
const ACCOUNT_LIMITS_DESCRIPTION = 'Cents; a daily or monthly limit of 0 declines every debit, a lifetime limit of 0 means no limit';

/** An account's three limits as shown (cents). */
const ConfiguredLimits = (description: string) => Type.Object({ daily: Type.Integer(), monthly: Type.Integer(), lifetime: Type.Integer() }, { description });

export const Account = Type.Object(
  {
    token: Uuid,
    created: DateTime,
    spend_limit: ConfiguredLimits(ACCOUNT_LIMITS_DESCRIPTION),
    state: StringEnum(ACCOUNT_STATES),
    account_holder: Type.Optional(
      Type.Object(
        {
          token: Uuid,
          business_account_token: Type.String({ description: 'Empty when the holder has none' }),
          email: Type.String({ description: 'Empty when unknown' }),
          phone_number: Type.String({ description: 'Empty when unknown' }),
        },
        { description: 'Every field of the SDK’s type is present; text the holder does not have is empty' },
      ),
    ),
    auth_rule_tokens: Type.Array(Type.String()),
    cardholder_currency: Type.String(),
    comment: Type.Optional(Type.String()),
    substatus: Type.Optional(StringEnum(ACCOUNT_SUBSTATUSES)),
    verification_address: Type.Optional(Address),
  },
  { description: 'Account' },
);
export type Account = Static<typeof Account>;

const LimitAmounts = (description: string) =>
  Type.Object(
    { daily: Type.Optional(Type.Integer()), monthly: Type.Optional(Type.Integer()), lifetime: Type.Optional(Type.Integer()) },
    { description },
  );

/** Lithic's AccountSpendLimits: velocity and what is left are shown for the limits that are set (daily and monthly always, lifetime unless 0). */
export const AccountSpendLimits = Type.Object(
  {
    available_spend_limit: LimitAmounts('Cents left under each limit that is set (daily and monthly always, lifetime unless 0): the limit less the spend in its window, never below 0'),
    spend_limit: ConfiguredLimits(`The configured limits. ${ACCOUNT_LIMITS_DESCRIPTION}`),
    spend_velocity: LimitAmounts('Approved spend in cents in the window of each limit that is set (daily and monthly always, lifetime unless 0)'),
  },
  { description: 'Account spend limits' },
);
export type AccountSpendLimits = Static<typeof AccountSpendLimits>;

export const UpdateAccountBody = StrictObject({
  state: Type.Optional(StringEnum(ACCOUNT_STATES)),
  daily_spend_limit: Type.Optional(PeriodLimitCents),
  monthly_spend_limit: Type.Optional(PeriodLimitCents),
  lifetime_spend_limit: Type.Optional(LifetimeLimitCents),
  substatus: Type.Optional(StringEnum(ACCOUNT_SUBSTATUSES)),
  comment: Type.Optional(EmptyOrVisibleText(FREE_TEXT_MAX_LENGTH, 'Additional context on the account: "" (none; clears it) or not blank and without control characters')),
  verification_address: Type.Optional(
    StrictObject(Type.Partial(AddressInput).properties, { description: 'Deprecated (AVS). The fields given replace those of the current address; the result must be a complete US address' }),
  ),
});
export type UpdateAccountBody = Static<typeof UpdateAccountBody>;
