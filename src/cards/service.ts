/**
 * Cards (spec 2.7, 3.1, 3.2, 4.7): issue, read, list and update, plus the two writes the
 * authorization engine makes after a decision (`recordApprovedAuthorization`, `recordPinAttempt`;
 * see spend.ts for the whole seam).
 *
 * A card belongs to an account (the program's default account when none is named) and is funded by
 * that account's ISSUING financial account. Its PAN and CVV are encrypted at rest and shown only in
 * the create, retrieve and update responses; lists show `last_four` only.
 */
import { newToken } from '../ids.js';
import { ruleTokensForCards } from '../auth_rules/applicable.js';
import * as holderStore from '../account_holders/store.js';
import { checkPhoneNumber, checkUsPostalFields } from '../account_holders/rules.js';
import { CARDHOLDER_CURRENCY } from '../accounts/service.js';
import * as accountStore from '../accounts/store.js';
import * as financialAccountStore from '../financial_accounts/store.js';
import { lockBalances } from '../ledger/ledger.js';
import { applyDueWorkAroundOwn, catchUp } from '../clock-jobs.js';
import { isoTimestamp } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import { changedColumns, isEmpty } from '../db/changes.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { invariant, InvalidRequestError, notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import type { ListResponse } from '../http/schemas.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { cardProgramBin, expiryEndMs, generatedExpiry, numberingKey, PAN_SEQUENCE_LIMIT, panForSequence, randomCvv, type Expiry } from './pan.js';
import { CANADIAN_PROVINCE_CODES, ISO_3166_ALPHA3 } from './countries.js';
import { dueFulfilment, fulfilmentFallsDue } from './jobs.js';
import { checkPinAllowed, parsePinBlock, pinHash } from './pin.js';
import type { Card, CreateCardBody, Funding, ListCardsQuery, UpdateCardBody } from './schemas.js';
import { pinBlockedAfter } from './spend.js';
import { cardStateChangeRefusal, initialCardState, type CardState } from './state.js';
import * as store from './store.js';

const PHYSICAL_ONLY_FIELDS = ['shipping_address', 'shipping_method', 'product_id', 'carrier'] as const;
const EXP_MONTH = /^(?:0[1-9]|1[0-2])$/;
const EXP_YEAR = /^\d{4}$/;
/** The combined length of the names printed on a physical card. */
const MAX_EMBOSSED_NAME_LENGTH = 25;
const DEFAULT_SPEND_LIMIT_DURATION = 'TRANSACTION';
/** Card types whose replacement keeps the type (SDK `replacement_for`). */
const SAME_TYPE_REPLACEMENTS: readonly string[] = ['PHYSICAL', 'VIRTUAL'];

/** Lithic's funding states for a financial account status. */
function fundingState(status: string): Funding['state'] {
  if (status === 'OPEN') return 'ENABLED';
  if (status === 'CLOSED') return 'DELETED';
  return 'PENDING';
}

function fundingOf(row: store.CardWithFundingRow): Funding {
  return {
    token: row.funding_token,
    created: isoTimestamp(row.funding_created_ms),
    last_four: row.funding_account_number.slice(-4),
    state: fundingState(row.funding_status),
    type: 'DEPOSITORY_CHECKING',
    account_name: row.funding_type,
    ...(row.funding_nickname !== null ? { nickname: row.funding_nickname } : {}),
  };
}

/** The API card. With `secrets`, the PAN and CVV are decrypted into it. */
function toApi(row: store.CardWithFundingRow, authRuleTokens: string[], secrets?: Secrets): Card {
  return {
    token: row.token,
    account_token: row.account_token,
    card_program_token: row.card_program_token,
    created: isoTimestamp(row.created_ms),
    funding: fundingOf(row),
    last_four: row.last_four,
    pin_status: row.pin_status as Card['pin_status'],
    spend_limit: row.spend_limit_cents,
    spend_limit_duration: row.spend_limit_duration as Card['spend_limit_duration'],
    state: row.state as Card['state'],
    type: row.type as Card['type'],
    auth_rule_tokens: authRuleTokens,
    cardholder_currency: CARDHOLDER_CURRENCY,
    ...(row.digital_card_art_token !== null ? { digital_card_art_token: row.digital_card_art_token } : {}),
    exp_month: row.exp_month,
    exp_year: row.exp_year,
    hostname: row.hostname,
    memo: row.memo,
    pending_commands: [],
    ...(row.product_id !== null ? { product_id: row.product_id } : {}),
    replacement_for: row.replacement_for,
    ...(row.comment !== null ? { comment: row.comment } : {}),
    ...(row.substatus !== null ? { substatus: row.substatus as Card['substatus'] } : {}),
    network_program_token: row.network_program_token,
    ...(secrets ? { pan: secrets.decrypt(row.pan_encrypted), cvv: secrets.decrypt(row.cvv_encrypted) } : {}),
  };
}

async function render(exec: Executor, programId: string, rows: store.CardWithFundingRow[], secrets?: Secrets): Promise<Card[]> {
  const ruleTokens = await ruleTokensForCards(exec, programId, rows);
  return rows.map((row) => toApi(row, ruleTokens.get(row.token) ?? [], secrets));
}

/**
 * `GET /v1/cards/{token}`: the card with its PAN and CVV, after the fulfilment that has fallen due by
 * the program clock; the card and its Auth Rule tokens read in one snapshot.
 */
export async function retrieve(db: Db, scope: ProgramScope, secrets: Secrets, token: string): Promise<Card> {
  await catchUp(db, scope, dueFulfilment);
  return db.snapshot((exec) => get(exec, scope, secrets, token));
}

/** The card with its PAN and CVV, as this executor (a transaction) sees it. */
async function get(exec: Executor, scope: ProgramScope, secrets: Secrets, token: string): Promise<Card> {
  const row = await store.findWithFunding(exec, scope.programId, token);
  if (!row) throw notFound('card', token);
  const [card] = await render(exec, scope.programId, [row], secrets);
  return card as Card;
}

/** List: newest first, without PAN and CVV, fulfilment caught up. An unknown account_token simply matches nothing. */
export async function list(db: Db, scope: ProgramScope, query: ListCardsQuery): Promise<ListResponse<Card>> {
  await catchUp(db, scope, dueFulfilment);
  const { page_size, starting_after, ending_before, ...filters } = query;
  const page: PageParams = { page_size, starting_after, ending_before };
  return db.snapshot(async (exec) => {
    const { rows, has_more } = await store.listWithFunding(exec, scope.programId, filters, page);
    return { data: await render(exec, scope.programId, rows), has_more };
  });
}

// ---- create -------------------------------------------------------------------------------------

/** SDK `ShippingAddress`: an ISO 3166-1 country; the state is an ISO 3166-2 code in the US and Canada only. */
function checkShippingAddress(address: NonNullable<CreateCardBody['shipping_address']>): void {
  if (!ISO_3166_ALPHA3.has(address.country)) {
    throw new InvalidRequestError('shipping_address.country: must be an uppercase ISO 3166-1 alpha-3 code, e.g. USA');
  }
  if (address.country === 'USA') checkUsPostalFields('shipping_address', address);
  if (address.country === 'CAN' && !CANADIAN_PROVINCE_CODES.has(address.state)) {
    throw new InvalidRequestError('shipping_address.state: must be an uppercase two-letter Canadian province or territory code (ISO 3166-2, e.g. ON)');
  }
  if (address.first_name.length + address.last_name.length > MAX_EMBOSSED_NAME_LENGTH) {
    throw new InvalidRequestError(`shipping_address.last_name: first_name and last_name together must not exceed ${MAX_EMBOSSED_NAME_LENGTH} characters`);
  }
  if (address.phone_number !== undefined) checkPhoneNumber('shipping_address.phone_number', address.phone_number);
}

/** Rules of the create body that depend only on the body (400s). */
function checkCreateBody(body: CreateCardBody): void {
  if (body.type === 'PHYSICAL') {
    if (body.shipping_address === undefined) throw new InvalidRequestError('shipping_address: is required for cards of type PHYSICAL');
    checkShippingAddress(body.shipping_address);
    if (body.shipping_method === 'EXPEDITED' && (body.shipping_address.email === undefined || body.shipping_address.phone_number === undefined)) {
      throw new InvalidRequestError('shipping_address: email and phone_number are required for shipping_method EXPEDITED');
    }
  } else {
    const physicalOnly = PHYSICAL_ONLY_FIELDS.find((field) => body[field] !== undefined);
    if (physicalOnly) throw new InvalidRequestError(`${physicalOnly}: only applies to cards of type PHYSICAL`);
  }
  if (body.pin !== undefined) checkPinAllowed('pin', body.type);
  if (body.replacement_for === undefined) {
    const orphan = (['replacement_account_token', 'replacement_comment', 'replacement_substatus'] as const).find((field) => body[field] !== undefined);
    if (orphan) throw new InvalidRequestError(`${orphan}: only applies together with replacement_for`);
  }
  if (body.account_token !== undefined && body.replacement_account_token !== undefined) {
    throw new InvalidRequestError('replacement_account_token: give either account_token or replacement_account_token, not both');
  }
}

/** The expiry asked for (both fields or neither), or a generated one. */
function expiryOf(body: CreateCardBody, nowMs: number): Expiry {
  if (body.exp_month === undefined && body.exp_year === undefined) return generatedExpiry(nowMs);
  if (body.exp_month === undefined || body.exp_year === undefined) {
    throw new InvalidRequestError(`${body.exp_month === undefined ? 'exp_month' : 'exp_year'}: give exp_month and exp_year together, or neither`);
  }
  if (!EXP_MONTH.test(body.exp_month)) throw new InvalidRequestError('exp_month: must be two digits, 01 to 12');
  if (!EXP_YEAR.test(body.exp_year)) throw new InvalidRequestError('exp_year: must be four digits (YYYY)');
  const expiry = { exp_month: body.exp_month, exp_year: body.exp_year };
  if (expiryEndMs(expiry) <= nowMs) throw new InvalidRequestError('exp_year: the expiry date must not be in the past');
  return expiry;
}

/**
 * The account the card will belong to, locked (so its state cannot change until the card exists),
 * and which field named it (for error messages).
 */
async function lockAccountFor(
  db: Db,
  tx: Tx,
  programId: string,
  body: CreateCardBody,
  replaced: store.CardRow | undefined,
): Promise<{ account: accountStore.AccountRow; field: string }> {
  const named = body.replacement_account_token !== undefined ? 'replacement_account_token' : body.account_token !== undefined ? 'account_token' : undefined;
  if (named !== undefined) {
    const token = body[named] as string;
    const account = await accountStore.lock(db, tx, programId, token);
    if (!account) throw notFound('account', token, named);
    return { account, field: named };
  }
  const token = replaced?.account_token ?? (await accountStore.findDefault(tx, programId))?.token;
  const account = token === undefined ? undefined : await accountStore.lock(db, tx, programId, token);
  invariant(account, replaced ? `card ${replaced.token} has no account` : `program ${programId} has no default account`);
  return { account, field: replaced ? 'replacement_for' : 'account_token' };
}

/**
 * Only ACTIVE accounts of ACCEPTED holders get new cards (Lithic: paused or closed accounts cannot),
 * and only while the ISSUING financial account they draw on is not CLOSED: the network settles
 * whatever the card's state, so a card on a closed account would strand that money. Its balance is
 * locked while this is decided, as closing locks it (financial_accounts `updateStatus`): a card and
 * the account's closing cannot both pass.
 */
async function checkAccountIssues(tx: Tx, programId: string, account: accountStore.AccountRow, field: string): Promise<void> {
  if (account.state !== 'ACTIVE') {
    throw new UnprocessableError(`${field}: account '${account.token}' is ${account.state}; cards can only be created on ACTIVE accounts`);
  }
  if (account.account_holder_token !== null) {
    const holder = await holderStore.find(tx, programId, account.account_holder_token);
    if (holder && holder.status !== 'ACCEPTED') {
      throw new UnprocessableError(`${field}: the account holder of account '${account.token}' is ${holder.status}; cards can be created once it is ACCEPTED`);
    }
  }
  const fundingToken = account.issuing_financial_account_token;
  await lockBalances(tx, programId, [fundingToken]);
  const funding = await financialAccountStore.find(tx, programId, fundingToken);
  if (funding?.status === 'CLOSED') {
    throw new UnprocessableError(`${field}: the ISSUING financial account '${fundingToken}' of account '${account.token}' is CLOSED; cards cannot draw on it`);
  }
}

/**
 * Lithic's sandbox values for `card_program_token` ("to test creating cards on specific card
 * programs", SDK CardCreateParams): every program accepts them. Such a card is numbered with the
 * program's own card program (its BIN and sequence, so PANs stay unique) and shows the token asked for.
 */
const SANDBOX_CARD_PROGRAM_TOKENS: readonly string[] = ['00000000-0000-0000-1000-000000000000', '00000000-0000-0000-2000-000000000000'];

/**
 * The program's card program with the next PAN number taken (created with the first card). A number
 * a card of the program already holds (one numbered before numbers were keyed, see pan.ts) is skipped.
 */
async function takeCardNumber(exec: Executor, secrets: Secrets, programId: string, body: CreateCardBody, nowMs: number) {
  await store.ensureCardProgram(exec, {
    program_id: programId,
    token: newToken(),
    bin: cardProgramBin(programId),
    pan_offset: 0,
    next_pan_sequence: 0,
    created_ms: nowMs,
  });
  const key = numberingKey(secrets, programId);
  for (;;) {
    const cardProgram = await store.takePanSequence(exec, programId);
    const requested = body.card_program_token ?? cardProgram.token;
    if (requested !== cardProgram.token && !SANDBOX_CARD_PROGRAM_TOKENS.includes(requested)) {
      throw notFound('card program', requested, 'card_program_token');
    }
    if (cardProgram.sequence >= PAN_SEQUENCE_LIMIT) throw new UnprocessableError('type: the card program has issued every card number of its BIN');
    const pan = panForSequence(key, cardProgram.bin, cardProgram.sequence);
    if (!(await store.findCardByPan(exec, secrets, programId, pan))) return { card_program_token: requested, pan };
  }
}

/** SDK `replacement_for`: a PHYSICAL card is replaced by a PHYSICAL card, a VIRTUAL card by a VIRTUAL card. */
function checkReplacementType(replaced: store.CardRow, type: CreateCardBody['type']): void {
  if (SAME_TYPE_REPLACEMENTS.includes(replaced.type) && type !== replaced.type) {
    throw new UnprocessableError(`type: card '${replaced.token}' is ${replaced.type}, so its replacement must be ${replaced.type} too`);
  }
}

/**
 * A replaced card (locked by `create`) is closed at once (Lithic's "Managing Cards": the replace flow
 * "closes the original card"; its table: "old card is closed immediately") and records why it was
 * replaced (replacement_substatus / replacement_comment). A card already CLOSED stays so.
 */
async function markReplaced(tx: Tx, programId: string, replaced: store.CardRow, body: CreateCardBody, nowMs: number): Promise<void> {
  const changes: store.CardChanges = { state: 'CLOSED' };
  if (body.replacement_substatus !== undefined) changes.substatus = body.replacement_substatus;
  if (body.replacement_comment !== undefined) changes.comment = body.replacement_comment;
  const changed = changedColumns(replaced, changes);
  if (isEmpty(changed)) return;
  await store.update(tx, programId, replaced.token, { ...changed, updated_ms: nowMs });
}

/** Lithic's `card.created` payload: the card's token and the card it replaces (never the card itself, so never its PAN or CVV). */
export function createdEventPayload(cardToken: string, replacementFor: string | null) {
  return { card_token: cardToken, replacement_for: replacementFor };
}

/**
 * Lock order, as for authorizations (spend.ts, then the ledger): the account, then a card (the
 * replaced one), then the funding balance, then the card program's PAN sequence. The replaced card
 * is first read without a lock (it names the account to lock first), then locked once the account
 * is: the replacement and its `card.created` event are dated at `actingOn` its last change.
 */
export async function create(db: Db, tx: Tx, requestScope: ProgramScope, secrets: Secrets, body: CreateCardBody): Promise<Card> {
  checkCreateBody(body);
  const expiry = expiryOf(body, requestScope.nowMs);
  const pin = body.pin === undefined ? undefined : parsePinBlock('pin', body.pin);
  const named = body.replacement_for === undefined ? undefined : await store.find(tx, requestScope.programId, body.replacement_for);
  if (body.replacement_for !== undefined && !named) throw notFound('card', body.replacement_for, 'replacement_for');
  const { account, field } = await lockAccountFor(db, tx, requestScope.programId, body, named);
  const replaced = named && (await store.lockCard(db, tx, requestScope.programId, named.token));
  invariant(!named || replaced, `replaced card ${named?.token} disappeared`);
  if (replaced) checkReplacementType(replaced, body.type);
  const scope = replaced ? actingOn(requestScope, replaced.updated_ms) : requestScope;
  await checkAccountIssues(tx, scope.programId, account, field);
  const { card_program_token, pan } = await takeCardNumber(tx, secrets, scope.programId, body, scope.nowMs);

  const token = newToken();
  await store.insert(tx, {
    program_id: scope.programId,
    token,
    account_token: account.token,
    card_program_token,
    type: body.type,
    state: initialCardState(body.type, body.state),
    pan_encrypted: secrets.encrypt(pan),
    pan_lookup_hash: secrets.lookupHash(pan),
    last_four: pan.slice(-4),
    cvv_encrypted: secrets.encrypt(randomCvv()),
    ...expiry,
    pin_hash: pin === undefined ? null : pinHash(secrets, token, pin),
    pin_status: pin === undefined ? 'NOT_SET' : 'OK',
    pin_failed_attempts: 0,
    spend_limit_cents: body.spend_limit ?? 0,
    spend_limit_duration: body.spend_limit_duration ?? DEFAULT_SPEND_LIMIT_DURATION,
    memo: body.memo ?? '',
    comment: null,
    substatus: null,
    network_program_token: null,
    digital_card_art_token: body.digital_card_art_token ?? null,
    product_id: body.product_id ?? null,
    replacement_for: body.replacement_for ?? null,
    shipping:
      body.type === 'PHYSICAL'
        ? JSON.stringify({ shipping_address: body.shipping_address, shipping_method: body.shipping_method ?? 'STANDARD', carrier: body.carrier ?? null })
        : null,
    hostname: '',
    locked_merchant_acceptor_id: null,
    first_approved_ms: null,
    shipped_ms: null,
    created_ms: scope.nowMs,
    updated_ms: scope.nowMs,
  });
  if (replaced) await markReplaced(tx, scope.programId, replaced, body, scope.nowMs);
  if (body.type === 'PHYSICAL') fulfilmentFallsDue(db, tx, scope.programId, scope.nowMs);
  await emitEvent(tx, scope.programId, 'card.created', createdEventPayload(token, body.replacement_for ?? null), scope.nowMs);
  return get(tx, scope, secrets, token);
}

// ---- update -------------------------------------------------------------------------------------

/** What an update body changes, checked against the card as it is (spec 3.1, 3.2, 4.7). */
function cardChanges(card: store.CardRow, body: UpdateCardBody, secrets: Secrets): store.CardChanges {
  const changes: store.CardChanges = {};
  if (body.pin !== undefined) {
    checkPinAllowed('pin', card.type);
    Object.assign(changes, { pin_hash: pinHash(secrets, card.token, parsePinBlock('pin', body.pin)), pin_status: 'OK', pin_failed_attempts: 0 });
  } else if (body.pin_status === 'OK') {
    if (card.pin_hash === null) throw new UnprocessableError('pin_status: the card has no PIN to unblock; set one with pin');
    Object.assign(changes, { pin_status: 'OK', pin_failed_attempts: 0 });
  }
  if (body.state !== undefined) {
    const refusal = cardStateChangeRefusal(card.state as CardState, body.state);
    if (refusal !== null) throw new UnprocessableError(`state: ${refusal}`);
    changes.state = body.state;
  }
  if (body.spend_limit !== undefined) changes.spend_limit_cents = body.spend_limit;
  if (body.spend_limit_duration !== undefined) changes.spend_limit_duration = body.spend_limit_duration;
  if (body.memo !== undefined) changes.memo = body.memo;
  if (body.digital_card_art_token !== undefined) changes.digital_card_art_token = body.digital_card_art_token;
  if (body.comment !== undefined) changes.comment = body.comment;
  if (body.substatus !== undefined) changes.substatus = body.substatus;
  if (body.network_program_token !== undefined) changes.network_program_token = body.network_program_token;
  return changes;
}

/**
 * Seed 4.7: only the supplied properties change. The card row is locked first, so concurrent
 * updates apply one after another, each to the card as the previous one left it; `updated_ms`
 * never goes backwards.
 */
export async function update(db: Db, tx: Tx, scope: ProgramScope, secrets: Secrets, token: string, body: UpdateCardBody): Promise<Card> {
  // A card whose fulfilment fell due since the last sweep or read ships first (with what fell due
  // before it): a PATCH out of PENDING_FULFILLMENT would otherwise keep it from ever shipping. The
  // card is locked after the cards due for fulfilment and before the due holds' balances (as an
  // authorization locks it), and read again once the jobs ran.
  await applyDueWorkAroundOwn(db, tx, scope, dueFulfilment, () => store.lockCard(db, tx, scope.programId, token));
  const card = await store.lockCard(db, tx, scope.programId, token);
  if (!card) throw notFound('card', token);
  const changes = changedColumns(card, cardChanges(card, body, secrets));
  if (!isEmpty(changes)) await store.update(tx, scope.programId, token, { ...changes, updated_ms: Math.max(card.updated_ms, scope.nowMs) });
  return get(tx, scope, secrets, token);
}

// ---- the authorization engine's writes (see spend.ts) -------------------------------------------

/**
 * After an approved authorization on a locked card: records its first use, closes a SINGLE_USE
 * card, and locks a MERCHANT_LOCKED card to the merchant (its descriptor becomes `hostname`).
 */
export async function recordApprovedAuthorization(
  exec: Executor,
  programId: string,
  card: store.CardRow,
  merchant: { acceptor_id: string; descriptor: string },
  nowMs: number,
): Promise<void> {
  const changes: store.CardChanges = {};
  if (card.first_approved_ms === null) changes.first_approved_ms = nowMs;
  if (card.type === 'SINGLE_USE' && card.state !== 'CLOSED') changes.state = 'CLOSED';
  if (card.type === 'MERCHANT_LOCKED' && card.locked_merchant_acceptor_id === null) {
    Object.assign(changes, { locked_merchant_acceptor_id: merchant.acceptor_id, hostname: merchant.descriptor });
  }
  if (isEmpty(changes)) return;
  await store.update(exec, programId, card.token, { ...changes, updated_ms: Math.max(card.updated_ms, nowMs) });
}

/**
 * After a PIN was checked on a locked card: a correct PIN clears the count of incorrect ones; an
 * incorrect one adds to it and blocks the PIN at MAX_PIN_ATTEMPTS (spec 3.2: unblocked by the client).
 */
export async function recordPinAttempt(exec: Executor, programId: string, card: store.CardRow, correct: boolean, nowMs: number): Promise<void> {
  const failedAttempts = correct ? 0 : card.pin_failed_attempts + 1;
  if (failedAttempts === card.pin_failed_attempts) return;
  const changes: store.CardChanges = { pin_failed_attempts: failedAttempts };
  if (pinBlockedAfter(failedAttempts)) changes.pin_status = 'BLOCKED';
  await store.update(exec, programId, card.token, { ...changes, updated_ms: Math.max(card.updated_ms, nowMs) });
}
