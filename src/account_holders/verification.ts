/**
 * Identity verification in the sandbox (spec 3.3; reference 02).
 *
 * - KYB_BASIC starts PENDING_REVIEW and is decided later by the enrollment-review simulation.
 * - KYC_BASIC is decided at once from the individual's government id: Lithic's sandbox ids
 *   000-00-0001 … 000-00-0007 and 000-00-0010 are REJECTED, each with its own fixed reason; any other id is
 *   ACCEPTED.
 * - The BYO workflows (verified by the customer) and KYC_EXEMPT are ACCEPTED.
 * - KYB_DELEGATED (SDK 0.119) is ACCEPTED at once too. Lithic's docs do not describe its outcome, so
 *   this is a sandbox decision read from the SDK's type: its business is described as the one "for
 *   which the account is being opened", where KYB's adds "and KYB is being run", and it needs
 *   neither an EIN, a control person, owners nor a ToS timestamp, without which no KYB could be run.
 *   Verification is delegated to the program (like KYB_BYO, without `kyb_passed_timestamp`), so
 *   there is nothing for the enrollment review to decide (it answers 422, as for KYB_BYO).
 *
 * A holder that ends REJECTED has its account CLOSED (Lithic closes accounts that fail KYC/KYB);
 * that is the service's job, this module only decides.
 */
import { InvalidRequestError } from '../errors.js';
import { isInputOnlyStatusReason, type EnrollmentReviewBody, type InputOnlyStatusReason, type SimulationStatusReason, type Status, type StatusReason, type Workflow } from './schemas.js';

export interface Verification {
  status: Status;
  status_reasons: StatusReason[];
}

/** Sandbox government ids (nine digits) with their fixed KYC rejection. */
export const SANDBOX_KYC_REJECTIONS: ReadonlyMap<string, StatusReason> = new Map([
  ['000000001', 'ADDRESS_VERIFICATION_FAILURE'],
  ['000000002', 'NAME_VERIFICATION_FAILURE'],
  ['000000003', 'DOB_VERIFICATION_FAILURE'],
  ['000000004', 'ID_VERIFICATION_FAILURE'],
  ['000000005', 'OTHER_VERIFICATION_FAILURE'],
  ['000000006', 'AGE_THRESHOLD_FAILURE'],
  ['000000007', 'RISK_THRESHOLD_FAILURE'],
  ['000000010', 'COMPLETE_VERIFICATION_FAILURE'],
]);

/** The verification a new holder starts with. `individualIdDigits`: the KYC individual's id. */
export function initialVerification(workflow: Workflow, individualIdDigits?: string): Verification {
  if (workflow === 'KYB_BASIC') return { status: 'PENDING_REVIEW', status_reasons: [] };
  if (workflow === 'KYC_BASIC') {
    const reason = individualIdDigits === undefined ? undefined : SANDBOX_KYC_REJECTIONS.get(individualIdDigits);
    if (reason !== undefined) return { status: 'REJECTED', status_reasons: [reason] };
  }
  return { status: 'ACCEPTED', status_reasons: [] };
}

/** Statuses an enrollment review can decide. */
export function isPendingReview(status: string): boolean {
  return status === 'PENDING_REVIEW';
}

/**
 * The outcome a simulated review asks for (spec 4.3). `status` defaults to ACCEPTED; REJECTED needs
 * at least one reason. Lithic's SDK makes `status_reasons` "Only required for a `REJECTED` status",
 * so ACCEPTED takes reasons too, and records none: spec 3.3 associates the given reasons with the
 * holder only as an effect of REJECTED. Repeated reasons are recorded once; the beneficial-owner
 * ones are simulation input only (spec 2.3) and are not recorded.
 */
export function requestedReview(body: EnrollmentReviewBody): Verification {
  const status = body.status ?? 'ACCEPTED';
  const reasons: SimulationStatusReason[] = [...new Set(body.status_reasons ?? [])];
  if (status === 'REJECTED' && reasons.length === 0) {
    throw new InvalidRequestError('status_reasons: at least one reason is required when status is REJECTED');
  }
  if (status === 'ACCEPTED') return { status, status_reasons: [] };
  return { status, status_reasons: reasons.filter((reason): reason is Exclude<SimulationStatusReason, InputOnlyStatusReason> => !isInputOnlyStatusReason(reason)) };
}
