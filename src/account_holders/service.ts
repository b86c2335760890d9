/**
 * Account holders (spec 2.3, 3.3, 4.3): enrollment through the KYB, KYB_DELEGATED, KYC and
 * KYC_EXEMPT workflows, retrieval, listing, updates, and the simulated enrollment review.
 *
 * Enrolling validates every field (rules.ts), decides the initial verification (verification.ts),
 * and in one transaction stores the holder and opens its account with the account's ISSUING
 * financial account. Updating (update.ts) changes the given information of an ACCEPTED or
 * PENDING_REVIEW holder under a row lock and keeps its status: no verification runs again.
 * Government ids are encrypted at rest and never returned: persons omit them, business entities
 * show the last four digits.
 */
import { newToken } from '../ids.js';
import { isoTimestamp } from '../clock.js';
import * as accounts from '../accounts/service.js';
import * as accountStore from '../accounts/store.js';
import { closeWithAccount } from '../financial_accounts/service.js';
import * as financialAccountStore from '../financial_accounts/store.js';
import { lockBalances } from '../ledger/ledger.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { changedColumns, isEmpty } from '../db/changes.js';
import { invariant, InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import type { ListResponse } from '../http/schemas.js';
import { emitEvent } from '../events/emit.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { parseProfile, profileResponse, type Profile } from './profile.js';
import {
  checkDateOfBirth,
  checkPhoneNumber,
  checkUsAddress,
  maskId,
  normalizeBusinessId,
  normalizePersonalId,
} from './rules.js';
import type {
  AccountHolder,
  AccountHolderCreated,
  AccountHolderPatched,
  AccountHolderReply,
  BusinessEntity,
  BusinessEntityInput,
  CreateAccountHolderBody,
  EnrollmentReviewBody,
  KybBody,
  KybDelegatedBody,
  KycBody,
  KycExemptBody,
  ListAccountHoldersQuery,
  Person,
  PersonInput,
  Status,
  StatusReason,
  UpdateAccountHolderBody,
  Workflow,
} from './schemas.js';
import * as store from './store.js';
import { checkPatch, isUpdatable, patchProfile } from './update.js';
import { initialVerification, isPendingReview, requestedReview } from './verification.js';

/** Government ids of a holder's entities (entity token → nine digits), encrypted as one value. */
type GovernmentIds = Record<string, string>;

/** A validated enrollment: everything of the row that does not depend on storage. */
interface Enrollment {
  row: Omit<store.AccountHolderRow, 'program_id' | 'token' | 'account_token' | 'government_ids_encrypted' | 'created_ms' | 'updated_ms' | 'verification_created_ms' | 'verification_updated_ms' | 'status' | 'status_reasons'>;
  governmentIds: GovernmentIds;
  /** The KYC individual's id: the sandbox decides KYC_BASIC on it. */
  individualIdDigits?: string;
}

function person(path: string, input: PersonInput, nowMs: number, ids: GovernmentIds): Person {
  checkUsAddress(`${path}.address`, input.address);
  const dob = checkDateOfBirth(`${path}.dob`, input.dob, nowMs);
  if (input.phone_number !== undefined) checkPhoneNumber(`${path}.phone_number`, input.phone_number);
  const entityToken = newToken();
  ids[entityToken] = normalizePersonalId(`${path}.government_id`, input.government_id);
  return {
    entity_token: entityToken,
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email,
    ...(input.phone_number !== undefined ? { phone_number: input.phone_number } : {}),
    dob,
    address: input.address,
  };
}

/** A business; the EIN and phone numbers a KYB_DELEGATED body may leave out stay absent. */
function businessEntity(path: string, input: BusinessEntityInput, ids: GovernmentIds): BusinessEntity {
  checkUsAddress(`${path}.address`, input.address);
  input.phone_numbers?.forEach((phone, index) => checkPhoneNumber(`${path}.phone_numbers[${index}]`, phone));
  const entityToken = newToken();
  const digits = input.government_id === undefined ? undefined : normalizeBusinessId(`${path}.government_id`, input.government_id);
  if (digits !== undefined) ids[entityToken] = digits;
  return {
    entity_token: entityToken,
    legal_business_name: input.legal_business_name,
    ...(input.dba_business_name !== undefined ? { dba_business_name: input.dba_business_name } : {}),
    ...(input.parent_company !== undefined ? { parent_company: input.parent_company } : {}),
    ...(digits !== undefined ? { government_id: maskId(digits) } : {}),
    ...(input.phone_numbers !== undefined ? { phone_numbers: input.phone_numbers } : {}),
    address: input.address,
  };
}

function requirePassedTimestamp(field: string, value: string | undefined, workflow: string): string {
  if (value === undefined) throw new InvalidRequestError(`${field}: is required for workflow ${workflow}`);
  return value;
}

/** What the KYB and KYB_DELEGATED bodies have in common: the delegated one may leave out all but the business. */
type BusinessBody = Pick<KybDelegatedBody, 'control_person' | 'beneficial_owner_individuals' | 'external_id' | 'nature_of_business' | 'tos_timestamp' | 'website_url'> & {
  business_entity: BusinessEntityInput;
  beneficial_owner_entities?: BusinessEntityInput[] | undefined;
};

/**
 * A business enrollment (KYB or KYB_DELEGATED): every given entity checked by the same rules. A
 * holder without a control person has no contact columns; without owners, an empty list of them.
 */
function businessEnrollment(workflow: Workflow, body: BusinessBody, passedTimestamp: string | undefined, nowMs: number): Enrollment {
  const ids: GovernmentIds = {};
  const { control_person: controlPerson, beneficial_owner_entities: ownerEntities } = body;
  const profile: Profile = {
    business_entity: businessEntity('business_entity', body.business_entity, ids),
    ...(controlPerson !== undefined ? { control_person: person('control_person', controlPerson, nowMs, ids) } : {}),
    beneficial_owner_individuals: (body.beneficial_owner_individuals ?? []).map((owner, index) => person(`beneficial_owner_individuals[${index}]`, owner, nowMs, ids)),
    ...(ownerEntities !== undefined
      ? { beneficial_owner_entities: ownerEntities.map((owner, index) => businessEntity(`beneficial_owner_entities[${index}]`, owner, ids)) }
      : {}),
  };
  return {
    governmentIds: ids,
    row: {
      workflow,
      user_type: 'BUSINESS',
      ...contactColumns(controlPerson?.email, controlPerson?.phone_number),
      first_name: null,
      last_name: null,
      legal_business_name: body.business_entity.legal_business_name,
      nature_of_business: body.nature_of_business ?? null,
      website_url: body.website_url ?? null,
      exemption_type: null,
      business_account_token: null,
      external_id: body.external_id ?? null,
      tos_timestamp: body.tos_timestamp ?? null,
      passed_timestamp: passedTimestamp ?? null,
      profile: JSON.stringify(profile),
    },
  };
}

function kybEnrollment(body: KybBody, nowMs: number): Enrollment {
  const passed = body.workflow === 'KYB_BYO' ? requirePassedTimestamp('kyb_passed_timestamp', body.kyb_passed_timestamp, body.workflow) : body.kyb_passed_timestamp;
  return businessEnrollment(body.workflow, body, passed, nowMs);
}

function kycEnrollment(body: KycBody, nowMs: number): Enrollment {
  const ids: GovernmentIds = {};
  const individual = person('individual', body.individual, nowMs, ids);
  const passed = body.workflow === 'KYC_BYO' ? requirePassedTimestamp('kyc_passed_timestamp', body.kyc_passed_timestamp, body.workflow) : body.kyc_passed_timestamp;
  return {
    governmentIds: ids,
    individualIdDigits: ids[individual.entity_token],
    row: {
      ...individualColumns(body.individual),
      workflow: body.workflow,
      exemption_type: null,
      business_account_token: null,
      external_id: body.external_id ?? null,
      tos_timestamp: body.tos_timestamp,
      passed_timestamp: passed ?? null,
      profile: JSON.stringify({ individual } satisfies Profile),
    },
  };
}

function kycExemptEnrollment(body: KycExemptBody): Enrollment {
  checkUsAddress('address', body.address);
  checkPhoneNumber('phone_number', body.phone_number);
  if (body.business_account_token !== undefined && body.kyc_exemption_type !== 'AUTHORIZED_USER') {
    throw new InvalidRequestError('business_account_token: only applies to kyc_exemption_type AUTHORIZED_USER');
  }
  const individual: Person = {
    entity_token: newToken(),
    first_name: body.first_name,
    last_name: body.last_name,
    email: body.email,
    phone_number: body.phone_number,
    address: body.address,
  };
  return {
    governmentIds: {},
    row: {
      ...individualColumns(body),
      workflow: body.workflow,
      exemption_type: body.kyc_exemption_type,
      business_account_token: body.business_account_token ?? null,
      external_id: body.external_id ?? null,
      tos_timestamp: null,
      passed_timestamp: null,
      profile: JSON.stringify({ individual } satisfies Profile),
    },
  };
}

/** The holder's e-mail and phone: none for a KYB_DELEGATED business enrolled without a control person. */
function contactColumns(email: string | undefined, phoneNumber: string | undefined) {
  return { email: email ?? null, email_lower: email?.toLowerCase() ?? null, phone_number: phoneNumber ?? null };
}

function individualColumns(individual: { email: string; phone_number: string; first_name: string; last_name: string }) {
  return {
    user_type: 'INDIVIDUAL' as const,
    ...contactColumns(individual.email, individual.phone_number),
    first_name: individual.first_name,
    last_name: individual.last_name,
    legal_business_name: null,
    nature_of_business: null,
    website_url: null,
  };
}

function enrollment(body: CreateAccountHolderBody, nowMs: number): Enrollment {
  switch (body.workflow) {
    case 'KYB_BASIC':
    case 'KYB_BYO':
      return kybEnrollment(body, nowMs);
    case 'KYB_DELEGATED':
    case undefined:
      return businessEnrollment('KYB_DELEGATED', body, undefined, nowMs);
    case 'KYC_BASIC':
    case 'KYC_BYO':
      return kycEnrollment(body, nowMs);
    case 'KYC_EXEMPT':
      return kycExemptEnrollment(body);
  }
}

/**
 * An authorized user's business account must be the account of an enrolled business: a BUSINESS
 * holder that passed KYB (ACCEPTED), with an account that is not CLOSED. Otherwise a user of a
 * business still under review, or rejected, would be ACCEPTED at once and could get cards.
 */
async function checkBusinessAccount(exec: Executor, programId: string, accountToken: string): Promise<void> {
  const account = await accountStore.find(exec, programId, accountToken);
  if (!account) throw notFound('account', accountToken, 'business_account_token');
  const holder = account.account_holder_token === null ? undefined : await store.find(exec, programId, account.account_holder_token);
  if (holder?.user_type !== 'BUSINESS') {
    throw new UnprocessableError(`business_account_token: account '${accountToken}' is not the account of a BUSINESS account holder`);
  }
  if (holder.status !== 'ACCEPTED') {
    throw new UnprocessableError(`business_account_token: the business holding account '${accountToken}' is ${holder.status}; authorized users can be enrolled once it is ACCEPTED`);
  }
  if (account.state === 'CLOSED') {
    throw new UnprocessableError(`business_account_token: account '${accountToken}' is CLOSED`);
  }
}

function requiredDocuments(workflow: string) {
  return workflow === 'KYB_BASIC' ? { required_documents: [] } : {};
}

function reasonsOf(row: store.AccountHolderRow): StatusReason[] {
  return JSON.parse(row.status_reasons) as StatusReason[];
}

function toCreated(row: store.AccountHolderRow): AccountHolderCreated {
  return {
    token: row.token,
    account_token: row.account_token,
    status: row.status as Status,
    status_reasons: reasonsOf(row),
    created: isoTimestamp(row.created_ms),
    ...(row.external_id !== null ? { external_id: row.external_id } : {}),
    ...requiredDocuments(row.workflow),
  };
}

/** The whole holder: the fields of spec 2.3 that apply to its user type. */
export function toApi(row: store.AccountHolderRow): AccountHolder {
  const profile = profileResponse(parseProfile(row.profile));
  const holder: AccountHolder = {
    token: row.token,
    account_token: row.account_token,
    created: isoTimestamp(row.created_ms),
    user_type: row.user_type,
    status: row.status as Status,
    status_reasons: reasonsOf(row),
    verification_application: {
      created: isoTimestamp(row.verification_created_ms),
      status: row.status as Status,
      status_reasons: reasonsOf(row),
      updated: isoTimestamp(row.verification_updated_ms),
    },
    ...(row.external_id !== null ? { external_id: row.external_id } : {}),
    ...(row.email !== null ? { email: row.email } : {}),
    ...(row.phone_number !== null ? { phone_number: row.phone_number } : {}),
    ...requiredDocuments(row.workflow),
  };
  if (row.user_type === 'INDIVIDUAL') {
    return {
      ...holder,
      ...(profile.individual ? { individual: profile.individual } : {}),
      ...(row.exemption_type !== null ? { exemption_type: row.exemption_type as AccountHolder['exemption_type'] } : {}),
      ...(row.business_account_token !== null ? { business_account_token: row.business_account_token } : {}),
    };
  }
  return {
    ...holder,
    ...profile,
    beneficial_owner_individuals: profile.beneficial_owner_individuals ?? [],
    nature_of_business: row.nature_of_business ?? '',
    website_url: row.website_url ?? '',
  };
}

/** An entity (a person or a business) without its entity token. */
function withoutEntityToken<T extends { entity_token: string }>({ entity_token: _entityToken, ...fields }: T): Omit<T, 'entity_token'> {
  return fields;
}

/** The holder as the KYB and KYC patches and the enrollment review answer it: its people and businesses without their entity tokens. */
function toReply(holder: AccountHolder): AccountHolderReply {
  const { individual, business_entity: business, control_person: control, beneficial_owner_individuals: owners, beneficial_owner_entities: entities, ...rest } = holder;
  return {
    ...rest,
    ...(individual ? { individual: withoutEntityToken(individual) } : {}),
    ...(business ? { business_entity: withoutEntityToken(business) } : {}),
    ...(control ? { control_person: withoutEntityToken(control) } : {}),
    ...(owners ? { beneficial_owner_individuals: owners.map(withoutEntityToken) } : {}),
    ...(entities ? { beneficial_owner_entities: entities.map(withoutEntityToken) } : {}),
  };
}

export async function create(tx: Tx, scope: ProgramScope, secrets: Secrets, body: CreateAccountHolderBody): Promise<AccountHolderCreated> {
  const { row: fields, governmentIds, individualIdDigits } = enrollment(body, scope.nowMs);
  if (fields.business_account_token !== null) await checkBusinessAccount(tx, scope.programId, fields.business_account_token);
  const verification = initialVerification(fields.workflow as Workflow, individualIdDigits);
  const row: store.AccountHolderRow = {
    ...fields,
    program_id: scope.programId,
    token: newToken(),
    account_token: newToken(),
    status: verification.status,
    status_reasons: JSON.stringify(verification.status_reasons),
    verification_created_ms: scope.nowMs,
    verification_updated_ms: scope.nowMs,
    government_ids_encrypted: Object.keys(governmentIds).length > 0 ? secrets.encrypt(JSON.stringify(governmentIds)) : null,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  };
  await accounts.openHolderAccount(
    tx,
    scope.programId,
    { token: row.account_token, account_holder_token: row.token, state: verification.status === 'REJECTED' ? 'CLOSED' : 'ACTIVE' },
    scope.nowMs,
  );
  await store.insert(tx, row);
  await emitCreated(tx, scope, row);
  return toCreated(row);
}

/**
 * Events of a new holder (Lithic's webhook types): `account_holder.created` unless it was rejected
 * ("created and was not rejected"), and `account_holder.verification` when its verification was
 * decided at once (ACCEPTED or REJECTED; PENDING_REVIEW waits for the review).
 */
async function emitCreated(tx: Tx, scope: ProgramScope, row: store.AccountHolderRow): Promise<void> {
  const holder = toApi(row);
  if (holder.status !== 'REJECTED') await emitEvent(tx, scope.programId, 'account_holder.created', createdEventPayload(holder), scope.nowMs);
  if (!isPendingReview(holder.status)) await emitVerification(tx, scope, holder);
}

/** `account_holder.created`'s payload: the holder's token, account, creation, status (its reasons as `status_reason`) and the documents it still needs. */
export function createdEventPayload(holder: AccountHolder) {
  const { token, account_token, created, status, status_reasons } = holder;
  return { token, account_token, created, status, status_reason: status_reasons, required_documents: holder.required_documents ?? [] };
}

/** `account_holder.verification`'s payload: the decided status and reasons, `created` being when they were decided. */
export function verificationEventPayload(holder: AccountHolder) {
  const { token, account_token, status, status_reasons, verification_application: application } = holder;
  return { token, account_token, created: application?.updated ?? holder.created, status, status_reasons };
}

async function emitVerification(tx: Tx, scope: ProgramScope, holder: AccountHolder): Promise<void> {
  await emitEvent(tx, scope.programId, 'account_holder.verification', verificationEventPayload(holder), scope.nowMs);
}

export async function get(exec: Executor, scope: ProgramScope, token: string): Promise<AccountHolder> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('account holder', token);
  return toApi(row);
}

export async function list(exec: Executor, scope: ProgramScope, query: ListAccountHoldersQuery): Promise<ListResponse<AccountHolder>> {
  const { limit, page_size, starting_after, ending_before, ...filters } = query;
  if (limit !== undefined && page_size !== undefined) throw new InvalidRequestError('page_size: give page_size or limit, not both');
  const { rows, has_more } = await store.list(exec, scope.programId, filters, { page_size: page_size ?? limit, starting_after, ending_before });
  return { data: rows.map(toApi), has_more };
}

/**
 * A REJECTED holder's account closes, and with it every financial account opened for it that
 * nothing is on (`closeWithAccount`): its ISSUING account and any OPERATING account opened while the
 * holder was pending review, so that none takes money in (as for a holder REJECTED at enrollment,
 * whose account can have none). Lock order: the account row, then its financial accounts' rows,
 * then their balances (each sorted), as a financial account's status change locks its row first.
 */
async function closeRejectedAccount(db: Db, tx: Tx, scope: ProgramScope, accountToken: string): Promise<void> {
  await accountStore.lock(db, tx, scope.programId, accountToken);
  const open = await financialAccountStore.lockOpenOfAccount(db, tx, scope.programId, accountToken);
  await lockBalances(tx, scope.programId, open.map((row) => row.token));
  await accounts.closeAccount(db, tx, scope, accountToken);
  for (const row of open) await closeWithAccount(db, tx, scope, row.token);
}

/**
 * Seed 4.3: decides a holder that is pending review. ACCEPTED or REJECTED (with the given reasons)
 * goes to verification_application and the deprecated mirrors, stamped with the program clock but
 * never before the holder's last change (a PATCH by a request that saw a moved clock may have made
 * it; the row is locked, so one committing meanwhile is seen); a REJECTED holder's account is closed.
 */
export async function simulateEnrollmentReview(db: Db, tx: Tx, requestScope: ProgramScope, body: EnrollmentReviewBody): Promise<AccountHolderReply> {
  const token = body.account_holder_token;
  if (token === undefined) throw new InvalidRequestError('account_holder_token: is required');
  const decision = requestedReview(body);
  const holder = await store.lock(db, tx, requestScope.programId, token);
  if (!holder) throw notFound('account holder', token, 'account_holder_token');
  const scope = actingOn(requestScope, holder.updated_ms);
  const stored = { status: decision.status, status_reasons: JSON.stringify(decision.status_reasons) };
  const decided = isPendingReview(holder.status) && (await store.decidePendingReview(tx, scope.programId, token, stored, scope.nowMs));
  if (!decided) {
    const current = (await store.find(tx, scope.programId, token)) ?? holder;
    throw new UnprocessableError(`account_holder_token: account holder '${token}' is ${current.status}, not pending review`);
  }
  if (decision.status === 'REJECTED') await closeRejectedAccount(db, tx, scope, holder.account_token);
  const decidedHolder = await get(tx, scope, token);
  await emitVerification(tx, scope, decidedHolder);
  return toReply(decidedHolder);
}

/** The legacy patch's answer (SDK PatchResponse): the holder's contact details, an individual's names, a business's legal name, and its address. */
function toPatched(row: store.AccountHolderRow): AccountHolderPatched {
  const { individual, business_entity: business } = parseProfile(row.profile);
  return {
    token: row.token,
    ...(individual ? { address: individual.address, first_name: individual.first_name, last_name: individual.last_name } : {}),
    ...(business ? { address: business.address } : {}),
    ...(row.business_account_token !== null ? { business_account_token: row.business_account_token } : {}),
    ...(row.email !== null ? { email: row.email } : {}),
    ...(row.phone_number !== null ? { phone_number: row.phone_number } : {}),
    ...(row.legal_business_name !== null ? { legal_business_name: row.legal_business_name } : {}),
  };
}

/** The list-filter columns of a profile: the individual's, or the control person's and the business's. */
function profileColumns(userType: store.AccountHolderRow['user_type'], profile: Profile) {
  if (userType === 'BUSINESS') {
    invariant(profile.business_entity, 'a business holder has a business entity');
    const { control_person: controlPerson } = profile;
    return { ...contactColumns(controlPerson?.email, controlPerson?.phone_number), legal_business_name: profile.business_entity.legal_business_name };
  }
  invariant(profile.individual, 'an individual holder has an individual');
  const { email, phone_number: phone, first_name: firstName, last_name: lastName } = profile.individual;
  return { ...contactColumns(email, phone), first_name: firstName, last_name: lastName };
}

/** The stored government ids with `changes` applied, encrypted; unchanged: the stored value. */
function patchedGovernmentIds(secrets: Secrets, stored: string | null, changes: GovernmentIds): string | null {
  if (Object.keys(changes).length === 0) return stored;
  const current = stored === null ? {} : (JSON.parse(secrets.decrypt(stored)) as GovernmentIds);
  const patched = { ...current, ...changes };
  return JSON.stringify(patched) === JSON.stringify(current) ? stored : secrets.encrypt(JSON.stringify(patched));
}

/**
 * PATCH: changes the given information of the holder (update.ts decides which body applies and
 * checks it) and keeps its status; `updated` stamps (and the account_holder.updated event) move to
 * the program clock when something changed, never before the holder's last change (a request that
 * saw a moved clock may have made it; the row is locked, so one committing meanwhile is seen).
 * The KYB and KYC patches answer the whole holder without its entity tokens (SDK
 * KYBKYCPatchResponse), the legacy patch its PatchResponse.
 */
export async function update(
  db: Db,
  tx: Tx,
  requestScope: ProgramScope,
  secrets: Secrets,
  token: string,
  body: UpdateAccountHolderBody,
): Promise<AccountHolderReply | AccountHolderPatched> {
  const holder = await store.lock(db, tx, requestScope.programId, token);
  if (!holder) throw notFound('account holder', token);
  const scope = actingOn(requestScope, holder.updated_ms);
  const variant = checkPatch(holder, body, requestScope.nowMs);
  if (!isUpdatable(holder.status)) {
    throw new UnprocessableError(`account holder '${token}' is ${holder.status}; only ACCEPTED and PENDING_REVIEW account holders can be updated`);
  }
  const { profile, governmentIds } = patchProfile(token, parseProfile(holder.profile), body);
  if (body.business_account_token !== undefined) await checkBusinessAccount(tx, scope.programId, body.business_account_token);
  const changes = changedColumns(holder, {
    ...profileColumns(holder.user_type, profile),
    profile: JSON.stringify(profile),
    government_ids_encrypted: patchedGovernmentIds(secrets, holder.government_ids_encrypted, governmentIds),
    ...(body.external_id !== undefined ? { external_id: body.external_id } : {}),
    ...(body.nature_of_business !== undefined ? { nature_of_business: body.nature_of_business } : {}),
    ...(body.website_url !== undefined ? { website_url: body.website_url } : {}),
    ...(body.business_account_token !== undefined ? { business_account_token: body.business_account_token } : {}),
  });
  let row = holder;
  if (!isEmpty(changes)) {
    const stamped = { ...changes, updated_ms: scope.nowMs, verification_updated_ms: scope.nowMs };
    await store.update(tx, scope.programId, token, stamped);
    row = { ...holder, ...stamped };
    await emitEvent(tx, scope.programId, 'account_holder.updated', toApi(row), scope.nowMs);
  }
  return variant === 'LEGACY' ? toPatched(row) : toReply(toApi(row));
}
