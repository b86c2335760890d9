/**
 * The identity part of an account holder as stored in `account_holders.profile` (JSON): the
 * response-shaped individual, business entity, control person and beneficial owners, each with its
 * entity token, never with a government id in full.
 */
import { birthDay } from './rules.js';
import type { Address, BusinessEntity, Person } from './schemas.js';

export interface Profile {
  individual?: Person;
  business_entity?: BusinessEntity;
  control_person?: Person;
  beneficial_owner_individuals?: Person[];
  beneficial_owner_entities?: BusinessEntity[];
}

export function parseProfile(json: string): Profile {
  return JSON.parse(json) as Profile;
}

/** The holder's own address: the individual's, or the business's. */
export function profileAddress(profile: Profile): Address | undefined {
  return profile.individual?.address ?? profile.business_entity?.address;
}

/**
 * A stored person as the API answers it: every field of the SDK's type, empty text when unknown;
 * the date of birth as a date, also where a date-time was stored as given (before it was stored as its day).
 */
function personResponse(person: Person): Person & { phone_number: string; dob: string } {
  return { ...person, phone_number: person.phone_number ?? '', dob: person.dob === undefined ? '' : birthDay(person.dob) };
}

/**
 * A stored business as the API answers it: every field of the SDK's type, empty when none was given
 * (`dba_business_name`; a KYB_DELEGATED business's `government_id` and `phone_numbers`).
 */
function businessResponse(business: BusinessEntity): BusinessEntity & { dba_business_name: string; government_id: string; phone_numbers: string[] } {
  return { ...business, government_id: business.government_id ?? '', phone_numbers: business.phone_numbers ?? [], dba_business_name: business.dba_business_name ?? '' };
}

/** The profile as the API answers it. */
export function profileResponse(profile: Profile) {
  return {
    ...(profile.individual ? { individual: personResponse(profile.individual) } : {}),
    ...(profile.business_entity ? { business_entity: businessResponse(profile.business_entity) } : {}),
    ...(profile.control_person ? { control_person: personResponse(profile.control_person) } : {}),
    ...(profile.beneficial_owner_individuals ? { beneficial_owner_individuals: profile.beneficial_owner_individuals.map(personResponse) } : {}),
    ...(profile.beneficial_owner_entities ? { beneficial_owner_entities: profile.beneficial_owner_entities.map(businessResponse) } : {}),
  };
}
