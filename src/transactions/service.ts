/**
 * Card transactions: the network simulations that create and move them, and their reads.
 *
 * Every simulation runs in one database transaction (`commit`): it finds what it acts on, decides,
 * and writes the transaction row, its new event, the ledger movement (lifecycle.ts has the postings
 * table) and the spend buckets (history.ts) together. A business decline is a stored DECLINED
 * transaction (answered 200 with its token, no ledger entry); a 422 is for a request that cannot
 * be processed at all, and changes nothing: a PAN with no card in the calling program, a token with
 * no transaction in it, a message the transaction's state does not take (clearing twice, voiding a
 * settled one), an amount the rules refuse, money to or from a CLOSED ISSUING financial account (a
 * return, a credit advice or a return reversal on a card of an account whose ISSUING account has
 * closed).
 *
 * Which messages are decided. The authorization kinds (`POST /v1/simulate/authorize`, every
 * `status`) go through the engine (engine/pipeline.ts). The network's own messages are not
 * requests for a decision and are recorded approved: a RETURN and a CREDIT_AUTHORIZATION_ADVICE
 * (the network approved a credit on the issuer's behalf), an AUTHORIZATION_ADVICE (it changed an
 * approved authorization's amount), clearings, reversals and expiries.
 *
 * Locks (PostgreSQL; SQLite serializes write transactions anyway), always in this order so that no
 * two requests wait on each other in a cycle: account → card → transaction → balance → spend
 * buckets (card, then account) → the Auth Rules outcome's day counter, which the evaluator upserts
 * just before the commit (auth_rules/evaluator.ts), though the rules decide at their step. An
 * authorization locks its card's account and then the card (cards/spend.ts) before it sums spend,
 * so authorizations of one account decide one at a time and can never together exceed a limit;
 * then the holds and the management operations that have fallen due (with the rows of the other
 * clock jobs before them), then their balances with its own in one sorted set, before they change
 * (`applyDueBeforeDeciding`), then its own ISSUING balance (already held if any fell due), before
 * it decides; a RETURN or CREDIT_AUTHORIZATION_ADVICE likewise, before it is recorded. Messages on
 * an existing transaction lock the transaction row (with the holds that have fallen due, in one
 * sorted set, before any balance: `recordNetworkMessage`), then its balance. Each message then
 * acts no earlier than that balance's last movement (`actingOnIssuingBalance`).
 *
 * Expiry. A PENDING debit authorization expires by itself AUTHORIZATION_EXPIRY_MS (7 days, as
 * Lithic's authorizations do by default) after it was made, by the program clock: the clock job
 * `expireDueAuthorizations` releases it with an AUTHORIZATION_EXPIRY event, like a simulated
 * expiry. It runs when the clock is moved, every minute, before reads of transactions, balances
 * and financial transactions, and in each authorization once its card is locked (one indexed
 * check) and before it decides, so a limit or a funds decision never counts a hold that has expired.
 *
 * Events. Every new transaction (declines included) and every message applied to one (expiries
 * too) records `card_transaction.updated` with the transaction as GET answers it then (Lithic's
 * transaction lifecycle webhook carries the transaction object). One order for all of them: the
 * `balance.updated` of the money it moved (ledger.ts `post`, if it moved any) comes first, then its
 * `card_transaction.updated`, as with every other movement of money (book transfers, payments,
 * management operations): `recordOpening`, `applyMessage` and `expireBatch` each post, then emit.
 */
import { applyDueMoney, catchUp, dueAfterLifetime, fallsDueAt, lockDueRowsBeforeOwn, type DueCheck, type DueMoney, type DueWork } from '../clock-jobs.js';
import * as accountStore from '../accounts/store.js';
import { recordApprovedAuthorization, recordPinAttempt } from '../cards/service.js';
import * as cardStore from '../cards/store.js';
import * as financialAccountStore from '../financial_accounts/store.js';
import type { Secrets } from '../crypto/secrets.js';
import { groupedByTransaction } from '../db/chunks.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { decideAuthorization, type EngineDecision } from '../engine/pipeline.js';
import type { AuthorizationFacts, AuthRulesEvaluator } from '../engine/rules-seam.js';
import { InvalidRequestError, invariant, notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import type { ListResponse } from '../http/schemas.js';
import { newToken } from '../ids.js';
import * as ledger from '../ledger/ledger.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { accountAndCardSpent, authorizationHistory, utcDayStartOf, utcHourStartOf } from './history.js';
import { panEntryMode } from './entry-mode.js';
import * as lifecycle from './lifecycle.js';
import { scaledHalfUp, SETTLEMENT_CURRENCY, toApi } from './render.js';
import type {
  ListTransactionsQuery,
  SimulateAuthorizationAdviceBody,
  SimulateAuthorizationBody,
  SimulateClearingBody,
  SimulateCreditAuthorizationAdviceBody,
  SimulateReturnBody,
  SimulateReturnReversalBody,
  SimulateVoidBody,
  Transaction,
} from './schemas.js';
import * as store from './store.js';

/** What every write needs: the engine for row locks, the open transaction, and the program. */
export interface Operation {
  db: Db;
  tx: Tx;
  scope: ProgramScope;
}

// ---- merchants ------------------------------------------------------------------------------------

/** Sandbox defaults for what a simulated message does not say about the merchant. */
const DEFAULT_MERCHANT = { mcc: '5999', city: 'NEW YORK', country: 'USA', state: 'NY' } as const;
const SIMULATOR_CURRENCIES: readonly string[] = ['USD', 'GBP', 'EUR'];
const DEFAULT_ACCEPTOR_ID = 'SANDBOXMERCHANT';
const ACCEPTOR_ID_LENGTH = 15;

/** Without a merchant_acceptor_id, a merchant is known by its descriptor (so two descriptors are two merchants). */
function defaultAcceptorId(descriptor: string): string {
  return descriptor.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, ACCEPTOR_ID_LENGTH) || DEFAULT_ACCEPTOR_ID;
}

/** Lithic's simulator takes USD, GBP and EUR and turns any other currency into GBP. */
function simulatorCurrency(requested: string | undefined): string {
  if (requested === undefined) return 'USD';
  const upper = requested.toUpperCase();
  return SIMULATOR_CURRENCIES.includes(upper) ? upper : 'GBP';
}

interface MerchantRequest {
  descriptor: string;
  mcc?: string | undefined;
  merchant_acceptor_id?: string | undefined;
}

function merchantColumns(request: MerchantRequest) {
  return {
    merchant_acceptor_id: request.merchant_acceptor_id ?? defaultAcceptorId(request.descriptor),
    merchant_descriptor: request.descriptor,
    merchant_mcc: request.mcc ?? DEFAULT_MERCHANT.mcc,
    merchant_city: DEFAULT_MERCHANT.city,
    merchant_country: DEFAULT_MERCHANT.country,
    merchant_state: DEFAULT_MERCHANT.state,
  };
}

// ---- finding the card -----------------------------------------------------------------------------

type FoundCard = store.CardForAuthorizationRow;

/**
 * The card with this PAN in the calling program, its account and program settings. Another
 * program's PAN is simply not found: a 422, since there is nothing to decide on. On PostgreSQL the
 * account and then the card are locked and re-read (the seam's order), with, between them, the rows
 * the clock jobs will take if what fell due runs (`lockDueRowsBeforeOwn`: a due PHYSICAL card is
 * locked in the jobs' order, not after this one), whose answer comes back with the card for
 * `applyDueBeforeDeciding` to act on; on SQLite the write transaction already excludes every other
 * writer.
 */
async function findCard(op: Operation, secrets: Secrets, pan: string): Promise<{ card: FoundCard; due?: DueMoney }> {
  const { db, tx, scope } = op;
  const found = await store.findCardForAuthorization(tx, scope.programId, secrets.lookupHash(pan));
  if (!found) throw new UnprocessableError('pan: no card with this number in this program; the message cannot be processed');
  if (db.engine === 'sqlite') return { card: found };
  const account = await accountStore.lock(db, tx, scope.programId, found.account_token);
  const due = await lockDueRowsBeforeOwn(db, tx, scope);
  const card = await cardStore.lockCard(db, tx, scope.programId, found.token);
  invariant(account && card, `card ${found.token} and its account exist while locked`);
  const locked = {
    ...found,
    ...card,
    account_state: account.state,
    account_daily_spend_limit_cents: account.daily_spend_limit_cents,
    account_monthly_spend_limit_cents: account.monthly_spend_limit_cents,
    account_lifetime_spend_limit_cents: account.lifetime_spend_limit_cents,
  };
  return { card: locked, due };
}

function accountOf(card: FoundCard) {
  return {
    state: card.account_state,
    daily_spend_limit_cents: card.account_daily_spend_limit_cents,
    monthly_spend_limit_cents: card.account_monthly_spend_limit_cents,
    lifetime_spend_limit_cents: card.account_lifetime_spend_limit_cents,
    created_ms: card.account_created_ms,
  };
}

// ---- recording ------------------------------------------------------------------------------------

/** A lifecycle movement on the transaction's ISSUING financial account (counterparty: the card network), if the effect moves money. */
function ledgerMovement(row: Pick<store.TransactionRow, 'token' | 'financial_account_token'>, effect: lifecycle.Effect, eventToken: string): ledger.Movement | null {
  if (!effect.movement) return null;
  const postings = effect.movement.postings.map(
    (posting): ledger.Posting =>
      posting.bucket === 'network'
        ? { account: ledger.SystemAccount.CARD_NETWORK, bucket: 'available', amount_cents: posting.amount_cents }
        : { account: row.financial_account_token, bucket: posting.bucket, amount_cents: posting.amount_cents },
  );
  return { kind: effect.movement.kind, transaction_token: row.token, event_token: eventToken, postings };
}

/** Posts the effect's movement, if any (see `ledgerMovement`). */
async function postMovement(op: Operation, row: Pick<store.TransactionRow, 'token' | 'financial_account_token'>, effect: lifecycle.Effect, eventToken: string) {
  const movement = ledgerMovement(row, effect, eventToken);
  if (movement) await ledger.post(op.tx, op.scope.programId, movement, op.scope.nowMs);
}

/** A change of a transaction's spend, in the buckets of the day and hour it was made in. */
function spendDelta(row: Pick<store.TransactionRow, 'card_token' | 'account_token' | 'created_ms'>, spendDeltaCents: number, countDelta: number): store.SpendBucketDelta {
  return {
    card_token: row.card_token,
    account_token: row.account_token,
    day_start_ms: utcDayStartOf(row.created_ms),
    hour_start_ms: utcHourStartOf(row.created_ms),
    spent_cents: spendDeltaCents,
    approved_count: countDelta,
  };
}

/** Keeps the day and hour buckets equal to the sums of their transactions' spend (card first, then account). */
async function addSpend(op: Operation, row: Pick<store.TransactionRow, 'card_token' | 'account_token' | 'created_ms'>, spendDeltaCents: number, countDelta: number) {
  if (spendDeltaCents === 0 && countDelta === 0) return;
  await store.addToSpendBuckets(op.tx, op.scope.programId, spendDelta(row, spendDeltaCents, countDelta));
}

function eventRow(op: Operation, transactionToken: string, seq: number, token: string, event: lifecycle.NewEvent): store.EventRow {
  return {
    program_id: op.scope.programId,
    transaction_token: transactionToken,
    seq,
    token,
    type: event.type,
    amount_cents: event.amount_cents,
    settlement_cents: event.settlement_cents,
    effective_polarity: event.effective_polarity,
    result: event.result,
    detailed_results: JSON.stringify(event.detailed_results),
    rule_results: JSON.stringify(event.rule_results),
    created_ms: op.scope.nowMs,
  };
}

function assertAmounts(kind: string, amounts: lifecycle.Amounts): void {
  const sign = lifecycle.signOf(kind);
  invariant(amounts.spend_cents >= 0, `spend of a ${kind} is never negative (got ${amounts.spend_cents})`);
  invariant(amounts.hold_cents * sign >= 0, `a ${kind} holds with its own sign (got ${amounts.hold_cents})`);
  invariant(amounts.status === 'PENDING' || amounts.hold_cents === 0, `only a PENDING transaction holds money (${amounts.status} holds ${amounts.hold_cents})`);
}

interface Opening {
  token: string;
  event_token: string;
  kind: lifecycle.OpeningKind;
  magnitude_cents: number;
  merchant_magnitude_cents: number;
  merchant_currency: string;
  merchant: MerchantRequest;
  card_present: boolean;
  partial_approval_capable: boolean;
}

/** Writes a new transaction with its first event, and its money effects when approved. */
async function recordOpening(op: Operation, card: FoundCard, opening: Opening, decision: lifecycle.Decision): Promise<store.TransactionRow> {
  const effect = lifecycle.open(opening.kind, opening.magnitude_cents, decision, op.scope.nowMs);
  assertAmounts(opening.kind, effect.amounts);
  const countsAsSpend = decision.approved && lifecycle.countsAsSpend(opening.kind);
  const amounts = effect.amounts;
  const merchant = merchantColumns(opening.merchant);
  const row: store.TransactionRow = {
    program_id: op.scope.programId,
    token: opening.token,
    account_token: card.account_token,
    card_token: card.token,
    financial_account_token: card.issuing_financial_account_token,
    kind: opening.kind,
    result: decision.result,
    // The amounts and merchant columns by name, not spread into the literal: on Node 20 a spread
    // followed by more keys gets a new hidden class per row once optimised (see money_events/events.ts).
    status: amounts.status,
    authorization_amount_cents: amounts.authorization_amount_cents,
    hold_cents: amounts.hold_cents,
    settled_cents: amounts.settled_cents,
    spend_cents: amounts.spend_cents,
    return_reversed: amounts.return_reversed,
    expires_ms: amounts.expires_ms,
    merchant_authorization_amount_cents: lifecycle.signOf(opening.kind) * opening.merchant_magnitude_cents,
    merchant_currency: opening.merchant_currency,
    counts_as_spend: countsAsSpend ? 1 : 0,
    merchant_acceptor_id: merchant.merchant_acceptor_id,
    merchant_descriptor: merchant.merchant_descriptor,
    merchant_mcc: merchant.merchant_mcc,
    merchant_city: merchant.merchant_city,
    merchant_country: merchant.merchant_country,
    merchant_state: merchant.merchant_state,
    card_present: opening.card_present ? 1 : 0,
    partial_approval_capable: opening.partial_approval_capable ? 1 : 0,
    created_ms: op.scope.nowMs,
    updated_ms: op.scope.nowMs,
  };
  const event = eventRow(op, row.token, 0, opening.event_token, effect.event);
  await store.insertTransactions(op.tx, [row]);
  await store.insertEvents(op.tx, [event]);
  await postMovement(op, row, effect, opening.event_token);
  await emitEvent(op.tx, op.scope.programId, 'card_transaction.updated', toApi(row, [event]), op.scope.nowMs);
  await addSpend(op, row, row.spend_cents, countsAsSpend ? 1 : 0);
  if (row.expires_ms !== null) fallsDueAt(op.db, op.tx, dueExpiries, op.scope.programId, row.expires_ms);
  return row;
}

type Apply = (row: store.TransactionRow) => lifecycle.Effect | Promise<lifecycle.Effect>;

/** A network message naming a transaction the program does not have cannot be processed: 422. */
const unprocessable = (token: string) => new UnprocessableError(`token: no transaction '${token}' in this program; the message cannot be processed`);

/** Locks a transaction and applies a message to it, appending its event; `missing` is the error when there is none. */
async function recordMessage(op: Operation, token: string, apply: Apply, missing: (token: string) => Error = unprocessable): Promise<store.TransactionRow> {
  const row = await store.lock(op.db, op.tx, op.scope.programId, token);
  if (!row) throw missing(token);
  return applyMessage(op, row, apply);
}

/**
 * Applies a message to a transaction this database transaction has locked, appending its event:
 * its balance is locked next (`actingOnIssuingBalance`), and the message is never dated before the
 * transaction's last change nor before that balance's last movement.
 */
async function applyMessage(requestOp: Operation, row: store.TransactionRow, apply: Apply): Promise<store.TransactionRow> {
  const { op } = await actingOnIssuingBalance({ ...requestOp, scope: actingOn(requestOp.scope, row.updated_ms) }, row.financial_account_token);
  const { tx, scope } = op;
  const effect = await apply(row);
  assertAmounts(row.kind, effect.amounts);
  const eventToken = newToken();
  await store.insertEvents(tx, [eventRow(op, row.token, await store.nextEventSeq(tx, scope.programId, row.token), eventToken, effect.event)]);
  const updated = { ...row, ...effect.amounts, updated_ms: scope.nowMs };
  await store.updateAmounts(tx, scope.programId, row.token, amountChanges(updated));
  await postMovement(op, row, effect, eventToken);
  await addSpend(op, row, updated.spend_cents - row.spend_cents, 0);
  const [transaction] = await withEvents(tx, scope.programId, [updated]);
  await emitEvent(tx, scope.programId, 'card_transaction.updated', transaction as Transaction, scope.nowMs);
  return updated;
}

/** What a message changes on a transaction row. */
function amountChanges(updated: store.TransactionRow): store.AmountChanges {
  return {
    status: updated.status,
    authorization_amount_cents: updated.authorization_amount_cents,
    hold_cents: updated.hold_cents,
    settled_cents: updated.settled_cents,
    spend_cents: updated.spend_cents,
    return_reversed: updated.return_reversed,
    expires_ms: updated.expires_ms,
    updated_ms: updated.updated_ms,
  };
}

// ---- expiry ---------------------------------------------------------------------------------------

const EXPIRY_BATCH = 100;

/**
 * Clock job: every PENDING authorization whose expiry time has come is released (AUTHORIZATION_EXPIRY).
 * The release is dated when the authorization expired, not when the job ran (a clock moved a month
 * ahead expires a hold at its seventh day): its event, the transaction's `updated` and its ledger
 * entries say when the money was released.
 */
export async function expireDueAuthorizations(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  for (;;) {
    const due = await store.dueExpiries(tx, scope.programId, scope.nowMs - lifecycle.AUTHORIZATION_EXPIRY_MS, EXPIRY_BATCH);
    await expireBatch({ db, tx, scope }, due);
    if (due.length < EXPIRY_BATCH) return;
  }
}

/**
 * Expires the given authorizations, in the given order (oldest first), exactly as `applyMessage`
 * would one after another, but in a few statements for the whole batch (on PostgreSQL each is a
 * round trip: one clock move can expire thousands): lock them, read their events, then write all
 * the new events, all the amounts, the spend buckets and the ledger movements (`ledger.postMany`).
 * Each one's `card_transaction.updated` follows its own `balance.updated`, as with `applyMessage`.
 */
async function expireBatch(op: Operation, dueTokens: readonly string[]): Promise<void> {
  const { db, tx, scope } = op;
  if (dueTokens.length === 0) return;
  // Read without a lock: a concurrent request (PostgreSQL) may have cleared, voided or expired one
  // since. Locked, each is expired only if it still is a PENDING hold past its expiry.
  const locked = new Map((await store.lockMany(db, tx, scope.programId, dueTokens)).map((row) => [row.token, row]));
  const rows = dueTokens
    .map((token) => locked.get(token))
    .filter((row): row is store.TransactionRow => row !== undefined && row.status === 'PENDING' && row.expires_ms !== null && row.expires_ms <= scope.nowMs);
  if (rows.length === 0) return;
  const history = groupedByTransaction(await store.eventsFor(tx, scope.programId, rows.map((row) => row.token)));
  const expiries = rows.map((row) => expiryOf(op, row, history.get(row.token) ?? []));
  await store.insertEvents(tx, expiries.map((expiry) => expiry.event));
  await store.updateAmountsOfMany(tx, scope.programId, expiries.map((expiry) => ({ token: expiry.updated.token, ...amountChanges(expiry.updated) })));
  await ledger.postMany(
    tx,
    scope.programId,
    expiries.map((expiry) => ({ movement: expiry.movement, nowMs: expiry.atMs })),
    async (index) => {
      const expiry = expiries[index] as Expiry;
      await emitEvent(tx, scope.programId, 'card_transaction.updated', toApi(expiry.updated, expiry.events), expiry.atMs);
    },
  );
  // After the balances, as one by one (lock order: transactions, balances, spend buckets).
  const spend = expiries.filter((expiry) => expiry.updated.spend_cents !== expiry.row.spend_cents);
  await store.addToSpendBucketsOfMany(tx, scope.programId, spend.map((expiry) => spendDelta(expiry.row, expiry.updated.spend_cents - expiry.row.spend_cents, 0)));
}

/** The most due authorizations `lockDueHolds` locks ahead (beyond, the rest lock as they expire). */
const DUE_HOLDS_LOCKED_MAX = 100 * EXPIRY_BATCH;

/**
 * For a write that locks the balances of the holds it will expire together with its own, before
 * it expires them (clock-jobs.ts `lockDueMoney`): the due authorizations,
 * locked batch by batch as `expireDueAuthorizations` will take them, the write's own transactions
 * (`own`, if not due) with the first batch, in one sorted set; answers their financial accounts.
 */
export async function lockDueHolds(db: Db, tx: Tx, scope: ProgramScope, own: readonly string[] = []): Promise<string[]> {
  const due = await store.dueExpiries(tx, scope.programId, scope.nowMs - lifecycle.AUTHORIZATION_EXPIRY_MS, DUE_HOLDS_LOCKED_MAX);
  const batches = [[...due.slice(0, EXPIRY_BATCH), ...own.filter((token) => !due.includes(token))]];
  for (let begin = EXPIRY_BATCH; begin < due.length; begin += EXPIRY_BATCH) batches.push(due.slice(begin, begin + EXPIRY_BATCH));
  const accounts = new Set<string>();
  for (const batch of batches) {
    for (const row of await store.lockMany(db, tx, scope.programId, batch)) accounts.add(row.financial_account_token);
  }
  return [...accounts];
}

interface Expiry {
  row: store.TransactionRow;
  updated: store.TransactionRow;
  /** When it expired (never before the transaction's last change, as `applyMessage` dates it). */
  atMs: number;
  /** Its new event, and all of its events with it. */
  event: store.EventRow;
  events: store.EventRow[];
  movement: ledger.Movement | null;
}

/** What expiring a locked PENDING authorization (with its events so far) writes. */
function expiryOf(op: Operation, row: store.TransactionRow, events: readonly store.EventRow[]): Expiry {
  const at: Operation = { ...op, scope: actingOn({ ...op.scope, nowMs: row.expires_ms as number }, row.updated_ms) };
  const effect = lifecycle.release(row, 'AUTHORIZATION_EXPIRY', undefined);
  assertAmounts(row.kind, effect.amounts);
  const lastSeq = events.length === 0 ? -1 : (events[events.length - 1] as store.EventRow).seq;
  const event = eventRow(at, row.token, lastSeq + 1, newToken(), effect.event);
  const updated = { ...row, ...effect.amounts, updated_ms: at.scope.nowMs };
  return { row, updated, atMs: at.scope.nowMs, event, events: [...events, event], movement: ledgerMovement(row, effect, event.token) };
}

/** Due when the oldest PENDING authorization has reached its expiry (`dueAfterLifetime`). */
async function checkDueExpiries(exec: Executor, scope: ProgramScope): Promise<DueCheck> {
  return dueAfterLifetime(await store.oldestPendingAuthorizationMs(exec, scope.programId), lifecycle.AUTHORIZATION_EXPIRY_MS, scope.nowMs);
}

/** PENDING authorizations whose expiry has come (their clock job: `expireDueAuthorizations`). */
export const dueExpiries: DueWork = { horizon: 'authorization_expiry', check: checkDueExpiries };

// ---- authorizations -------------------------------------------------------------------------------

function authorizationFacts(card: FoundCard, opening: Opening, body: SimulateAuthorizationBody, nowMs: number): AuthorizationFacts {
  const merchant = merchantColumns(opening.merchant);
  return {
    event_token: opening.event_token,
    transaction_token: opening.token,
    card: { token: card.token, account_token: card.account_token, state: card.state, pin_status: card.pin_status },
    amount_cents: lifecycle.signOf(opening.kind) * opening.magnitude_cents,
    counts_as_spend: lifecycle.countsAsSpend(opening.kind),
    cash_amount_cents: 0,
    merchant: {
      acceptor_id: merchant.merchant_acceptor_id,
      descriptor: merchant.merchant_descriptor,
      mcc: merchant.merchant_mcc,
      country: merchant.merchant_country,
      currency: opening.merchant_currency,
    },
    pan_entry_mode: panEntryMode(opening.card_present),
    pin_entered: body.pin !== undefined,
    risk_score: null,
    wallet_type: 'NONE',
    liability_shift: 'NONE',
    transaction_initiator: 'CARDHOLDER',
    now_ms: nowMs,
  };
}

/**
 * The engine's sums: only the windows that have a limit are read, the account's and the card's in
 * one statement (`accountAndCardSpent`), made when the engine first asks for either (it asks for
 * the account's, then, unless they decline, for the card's).
 */
function spendSources(op: Operation, card: FoundCard) {
  const { tx, scope } = op;
  let spent: ReturnType<typeof accountAndCardSpent> | undefined;
  const both = () => (spent ??= accountAndCardSpent(tx, scope.programId, Object.assign(accountOf(card), { token: card.account_token }), card, scope.nowMs));
  return {
    accountSpent: async () => (await both()).account,
    cardWindowSpent: async () => (await both()).card_cents,
  };
}

/**
 * Before a new card transaction is decided or recorded (its card's account and card locked:
 * `findCard`; an authorization of any kind, a RETURN, a CREDIT_AUTHORIZATION_ADVICE), what fell due
 * takes effect, in the order it fell due (`applyDueMoney`): the holds past their expiry (the spend
 * and funds they held) and the due management operations, an operation dated before a hold expired
 * decided on the funds the hold still held, whether or not this authorization decides on funds, and
 * one dated before a return decided without the return's money. The
 * due rows are locked, then their balances with the card's own in one sorted set, before any of
 * them changes: expiring first would hold a hold's balance while waiting for the card's own or for a
 * due operation, which a concurrent write that found nothing due may hold while waiting for that balance.
 */
async function applyDueBeforeDeciding(op: Operation, { card, due }: { card: FoundCard; due?: DueMoney }): Promise<FoundCard> {
  await applyDueMoney(op.db, op.tx, op.scope, [card.issuing_financial_account_token], { found: due });
  return card;
}

/**
 * Locks the balance of the ISSUING financial account a card message moves money on (after the
 * card or transaction rows, before the spend buckets: the documented order) and answers the
 * operation acting at the later of its time and that balance's last movement (programs/scope.ts
 * `actingOn`): a request that read the program clock before a move, committing after a movement
 * stamped by the moved clock, neither decides nor writes days before that movement, so the
 * account's history up to then stays as it was read. Its closing locks the same row, so a status
 * read after this (`issuingStatus`) is the one the message acts on.
 */
async function actingOnIssuingBalance(op: Operation, financialAccountToken: string): Promise<{ op: Operation; balances: Map<string, ledger.Balance> }> {
  const balances = await ledger.lockBalances(op.tx, op.scope.programId, [financialAccountToken]);
  return { op: { ...op, scope: actingOn(op.scope, ledger.lastMovedMs(balances)) }, balances };
}

async function decide(
  op: Operation,
  deps: { secrets: Secrets; evaluator: AuthRulesEvaluator },
  card: FoundCard,
  opening: Opening,
  body: SimulateAuthorizationBody,
  balances: ReadonlyMap<string, ledger.Balance>,
): Promise<EngineDecision> {
  const facts = authorizationFacts(card, opening, body, op.scope.nowMs);
  return decideAuthorization(
    {
      card,
      account: accountOf(card),
      issuing_financial_account_status: card.issuing_financial_account_status,
      amount_cents: facts.amount_cents,
      now_ms: op.scope.nowMs,
      context: { card_present: opening.card_present, merchant_acceptor_id: facts.merchant.acceptor_id },
      pin: body.pin === undefined ? undefined : { entered: body.pin, hasher: deps.secrets },
      funds_required: card.require_funds === 1,
      partial_approval_capable: opening.partial_approval_capable,
    },
    // Object.assign, not a spread into a literal: see money_events/events.ts transactionBase.
    Object.assign(spendSources(op, card), {
      authRules: () =>
        deps.evaluator.evaluateAuthorization({
          db: op.db,
          tx: op.tx,
          scope: op.scope,
          facts,
          history: authorizationHistory(op.tx, op.scope.programId, op.scope.nowMs),
          rules_version: card.rules_version,
        }),
      availableCents: async () => ledger.availableCents(balances, card.issuing_financial_account_token),
    }),
  );
}

/** After the decision: the card's own records (PIN attempts, single use, merchant lock). */
async function recordOnCard(op: Operation, card: FoundCard, opening: Opening, decision: EngineDecision): Promise<void> {
  if (decision.pin !== null) await recordPinAttempt(op.tx, op.scope.programId, card, decision.pin === 'correct', op.scope.nowMs);
  const debit = opening.kind === 'AUTHORIZATION' || opening.kind === 'FINANCIAL_AUTHORIZATION';
  if (!decision.approved || !debit) return;
  // A PIN attempt changes only the attempt count, which recording the approval leaves alone.
  const merchant = merchantColumns(opening.merchant);
  await recordApprovedAuthorization(op.tx, op.scope.programId, card, { acceptor_id: merchant.merchant_acceptor_id, descriptor: merchant.merchant_descriptor }, op.scope.nowMs);
}

/** `POST /v1/simulate/authorize`: every authorization kind, decided by the engine, recorded either way. */
export async function authorize(
  requestOp: Operation,
  deps: { secrets: Secrets; evaluator: AuthRulesEvaluator },
  body: SimulateAuthorizationBody,
): Promise<{ token: string }> {
  const kind = body.status ?? 'AUTHORIZATION';
  if (kind === 'BALANCE_INQUIRY' && body.amount !== 0) throw new InvalidRequestError('amount: must be 0 for a BALANCE_INQUIRY');
  const merchantMagnitude = merchantMagnitudeCents(kind, body);
  const card = await applyDueBeforeDeciding(requestOp, await findCard(requestOp, deps.secrets, body.pan));
  // Decided on (funds, spend windows, Auth Rules) and recorded, declined too, at the time of the
  // balance it decided on; locked once, after what fell due moved it.
  const { op, balances } = await actingOnIssuingBalance(requestOp, card.issuing_financial_account_token);
  await readIssuingStatusAgain(op, card);
  const opening: Opening = {
    token: newToken(),
    event_token: newToken(),
    kind,
    magnitude_cents: body.amount,
    merchant_magnitude_cents: merchantMagnitude,
    merchant_currency: simulatorCurrency(body.merchant_currency),
    merchant: body,
    card_present: body.pin !== undefined,
    partial_approval_capable: body.partial_approval_capable ?? false,
  };
  const decision = await decide(op, deps, card, opening, body, balances);
  const recorded = decision.partial_amount_cents === null ? opening : partiallyApproved(opening, decision.partial_amount_cents);
  await recordOpening(op, card, recorded, decision);
  await recordOnCard(op, card, recorded, decision);
  return { token: opening.token };
}

/**
 * `merchant_amount` is the authorization's amount in the merchant's currency (SDK: "Amount of the
 * transaction to be simulated in currency specified in merchant_currency"), `amount` by default: so
 * it is 0 exactly when `amount` is (a BALANCE_INQUIRY's is 0), and `amount` itself in USD (the default
 * merchant_currency, the cardholder's: nothing to convert). Any other pair has no conversion rate (a
 * merchant amount of 0 would show the USD amounts as the merchant's; a USD one would convert USD to
 * USD at a rate other than 1): a 400, before anything is read.
 */
function merchantMagnitudeCents(kind: lifecycle.AuthorizationKind, body: SimulateAuthorizationBody): number {
  const merchant = body.merchant_amount;
  if (merchant === undefined) return body.amount;
  const sameAmount = 'it is the same amount in merchant_currency';
  if (body.amount === 0 && merchant !== 0) {
    throw new InvalidRequestError(`merchant_amount: must be 0 when amount is 0${kind === 'BALANCE_INQUIRY' ? ', as for every BALANCE_INQUIRY' : ''}; ${sameAmount}`);
  }
  if (body.amount !== 0 && merchant === 0) throw new InvalidRequestError(`merchant_amount: must be more than 0 when amount is; ${sameAmount}`);
  if (simulatorCurrency(body.merchant_currency) === SETTLEMENT_CURRENCY && merchant !== body.amount) {
    throw new InvalidRequestError(`merchant_amount: must be amount (${body.amount}) when merchant_currency is ${SETTLEMENT_CURRENCY}, the cardholder currency; ${sameAmount}`);
  }
  return merchant;
}

/**
 * A partial approval is a transaction for the amount approved: its hold, its spend and its event
 * are that amount; the merchant's amount shrinks in the same proportion (rounded half up, at least
 * 1 when the merchant asked for any), so the conversion rate stays what the network sent.
 */
function partiallyApproved(opening: Opening, approvedCents: number): Opening {
  invariant(approvedCents > 0 && approvedCents < opening.magnitude_cents, `a partial approval is for less than asked and more than 0 (${approvedCents} of ${opening.magnitude_cents})`);
  const scaled = scaledHalfUp(opening.merchant_magnitude_cents, approvedCents, opening.magnitude_cents);
  const merchantCents = opening.merchant_magnitude_cents === 0 ? 0 : Math.max(1, scaled);
  return { ...opening, magnitude_cents: approvedCents, merchant_magnitude_cents: merchantCents };
}

/**
 * A CLOSED financial account is final and was left empty when it closed (with every card drawing on
 * it CLOSED): no message may move money on it again, so one that would cannot be processed (422).
 */
function refuseClosedAccount(field: string, financialAccountToken: string, status: string | undefined): void {
  if (status === 'CLOSED') {
    throw new UnprocessableError(`${field}: the card's ISSUING financial account '${financialAccountToken}' is CLOSED; no money can move on it`);
  }
}

/**
 * The status of a card account's ISSUING financial account, whose balance the caller has locked
 * (`actingOnIssuingBalance`): closing an account locks its balance too, so a message that waited for
 * the lock sees the account closed rather than landing on it after the closing checked that it was empty.
 */
async function issuingStatus(op: Operation, financialAccountToken: string): Promise<string | undefined> {
  return (await financialAccountStore.find(op.tx, op.scope.programId, financialAccountToken))?.status;
}

/**
 * An authorization decides on its ISSUING account's status as of its balance lock (`issuingStatus`),
 * not as `findCard` read it before: a suspension (financial_accounts/service.ts `updateStatus`) locks
 * that balance too, and one that committed while the authorization waited for it must decline it.
 * PostgreSQL only: a SQLite write sees no other write between its statements.
 */
async function readIssuingStatusAgain(op: Operation, card: FoundCard): Promise<void> {
  if (op.db.engine !== 'postgres') return;
  card.issuing_financial_account_status = (await issuingStatus(op, card.issuing_financial_account_token)) ?? card.issuing_financial_account_status;
}

/** Messages the network sends on its own (RETURN, CREDIT_AUTHORIZATION_ADVICE): recorded approved, unless the account is CLOSED. */
async function networkMessage(requestOp: Operation, secrets: Secrets, kind: 'RETURN' | 'CREDIT_AUTHORIZATION_ADVICE', body: SimulateReturnBody & Partial<SimulateCreditAuthorizationAdviceBody>) {
  const card = await applyDueBeforeDeciding(requestOp, await findCard(requestOp, secrets, body.pan));
  const issuing = card.issuing_financial_account_token;
  const { op } = await actingOnIssuingBalance(requestOp, issuing);
  refuseClosedAccount('pan', issuing, await issuingStatus(op, issuing));
  const opening: Opening = {
    token: newToken(),
    event_token: newToken(),
    kind,
    magnitude_cents: body.amount,
    merchant_magnitude_cents: body.amount,
    merchant_currency: 'USD',
    merchant: body,
    card_present: false,
    partial_approval_capable: false,
  };
  await recordOpening(op, card, opening, { approved: true, result: 'APPROVED', detailed_results: ['APPROVED'], rule_results: [] });
  return { token: opening.token };
}

/** `POST /v1/simulate/return`: a credit to the card, SETTLED at once, no authorization before it. */
export function simulateReturn(op: Operation, secrets: Secrets, body: SimulateReturnBody): Promise<{ token: string }> {
  return networkMessage(op, secrets, 'RETURN', body);
}

/** `POST /v1/simulate/credit_authorization_advice`: a PENDING credit the network approved for the issuer. */
export function creditAuthorizationAdvice(op: Operation, secrets: Secrets, body: SimulateCreditAuthorizationAdviceBody): Promise<{ token: string }> {
  return networkMessage(op, secrets, 'CREDIT_AUTHORIZATION_ADVICE', body);
}

// ---- messages on an existing transaction ----------------------------------------------------------

/**
 * A network message on an existing transaction, after what has fallen due (`applyDueMoney`): a hold
 * past its expiry is EXPIRED before the message is applied, whether or not a read caught up first,
 * and a management operation dated before it is decided first.
 *
 * Locks, in the documented order (transactions, then balances): when anything is due, its own
 * transaction is locked with the due holds in one sorted set, then their balances (and the due
 * operations'), before they change; its row is then read again, as the expiry may have changed it.
 * Expiring first would hold the holds' balance while waiting for its transaction, which a
 * concurrent message on it (one that found nothing due) holds while waiting for that balance.
 */
async function recordNetworkMessage(op: Operation, token: string, apply: Apply, missing?: (token: string) => Error): Promise<store.TransactionRow> {
  await applyDueMoney(op.db, op.tx, op.scope, [], { transactions: [token] });
  return recordMessage(op, token, apply, missing);
}

export async function authorizationAdvice(op: Operation, body: SimulateAuthorizationAdviceBody): Promise<{ token: string }> {
  const row = await recordNetworkMessage(op, body.token, (current) => lifecycle.advise(current, body.amount));
  return { token: row.token };
}

/**
 * A clearing settles a PENDING transaction, or an EXPIRED authorization (the network may clear after
 * the hold was released): that one moves money again, so not on a CLOSED account, and by default
 * for what the expiry released.
 */
export async function clearing(op: Operation, body: SimulateClearingBody): Promise<void> {
  await recordNetworkMessage(op, body.token, async (current) => {
    if (!lifecycle.clearsAfterExpiry(current)) return lifecycle.clear(current, body.amount);
    refuseClosedAccount('token', current.financial_account_token, await issuingStatus(op, current.financial_account_token));
    return lifecycle.clear(current, body.amount ?? (await releasedByExpiry(op, current.token)));
  });
}

/** What an EXPIRED authorization's expiry released, in cents (its last AUTHORIZATION_EXPIRY event). */
async function releasedByExpiry(op: Operation, token: string): Promise<number | undefined> {
  const events = await store.eventsFor(op.tx, op.scope.programId, [token]);
  const expiry = events.filter((event) => event.type === 'AUTHORIZATION_EXPIRY').at(-1);
  return expiry === undefined ? undefined : Math.abs(expiry.amount_cents);
}

export async function voidAuthorization(op: Operation, body: SimulateVoidBody): Promise<void> {
  await recordNetworkMessage(op, body.token, (current) => lifecycle.release(current, body.type ?? 'AUTHORIZATION_REVERSAL', body.amount));
}

/** `POST /v1/transactions/{token}/expire_authorization`: expires a PENDING authorization now, as the network would. */
export async function expireAuthorization(op: Operation, token: string): Promise<void> {
  await recordNetworkMessage(op, token, (current) => lifecycle.release(current, 'AUTHORIZATION_EXPIRY', undefined), (missing) => notFound('transaction', missing));
}

/** Takes a settled credit back out of the card's ISSUING financial account, which must not be CLOSED. */
export async function returnReversal(op: Operation, body: SimulateReturnReversalBody): Promise<void> {
  await recordNetworkMessage(op, body.token, async (current) => {
    const effect = lifecycle.reverseReturn(current);
    refuseClosedAccount('token', current.financial_account_token, await issuingStatus(op, current.financial_account_token));
    return effect;
  });
}

// ---- reads ----------------------------------------------------------------------------------------

async function withEvents(exec: Executor, programId: string, rows: readonly store.TransactionRow[]): Promise<Transaction[]> {
  const byTransaction = groupedByTransaction(await store.eventsFor(exec, programId, rows.map((row) => row.token)));
  return rows.map((row) => toApi(row, byTransaction.get(row.token) ?? []));
}

/** Before a read that must reflect the clock (transactions, and balances and financial transactions: the money a hold held). */
export function catchUpExpiries(db: Db, scope: ProgramScope): Promise<void> {
  return catchUp(db, scope, dueExpiries);
}

/** The transaction and its events, read in one snapshot (a clearing committing meanwhile is in both or neither). */
export async function get(db: Db, scope: ProgramScope, token: string): Promise<Transaction> {
  await catchUpExpiries(db, scope);
  return db.snapshot(async (exec) => {
    const row = await store.find(exec, scope.programId, token);
    if (!row) throw notFound('transaction', token);
    const [transaction] = await withEvents(exec, scope.programId, [row]);
    invariant(transaction, 'one row gives one transaction');
    return transaction;
  });
}

/** `result=DECLINED` is every result but APPROVED, which is exactly status DECLINED; APPROVED is every other status. */
export function statusesFor(query: Pick<ListTransactionsQuery, 'result' | 'status'>): string[] | undefined {
  const byResult = query.result === undefined ? undefined : query.result === 'DECLINED' ? ['DECLINED'] : ['PENDING', 'SETTLED', 'VOIDED', 'EXPIRED'];
  if (query.status === undefined) return byResult;
  return byResult === undefined || byResult.includes(query.status) ? [query.status] : [];
}

export async function list(db: Db, scope: ProgramScope, query: ListTransactionsQuery): Promise<ListResponse<Transaction>> {
  await catchUpExpiries(db, scope);
  const { page_size, starting_after, ending_before, result, status, ...filters } = query;
  const page: PageParams = { page_size, starting_after, ending_before };
  const statuses = statusesFor({ result, status });
  if (statuses !== undefined && statuses.length === 0) return { data: [], has_more: false };
  return db.snapshot(async (exec) => {
    const { rows, has_more } = await store.list(exec, scope.programId, { ...filters, statuses }, page);
    return { data: await withEvents(exec, scope.programId, rows), has_more };
  });
}
