/**
 * Account holders: the people and businesses a program enrolls. Each has exactly one account
 * (`account_token`). Identity details live in `profile` (JSON, in the response's shape, without
 * government ids); the government ids are one AES-256-GCM blob (`government_ids_encrypted`, a JSON
 * object from entity token to the id's nine digits) that is never returned. The scalar columns
 * serve the list filters (`email_lower` for the case-insensitive exact match).
 */
export interface AccountHoldersTable {
  program_id: string;
  token: string;
  account_token: string;
  workflow: string;
  user_type: 'BUSINESS' | 'INDIVIDUAL';
  /** Current verification status (verification_application.status and the deprecated mirror). */
  status: string;
  /** JSON array of status reasons. */
  status_reasons: string;
  verification_created_ms: number;
  verification_updated_ms: number;
  exemption_type: string | null;
  business_account_token: string | null;
  external_id: string | null;
  /** The holder's e-mail: the individual's, or the control person's for a business. */
  email: string | null;
  email_lower: string | null;
  /** The holder's phone: the individual's, or the control person's for a business. */
  phone_number: string | null;
  /** Individuals only. */
  first_name: string | null;
  last_name: string | null;
  /** Businesses only. */
  legal_business_name: string | null;
  nature_of_business: string | null;
  website_url: string | null;
  tos_timestamp: string | null;
  /** `kyb_passed_timestamp` / `kyc_passed_timestamp` of the BYO workflows. */
  passed_timestamp: string | null;
  /** JSON: individual / business_entity / control_person / beneficial owners, response-shaped. */
  profile: string;
  government_ids_encrypted: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface AccountHolderTables {
  account_holders: AccountHoldersTable;
}
