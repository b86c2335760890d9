/**
 * Rows written directly to the store for list plan tests (each resource folder's list-plans.test.ts): thousands of a
 * program's rows, with only the columns a list reads set to anything but a placeholder.
 */
import type { AccountHoldersTable } from '../account_holders/tables.js';
import { DEFAULT_ACCOUNT_SPEND_LIMITS } from '../accounts/spend.js';
import type { AccountsTable } from '../accounts/tables.js';
import type { ExternalBankAccountsTable } from '../external_bank_accounts/tables.js';
import type { FinancialAccountsTable } from '../financial_accounts/tables.js';

/** An ACTIVE account whose ISSUING financial account is `fa-<token>`. */
export function accountRow(programId: string, token: string, createdMs: number, holderToken: string | null = null): AccountsTable {
  return {
    program_id: programId, token, state: 'ACTIVE', is_default: 0, account_holder_token: holderToken, issuing_financial_account_token: `fa-${token}`,
    ...DEFAULT_ACCOUNT_SPEND_LIMITS, substatus: null, comment: null, verification_address: null,
    created_ms: createdMs, updated_ms: createdMs,
  };
}

/** The ISSUING financial account of `account`. */
export function issuingAccountRow(account: AccountsTable): FinancialAccountsTable {
  return {
    program_id: account.program_id, token: account.issuing_financial_account_token, account_token: account.token, type: 'ISSUING', nickname: null, status: 'OPEN',
    substatus: null, is_for_benefit_of: 0, account_number: 'x', routing_number: 'x', credit_configuration: null, created_ms: account.created_ms, updated_ms: account.created_ms,
  };
}

/** An ACCEPTED holder of `accountToken`; `fields` sets what the list filters on. */
export function holderRow(programId: string, token: string, accountToken: string, createdMs: number, fields: Partial<AccountHoldersTable> = {}): AccountHoldersTable {
  return {
    program_id: programId, token, account_token: accountToken, workflow: 'KYC_EXEMPT', user_type: 'INDIVIDUAL', status: 'ACCEPTED', status_reasons: '[]',
    verification_created_ms: createdMs, verification_updated_ms: createdMs, exemption_type: null, business_account_token: null, external_id: null, email: null,
    email_lower: null, phone_number: null, first_name: null, last_name: null, legal_business_name: null, nature_of_business: null, website_url: null,
    tos_timestamp: null, passed_timestamp: null, profile: '{}', government_ids_encrypted: null, created_ms: createdMs, updated_ms: createdMs,
    ...fields,
  };
}

/** An ENABLED, verified USA checking account of an individual; `fields` sets what the list filters on. */
export function bankAccountRow(programId: string, token: string, accountToken: string | null, createdMs: number, fields: Partial<ExternalBankAccountsTable> = {}): ExternalBankAccountsTable {
  return {
    program_id: programId, token, account_token: accountToken, financial_account_token: null, type: 'CHECKING', country: 'USA', state: 'ENABLED',
    verification_state: 'ENABLED', prenote_due_ms: null, currency: 'USD', account_number_encrypted: 'x', last_four: '0000', owner: 'o', owner_type: 'INDIVIDUAL',
    routing_number: '021000021', verification_attempts: 0, verification_method: 'PRENOTE', verification_failed_reason: null, micro_deposits_encrypted: null,
    address: null, company_id: null, dob: null, doing_business_as: null, name: null, user_defined_id: null, created_ms: createdMs, updated_ms: createdMs,
    ...fields,
  };
}

const SEEDED_FROM_MS = Date.parse('2030-01-01T00:00:00Z');

/** Row `i`'s creation time in a seeded list: two rows a millisecond, from 2030-01-01. */
export const seededCreatedMs = (i: number): number => SEEDED_FROM_MS + Math.floor(i / 2);

/** Row `i`'s token in a seeded list, `<program>-<kind>-00042`: in creation order, also within a millisecond. */
export const seededToken = (program: string, kind: string, i: number): string => `${program}-${kind}-${String(i).padStart(5, '0')}`;
