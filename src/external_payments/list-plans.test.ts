/**
 * GET /v1/external_payments with every combination of its filters (financial_account_token,
 * business_account_token, status, result, category, begin/end, cursors): the rows the filters name,
 * each page ranges of indexes that constrain them (testing/list-plans.ts says what is
 * checked, and the one walk left: a status, result or category beside a financial account is a
 * condition on that account's payments).
 */
import { describeMovementListPlans } from '../testing/list-plans.js';
import { EXTERNAL_PAYMENT_STATUSES } from './schemas.js';
import * as store from './store.js';

describeMovementListPlans({
  table: 'external_payments',
  accountColumns: ['financial_account_token'],
  statuses: EXTERNAL_PAYMENT_STATUSES,
  categories: ['EXTERNAL_ACH', 'EXTERNAL_TRANSFER', 'EXTERNAL_WIRE'],
  hasResult: true,
  hasAccountToken: false,
  rowOf: (facts) => ({
    program_id: facts.program_id, token: facts.token, category: facts.category, payment_type: 'DEPOSIT', financial_account_token: facts.financialAccounts.financial_account_token,
    status: facts.status, result: facts.result, is_settled: facts.status === 'SETTLED' ? 1 : 0, amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: 0,
    user_defined_id: null, created_ms: facts.created_ms, updated_ms: facts.created_ms,
  }),
  list: store.list,
});
