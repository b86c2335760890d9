/**
 * The shapes of the Auth Rules v2 answers the server serves (a rule, its performance report), each
 * a hand-kept copy of its SDK 0.119 type (node_modules/lithic/resources/auth-rules/v2/v2.d.ts), as
 * resource-shapes.ts keeps the other resources': auth_rules/shapes.test.ts checks live answers
 * against them, sdk-shapes.unit.test.ts checks them against the SDK's declarations. A version's
 * `parameters` is a union of one object per kind of rule, named as the SDK names them.
 */
import { arrayOf, nullable, object, oneOf, union, type Shape } from './shapes.js';

const OPERATION = oneOf(
  'IS_ONE_OF', 'IS_NOT_ONE_OF', 'MATCHES', 'DOES_NOT_MATCH', 'IS_EQUAL_TO', 'IS_NOT_EQUAL_TO',
  'IS_GREATER_THAN', 'IS_GREATER_THAN_OR_EQUAL_TO', 'IS_LESS_THAN', 'IS_LESS_THAN_OR_EQUAL_TO',
);
/** Conditions on these attributes: AuthRuleCondition and the action parameters' own Condition types. */
const conditions = (attributes: readonly string[]) =>
  arrayOf(object({ 'attribute?': oneOf(...attributes), 'operation?': OPERATION, 'value?': union({ string: 'string', number: 'integer', array: arrayOf('string') }) }));

/** ConditionalAttribute: what a CONDITIONAL_BLOCK tests. */
const AUTHORIZATION_ATTRIBUTES = [
  'MCC', 'COUNTRY', 'CURRENCY', 'MERCHANT_ID', 'DESCRIPTOR', 'LIABILITY_SHIFT', 'PAN_ENTRY_MODE', 'TRANSACTION_AMOUNT', 'RISK_SCORE',
  'CARD_TRANSACTION_COUNT_15M', 'CARD_TRANSACTION_COUNT_1H', 'CARD_TRANSACTION_COUNT_24H', 'CARD_STATE', 'PIN_ENTERED', 'PIN_STATUS', 'WALLET_TYPE',
];
const THREE_DS_ATTRIBUTES = ['MCC', 'COUNTRY', 'CURRENCY', 'MERCHANT_ID', 'DESCRIPTOR', 'TRANSACTION_AMOUNT', 'RISK_SCORE', 'MESSAGE_CATEGORY'];
const PAN_ENTRY_MODES = [
  'AUTO_ENTRY', 'BAR_CODE', 'CONTACTLESS', 'CREDENTIAL_ON_FILE', 'ECOMMERCE', 'ERROR_KEYED', 'ERROR_MAGNETIC_STRIPE', 'ICC',
  'KEY_ENTERED', 'MAGNETIC_STRIPE', 'MANUAL', 'OCR', 'SECURE_CARDLESS', 'UNSPECIFIED', 'UNKNOWN',
];
const ACTION = oneOf('DECLINE', 'CHALLENGE');
const MCCS_OR_COUNTRIES = nullable(arrayOf('string'));

/** VelocityLimitParamsPeriodWindow: seconds, a fixed window's name, or an object per window. */
const PERIOD = union({
  number: 'integer',
  string: oneOf('DAY', 'WEEK', 'MONTH', 'YEAR'),
  TrailingWindowObject: object({ 'duration?': 'integer', 'type?': oneOf('CUSTOM') }),
  FixedWindowDay: object({ 'type?': oneOf('DAY') }),
  FixedWindowWeek: object({ 'day_of_week?': 'integer', 'type?': oneOf('WEEK') }),
  FixedWindowMonth: object({ 'day_of_month?': 'integer', 'type?': oneOf('MONTH') }),
  FixedWindowYear: object({ 'day_of_month?': 'integer', 'month?': 'integer', 'type?': oneOf('YEAR') }),
});

/** A version's parameters: one variant per kind of rule. */
const PARAMETERS = union({
  ConditionalBlockParameters: object({ conditions: conditions(AUTHORIZATION_ATTRIBUTES) }),
  VelocityLimitParams: object({
    filters: object({
      'exclude_countries?': MCCS_OR_COUNTRIES,
      'exclude_mccs?': MCCS_OR_COUNTRIES,
      'include_countries?': MCCS_OR_COUNTRIES,
      'include_mccs?': MCCS_OR_COUNTRIES,
      'include_pan_entry_modes?': nullable(arrayOf(oneOf(...PAN_ENTRY_MODES))),
    }),
    period: PERIOD,
    scope: oneOf('CARD', 'ACCOUNT'),
    'limit_amount?': nullable('integer'),
    'limit_count?': nullable('integer'),
  }),
  MerchantLockParameters: object({ merchants: arrayOf(object({ 'comment?': 'string', 'descriptor?': 'string', 'merchant_id?': 'string' })) }),
  Conditional3DSActionParameters: object({ action: ACTION, conditions: conditions(THREE_DS_ATTRIBUTES) }),
  ConditionalAuthorizationActionParameters: object({
    action: ACTION,
    conditions: conditions([...AUTHORIZATION_ATTRIBUTES, 'CASH_AMOUNT', 'TRANSACTION_INITIATOR']),
  }),
});
const VERSION = nullable(object({ parameters: PARAMETERS, version: 'integer' }));

/** V2CreateResponse (and the retrieve, list, update, draft and promote answers, the same type). */
export const AUTH_RULE: Shape = {
  token: 'uuid',
  account_tokens: arrayOf('uuid'),
  business_account_tokens: arrayOf('uuid'),
  card_tokens: arrayOf('uuid'),
  current_version: VERSION,
  draft_version: VERSION,
  event_stream: oneOf('AUTHORIZATION', 'THREE_DS_AUTHENTICATION'),
  lithic_managed: 'boolean',
  name: nullable('string'),
  program_level: 'boolean',
  state: oneOf('ACTIVE', 'INACTIVE'),
  // Not the SDK's CONDITIONAL_3DS_ACTION: the spec's (2.1) type for 3DS rules.
  type: oneOf('CONDITIONAL_BLOCK', 'VELOCITY_LIMIT', 'MERCHANT_LOCK', 'CONDITIONAL_ACTION', 'CONDITIONAL_3DS_ACTION'),
  'excluded_card_tokens?': arrayOf('uuid'),
};

/** RuleStats: a version's evaluations on one day. */
const RULE_STATS = nullable(
  object({
    'approved?': 'integer',
    'challenged?': 'integer',
    'declined?': 'integer',
    'examples?': arrayOf(object({ 'approved?': 'boolean', 'decision?': oneOf('APPROVED', 'DECLINED', 'CHALLENGED'), 'event_token?': 'uuid', 'timestamp?': 'date-time' })),
    'version?': 'integer',
  }),
);

/** V2RetrieveReportResponse: the performance report (GET …/report). */
export const AUTH_RULE_REPORT: Shape = {
  auth_rule_token: 'uuid',
  begin: 'date',
  daily_statistics: arrayOf(object({ current_version_statistics: RULE_STATS, date: 'date', draft_version_statistics: RULE_STATS })),
  end: 'date',
};
