import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { initialVerification, isPendingReview, requestedReview, SANDBOX_KYC_REJECTIONS } from './verification.js';

describe('initial verification', () => {
  it('puts KYB_BASIC up for review and accepts the BYO and exempt workflows', () => {
    expect(initialVerification('KYB_BASIC')).toEqual({ status: 'PENDING_REVIEW', status_reasons: [] });
    for (const workflow of ['KYB_BYO', 'KYC_BYO', 'KYC_EXEMPT'] as const) {
      expect(initialVerification(workflow, '000000001')).toEqual({ status: 'ACCEPTED', status_reasons: [] });
    }
  });

  it('decides KYC_BASIC on the sandbox government ids', () => {
    expect(SANDBOX_KYC_REJECTIONS.size).toBe(8);
    for (const [id, reason] of SANDBOX_KYC_REJECTIONS) {
      expect(initialVerification('KYC_BASIC', id)).toEqual({ status: 'REJECTED', status_reasons: [reason] });
    }
    for (const id of ['000000000', '000000008', '000000009', '000000011', '123456789']) {
      expect(initialVerification('KYC_BASIC', id).status).toBe('ACCEPTED');
    }
  });

  it('only PENDING_REVIEW is up for review', () => {
    expect(isPendingReview('PENDING_REVIEW')).toBe(true);
    for (const status of ['ACCEPTED', 'REJECTED', 'PENDING_DOCUMENT', 'PENDING_RESUBMIT']) expect(isPendingReview(status)).toBe(false);
  });
});

describe('requested review', () => {
  it('defaults to ACCEPTED and records REJECTED reasons once each, in order', () => {
    expect(requestedReview({})).toEqual({ status: 'ACCEPTED', status_reasons: [] });
    expect(requestedReview({ status: 'ACCEPTED', status_reasons: [] })).toEqual({ status: 'ACCEPTED', status_reasons: [] });
    expect(
      requestedReview({
        status: 'REJECTED',
        status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE', 'PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE', 'CONTROL_PERSON_ID_VERIFICATION_FAILURE'],
      }),
    ).toEqual({ status: 'REJECTED', status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE', 'PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] });
  });

  it('refuses REJECTED without reasons and ACCEPTED with reasons', () => {
    expect(() => requestedReview({ status: 'REJECTED' })).toThrow(InvalidRequestError);
    expect(() => requestedReview({ status: 'REJECTED', status_reasons: [] })).toThrow(/^status_reasons: /);
  });

  it('takes reasons with ACCEPTED (or no status) and does not record them: only REJECTED associates them', () => {
    expect(requestedReview({ status: 'ACCEPTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] })).toEqual({ status: 'ACCEPTED', status_reasons: [] });
    expect(requestedReview({ status_reasons: ['PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] })).toEqual({ status: 'ACCEPTED', status_reasons: [] });
  });
});
