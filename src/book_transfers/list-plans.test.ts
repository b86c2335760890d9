/**
 * GET /v1/book_transfers with every combination of its filters (financial_account_token,
 * account_token, business_account_token, status, result, category, begin/end, cursors): the rows
 * the filters name, each page ranges of indexes that constrain them (testing/list-plans.ts
 * says what is checked, and the one walk left: a status, result or category beside a financial
 * account is a condition on that account's transfers).
 */
import { describeMovementListPlans } from '../testing/list-plans.js';
import { BOOK_TRANSFER_STATUSES } from './schemas.js';
import * as store from './store.js';

describeMovementListPlans({
  table: 'book_transfers',
  accountColumns: ['from_financial_account_token', 'to_financial_account_token'],
  statuses: BOOK_TRANSFER_STATUSES,
  categories: ['TRANSFER', 'ADJUSTMENT', 'FEE'],
  hasResult: true,
  hasAccountToken: true,
  rowOf: (facts) => ({
    program_id: facts.program_id, token: facts.token, category: facts.category, type: 'TRANSFER', subtype: 'P2P',
    from_financial_account_token: facts.financialAccounts.from_financial_account_token, to_financial_account_token: facts.financialAccounts.to_financial_account_token,
    status: facts.status, result: facts.result, amount_cents: 100, pending_amount_cents: 0, settled_amount_cents: facts.status === 'SETTLED' ? 100 : 0,
    external_id: null, credit_in_suspense: 0, created_ms: facts.created_ms, updated_ms: facts.created_ms,
  }),
  list: store.list,
});
