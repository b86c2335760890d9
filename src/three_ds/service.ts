/**
 * 3DS authentications (reference 03): the simulator and retrieval. An authentication is decided in
 * this order, the first that applies winning:
 *  1. the card cannot be used (closed, paused, expired), nor its account (PAUSED, CLOSED) or the
 *     account's ISSUING financial account (not OPEN): the checks of an authorization's first two
 *     steps (engine/pipeline.ts); or the expiry given does not match → DECLINE;
 *  2. Auth Rules of the THREE_DS_AUTHENTICATION stream (evaluator.ts: every applicable current
 *     version enforced, drafts in shadow, all recorded for the report): a matching DECLINE rule →
 *     DECLINE, else a matching CHALLENGE rule → PENDING_CHALLENGE (decided by CUSTOMER_RULES);
 *  3. a merchant name containing CHALLENGE → PENDING_CHALLENGE (the simulator's keyword);
 *  4. otherwise SUCCESS.
 * Before anything: the merchant's country and the purchase currency are codes that exist (currencies.ts), else 400.
 * The card is found by its PAN within the calling program only (else 422, as the card transaction simulations).
 *
 * A PENDING_CHALLENGE authentication is resolved once, by the first of a challenge response
 * (APPROVE → SUCCESS, DECLINE_BY_CUSTOMER → DECLINE) or the simulated OTP entry (SANDBOX_OTP →
 * SUCCESS, any other code → DECLINE: a single attempt). The challenge stays shown, with its outcome
 * as challenge_metadata.status; who decided to challenge (decision_made_by) does not change, nor
 * does the Auth Rules report, which counts the rule's CHALLENGE when it was evaluated.
 *
 * A challenge neither resolves within CHALLENGE_TTL_MS of the program clock times out: DECLINE,
 * challenge status CARDHOLDER_TIMEOUT (Lithic: an OTP "not entered before expiration" declines the
 * authentication), as a failed challenge does. It is a clock job (clock-jobs.ts,
 * `timeOutChallenges`), dated at the instant the TTL ended; a GET catches it up first
 * (`dueChallengeTimeouts`). A resolution arriving at or after that instant is refused with the 422
 * of a resolved challenge, naming the timeout, even before the job has run.
 *
 * The challenge's OTP goes by SMS to the card's account holder's phone (an individual's, or a
 * business's control person's): captured when the challenge is issued, as challenge_metadata's
 * phone_number; null when the card's account has no holder or the holder no phone.
 *
 * Events: `three_ds_authentication.created` when one is simulated, `.updated` when its challenge
 * is resolved, with the authentication as GET answers it then.
 */
import { accountUsability, fundingUsability } from '../accounts/spend.js';
import * as accountStore from '../accounts/store.js';
import { ISO_3166_ALPHA3 } from '../cards/countries.js';
import { cardUsability } from '../cards/spend.js';
import { catchUp, dueAfterLifetime, fallsDueAt, type ClockJob, type DueCheck, type DueWork } from '../clock-jobs.js';
import { isoSecondTimestamp, isoTimestamp } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db, Executor, Tx } from '../db/database.js';
import { InvalidRequestError, UnprocessableError, notFound } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import { newToken } from '../ids.js';
import type { ProgramScope } from '../programs/scope.js';
import { ruleEngine, type RuleEvaluation } from '../auth_rules/evaluator.js';
import type { RuleInput } from '../auth_rules/rules.js';
import { findCardForAuthorization, type CardForAuthorizationRow } from '../transactions/store.js';
import type { ChallengeResponseBody, SimulateAuthenticationBody, SimulateOtpEntryBody, ThreeDsAuthentication } from './schemas.js';
import { currencyExponent, isPurchaseCurrency } from './currencies.js';
import * as store from './store.js';

const MESSAGE_CATEGORY = 'PAYMENT_AUTHENTICATION';
const CHALLENGE_KEYWORD = 'CHALLENGE';
const CARDHOLDER_CURRENCY = 'USD';
/** Every simulated authentication comes from a browser that told nothing about itself. */
const CHANNEL = 'BROWSER';
const UNKNOWN_BROWSER = { accept_header: null, ip: null, java_enabled: null, javascript_enabled: null, language: null, time_zone: null, user_agent: null };
/** The one right code of the sandbox's simulated OTP entry (the SDK's own example). */
export const SANDBOX_OTP = '123456';
/**
 * How long a cardholder has to complete a challenge, by the program clock. Lithic's docs: the OTP
 * "expires after a short time (configurable, usually 10 minutes)", and a program orchestrating its
 * own challenges must answer "before the challenge expiration time, typically within 10 minutes".
 */
export const CHALLENGE_TTL_MS = 10 * 60_000;

type ChallengeStatus = NonNullable<ThreeDsAuthentication['challenge_metadata']>['status'];

interface Decision {
  authentication_result: 'DECLINE' | 'SUCCESS' | 'PENDING_CHALLENGE';
  decision_made_by: 'CUSTOMER_RULES' | 'LITHIC_DEFAULT';
}

/**
 * The purchase amount in minor units of the cardholder's currency (USD), as `transaction.cardholder_amount`: the
 * purchase amount when the purchase is in USD; null otherwise, as Cardwright has no daily conversion rate.
 */
function cardholderAmount(amount: number, currency: string): number | null {
  return currency === CARDHOLDER_CURRENCY ? amount : null;
}

/**
 * The attributes of a 3DS authentication (reference 01, 3DS stream). TRANSACTION_AMOUNT is in the cardholder's
 * currency (SDK 0.119, Conditional3DSActionParameters: "in the settlement/cardholder billing currency"), not the
 * purchase currency: the cardholder amount, and none (a condition on it never holds) when that is unknown.
 */
function threeDsInput(body: SimulateAuthenticationBody): RuleInput {
  const values: Readonly<Record<string, string | number | null>> = {
    MCC: body.merchant.mcc,
    COUNTRY: body.merchant.country,
    CURRENCY: body.transaction.currency,
    MERCHANT_ID: body.merchant.id,
    DESCRIPTOR: body.merchant.name,
    TRANSACTION_AMOUNT: cardholderAmount(body.transaction.amount, body.transaction.currency),
    MESSAGE_CATEGORY,
  };
  // RISK_SCORE is Mastercard's authentication risk: the simulator has none, so it never matches.
  return { valueOf: (attribute) => values[attribute] ?? null };
}

/** Steps 2 to 4 above, from the rules' enforced verdicts and the merchant name. */
function decideAfterCardChecks(evaluations: readonly RuleEvaluation[], merchantName: string): Decision {
  const enforced = evaluations.filter((evaluation) => evaluation.role === 'CURRENT').map((evaluation) => evaluation.verdict.decision);
  if (enforced.includes('DECLINED')) return { authentication_result: 'DECLINE', decision_made_by: 'CUSTOMER_RULES' };
  if (enforced.includes('CHALLENGED')) return { authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'CUSTOMER_RULES' };
  if (merchantName.toUpperCase().includes(CHALLENGE_KEYWORD)) return { authentication_result: 'PENDING_CHALLENGE', decision_made_by: 'LITHIC_DEFAULT' };
  return { authentication_result: 'SUCCESS', decision_made_by: 'LITHIC_DEFAULT' };
}

/** Step 1 above: the card, its account and the account's ISSUING financial account can be used, and the expiry matches. */
function usable(card: CardForAuthorizationRow, nowMs: number, expiry: string): boolean {
  const checks = [cardUsability(card, nowMs), accountUsability({ state: card.account_state }), fundingUsability(card.issuing_financial_account_status)];
  return expiry !== 'MISMATCH' && checks.every((check) => check.approved);
}

async function decide(tx: Tx, scope: ProgramScope, card: CardForAuthorizationRow, token: string, body: SimulateAuthenticationBody): Promise<Decision> {
  if (!usable(card, scope.nowMs, body.card_expiry_check ?? 'MATCH')) {
    return { authentication_result: 'DECLINE', decision_made_by: 'LITHIC_DEFAULT' };
  }
  const evaluations = await ruleEngine.evaluate(tx, {
    programId: scope.programId,
    stream: 'THREE_DS_AUTHENTICATION',
    card_token: card.token,
    account_token: card.account_token,
    event_token: token,
    now_ms: scope.nowMs,
    input: threeDsInput(body),
  });
  return decideAfterCardChecks(evaluations, body.merchant.name);
}

/** The phone the challenge's SMS OTP goes to: the holder's of the card's account, as it is now. */
async function otpPhoneNumber(tx: Tx, scope: ProgramScope, card: CardForAuthorizationRow): Promise<string | null> {
  return (await accountStore.findWithHolder(tx, scope.programId, card.account_token))?.holder_phone_number ?? null;
}

/** Card acceptor countries besides ISO 3166-1 alpha-3's, as SDK 0.119's COUNTRY rule attribute lists them: QZZ (Kosovo), ANT (Netherlands Antilles). */
const OTHER_ACCEPTOR_COUNTRIES: ReadonlySet<string> = new Set(['QZZ', 'ANT']);

/** What the schema's patterns cannot say: the merchant's country and the purchase currency are codes that exist (400, before the card is looked up). */
function checkCodes(body: SimulateAuthenticationBody): void {
  const { country } = body.merchant;
  if (!ISO_3166_ALPHA3.has(country) && !OTHER_ACCEPTOR_COUNTRIES.has(country)) {
    throw new InvalidRequestError('merchant.country: must be an uppercase ISO 3166-1 alpha-3 code (or QZZ, Kosovo, or ANT, Netherlands Antilles), e.g. USA');
  }
  if (!isPurchaseCurrency(body.transaction.currency)) {
    throw new InvalidRequestError('transaction.currency: must be an ISO 4217 currency code that EMV 3-D Secure takes as a purchase currency, e.g. USD (not XXX, XTS, XDR, a metal or a bond unit)');
  }
}

export async function simulate(db: Db, tx: Tx, scope: ProgramScope, secrets: Secrets, body: SimulateAuthenticationBody): Promise<{ token: string }> {
  checkCodes(body);
  const card = await findCardForAuthorization(tx, scope.programId, secrets.lookupHash(body.pan));
  // As the card transaction simulations: a network message for a card the program does not have cannot be processed.
  if (!card) throw new UnprocessableError('pan: no card with this number in this program; the message cannot be processed');
  const token = newToken();
  const decision = await decide(tx, scope, card, token, body);
  const challenged = decision.authentication_result === 'PENDING_CHALLENGE';
  await store.insert(tx, {
    program_id: scope.programId,
    token,
    card_token: card.token,
    account_token: card.account_token,
    ...decision,
    challenge_status: challenged ? 'PENDING' : null,
    challenge_phone_number: challenged ? await otpPhoneNumber(tx, scope, card) : null,
    card_expiry_check: body.card_expiry_check ?? 'MATCH',
    message_category: MESSAGE_CATEGORY,
    merchant_id: body.merchant.id,
    merchant_country: body.merchant.country,
    merchant_mcc: body.merchant.mcc,
    merchant_name: body.merchant.name,
    amount_cents: body.transaction.amount,
    currency: body.transaction.currency,
    created_ms: scope.nowMs,
  });
  if (challenged) fallsDueAt(db, tx, dueChallengeTimeouts, scope.programId, scope.nowMs + CHALLENGE_TTL_MS);
  await emitChange(tx, scope, 'three_ds_authentication.created', token);
  return { token };
}

type ChallengeOutcome = { authentication_result: 'SUCCESS' | 'DECLINE'; challenge_status: 'SUCCESS' | 'CANCELED_OOB' | 'ATTEMPTS_EXCEEDED' | 'CARDHOLDER_TIMEOUT' };

const PASSED: ChallengeOutcome = { authentication_result: 'SUCCESS', challenge_status: 'SUCCESS' };
/** The cardholder did not complete the challenge within its TTL: declined, as a failed challenge. */
const TIMED_OUT: ChallengeOutcome = { authentication_result: 'DECLINE', challenge_status: 'CARDHOLDER_TIMEOUT' };

/** The instant a challenge issued at `createdMs` times out if still pending. */
function challengeDeadlineMs(row: Pick<store.AuthenticationRow, 'created_ms'>): number {
  return Number(row.created_ms) + CHALLENGE_TTL_MS;
}

/** The cardholder's answer relayed by the program: approved, or declined out of band. */
function challengeResponseOutcome(response: ChallengeResponseBody['challenge_response']): ChallengeOutcome {
  return response === 'APPROVE' ? PASSED : { authentication_result: 'DECLINE', challenge_status: 'CANCELED_OOB' };
}

/** The single OTP attempt: the sandbox's code passes, any other fails the challenge. */
function otpOutcome(otp: string): ChallengeOutcome {
  return otp === SANDBOX_OTP ? PASSED : { authentication_result: 'DECLINE', challenge_status: 'ATTEMPTS_EXCEEDED' };
}

/** Resolves a pending challenge once: the row is locked, so of concurrent resolutions the first wins and the others find it resolved (422). */
async function resolveChallenge(db: Db, tx: Tx, scope: ProgramScope, token: string, outcome: ChallengeOutcome, missing: (token: string) => Error): Promise<void> {
  const row = await store.lock(db, tx, scope.programId, token);
  if (!row) throw missing(token);
  const notAwaiting = `token: 3DS authentication '${token}' is not awaiting a challenge`;
  const timedOut = row.challenge_status === TIMED_OUT.challenge_status || (row.authentication_result === 'PENDING_CHALLENGE' && challengeDeadlineMs(row) <= scope.nowMs);
  if (timedOut) {
    throw new UnprocessableError(
      `${notAwaiting}: its challenge timed out at ${isoTimestamp(challengeDeadlineMs(row))}, ${CHALLENGE_TTL_MS / 60_000} minutes after it was issued ` +
        `(challenge_metadata.status ${TIMED_OUT.challenge_status}); its authentication_result is ${TIMED_OUT.authentication_result}`,
    );
  }
  if (row.authentication_result !== 'PENDING_CHALLENGE') throw new UnprocessableError(`${notAwaiting}: its authentication_result is ${row.authentication_result}`);
  await store.resolveChallenge(tx, scope.programId, token, outcome);
  await emitChange(tx, scope, 'three_ds_authentication.updated', token);
}

async function emitChange(tx: Tx, scope: ProgramScope, eventType: 'three_ds_authentication.created' | 'three_ds_authentication.updated', token: string): Promise<void> {
  await emitEvent(tx, scope.programId, eventType, await get(tx, scope, token), scope.nowMs);
}

export function respondToChallenge(db: Db, tx: Tx, scope: ProgramScope, body: ChallengeResponseBody): Promise<void> {
  return resolveChallenge(db, tx, scope, body.token, challengeResponseOutcome(body.challenge_response), (token) => notFound('3DS authentication', token, 'token'));
}

/** A simulated network message naming an authentication the program does not have cannot be processed: 422, as the other simulations. */
const unprocessable = (token: string) => new UnprocessableError(`token: no 3DS authentication '${token}' in this program; the message cannot be processed`);

export function simulateOtpEntry(db: Db, tx: Tx, scope: ProgramScope, body: SimulateOtpEntryBody): Promise<void> {
  return resolveChallenge(db, tx, scope, body.token, otpOutcome(body.otp), unprocessable);
}

/**
 * The clock job: every challenge still pending a TTL after it was issued times out, oldest first,
 * each dated (its event too) at the instant it timed out. Locked and checked again: a concurrent
 * resolution or run of this job may have taken it since the list was read.
 */
export const timeOutChallenges: ClockJob = async (db, tx, scope) => {
  for (const token of await store.pendingChallengesIssuedThrough(tx, scope.programId, scope.nowMs - CHALLENGE_TTL_MS)) {
    const row = await store.lock(db, tx, scope.programId, token);
    if (row?.authentication_result !== 'PENDING_CHALLENGE' || challengeDeadlineMs(row) > scope.nowMs) continue;
    await store.resolveChallenge(tx, scope.programId, token, TIMED_OUT);
    await emitChange(tx, { ...scope, nowMs: challengeDeadlineMs(row) }, 'three_ds_authentication.updated', token);
  }
};

/** Locks the challenges `timeOutChallenges` would time out now, before a write locks balances (clock-jobs.ts `lockDueMoney`). */
export async function lockDueChallenges(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  await store.lockPendingChallengesIssuedThrough(db, tx, scope.programId, scope.nowMs - CHALLENGE_TTL_MS);
}

/**
 * The instants through program time `throughMs` at which a pending challenge times out, earliest
 * first: a clock move stops at each (clock-jobs.ts `runClockJobsAcross`), so that the holds that
 * expired before it are announced before it, and those that expire after it after it.
 */
export async function challengeDeadlinesThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  return (await store.pendingChallengeIssueInstantsThrough(exec, programId, throughMs - CHALLENGE_TTL_MS)).map((issuedMs) => challengeDeadlineMs({ created_ms: issuedMs }));
}

/** Due when the oldest pending challenge has reached its TTL (`dueAfterLifetime`). */
async function checkDueTimeouts(exec: Executor, scope: ProgramScope): Promise<DueCheck> {
  return dueAfterLifetime(await store.oldestPendingChallengeMs(exec, scope.programId), CHALLENGE_TTL_MS, scope.nowMs);
}

/** Pending challenges whose TTL has ended (their clock job: `timeOutChallenges`). */
export const dueChallengeTimeouts: DueWork = { horizon: 'three_ds_challenge_timeout', check: checkDueTimeouts };

export function toApi(row: store.AuthenticationRow): ThreeDsAuthentication {
  const challenged = row.challenge_status !== null;
  const created = isoTimestamp(row.created_ms);
  return {
    token: row.token,
    account_type: 'DEBIT',
    authentication_result: row.authentication_result as ThreeDsAuthentication['authentication_result'],
    card_expiry_check: row.card_expiry_check as ThreeDsAuthentication['card_expiry_check'],
    card_token: row.card_token,
    cardholder: { address_match: null },
    channel: CHANNEL,
    created,
    merchant: { id: row.merchant_id, country: row.merchant_country, mcc: row.merchant_mcc, name: row.merchant_name, risk_indicator: {} },
    message_category: row.message_category as ThreeDsAuthentication['message_category'],
    three_ds_requestor_challenge_indicator: 'NO_PREFERENCE',
    authentication_request_type: 'PAYMENT_TRANSACTION',
    challenge_metadata: challenged ? { method_type: 'SMS_OTP', status: row.challenge_status as ChallengeStatus, phone_number: row.challenge_phone_number } : null,
    challenge_orchestrated_by: challenged ? 'LITHIC' : 'NO_CHALLENGE',
    decision_made_by: row.decision_made_by as ThreeDsAuthentication['decision_made_by'],
    transaction: {
      amount: row.amount_cents,
      cardholder_amount: cardholderAmount(row.amount_cents, row.currency),
      currency: row.currency,
      currency_exponent: currencyExponent(row.currency),
      // EMV 3DS purchaseDate, which the SDK gives as yyyy-MM-dd'T'hh:mm:ssZ: whole seconds.
      date_time: isoSecondTimestamp(row.created_ms),
      type: 'GOODS_SERVICE_PURCHASE',
    },
    additional_data: null,
    app: null,
    browser: UNKNOWN_BROWSER,
    three_ri_request_type: null,
  };
}

async function get(exec: Executor, scope: ProgramScope, token: string): Promise<ThreeDsAuthentication> {
  const row = await store.find(exec, scope.programId, token);
  if (!row) throw notFound('3DS authentication', token);
  return toApi(row);
}

/** GET: what has timed out by the program clock is recorded first. */
export async function retrieve(db: Db, scope: ProgramScope, token: string): Promise<ThreeDsAuthentication> {
  await catchUp(db, scope, dueChallengeTimeouts);
  return get(db.kysely, scope, token);
}
