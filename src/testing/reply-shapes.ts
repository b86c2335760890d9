/**
 * The shapes of the answers that are not a resource as retrieved: an account holder's PATCH (both
 * variants of the SDK's AccountHolderUpdateResponse union) and its enrollment review, an event
 * subscription's secret, and every simulation's answer. Each is a hand-kept copy of its SDK 0.119
 * type (node_modules/lithic/resources), as resource-shapes.ts keeps the resources': the black-box
 * shapes tests of those folders check live answers against them, sdk-shapes.unit.test.ts checks
 * them against the SDK's declarations.
 */
import { ACCOUNT_HOLDER } from './resource-shapes.js';
import { arrayOf, object, type Shape, type Spec } from './shapes.js';

/** The spec `shape` declares for `key`, whether optional or not. */
function specOf(shape: Shape, key: string): Spec {
  const spec = shape[key] ?? shape[`${key}?`];
  if (spec === undefined) throw new Error(`the shape declares no ${key}`);
  return spec;
}

/** `shape` with every key optional. */
function allOptional(shape: Shape): Shape {
  return Object.fromEntries(Object.entries(shape).map(([declaration, spec]) => [declaration.endsWith('?') ? declaration : `${declaration}?`, spec]));
}

const ADDRESS = object({ address1: 'string', city: 'string', country: 'string', postal_code: 'string', state: 'string', 'address2?': 'string' });
/** A person in these answers: every field optional, and no entity_token (unlike AccountHolder's). */
const PERSON = object({ 'address?': ADDRESS, 'dob?': 'string', 'email?': 'string', 'first_name?': 'string', 'last_name?': 'string', 'phone_number?': 'string' });
/** KYBBusinessEntity (account-holders.d.ts): the create body's business, which these answers show. */
const BUSINESS_ENTITY = object({
  address: ADDRESS,
  government_id: 'string',
  legal_business_name: 'string',
  phone_numbers: arrayOf('string'),
  'dba_business_name?': 'string',
  'parent_company?': 'string',
});

/**
 * AccountHolderUpdateResponse.KYBKYCPatchResponse and AccountHolderSimulateEnrollmentReviewResponse
 * (account-holders.d.ts, the same fields): the holder with every field optional, its people and
 * businesses without their entity_token, its verification application whole.
 */
export const ACCOUNT_HOLDER_REPLY: Shape = {
  ...allOptional(ACCOUNT_HOLDER),
  'beneficial_owner_entities?': arrayOf(BUSINESS_ENTITY),
  'beneficial_owner_individuals?': arrayOf(PERSON),
  'business_entity?': BUSINESS_ENTITY,
  'control_person?': PERSON,
  'individual?': PERSON,
  'verification_application?': object({
    created: 'date-time',
    status: specOf(ACCOUNT_HOLDER, 'status'),
    status_reasons: specOf(ACCOUNT_HOLDER, 'status_reasons'),
    updated: 'date-time',
    'ky_passed_at?': 'date-time',
  }),
};

/** AccountHolderUpdateResponse.PatchResponse (account-holders.d.ts): the legacy patch's answer. */
export const ACCOUNT_HOLDER_PATCHED: Shape = {
  'token?': 'uuid',
  'address?': ADDRESS,
  'business_account_token?': 'uuid',
  'email?': 'string',
  'first_name?': 'string',
  'last_name?': 'string',
  'legal_business_name?': 'string',
  'phone_number?': 'string',
};

/** Events.SubscriptionRetrieveSecretResponse (events/subscriptions.d.ts), and ThreeDS.DecisioningRetrieveSecretResponse (three-ds/decisioning.d.ts): the same field. */
export const SUBSCRIPTION_SECRET: Shape = { 'secret?': 'string' };

/**
 * The answer of a simulation that makes a card transaction: Transaction{SimulateAuthorization,
 * SimulateAuthorizationAdvice, SimulateCreditAuthorizationAdvice, SimulateReturn}Response
 * (transactions.d.ts).
 */
export const SIMULATED_TRANSACTION: Shape = { 'token?': 'uuid', 'debugging_request_id?': 'uuid' };

/** The answer of a simulation that adds an event to one: Transaction{SimulateClearing, SimulateVoid, SimulateReturnReversal}Response. */
export const SIMULATED_EVENT: Shape = { 'debugging_request_id?': 'uuid' };

/** ThreeDS.AuthenticationSimulateResponse (three-ds/authentication.d.ts). */
export const SIMULATED_THREE_DS_AUTHENTICATION: Shape = { 'token?': 'uuid' };
