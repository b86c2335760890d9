/**
 * The database as Kysely sees it: the union of every resource's tables. Each resource declares its
 * own rows in its folder's `tables.ts`; add a line here when a resource adds tables.
 */
import type { AccountHolderTables } from '../account_holders/tables.js';
import type { AccountTables } from '../accounts/tables.js';
import type { AuthRuleTables } from '../auth_rules/tables.js';
import type { BookTransferTables } from '../book_transfers/tables.js';
import type { ExternalBankAccountTables } from '../external_bank_accounts/tables.js';
import type { ExternalPaymentTables } from '../external_payments/tables.js';
import type { CardTables } from '../cards/tables.js';
import type { CryptoTables } from '../crypto/tables.js';
import type { EventTables } from '../events/tables.js';
import type { EventSubscriptionTables } from '../event_subscriptions/tables.js';
import type { FinancialAccountTables } from '../financial_accounts/tables.js';
import type { IdempotencyTables } from '../http/idempotency-tables.js';
import type { LedgerTables } from '../ledger/tables.js';
import type { ManagementOperationTables } from '../management_operations/tables.js';
import type { MoneyEventTables } from '../money_events/tables.js';
import type { ProgramTables } from '../programs/tables.js';
import type { CardTransactionTables } from '../transactions/tables.js';
import type { ThreeDsTables } from '../three_ds/tables.js';
import type { PaginationTables } from './tables.js';

export interface Database
  extends ProgramTables,
    IdempotencyTables,
    AccountTables,
    AccountHolderTables,
    CardTables,
    CryptoTables,
    FinancialAccountTables,
    LedgerTables,
    MoneyEventTables,
    BookTransferTables,
    ExternalPaymentTables,
    ManagementOperationTables,
    ExternalBankAccountTables,
    AuthRuleTables,
    ThreeDsTables,
    CardTransactionTables,
    EventTables,
    EventSubscriptionTables,
    PaginationTables {}
