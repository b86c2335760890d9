/** Schema pieces the three ledger transactions (payments, transfers, management operations) share. */
import { DateTime, EmptyOrVisibleText, FREE_TEXT_MAX_LENGTH, IsoDate, Nullable, StringEnum, Type, Uuid } from '../http/schemas.js';

export const RESULTS = ['APPROVED', 'DECLINED'] as const;

/** Payments and management operations spell the funds decline INSUFFICIENT_FUNDS (book transfers: FUNDS_INSUFFICIENT). */
const PAYMENT_DETAILED_RESULTS = ['APPROVED', 'INSUFFICIENT_FUNDS'] as const;

/** Largest amount one movement may carry: $10 billion in cents, far inside safe-integer sums. */
const MAX_AMOUNT_CENTS = 1_000_000_000_000;

export const Amount = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_CENTS, description: 'Amount in cents, positive' });
/** A movement's memo: `""` (none, as one given none shows) or text that shows something. */
export const Memo = EmptyOrVisibleText(FREE_TEXT_MAX_LENGTH);
export const OnClosedAccount = StringEnum(['FAIL', 'USE_SUSPENSE'], {
  description: 'FAIL (default): a movement on a CLOSED account is refused. USE_SUSPENSE: a credit to a CLOSED account is held in the program’s suspense account instead',
});
export const ClientToken = Type.String({ format: 'uuid', description: 'Idempotency token; becomes the token of the new transaction' });

export const TransactionSeries = Type.Union([
  Type.Object({
    related_transaction_event_token: Nullable(Uuid),
    related_transaction_token: Nullable(Uuid),
    type: Type.String(),
  }),
  Type.Null(),
]);

/**
 * The fields every event of an external payment or a management operation has (an event dated
 * by `effective_date`); each resource adds its own `type` (and `subtype`).
 */
export const DatedEventFields = {
  token: Uuid,
  amount: Type.Integer(),
  created: DateTime,
  detailed_results: Type.Array(StringEnum(PAYMENT_DETAILED_RESULTS)),
  effective_date: IsoDate,
  memo: Type.String(),
  result: StringEnum(RESULTS),
};
