/** Request and response schemas of Auth Rules v2 (spec 2.1, 2.2, 4.1, 4.2; Lithic's V2 types). */
import { ListQuery } from '../http/pagination.js';
import { DateTime, IsoDate, Nullable, StrictObject, StringEnum, Type, Uuid, VisibleText, type Static } from '../http/schemas.js';
import { AUTH_RULE_TYPES, EVENT_STREAMS } from './attributes.js';

const MAX_NAME_LENGTH = 1024;
const MAX_TOKENS = 1000;
const LIST_SCOPES = ['PROGRAM', 'ACCOUNT', 'CARD', 'BUSINESS_ACCOUNT', 'ANY'] as const;
const DECISIONS = ['APPROVED', 'DECLINED', 'CHALLENGED'] as const;

/**
 * Parameters are checked in code (parameters.ts) against the rule's type, with errors naming the
 * exact path; the schema only requires an object.
 */
const ParametersInput = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description:
    'By type: CONDITIONAL_BLOCK {conditions}; VELOCITY_LIMIT {scope, period, filters, limit_amount?, limit_count?}; ' +
    'MERCHANT_LOCK {merchants}; CONDITIONAL_3DS_ACTION / CONDITIONAL_ACTION {action, conditions}',
});
const ParametersOutput = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

const Name = Nullable(Type.String({ maxLength: MAX_NAME_LENGTH }));
/** A name a client gives: shows something (not blank, no control characters), or null for none. */
const NameInput = Nullable(VisibleText(MAX_NAME_LENGTH));
const Tokens = (description: string) => Type.Array(Uuid, { maxItems: MAX_TOKENS, description });

export const RuleVersion = Type.Object({ parameters: ParametersOutput, version: Type.Integer() });
export type RuleVersion = Static<typeof RuleVersion>;

export const AuthRule = Type.Object(
  {
    token: Uuid,
    state: StringEnum(['ACTIVE', 'INACTIVE']),
    type: StringEnum(AUTH_RULE_TYPES),
    event_stream: StringEnum(EVENT_STREAMS),
    name: Name,
    account_tokens: Type.Array(Uuid),
    business_account_tokens: Type.Array(Uuid),
    card_tokens: Type.Array(Uuid),
    program_level: Type.Boolean(),
    excluded_card_tokens: Type.Optional(Type.Array(Uuid, { description: 'Program-level rules only' })),
    current_version: Type.Union([RuleVersion, Type.Null()]),
    draft_version: Type.Union([RuleVersion, Type.Null()]),
    lithic_managed: Type.Boolean(),
  },
  { description: 'Auth Rule (V2)' },
);
export type AuthRule = Static<typeof AuthRule>;

export const CreateAuthRuleBody = StrictObject({
  type: StringEnum(AUTH_RULE_TYPES, { description: 'Decides the event stream (CONDITIONAL_ACTION: event_stream, default AUTHORIZATION)' }),
  parameters: ParametersInput,
  event_stream: Type.Optional(StringEnum(EVENT_STREAMS)),
  name: Type.Optional(NameInput),
  account_tokens: Type.Optional(Tokens('Account-level rule: the accounts it applies to')),
  business_account_tokens: Type.Optional(Tokens("Account-level rule: business accounts; it applies to each one's cards and its authorized users' cards")),
  card_tokens: Type.Optional(Tokens('Card-level rule: the cards it applies to')),
  program_level: Type.Optional(Type.Boolean({ description: 'Program-level rule: true' })),
  excluded_card_tokens: Type.Optional(Tokens('Program-level rule: cards it does not apply to')),
});
export type CreateAuthRuleBody = Static<typeof CreateAuthRuleBody>;

export const UpdateAuthRuleBody = StrictObject({
  account_tokens: Type.Optional(Tokens('Account-level variant: replaces the accounts')),
  business_account_tokens: Type.Optional(Tokens('Account-level variant: replaces the business accounts')),
  card_tokens: Type.Optional(Tokens('Card-level variant: replaces the cards')),
  program_level: Type.Optional(Type.Boolean({ description: 'Program-level variant' })),
  excluded_card_tokens: Type.Optional(Tokens('Program-level variant: replaces the excluded cards')),
  name: Type.Optional(NameInput),
  state: Type.Optional(StringEnum(['ACTIVE', 'INACTIVE'], { description: 'Only INACTIVE; promoting a draft activates a rule' })),
});
export type UpdateAuthRuleBody = Static<typeof UpdateAuthRuleBody>;

export const DraftAuthRuleBody = StrictObject({
  parameters: Type.Optional(Type.Union([ParametersInput, Type.Null()], { description: 'New draft parameters; null (or absent) removes the draft' })),
});
export type DraftAuthRuleBody = Static<typeof DraftAuthRuleBody>;

export const ListAuthRulesQuery = ListQuery({
  account_token: Type.Optional(Uuid),
  business_account_token: Type.Optional(Uuid),
  card_token: Type.Optional(Uuid),
  event_stream: Type.Optional(StringEnum(EVENT_STREAMS)),
  scope: Type.Optional(StringEnum(LIST_SCOPES)),
});
export type ListAuthRulesQuery = Static<typeof ListAuthRulesQuery>;

export const ReportQuery = StrictObject({ begin: IsoDate, end: IsoDate });
export type ReportQuery = Static<typeof ReportQuery>;

export const ReportExample = Type.Object({
  approved: Type.Boolean(),
  decision: StringEnum(DECISIONS),
  event_token: Uuid,
  timestamp: DateTime,
});
export type ReportExample = Static<typeof ReportExample>;

export const RuleStats = Type.Object({
  approved: Type.Integer(),
  challenged: Type.Integer(),
  declined: Type.Integer(),
  examples: Type.Array(ReportExample),
  version: Type.Integer(),
});
export type RuleStats = Static<typeof RuleStats>;

export const Report = Type.Object({
  auth_rule_token: Uuid,
  begin: IsoDate,
  end: IsoDate,
  daily_statistics: Type.Array(
    Type.Object({
      date: IsoDate,
      current_version_statistics: Type.Union([RuleStats, Type.Null()]),
      draft_version_statistics: Type.Union([RuleStats, Type.Null()]),
    }),
  ),
});
export type Report = Static<typeof Report>;
