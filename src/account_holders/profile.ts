/**
 * The identity part of an account holder as stored in `account_holders.profile` (JSON): the
 * response-shaped individual, business entity, control person and beneficial owners, each with its
 * entity token, never with a government id in full.
 */
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
