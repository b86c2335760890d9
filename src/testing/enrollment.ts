/**
 * Valid enrollment bodies for tests, one per workflow family. Each returns a fresh object, so a
 * test can break one field of it. Every call gets a distinct e-mail, so list filters can find it.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';

export const US_ADDRESS = { address1: '5 Broad Street', city: 'New York', country: 'USA', postal_code: '10001', state: 'NY' };

function uniqueEmail(name: string): string {
  return `${name}.${crypto.randomBytes(4).toString('hex')}@example.com`;
}

export function person(name = 'jane') {
  return {
    address: { ...US_ADDRESS },
    dob: '1990-04-12',
    email: uniqueEmail(name),
    first_name: 'Jane',
    last_name: 'Doe',
    government_id: '123-45-6789',
    phone_number: '+15555550100',
  };
}

export function kycBody(workflow: 'KYC_BASIC' | 'KYC_BYO' = 'KYC_BASIC') {
  return {
    workflow,
    tos_timestamp: '2024-01-01T00:00:00Z',
    individual: person(),
    ...(workflow === 'KYC_BYO' ? { kyc_passed_timestamp: '2024-01-02T00:00:00Z' } : {}),
  };
}

export function kybBody(workflow: 'KYB_BASIC' | 'KYB_BYO' = 'KYB_BASIC') {
  return {
    workflow,
    tos_timestamp: '2024-01-01T00:00:00Z',
    nature_of_business: 'Software for restaurants',
    website_url: 'https://www.example.com',
    business_entity: {
      address: { ...US_ADDRESS, address1: '1 Market Street', postal_code: '94105', city: 'San Francisco', state: 'CA' },
      government_id: '12-3456789',
      legal_business_name: 'Busy Business, Inc.',
      phone_numbers: ['+15555550101'],
    },
    control_person: { ...person('tom'), first_name: 'Tom', government_id: '111-22-3333' },
    beneficial_owner_individuals: [{ ...person('tim'), first_name: 'Tim', government_id: '222334444' }],
    ...(workflow === 'KYB_BYO' ? { kyb_passed_timestamp: '2024-01-02T00:00:00Z' } : {}),
  };
}

/** The least a KYB_DELEGATED body needs (SDK 0.119): the business's address and legal name. */
export function kybDelegatedBody() {
  return {
    workflow: 'KYB_DELEGATED' as const,
    business_entity: { address: { ...US_ADDRESS, address1: '9 Canal Street' }, legal_business_name: 'Delegated Goods LLC' },
  };
}

/** A KYB_DELEGATED body with every field SDK 0.119 declares for it. */
export function fullKybDelegatedBody() {
  const kyb = kybBody();
  return {
    ...kyb,
    workflow: 'KYB_DELEGATED' as const,
    external_id: `delegated-${crypto.randomBytes(4).toString('hex')}`,
    business_entity: { ...kyb.business_entity, dba_business_name: 'Busy', parent_company: 'Busy Holdings' },
  };
}

export function kycExemptBody(type: 'AUTHORIZED_USER' | 'PREPAID_CARD_USER' = 'PREPAID_CARD_USER') {
  return {
    workflow: 'KYC_EXEMPT' as const,
    kyc_exemption_type: type,
    first_name: 'Pat',
    last_name: 'Lee',
    email: uniqueEmail('pat'),
    phone_number: '+15555550102',
    address: { ...US_ADDRESS },
  };
}

/** A copy of `body` with the value at a dotted path (`individual.address.state`, `beneficial_owner_individuals.0.dob`) set, or removed when `value` is undefined. */
export function withField(body: object, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  const parts = path.split('.');
  let target = copy;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  const last = parts.at(-1) as string;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

/** How many holders, accounts and financial accounts the program has: a refused enrollment changes none. */
export async function enrollmentCounts(client: Lithic) {
  const [holders, accounts, financialAccounts] = await Promise.all([
    client.accountHolders.list({ limit: 100 }),
    client.accounts.list({ page_size: 100 }),
    client.financialAccounts.list({ page_size: 100 } as never),
  ]);
  return { holders: holders.data.length, accounts: accounts.data.length, financialAccounts: financialAccounts.data.length };
}

/** Enrolls a holder (any body above) and returns the create response. */
export function enroll(client: Lithic, body: object) {
  return client.accountHolders.create(body as Lithic.AccountHolderCreateParams);
}

/** A KYC_BASIC holder that is ACCEPTED: its account can get cards. */
export async function acceptedAccountToken(client: Lithic): Promise<string> {
  const holder = await enroll(client, kycBody());
  return holder.account_token;
}

const ENTITY_ROLES = new Set(['individual', 'business_entity', 'control_person', 'beneficial_owner_individuals', 'beneficial_owner_entities']);
/** A holder as the KYB and KYC patches and the enrollment review answer it: its people and businesses without their entity_token. */
export function withoutEntityTokens<T extends object>(holder: T): T {
  const untokened = (entity: object) => Object.fromEntries(Object.entries(entity).filter(([key]) => key !== 'entity_token'));
  const entries = Object.entries(holder).map(([key, value]) => [key, !ENTITY_ROLES.has(key) ? value : Array.isArray(value) ? value.map(untokened) : untokened(value as object)]);
  return Object.fromEntries(entries) as T;
}
