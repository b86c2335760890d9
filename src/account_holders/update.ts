/**
 * Updating an account holder (PATCH, SDK `accountHolders.update`): which of the SDK's three patch
 * bodies applies, the checks of every given field, and the patched profile.
 *
 * The holder decides the variant: a BUSINESS holder (KYB workflows, KYB_DELEGATED) takes the KYB
 * patch, a KYC_BASIC / KYC_BYO individual the KYC patch, a KYC_EXEMPT individual the legacy patch.
 * The legacy patch (`PatchRequest`) also applies to the others, alone, with the fields its SDK doc
 * allows them ("Allowed for all Account Holders": email, phone_number; "KYC-Exempt, BYO-KYC": names
 * and address; "BYO-KYB": legal_business_name and address): a business's e-mail and phone are its
 * control person's, its address and name its business entity's. A field of another variant (or of
 * both at once) is a 400 naming it. A patch names existing entities only: a KYB_DELEGATED holder
 * enrolled without a control person or owners has none of them to patch (422).
 * Every given field is checked by the create rules (rules.ts), before anything depends on the
 * holder's state. Only the given fields change; a given address replaces the fields it gives and
 * keeps the others (the SDK's `AddressUpdate`). Nested persons and businesses name the entity they
 * patch by `entity_token`: one of this holder's, in the same role, else a 422 naming it.
 */
import { InvalidRequestError, UnprocessableError } from '../errors.js';
import type { Profile } from './profile.js';
import {
  birthDay,
  checkDateOfBirth,
  checkPhoneNumber,
  checkUsAddress,
  maskId,
  normalizeBusinessId,
  normalizePersonalId,
} from './rules.js';
import {
  KYB_PATCH_FIELDS,
  KYC_PATCH_FIELDS,
  LEGACY_PATCH_FIELDS,
  type LegacyPatchField,
  type BusinessEntity,
  type BusinessEntityPatch,
  type Person,
  type PersonPatch,
  type UpdateAccountHolderBody,
} from './schemas.js';

export type PatchVariant = 'KYB' | 'KYC' | 'LEGACY';

interface HolderKind {
  token: string;
  user_type: 'BUSINESS' | 'INDIVIDUAL';
  workflow: string;
  exemption_type: string | null;
}

/**
 * The legacy patch's fields a workflow takes (SDK PatchRequest's "Allowed for"). A KYC_BYO holder's
 * business_account_token is left out: its create body has none, and the create rules tie one to
 * an AUTHORIZED_USER.
 */
const LEGACY_FIELDS_BY_WORKFLOW: Readonly<Record<string, readonly LegacyPatchField[]>> = {
  KYC_EXEMPT: ['address', 'business_account_token', 'email', 'first_name', 'last_name', 'phone_number'],
  KYC_BYO: ['address', 'email', 'first_name', 'last_name', 'phone_number'],
  KYB_BYO: ['address', 'email', 'legal_business_name', 'phone_number'],
};
const LEGACY_FIELDS_OF_EVERY_HOLDER: readonly LegacyPatchField[] = ['email', 'phone_number'];

function variantFields(holder: HolderKind, variant: PatchVariant): readonly string[] {
  if (variant === 'KYB') return KYB_PATCH_FIELDS;
  if (variant === 'KYC') return KYC_PATCH_FIELDS;
  return LEGACY_FIELDS_BY_WORKFLOW[holder.workflow] ?? LEGACY_FIELDS_OF_EVERY_HOLDER;
}

/** The variant of the holder's kind: the one a body of other fields (or none) is read as. */
function ownVariantOf(holder: HolderKind): PatchVariant {
  if (holder.user_type === 'BUSINESS') return 'KYB';
  return holder.workflow === 'KYC_EXEMPT' ? 'LEGACY' : 'KYC';
}

/** A body of legacy fields only is the legacy patch, whatever the holder; any other the holder's own variant. */
function patchVariantOf(holder: HolderKind, body: object): PatchVariant {
  const fields = Object.keys(body);
  const legacyOnly = fields.length > 0 && fields.every((field) => (LEGACY_PATCH_FIELDS as readonly string[]).includes(field));
  return legacyOnly ? 'LEGACY' : ownVariantOf(holder);
}

/** What the holder takes, for a refusal: its own variant, and the legacy patch where that is another. */
function variantsOffered(holder: HolderKind): string {
  const own = ownVariantOf(holder);
  const legacy = `the legacy patch (${variantFields(holder, 'LEGACY').join(', ')})`;
  if (own === 'LEGACY') return legacy;
  return `the ${own} patch (${variantFields(holder, own).join(', ')}) or ${legacy}, one or the other`;
}

/** Statuses whose information can change. A REJECTED holder is final (its account was closed). */
export function isUpdatable(status: string): boolean {
  return status === 'ACCEPTED' || status === 'PENDING_REVIEW';
}

function checkPersonPatch(path: string, patch: PersonPatch, nowMs: number): void {
  if (patch.address !== undefined) checkUsAddress(`${path}.address`, patch.address);
  if (patch.dob !== undefined) checkDateOfBirth(`${path}.dob`, patch.dob, nowMs);
  if (patch.phone_number !== undefined) checkPhoneNumber(`${path}.phone_number`, patch.phone_number);
  if (patch.government_id !== undefined) normalizePersonalId(`${path}.government_id`, patch.government_id);
}

function checkBusinessPatch(path: string, patch: BusinessEntityPatch): void {
  if (patch.address !== undefined) checkUsAddress(`${path}.address`, patch.address);
  patch.phone_numbers?.forEach((phone, index) => checkPhoneNumber(`${path}.phone_numbers[${index}]`, phone));
  if (patch.government_id !== undefined) normalizeBusinessId(`${path}.government_id`, patch.government_id);
}

/** Each entity is patched once per request: a second patch of the same entity is a 400. */
function checkEntitiesPatchedOnce(patches: Array<[path: string, entityToken: string]>): void {
  const first = new Map<string, string>();
  for (const [path, entityToken] of patches) {
    const earlier = first.get(entityToken);
    if (earlier !== undefined) throw new InvalidRequestError(`${path}.entity_token: entity '${entityToken}' is already patched by ${earlier}`);
    first.set(entityToken, path);
  }
}

function personPatches(body: UpdateAccountHolderBody): Array<[path: string, patch: PersonPatch]> {
  return [
    ...(body.individual ? [['individual', body.individual] as [string, PersonPatch]] : []),
    ...(body.control_person ? [['control_person', body.control_person] as [string, PersonPatch]] : []),
    ...(body.beneficial_owner_individuals ?? []).map((owner, index): [string, PersonPatch] => [`beneficial_owner_individuals[${index}]`, owner]),
  ];
}

function businessPatches(body: UpdateAccountHolderBody): Array<[path: string, patch: BusinessEntityPatch]> {
  return [
    ...(body.business_entity ? [['business_entity', body.business_entity] as [string, BusinessEntityPatch]] : []),
    ...(body.beneficial_owner_entities ?? []).map((owner, index): [string, BusinessEntityPatch] => [`beneficial_owner_entities[${index}]`, owner]),
  ];
}

/**
 * Everything about the body that does not depend on the holder's state (400 naming the path): the
 * variant's fields, each given value by the create rules, and `business_account_token` only for an
 * AUTHORIZED_USER (as on create). Returns the variant.
 */
export function checkPatch(holder: HolderKind, body: UpdateAccountHolderBody, nowMs: number): PatchVariant {
  const variant = patchVariantOf(holder, body);
  const fields = variantFields(holder, variant);
  for (const field of Object.keys(body)) {
    if (!fields.includes(field)) {
      throw new InvalidRequestError(`${field}: does not apply to a ${holder.workflow} account holder; it takes ${variantsOffered(holder)}`);
    }
  }
  const persons = personPatches(body);
  const businesses = businessPatches(body);
  for (const [path, patch] of persons) checkPersonPatch(path, patch, nowMs);
  for (const [path, patch] of businesses) checkBusinessPatch(path, patch);
  checkEntitiesPatchedOnce([...persons, ...businesses].map(([path, patch]) => [path, patch.entity_token]));
  if (body.address !== undefined) checkUsAddress('address', body.address);
  if (body.phone_number !== undefined) checkPhoneNumber('phone_number', body.phone_number);
  if (body.business_account_token !== undefined && holder.exemption_type !== 'AUTHORIZED_USER') {
    throw new InvalidRequestError('business_account_token: only applies to kyc_exemption_type AUTHORIZED_USER');
  }
  return variant;
}

/** A patched profile and the government ids it sets (entity token → nine digits). */
export interface PatchedProfile {
  profile: Profile;
  governmentIds: Record<string, string>;
}

function patchPerson(person: Person, patch: PersonPatch, ids: Record<string, string>, path: string): Person {
  const { entity_token: entityToken, address, government_id: governmentId, dob, ...fields } = patch;
  if (governmentId !== undefined) ids[entityToken] = normalizePersonalId(`${path}.government_id`, governmentId);
  return { ...person, ...fields, ...(dob !== undefined ? { dob: birthDay(dob) } : {}), ...(address ? { address: { ...person.address, ...address } } : {}) };
}

function patchBusiness(business: BusinessEntity, patch: BusinessEntityPatch, ids: Record<string, string>, path: string): BusinessEntity {
  const { entity_token: entityToken, address, government_id: governmentId, ...fields } = patch;
  const patched: BusinessEntity = { ...business, ...fields, ...(address ? { address: { ...business.address, ...address } } : {}) };
  if (governmentId === undefined) return patched;
  const digits = normalizeBusinessId(`${path}.government_id`, governmentId);
  ids[entityToken] = digits;
  return { ...patched, government_id: maskId(digits) };
}

/** The entity of this holder in this role that `entityToken` names, else a 422 naming the token. */
function entityOf<T extends { entity_token: string }>(holderToken: string, path: string, role: string, candidates: T[], entityToken: string): T {
  const found = candidates.find((candidate) => candidate.entity_token === entityToken);
  if (!found) throw new UnprocessableError(`${path}.entity_token: entity '${entityToken}' is not ${role} of account holder '${holderToken}'`);
  return found;
}

function patchOne<T extends { entity_token: string }, P extends { entity_token: string }>(
  holderToken: string,
  path: string,
  role: string,
  current: T | undefined,
  patch: P | undefined,
  apply: (entity: T, patch: P, path: string) => T,
): T | undefined {
  if (patch === undefined) return current;
  return apply(entityOf(holderToken, path, role, current ? [current] : [], patch.entity_token), patch, path);
}

function patchMany<T extends { entity_token: string }, P extends { entity_token: string }>(
  holderToken: string,
  field: string,
  role: string,
  current: T[] | undefined,
  patches: P[] | undefined,
  apply: (entity: T, patch: P, path: string) => T,
): T[] | undefined {
  if (patches === undefined) return current;
  let entities = current ?? [];
  patches.forEach((patch, index) => {
    const path = `${field}[${index}]`;
    const entity = entityOf(holderToken, path, role, entities, patch.entity_token);
    entities = entities.map((candidate) => (candidate === entity ? apply(entity, patch, path) : candidate));
  });
  return entities;
}

/** The given fields of `body` among `fields` (none given: undefined). */
function givenFields<K extends keyof UpdateAccountHolderBody>(body: UpdateAccountHolderBody, fields: readonly K[]): Pick<UpdateAccountHolderBody, K> | undefined {
  const given = fields.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]);
  return given.length === 0 ? undefined : (Object.fromEntries(given) as Pick<UpdateAccountHolderBody, K>);
}

/**
 * The legacy patch's top-level fields as patches of the holder's entities: an individual's are its
 * own; a business's e-mail and phone are its control person's (spec 2.3: the holder's are "deprecated;
 * use control_person"), its name and address its business entity's. A business without a control
 * person has no e-mail or phone to change (422).
 */
function legacyPatches(holderToken: string, profile: Profile, body: UpdateAccountHolderBody): { individual?: PersonPatch; control_person?: PersonPatch; business_entity?: BusinessEntityPatch } {
  const { individual, control_person: controlPerson, business_entity: business } = profile;
  if (individual !== undefined) {
    const fields = givenFields(body, ['address', 'email', 'phone_number', 'first_name', 'last_name']);
    return fields === undefined ? {} : { individual: { entity_token: individual.entity_token, ...fields } };
  }
  const contact = givenFields(body, ['email', 'phone_number']);
  const own = givenFields(body, ['address', 'legal_business_name']);
  if (contact !== undefined && controlPerson === undefined) {
    throw new UnprocessableError(`${Object.keys(contact)[0]}: account holder '${holderToken}' has no control person, whose e-mail and phone number are a business's`);
  }
  return {
    ...(contact !== undefined && controlPerson !== undefined ? { control_person: { entity_token: controlPerson.entity_token, ...contact } } : {}),
    ...(own !== undefined && business !== undefined ? { business_entity: { entity_token: business.entity_token, ...own } } : {}),
  };
}

/**
 * The holder's profile with the body's persons and businesses patched (a checked body: see
 * `checkPatch`). The legacy patch's top-level fields patch the entities they belong to (`legacyPatches`).
 */
export function patchProfile(holderToken: string, profile: Profile, body: UpdateAccountHolderBody): PatchedProfile {
  const ids: Record<string, string> = {};
  const person = (entity: Person, patch: PersonPatch, path: string) => patchPerson(entity, patch, ids, path);
  const business = (entity: BusinessEntity, patch: BusinessEntityPatch, path: string) => patchBusiness(entity, patch, ids, path);
  const legacy = legacyPatches(holderToken, profile, body);
  const patched: Profile = {
    ...profile,
    ...defined('individual', patchOne(holderToken, 'individual', 'the individual', profile.individual, body.individual ?? legacy.individual, person)),
    ...defined('business_entity', patchOne(holderToken, 'business_entity', 'the business entity', profile.business_entity, body.business_entity ?? legacy.business_entity, business)),
    ...defined('control_person', patchOne(holderToken, 'control_person', 'the control person', profile.control_person, body.control_person ?? legacy.control_person, person)),
    ...defined('beneficial_owner_individuals', patchMany(holderToken, 'beneficial_owner_individuals', 'a beneficial owner individual', profile.beneficial_owner_individuals, body.beneficial_owner_individuals, person)),
    ...defined('beneficial_owner_entities', patchMany(holderToken, 'beneficial_owner_entities', 'a beneficial owner entity', profile.beneficial_owner_entities, body.beneficial_owner_entities, business)),
  };
  return { profile: patched, governmentIds: ids };
}

function defined<K extends string, V>(key: K, value: V | undefined): { [key in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [key in K]: V });
}
