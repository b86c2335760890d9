/**
 * Request and response schemas of account holders (spec 2.3, 4.3; Lithic's create variants).
 *
 * The create body is one of four shapes chosen by `workflow` (KYB, KYB_DELEGATED, KYC, KYC_EXEMPT):
 * `ShapeChosenBy`. SDK 0.119 declares `workflow` optional in the KYB_DELEGATED shape only, so a body
 * without `workflow` is that shape.
 * The schemas check structure, types and lengths; content rules (US addresses, E.164 phones,
 * SSN/EIN formats, dates of birth) are in rules.ts, with messages that explain the rule.
 */
import { DateTime, EmptyOrVisibleText, ShapeChosenBy, StrictObject, StringEnum, Type, Uuid, VisibleText, WEB_URL_PATTERN, type Static } from '../http/schemas.js';

const KYB_WORKFLOWS = ['KYB_BASIC', 'KYB_BYO'] as const;
const KYB_DELEGATED = 'KYB_DELEGATED';
const KYC_WORKFLOWS = ['KYC_BASIC', 'KYC_BYO'] as const;
const WORKFLOWS = [...KYB_WORKFLOWS, KYB_DELEGATED, ...KYC_WORKFLOWS, 'KYC_EXEMPT'] as const;
export type Workflow = (typeof WORKFLOWS)[number];

const STATUSES = ['ACCEPTED', 'PENDING_REVIEW', 'PENDING_DOCUMENT', 'PENDING_RESUBMIT', 'REJECTED'] as const;
export type Status = (typeof STATUSES)[number];

const GENERAL_STATUS_REASONS = [
  'ADDRESS_VERIFICATION_FAILURE',
  'AGE_THRESHOLD_FAILURE',
  'COMPLETE_VERIFICATION_FAILURE',
  'DOB_VERIFICATION_FAILURE',
  'ID_VERIFICATION_FAILURE',
  'MAX_DOCUMENT_ATTEMPTS',
  'MAX_RESUBMISSION_ATTEMPTS',
  'NAME_VERIFICATION_FAILURE',
  'OTHER_VERIFICATION_FAILURE',
  'RISK_THRESHOLD_FAILURE',
  'WATCHLIST_ALERT_FAILURE',
] as const;

/** The 17 reasons a simulated enrollment review may give (spec 4.3). */
const SIMULATION_STATUS_REASONS = [
  'PRIMARY_BUSINESS_ENTITY_ID_VERIFICATION_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_ADDRESS_VERIFICATION_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_NAME_VERIFICATION_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_BUSINESS_OFFICERS_NOT_MATCHED',
  'PRIMARY_BUSINESS_ENTITY_SOS_FILING_INACTIVE',
  'PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED',
  'PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_WATCHLIST_FAILURE',
  'PRIMARY_BUSINESS_ENTITY_REGISTERED_AGENT_FAILURE',
  'CONTROL_PERSON_BLOCKLIST_ALERT_FAILURE',
  'CONTROL_PERSON_ID_VERIFICATION_FAILURE',
  'CONTROL_PERSON_DOB_VERIFICATION_FAILURE',
  'CONTROL_PERSON_NAME_VERIFICATION_FAILURE',
  'BENEFICIAL_OWNER_INDIVIDUAL_DOB_VERIFICATION_FAILURE',
  'BENEFICIAL_OWNER_INDIVIDUAL_BLOCKLIST_ALERT_FAILURE',
  'BENEFICIAL_OWNER_INDIVIDUAL_ID_VERIFICATION_FAILURE',
  'BENEFICIAL_OWNER_INDIVIDUAL_NAME_VERIFICATION_FAILURE',
] as const;
export type SimulationStatusReason = (typeof SIMULATION_STATUS_REASONS)[number];

/**
 * The beneficial-owner reasons: "accepted as simulation input only" (spec 2.3), so a review takes
 * them but a holder never carries them (nor does any SDK 0.119 holder type list them).
 */
export type InputOnlyStatusReason = Extract<SimulationStatusReason, `BENEFICIAL_OWNER_INDIVIDUAL_${string}`>;
export function isInputOnlyStatusReason(reason: SimulationStatusReason): reason is InputOnlyStatusReason {
  return reason.startsWith('BENEFICIAL_OWNER_INDIVIDUAL_');
}

/** Every reason a holder can carry: the general ones and the simulation's, but the input-only ones. */
const STATUS_REASONS = [...GENERAL_STATUS_REASONS, ...SIMULATION_STATUS_REASONS.filter((reason) => !isInputOnlyStatusReason(reason))] as Exclude<
  (typeof GENERAL_STATUS_REASONS)[number] | SimulationStatusReason,
  InputOnlyStatusReason
>[];
export type StatusReason = (typeof STATUS_REASONS)[number];

const EXEMPTION_TYPES = ['AUTHORIZED_USER', 'PREPAID_CARD_USER'] as const;

const MAX_TEXT = 255;
/** Generous bounds for formatted strings: their format is checked by rules.ts, with a better message. */
const MAX_ID_TEXT = 32;
/** A person's or a business's name: not blank, no control characters. */
const Name = () => VisibleText(MAX_TEXT);
const Email = Type.String({ format: 'email', maxLength: MAX_TEXT, description: 'E-mail address' });
const Phone = Type.String({ maxLength: MAX_ID_TEXT, description: 'E.164 phone number, e.g. +15555555555' });
const DateOfBirth = Type.String({ maxLength: 40, description: 'RFC 3339 date (YYYY-MM-DD) or date-time' });
const PersonalId = Type.String({ maxLength: MAX_ID_TEXT, description: 'SSN or ITIN: nine digits, with or without hyphens (123-45-6789)' });
const BusinessId = Type.String({ maxLength: MAX_ID_TEXT, description: 'EIN: nine digits, with or without hyphen (12-3456789)' });
const MAX_BENEFICIAL_OWNERS = 4;

export const AddressInput = StrictObject(
  {
    address1: VisibleText(MAX_TEXT, 'Deliverable street address; no PO boxes, UPS or FedEx drops (APO/FPO accepted); not blank, no control characters'),
    address2: Type.Optional(EmptyOrVisibleText(MAX_TEXT, 'Unit or apartment: empty, or not blank and without control characters')),
    city: VisibleText(MAX_TEXT),
    country: Type.Literal('USA', { description: 'Uppercase ISO 3166-1 alpha-3; only USA is supported' }),
    postal_code: Type.String({ maxLength: MAX_ID_TEXT, description: 'Five-digit ZIP or nine-digit ZIP+4 (12345-6789)' }),
    state: Type.String({ maxLength: MAX_ID_TEXT, description: 'Uppercase two-letter US state code' }),
  },
  { description: 'US address' },
);
export type AddressInput = Static<typeof AddressInput>;

function personInput(phone: 'required' | 'optional') {
  return StrictObject({
    address: AddressInput,
    dob: DateOfBirth,
    email: Email,
    first_name: Name(),
    last_name: Name(),
    government_id: PersonalId,
    phone_number: phone === 'required' ? Phone : Type.Optional(Phone),
  });
}
const KycIndividualInput = personInput('required');
const KybPersonInput = personInput('optional');
export type PersonInput = Static<typeof KybPersonInput>;

const PhoneNumbers = Type.Array(Phone, { minItems: 1, maxItems: 10 });

/** A business: its EIN and phone numbers are required where Lithic runs KYB on them, optional for KYB_DELEGATED. */
function businessEntityInput(identity: 'required' | 'optional') {
  return StrictObject({
    address: AddressInput,
    government_id: identity === 'required' ? BusinessId : Type.Optional(BusinessId),
    legal_business_name: Name(),
    phone_numbers: identity === 'required' ? PhoneNumbers : Type.Optional(PhoneNumbers),
    dba_business_name: Type.Optional(Name()),
    parent_company: Type.Optional(Name()),
  });
}
export const BusinessEntityInput = businessEntityInput('required');
export const DelegatedBusinessEntityInput = businessEntityInput('optional');
/** Either business input: the delegated one's optional fields are the only difference. */
export type BusinessEntityInput = Static<typeof DelegatedBusinessEntityInput>;

const ExternalId = Type.Optional(VisibleText(MAX_TEXT, 'Your identifier for the holder; not blank, no control characters'));
const NatureOfBusiness = VisibleText(1024, 'What the business does: not blank, no control characters');
const WebsiteUrl = Type.String({ format: 'uri', pattern: WEB_URL_PATTERN, maxLength: 2048, description: 'The business’s website: an http:// or https:// URL naming a host' });
const BeneficialOwnerIndividuals = Type.Array(KybPersonInput, { maxItems: MAX_BENEFICIAL_OWNERS });

export const KybBody = StrictObject({
  workflow: StringEnum(KYB_WORKFLOWS),
  tos_timestamp: DateTime,
  nature_of_business: NatureOfBusiness,
  business_entity: BusinessEntityInput,
  control_person: KybPersonInput,
  beneficial_owner_individuals: BeneficialOwnerIndividuals,
  beneficial_owner_entities: Type.Optional(Type.Array(BusinessEntityInput, { maxItems: MAX_BENEFICIAL_OWNERS, description: 'Deprecated' })),
  external_id: ExternalId,
  kyb_passed_timestamp: Type.Optional(DateTime),
  website_url: Type.Optional(WebsiteUrl),
});
export type KybBody = Static<typeof KybBody>;

/** SDK 0.119 `KYBDelegated`: only the business's address and legal name are required; `workflow` may be left out. */
export const KybDelegatedBody = StrictObject({
  workflow: Type.Optional(Type.Literal(KYB_DELEGATED)),
  business_entity: DelegatedBusinessEntityInput,
  beneficial_owner_individuals: Type.Optional(BeneficialOwnerIndividuals),
  control_person: Type.Optional(KybPersonInput),
  external_id: ExternalId,
  nature_of_business: Type.Optional(NatureOfBusiness),
  tos_timestamp: Type.Optional(DateTime),
  website_url: Type.Optional(WebsiteUrl),
});
export type KybDelegatedBody = Static<typeof KybDelegatedBody>;

export const KycBody = StrictObject({
  workflow: StringEnum(KYC_WORKFLOWS),
  tos_timestamp: DateTime,
  individual: KycIndividualInput,
  external_id: ExternalId,
  kyc_passed_timestamp: Type.Optional(DateTime),
});
export type KycBody = Static<typeof KycBody>;

export const KycExemptBody = StrictObject({
  workflow: Type.Literal('KYC_EXEMPT'),
  kyc_exemption_type: StringEnum(EXEMPTION_TYPES),
  first_name: Name(),
  last_name: Name(),
  email: Email,
  phone_number: Phone,
  address: AddressInput,
  business_account_token: Type.Optional(Uuid),
  external_id: ExternalId,
});
export type KycExemptBody = Static<typeof KycExemptBody>;

export type CreateAccountHolderBody = KybBody | KybDelegatedBody | KycBody | KycExemptBody;

/** The create body: `workflow` picks one of the four shapes above; without it, the body is KYB_DELEGATED. */
export const CreateAccountHolderBody = ShapeChosenBy<CreateAccountHolderBody>(
  'workflow',
  [
    [KYB_WORKFLOWS, KybBody],
    [[KYB_DELEGATED], KybDelegatedBody],
    [KYC_WORKFLOWS, KycBody],
    [['KYC_EXEMPT'], KycExemptBody],
  ],
  'KYB (KYB_BASIC, KYB_BYO), KYB_DELEGATED, KYC (KYC_BASIC, KYC_BYO) or KYC_EXEMPT enrollment; `workflow` selects the shape (absent: KYB_DELEGATED, as the SDK allows)',
  KYB_DELEGATED,
);

const StatusReasons = Type.Array(StringEnum(STATUS_REASONS));

const RequiredDocument = Type.Object({
  entity_token: Uuid,
  status_reasons: Type.Array(Type.String()),
  valid_documents: Type.Array(Type.String()),
});

/** The short answer of create (Lithic's AccountHolderCreateResponse). */
export const AccountHolderCreated = Type.Object(
  {
    token: Uuid,
    account_token: Uuid,
    status: StringEnum(STATUSES),
    status_reasons: StatusReasons,
    created: DateTime,
    external_id: Type.Optional(Type.String()),
    required_documents: Type.Optional(Type.Array(RequiredDocument)),
  },
  { description: 'Enrollment result' },
);
export type AccountHolderCreated = Static<typeof AccountHolderCreated>;

export const Address = Type.Object({
  address1: Type.String(),
  address2: Type.Optional(Type.String()),
  city: Type.String(),
  country: Type.String(),
  postal_code: Type.String(),
  state: Type.String(),
});
export type Address = Static<typeof Address>;

/**
 * A person as stored and returned: no government id. As stored, `dob` is absent for KYC-exempt
 * holders and `phone_number` when none was given; the response, like the SDK's type, always has
 * both (empty when unknown).
 */
const personFields = {
  entity_token: Uuid,
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  address: Address,
};
export const Person = Type.Object({ ...personFields, phone_number: Type.Optional(Type.String()), dob: Type.Optional(Type.String()) });
export type Person = Static<typeof Person>;
const PersonResponse = Type.Object({ ...personFields, phone_number: Type.String({ description: 'Empty when none was given' }), dob: Type.String({ description: 'Empty for KYC-exempt holders' }) });

/**
 * A business as stored and returned: its EIN masked to the last four digits. As stored, `dba_business_name`,
 * and for KYB_DELEGATED `government_id` and `phone_numbers`, are absent when none was given; the
 * response, like the SDK's type, always has them (empty when none).
 */
const businessFields = {
  entity_token: Uuid,
  legal_business_name: Type.String(),
  parent_company: Type.Optional(Type.String()),
  address: Address,
};
export const BusinessEntity = Type.Object({
  ...businessFields,
  government_id: Type.Optional(Type.String()),
  phone_numbers: Type.Optional(Type.Array(Type.String())),
  dba_business_name: Type.Optional(Type.String()),
});
export type BusinessEntity = Static<typeof BusinessEntity>;
const BusinessEntityResponse = Type.Object({
  ...businessFields,
  government_id: Type.String({ description: 'Masked: only the last four digits are shown; empty when none was given' }),
  phone_numbers: Type.Array(Type.String(), { description: 'Empty when none was given' }),
  dba_business_name: Type.String({ description: 'Empty when none was given' }),
});

const VerificationApplication = Type.Object({
  created: DateTime,
  status: StringEnum(STATUSES),
  status_reasons: StatusReasons,
  updated: DateTime,
});

/** The whole holder (spec 2.3): the fields of its user_type are present. */
export const AccountHolder = Type.Object(
  {
    token: Uuid,
    account_token: Uuid,
    created: DateTime,
    user_type: StringEnum(['BUSINESS', 'INDIVIDUAL']),
    status: StringEnum(STATUSES),
    status_reasons: StatusReasons,
    verification_application: VerificationApplication,
    external_id: Type.Optional(Type.String()),
    email: Type.Optional(Type.String({ description: 'Deprecated: individual.email or control_person.email' })),
    phone_number: Type.Optional(Type.String({ description: 'Deprecated: individual.phone_number or control_person.phone_number' })),
    individual: Type.Optional(PersonResponse),
    exemption_type: Type.Optional(StringEnum(EXEMPTION_TYPES)),
    business_account_token: Type.Optional(Uuid),
    business_entity: Type.Optional(BusinessEntityResponse),
    control_person: Type.Optional(PersonResponse),
    beneficial_owner_individuals: Type.Optional(Type.Array(PersonResponse)),
    beneficial_owner_entities: Type.Optional(Type.Array(BusinessEntityResponse)),
    nature_of_business: Type.Optional(Type.String()),
    website_url: Type.Optional(Type.String()),
    required_documents: Type.Optional(Type.Array(RequiredDocument)),
  },
  { description: 'Account holder' },
);
export type AccountHolder = Static<typeof AccountHolder>;

const PersonReply = Type.Omit(PersonResponse, ['entity_token']);
const BusinessEntityReply = Type.Omit(BusinessEntityResponse, ['entity_token']);
/**
 * The KYB and KYC patches' answer and the enrollment review's (SDK 0.119 KYBKYCPatchResponse,
 * AccountHolderSimulateEnrollmentReviewResponse): the whole holder, its people and businesses
 * without their entity_token (those types declare none; retrieve and list show them).
 */
export const AccountHolderReply = Type.Object(
  {
    ...AccountHolder.properties,
    individual: Type.Optional(PersonReply),
    business_entity: Type.Optional(BusinessEntityReply),
    control_person: Type.Optional(PersonReply),
    beneficial_owner_individuals: Type.Optional(Type.Array(PersonReply)),
    beneficial_owner_entities: Type.Optional(Type.Array(BusinessEntityReply)),
  },
  { description: 'Account holder, without entity tokens' },
);
export type AccountHolderReply = Static<typeof AccountHolderReply>;

/**
 * Lithic's SDK sizes this list's pages with `limit`; the contract names every list's `page_size`.
 * Either is taken (not both), with the same bounds and default (50).
 */
export const ListAccountHoldersQuery = StrictObject({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page, 1 to 100 (default 50); as page_size' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page, 1 to 100 (default 50); as limit' })),
  starting_after: Type.Optional(Uuid),
  ending_before: Type.Optional(Uuid),
  begin: Type.Optional(DateTime),
  end: Type.Optional(DateTime),
  external_id: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
  email: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Exact match, case-insensitive' })),
  phone_number: Type.Optional(Type.String({ maxLength: MAX_ID_TEXT, description: 'Exact match' })),
  first_name: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Individuals: partial match, case-insensitive' })),
  last_name: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Individuals: partial match, case-insensitive' })),
  legal_business_name: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Businesses: partial match, case-insensitive' })),
});
export type ListAccountHoldersQuery = Static<typeof ListAccountHoldersQuery>;

export const EnrollmentReviewBody = StrictObject({
  account_holder_token: Type.Optional(Uuid),
  status: Type.Optional(StringEnum(['ACCEPTED', 'REJECTED'])),
  status_reasons: Type.Optional(Type.Array(StringEnum(SIMULATION_STATUS_REASONS), { maxItems: SIMULATION_STATUS_REASONS.length })),
});
export type EnrollmentReviewBody = Static<typeof EnrollmentReviewBody>;

/** A US address in an update: the given fields replace the stored ones, the others are kept. */
const AddressPatch = StrictObject(Type.Partial(AddressInput).properties, { description: 'US address: the given fields replace the stored ones, the others are kept' });
type AddressPatch = Static<typeof AddressPatch>;

const EntityToken = Uuid;

export const PersonPatch = StrictObject({
  entity_token: EntityToken,
  address: Type.Optional(AddressPatch),
  dob: Type.Optional(DateOfBirth),
  email: Type.Optional(Email),
  first_name: Type.Optional(Name()),
  last_name: Type.Optional(Name()),
  government_id: Type.Optional(PersonalId),
  phone_number: Type.Optional(Phone),
});
export type PersonPatch = Static<typeof PersonPatch>;

export const BusinessEntityPatch = StrictObject({
  entity_token: EntityToken,
  address: Type.Optional(AddressPatch),
  government_id: Type.Optional(BusinessId),
  legal_business_name: Type.Optional(Name()),
  phone_numbers: Type.Optional(PhoneNumbers),
  dba_business_name: Type.Optional(Name()),
  parent_company: Type.Optional(Name()),
});
export type BusinessEntityPatch = Static<typeof BusinessEntityPatch>;

/** The fields of each variant; `external_id` belongs to both the KYB and the KYC patch. */
export const KYB_PATCH_FIELDS = ['business_entity', 'beneficial_owner_individuals', 'beneficial_owner_entities', 'control_person', 'external_id', 'nature_of_business', 'website_url'] as const;
export const KYC_PATCH_FIELDS = ['individual', 'external_id'] as const;
export const LEGACY_PATCH_FIELDS = ['address', 'business_account_token', 'email', 'first_name', 'last_name', 'legal_business_name', 'phone_number'] as const;
export type LegacyPatchField = (typeof LEGACY_PATCH_FIELDS)[number];

/**
 * The update body (SDK: KYBPatchRequest | KYCPatchRequest | PatchRequest). The three variants share
 * no discriminating field: the holder and the fields given decide which applies (update.ts), so the schema takes the
 * fields of all three and the service refuses those of another variant. Every field is optional;
 * a nested person or business names the holder's entity it patches by `entity_token`.
 */
export const UpdateAccountHolderBody = StrictObject(
  {
    // KYB patch (BUSINESS holders)
    business_entity: Type.Optional(BusinessEntityPatch),
    beneficial_owner_individuals: Type.Optional(Type.Array(PersonPatch, { maxItems: MAX_BENEFICIAL_OWNERS })),
    beneficial_owner_entities: Type.Optional(Type.Array(BusinessEntityPatch, { maxItems: MAX_BENEFICIAL_OWNERS, description: 'Deprecated' })),
    control_person: Type.Optional(PersonPatch),
    nature_of_business: Type.Optional(NatureOfBusiness),
    website_url: Type.Optional(WebsiteUrl),
    // KYB and KYC patch
    external_id: ExternalId,
    // KYC patch (KYC_BASIC, KYC_BYO holders)
    individual: Type.Optional(PersonPatch),
    // Legacy patch (KYC_EXEMPT holders)
    address: Type.Optional(AddressPatch),
    business_account_token: Type.Optional(Uuid),
    email: Type.Optional(Email),
    first_name: Type.Optional(Name()),
    last_name: Type.Optional(Name()),
    legal_business_name: Type.Optional(Name()),
    phone_number: Type.Optional(Phone),
  },
  { description: 'KYB patch (BUSINESS holders: KYB workflows and KYB_DELEGATED), KYC patch (KYC_BASIC, KYC_BYO) or legacy patch (KYC_EXEMPT; for the others, its fields alone): the holder decides' },
);
export type UpdateAccountHolderBody = Static<typeof UpdateAccountHolderBody>;

/** The legacy patch's answer (SDK: AccountHolderUpdateResponse.PatchResponse). */
export const AccountHolderPatched = Type.Object(
  {
    token: Uuid,
    address: Type.Optional(Address),
    business_account_token: Type.Optional(Uuid),
    email: Type.Optional(Type.String()),
    first_name: Type.Optional(Type.String()),
    last_name: Type.Optional(Type.String()),
    legal_business_name: Type.Optional(Type.String()),
    phone_number: Type.Optional(Type.String()),
  },
  { description: 'Legacy patch result' },
);
export type AccountHolderPatched = Static<typeof AccountHolderPatched>;
