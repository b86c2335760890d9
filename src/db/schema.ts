/**
 * The database as Kysely sees it: the union of every resource's tables. Each resource declares its
 * own rows in its folder's `tables.ts`; add a line here when a resource adds tables.
 */
import type { AccountHolderTables } from '../account_holders/tables.js';
import type { AccountTables } from '../accounts/tables.js';
import type { CardTables } from '../cards/tables.js';
import type { FinancialAccountTables } from '../financial_accounts/tables.js';
import type { IdempotencyTables } from '../http/idempotency-tables.js';
import type { LedgerTables } from '../ledger/tables.js';
import type { ProgramTables } from '../programs/tables.js';

export interface Database
  extends ProgramTables,
    IdempotencyTables,
    AccountTables,
    AccountHolderTables,
    CardTables,
    FinancialAccountTables,
    LedgerTables {}
