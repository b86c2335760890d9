/**
 * GET /v1/management_operations with every combination of its filters (financial_account_token,
 * business_account_token, status, category, begin/end, cursors): the rows the filters name, each
 * page ranges of indexes that constrain them (testing/list-plans.ts says what is checked,
 * and the one walk left: a status or category beside a financial account is a condition on that
 * account's operations).
 */
import { describeMovementListPlans } from '../testing/list-plans.js';
import { MANAGEMENT_OPERATION_STATUSES } from './schemas.js';
import * as store from './store.js';

describeMovementListPlans({
  table: 'management_operations',
  accountColumns: ['financial_account_token'],
  statuses: MANAGEMENT_OPERATION_STATUSES,
  categories: ['MANAGEMENT_ADJUSTMENT', 'MANAGEMENT_REWARD', 'MANAGEMENT_FEE'],
  hasResult: false,
  hasAccountToken: false,
  rowOf: (facts) => ({
    program_id: facts.program_id, token: facts.token, category: facts.category, direction: 'CREDIT', event_type: 'CASH_BACK', subtype: null,
    financial_account_token: facts.financialAccounts.financial_account_token, status: facts.status, result: facts.result, amount_cents: 100,
    pending_amount_cents: 0, settled_amount_cents: 0, effective_date: '2030-01-01', user_defined_id: null, credit_in_suspense: 0, created_ms: facts.created_ms, updated_ms: facts.created_ms,
  }),
  list: store.list,
});
