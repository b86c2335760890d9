/**
 * External bank accounts: the program's or an account's accounts at other banks. The account
 * number is stored encrypted and only its last four digits are ever returned; the routing number
 * must pass the ABA checksum (and not be all zeros). An address is checked as an account holder's
 * is (account_holders/rules.ts: USA, a real state code, a ZIP, no PO box), and so is `dob` (not
 * in the future), on create and update. An owner (an account, or the program itself) links a
 * bank account once: the same routing and account number again is a 422 naming the existing
 * record. A funding financial account, when given, must be an OPERATING account (400) of the
 * program itself or of the bank account's account (400) and OPEN (422), on create and on retry.
 * Once the account is CLOSED, its bank accounts are sent no verification and take no amounts (422);
 * a prenote sent before the closing still completes when its wait ends (applyDuePrenotes).
 *
 * Verification (`verification_state`):
 *   MANUAL, EXTERNALLY_VERIFIED, UNVERIFIED → ENABLED at once. `verification_enforcement` is
 *     accepted and checked but not kept: no money moves to an external bank account here, so there
 *     is nothing to enforce (and Lithic's object does not return it).
 *   PLAID → ENABLED at once (Plaid verified the account); its numbers: `plaidSandboxAccount`.
 *   MICRO_DEPOSIT → PENDING. Two deposits of 1–99 cents are sent from the funding OPERATING
 *     account (Lithic: "the operating account to fund the micro deposits") and their sum is drawn
 *     back at once, all through the ledger (kind MICRO_DEPOSIT, net zero). They need the funds: when
 *     the account's available balance is less than the two deposits, nothing is sent (no entries, no
 *     events) and the verification is INSUFFICIENT_FUNDS (Lithic's verification_state for it), its
 *     reason naming the account, so that no balance ever goes below zero, not even between the
 *     deposits and the withdrawal; `retry_micro_deposits`, once the account is funded (or naming
 *     another), sends them. That is how a sandbox user learns them (README): GET /v1/financial_accounts/{funding}/
 *     financial_transactions/{this bank account's token} shows each round as three events in order,
 *     MICRO_DEPOSIT, MICRO_DEPOSIT, MICRO_DEPOSIT_WITHDRAWAL; the amounts are the last two
 *     MICRO_DEPOSIT events'. Submitting them (`micro_deposits`, in either order) makes the account
 *     ENABLED; each submission counts as an attempt, and the third wrong one of a round fails the
 *     verification (FAILED_VERIFICATION). `retry_micro_deposits` sends a new pair, never the previous
 *     one, and starts a new round: three more submissions. `verification_attempts` is what the SDK
 *     documents, "the number of attempts at verification": every submission since creation, never
 *     reset by a retry (the round's own count is kept with its amounts).
 *   PRENOTE → PENDING. A zero-amount prenote is sent; with no return after PRENOTE_WAIT_MS by the
 *     program clock (a sandbox bank never returns one) the account becomes ENABLED: a clock job,
 *     which reads and writes (PATCH, the retries) catch up on first. `retry_prenote` sends a new one.
 * `state` is ENABLED from creation; no endpoint of the API changes it.
 */
import { newToken } from '../ids.js';
import crypto from 'node:crypto';
import { applyDueMoney, applyDueWork, catchUp, type DueWork } from '../clock-jobs.js';
import { MS_PER_DAY, isoTimestamp } from '../clock.js';
import type { Secrets } from '../crypto/secrets.js';
import type { Db, Executor, Tx } from '../db/database.js';
import type { PageParams } from '../db/pagination.js';
import { InvalidRequestError, invariant, notFound, UnprocessableError } from '../errors.js';
import { emitEvent } from '../events/emit.js';
import { checkDateOfBirth, checkUsAddress } from '../account_holders/rules.js';
import { accountNotClosed, accountToOpenFor, lockOpenBalances } from '../financial_accounts/service.js';
import * as financialAccounts from '../financial_accounts/store.js';
import * as accounts from '../accounts/store.js';
import type { ListResponse } from '../http/schemas.js';
import * as ledger from '../ledger/ledger.js';
import { APPROVED, append } from '../money_events/events.js';
import { actingOn, type ProgramScope } from '../programs/scope.js';
import { isValidRoutingNumber, withCheckDigit } from './routing.js';
import type {
  CreateExternalBankAccountBody,
  ExternalBankAccount,
  ListExternalBankAccountsQuery,
  MicroDepositsBody,
  NumberedAccountBody,
  RetryBody,
  UpdateExternalBankAccountBody,
  VerificationMethod,
} from './schemas.js';
import * as store from './store.js';

export const PRENOTE_WAIT_MS = 3 * MS_PER_DAY;
const MAX_MICRO_DEPOSIT_ATTEMPTS = 3;
const MICRO_DEPOSIT_JOURNAL_KIND = 'MICRO_DEPOSIT';
/** The types of a micro-deposit round's events: two deposits, then their sum drawn back. */
const MICRO_DEPOSIT_EVENT = 'MICRO_DEPOSIT';
const MICRO_DEPOSIT_WITHDRAWAL_EVENT = 'MICRO_DEPOSIT_WITHDRAWAL';

/** Methods whose verification goes through the funding account, which they therefore need. */
const BANK_VERIFIED: readonly VerificationMethod[] = ['MANUAL', 'MICRO_DEPOSIT', 'PRENOTE'];

type Row = store.ExternalBankAccountRow;

export function toApi(row: Row): ExternalBankAccount {
  const optional = {
    verification_failed_reason: row.verification_failed_reason,
    address: row.address === null ? null : (JSON.parse(row.address) as ExternalBankAccount['address']),
    company_id: row.company_id,
    dob: row.dob,
    doing_business_as: row.doing_business_as,
    name: row.name,
    user_defined_id: row.user_defined_id,
    financial_account_token: row.financial_account_token,
  };
  return {
    token: row.token,
    account_token: row.account_token,
    country: row.country,
    created: isoTimestamp(row.created_ms),
    currency: row.currency,
    last_four: row.last_four,
    owner: row.owner,
    owner_type: row.owner_type as ExternalBankAccount['owner_type'],
    routing_number: row.routing_number,
    state: row.state as ExternalBankAccount['state'],
    type: row.type as ExternalBankAccount['type'],
    verification_attempts: row.verification_attempts,
    verification_method: row.verification_method as VerificationMethod,
    verification_state: row.verification_state as ExternalBankAccount['verification_state'],
    ...(Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)) as Partial<ExternalBankAccount>),
  };
}

/**
 * The funding account, when given: one of the program's OPERATING accounts, either the program's
 * own (no account_token) or one of the bank account's account (`owner`, null for the program). Another
 * account's is a 400: its ledger would carry (and its financial transactions show, amounts included)
 * the verification of a bank account that is not its own.
 */
async function checkFundingAccount(exec: Executor, programId: string, token: string | undefined, owner: string | null): Promise<void> {
  if (token === undefined) return;
  const account = await financialAccounts.find(exec, programId, token);
  if (!account) throw notFound('financial account', token, 'financial_account_token');
  if (account.type !== 'OPERATING') {
    throw new InvalidRequestError(`financial_account_token: must be an OPERATING financial account (it funds verification), not ${account.type}`);
  }
  if (account.account_token !== null && account.account_token !== owner) {
    throw new InvalidRequestError(
      `financial_account_token: financial account '${token}' belongs to account '${account.account_token}'; only the program's OPERATING accounts or those of ${owner === null ? 'the program' : `account '${owner}'`} fund its verification`,
    );
  }
  if (account.status !== 'OPEN') {
    throw new UnprocessableError(`financial_account_token: financial account '${token}' is ${account.status}; only an OPEN account funds verification`);
  }
}

/**
 * One record per bank account and owner (Lithic answers a second link with the existing record's
 * token): the same routing and account number for the same account, or twice for the program
 * itself, is a 422 naming the record that has them. The owner is locked first (an account by
 * `accountToOpenFor`, before this; the program here), so of concurrent creates of one bank account
 * only the first succeeds.
 */
async function refuseDuplicate(db: Db, tx: Tx, programId: string, secrets: Secrets, accountToken: string | null, bank: BankAccount): Promise<void> {
  if (accountToken === null) await store.lockProgram(db, tx, programId);
  const lastFour = bank.account_number.slice(-4);
  for (const candidate of await store.findByRoutingAndLastFour(tx, programId, accountToken, bank.routing_number, lastFour)) {
    if (secrets.decrypt(candidate.account_number_encrypted) === bank.account_number) {
      throw new UnprocessableError(
        `account_number: external bank account '${candidate.token}' already has this routing_number and account_number for ${accountToken === null ? 'the program' : `account '${accountToken}'`}`,
      );
    }
  }
}

/** The submitted amounts match the sent ones in either order: a user sees two deposits with no inherent order. */
function sameAmounts(given: readonly number[], sent: readonly number[]): boolean {
  const ascending = (amounts: readonly number[]) => [...amounts].sort((a, b) => a - b);
  const [left, right] = [ascending(given), ascending(sent)];
  return left.length === right.length && left.every((amount, index) => amount === right[index]);
}

/** A round of micro-deposits: the amounts sent, and `verification_attempts` when it was sent (its submissions are the ones since). */
interface Round {
  amounts: number[];
  attempts_before: number;
}

function sentRound(secrets: Secrets, row: Row): Round | undefined {
  if (row.micro_deposits_encrypted === null) return undefined;
  const stored = JSON.parse(secrets.decrypt(row.micro_deposits_encrypted)) as Round | number[];
  // A bare array: a round sent when a retry still reset the attempts to 0, so it began at 0.
  return Array.isArray(stored) ? { amounts: stored, attempts_before: 0 } : stored;
}

/** Two amounts of 1–99 cents, never the pair of the round before: after a retry the old amounts do not verify. */
function drawAmounts(previous: readonly number[] | undefined): [number, number] {
  for (;;) {
    const amounts: [number, number] = [crypto.randomInt(1, 100), crypto.randomInt(1, 100)];
    if (previous === undefined || !sameAmounts(amounts, previous)) return amounts;
  }
}

/**
 * Sends two micro-deposits from the funding account and draws their sum back: three journals of
 * kind MICRO_DEPOSIT, net zero for the account, each with its event on the transaction that has
 * the bank account's token (MICRO_DEPOSIT, MICRO_DEPOSIT, MICRO_DEPOSIT_WITHDRAWAL). The events
 * number them in that order, which is the order the financial transaction shows even when the
 * program clock stands still. Returns the amounts, to be stored encrypted; or, when the account's
 * available balance (due money applied, balance locked) cannot pay both deposits, the cents it has,
 * having sent nothing.
 */
async function sendMicroDeposits(
  db: Db,
  tx: Tx,
  scope: ProgramScope,
  row: Row,
  fundingToken: string,
  previous: number[] | undefined,
): Promise<{ sent: [number, number] } | { availableCents: number }> {
  const amounts = drawAmounts(previous);
  await applyDueMoney(db, tx, scope, [fundingToken]);
  const balances = await lockOpenBalances(tx, scope.programId, [{ token: fundingToken, field: 'financial_account_token' }]);
  const availableCents = ledger.availableCents(balances, fundingToken);
  if (availableCents < amounts[0] + amounts[1]) return { availableCents };
  // Never before the funding account's last movement (ledger.lastMovedMs).
  const { nowMs } = actingOn(scope, ledger.lastMovedMs(balances));
  const move = async (type: string, amountCents: number) => {
    const event = await append(
      tx,
      scope.programId,
      row.token,
      { type, amount_cents: Math.abs(amountCents), result: 'APPROVED', detailed_results: APPROVED },
      nowMs,
    );
    await ledger.post(
      tx,
      scope.programId,
      {
        kind: MICRO_DEPOSIT_JOURNAL_KIND,
        transaction_token: row.token,
        event_token: event.token,
        postings: [
          { account: fundingToken, bucket: 'available', amount_cents: amountCents },
          { account: ledger.SystemAccount.EXTERNAL_BANKS, bucket: 'available', amount_cents: -amountCents },
        ],
      },
      nowMs,
    );
  };
  await move(MICRO_DEPOSIT_EVENT, -amounts[0]);
  await move(MICRO_DEPOSIT_EVENT, -amounts[1]);
  await move(MICRO_DEPOSIT_WITHDRAWAL_EVENT, amounts[0] + amounts[1]);
  return { sent: amounts };
}

/** What starting (or restarting) verification by `method` sets on the row. */
async function startVerification(db: Db, tx: Tx, scope: ProgramScope, row: Row, fundingToken: string | null, secrets: Secrets): Promise<store.Changes> {
  // Not `verification_attempts`: it counts every attempt at verification, those before a retry too.
  const reset = { verification_failed_reason: null, micro_deposits_encrypted: null, prenote_due_ms: null };
  switch (row.verification_method as VerificationMethod) {
    case 'MICRO_DEPOSIT': {
      invariant(fundingToken !== null, 'micro-deposits need a funding account');
      const sending = await sendMicroDeposits(db, tx, scope, row, fundingToken, sentRound(secrets, row)?.amounts);
      if ('availableCents' in sending) {
        // The last round sent stays, so that the next pair sent is never it again (`drawAmounts`).
        return {
          ...reset,
          micro_deposits_encrypted: row.micro_deposits_encrypted,
          verification_state: 'INSUFFICIENT_FUNDS',
          verification_failed_reason: `financial account '${fundingToken}' has ${sending.availableCents} cents available, too little to send the micro-deposits; fund it and retry`,
        };
      }
      const round: Round = { amounts: sending.sent, attempts_before: row.verification_attempts };
      return { ...reset, verification_state: 'PENDING', micro_deposits_encrypted: secrets.encrypt(JSON.stringify(round)) };
    }
    case 'PRENOTE':
      return { ...reset, verification_state: 'PENDING', prenote_due_ms: scope.nowMs + PRENOTE_WAIT_MS };
    default:
      return { ...reset, verification_state: 'ENABLED' };
  }
}

/** What a create body says of the bank account itself (the rest is about its owner). */
type BankAccount = Pick<
  NumberedAccountBody,
  'account_number' | 'country' | 'currency' | 'routing_number' | 'type' | 'financial_account_token' | 'address' | 'name'
>;

/**
 * PLAID: Lithic redeems the processor token with Plaid for the account's numbers. A sandbox cannot,
 * so it derives them from the token's SHA-256: the same token always names the same account, a US
 * checking account in USD with a 12-digit account number (stored encrypted, like any) and a routing
 * number that starts 01–09 (a Federal Reserve district) and passes the ABA checksum. The token
 * itself is not kept.
 */
function plaidSandboxAccount(processorToken: string): BankAccount {
  const digits = Array.from(crypto.createHash('sha256').update(processorToken).digest(), (byte) => byte % 10).join('');
  return {
    account_number: digits.slice(0, 12),
    routing_number: withCheckDigit(`0${1 + (Number(digits[12]) % 9)}${digits.slice(13, 19)}`),
    country: 'USA',
    currency: 'USD',
    type: 'CHECKING',
  };
}

/** The bank account a create body names: its numbers, checked, or those a Plaid processor token stands for. */
function bankAccountOf(body: CreateExternalBankAccountBody): BankAccount {
  if (body.verification_method === 'PLAID') return plaidSandboxAccount(body.processor_token);
  if (body.address !== undefined) checkUsAddress('address', body.address);
  if (!isValidRoutingNumber(body.routing_number)) throw new InvalidRequestError('routing_number: is not a valid ABA routing number (its checksum fails, or it is all zeros)');
  if (BANK_VERIFIED.includes(body.verification_method) && body.financial_account_token === undefined) {
    throw new InvalidRequestError(`financial_account_token: is required for verification_method ${body.verification_method}`);
  }
  return body;
}

export async function create(db: Db, tx: Tx, scope: ProgramScope, secrets: Secrets, body: CreateExternalBankAccountBody): Promise<ExternalBankAccount> {
  const { programId, nowMs } = scope;
  const bank = bankAccountOf(body);
  if (body.dob !== undefined) checkDateOfBirth('dob', body.dob, nowMs);
  if (body.account_token !== undefined) await accountToOpenFor(db, tx, programId, body.account_token, 'external bank account');
  await checkFundingAccount(tx, programId, bank.financial_account_token, body.account_token ?? null);
  await refuseDuplicate(db, tx, programId, secrets, body.account_token ?? null, bank);
  let row: Row = {
    program_id: programId,
    token: newToken(),
    account_token: body.account_token ?? null,
    financial_account_token: bank.financial_account_token ?? null,
    country: bank.country,
    currency: bank.currency,
    account_number_encrypted: secrets.encrypt(bank.account_number),
    last_four: bank.account_number.slice(-4),
    owner: body.owner,
    owner_type: body.owner_type,
    routing_number: bank.routing_number,
    state: 'ENABLED',
    type: bank.type,
    verification_attempts: 0,
    verification_method: body.verification_method,
    verification_state: 'PENDING',
    verification_failed_reason: null,
    micro_deposits_encrypted: null,
    prenote_due_ms: null,
    address: bank.address === undefined ? null : JSON.stringify(bank.address),
    company_id: body.company_id ?? null,
    dob: body.dob ?? null,
    doing_business_as: body.doing_business_as ?? null,
    name: bank.name ?? null,
    user_defined_id: body.user_defined_id ?? null,
    created_ms: nowMs,
    updated_ms: nowMs,
  };
  await store.insert(tx, row);
  const started = await startVerification(db, tx, scope, row, row.financial_account_token, secrets);
  await store.update(tx, programId, row.token, started, nowMs);
  row = { ...row, ...started };
  return recorded(tx, scope, 'external_bank_account.created', row);
}

/** Records the event of a change (the account as GET answers it, Lithic's payload) and answers that account. */
async function recorded(tx: Tx, scope: ProgramScope, eventType: 'external_bank_account.created' | 'external_bank_account.updated', row: Row): Promise<ExternalBankAccount> {
  const account = toApi(row);
  await emitEvent(tx, scope.programId, eventType, account, scope.nowMs);
  return account;
}

async function findOrThrow(exec: Executor, programId: string, token: string): Promise<Row> {
  return foundOrThrow(await store.find(exec, programId, token), token);
}

async function lockOrThrow(db: Db, tx: Tx, programId: string, token: string): Promise<Row> {
  return foundOrThrow(await store.lock(db, tx, programId, token), token);
}

/**
 * Locks the bank account's account, if it has one (read first, unlocked: it never changes), before
 * anything else: a write on the bank account that checks its account (`refuseClosedOwner`) takes
 * the account's row first, as an authorization on one of its cards does before the rows the clock
 * jobs take (due prenotes among them: transactions/service.ts `findCard`). 404 when there is no
 * such bank account. The bank account itself is locked after (and after any due work run first).
 */
async function lockOwnerOf(db: Db, tx: Tx, programId: string, token: string): Promise<void> {
  const { account_token: owner } = await findOrThrow(tx, programId, token);
  if (owner !== null) await accounts.lock(db, tx, programId, owner);
}

function foundOrThrow(row: Row | undefined, token: string): Row {
  if (!row) throw notFound('external bank account', token);
  return row;
}

/**
 * 422 when the bank account's account is CLOSED (final: nothing new that can move money is opened
 * for it, as creating a bank account for it is refused): no verification is sent or taken. A
 * prenote already sent still completes by the clock job: no documented rule stops it, and an
 * ENABLED bank account moves no money here.
 * The account row is locked (before the bank account's: `lockOwnerOf`), so a closing cannot slip in before commit.
 * A PATCH is not refused: its fields describe the bank account and move nothing.
 */
async function refuseClosedOwner(db: Db, tx: Tx, row: Row, refused: string): Promise<void> {
  if (row.account_token !== null) await accountNotClosed(db, tx, row.program_id, row.account_token, refused);
}

/**
 * PATCH: only the fields whose value differs are a change (an address equal but for the order of its
 * keys is none). No change writes nothing and records no event; a change is never dated before the
 * account's last one (a request that saw a moved clock may have made it). The row is locked, so
 * the answer and its event show the verification as a concurrent one left it.
 */
export async function update(db: Db, tx: Tx, requestScope: ProgramScope, token: string, body: UpdateExternalBankAccountBody): Promise<ExternalBankAccount> {
  if (body.address !== undefined) checkUsAddress('address', body.address);
  if (body.dob !== undefined) checkDateOfBirth('dob', body.dob, requestScope.nowMs);
  await enableDuePrenotesWithin(db, tx, requestScope);
  const row = await lockOrThrow(db, tx, requestScope.programId, token);
  const changes = changedFields(row, body);
  if (Object.keys(changes).length === 0) return toApi(row);
  const scope = actingOn(requestScope, row.updated_ms);
  await store.update(tx, scope.programId, token, changes, scope.nowMs);
  return recorded(tx, scope, 'external_bank_account.updated', { ...row, ...changes, updated_ms: scope.nowMs });
}

function changedFields(row: store.ExternalBankAccountRow, body: UpdateExternalBankAccountBody): store.Changes {
  const { address, ...fields } = body;
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) if (row[field as keyof typeof fields] !== value) changes[field] = value;
  if (address !== undefined && !sameAddress(row.address, address)) changes['address'] = JSON.stringify(address);
  return changes as store.Changes;
}

function sameAddress(stored: string | null, given: object): boolean {
  if (stored === null) return false;
  const sorted = (address: object) => JSON.stringify(Object.entries(address).sort(([a], [b]) => (a < b ? -1 : 1)));
  return sorted(JSON.parse(stored) as object) === sorted(given);
}

/**
 * Checks the submitted micro-deposit amounts (in any order). A wrong answer is an attempt, not an
 * error. The row is locked (after its account's: `lockOwnerOf`) before it is read, so concurrent
 * submissions each count (as do retries, below), and the attempt is never dated before the
 * account's last change (as a PATCH is not).
 */
export async function verifyMicroDeposits(
  db: Db,
  tx: Tx,
  requestScope: ProgramScope,
  secrets: Secrets,
  token: string,
  body: MicroDepositsBody,
): Promise<ExternalBankAccount> {
  await lockOwnerOf(db, tx, requestScope.programId, token);
  const row = await lockOrThrow(db, tx, requestScope.programId, token);
  const scope = actingOn(requestScope, row.updated_ms);
  const round = sentRound(secrets, row);
  if (row.verification_method !== 'MICRO_DEPOSIT' || row.verification_state !== 'PENDING' || round === undefined) {
    throw new UnprocessableError(
      `external bank account '${token}' is ${row.verification_method} with verification_state ${row.verification_state}; only a PENDING MICRO_DEPOSIT verification takes amounts`,
    );
  }
  await refuseClosedOwner(db, tx, row, `its external bank account '${token}' can no longer be verified`);
  const attempts = row.verification_attempts + 1;
  const attemptsThisRound = attempts - round.attempts_before;
  let changes: store.Changes;
  if (sameAmounts(body.micro_deposits, round.amounts)) {
    changes = { verification_attempts: attempts, verification_state: 'ENABLED', micro_deposits_encrypted: null };
  } else if (attemptsThisRound >= MAX_MICRO_DEPOSIT_ATTEMPTS) {
    changes = {
      verification_attempts: attempts,
      verification_state: 'FAILED_VERIFICATION',
      verification_failed_reason: `micro-deposit amounts were wrong ${attemptsThisRound} times`,
    };
  } else {
    changes = { verification_attempts: attempts };
  }
  await store.update(tx, scope.programId, token, changes, scope.nowMs);
  return recorded(tx, scope, 'external_bank_account.updated', { ...row, ...changes, updated_ms: scope.nowMs });
}

/**
 * retry_micro_deposits / retry_prenote: a PENDING, failed or INSUFFICIENT_FUNDS verification of that method starts over,
 * never dated (nor its deposits or prenote wait) before the account's last change.
 */
export async function retry(
  db: Db,
  tx: Tx,
  requestScope: ProgramScope,
  secrets: Secrets,
  token: string,
  method: 'MICRO_DEPOSIT' | 'PRENOTE',
  body: RetryBody,
): Promise<ExternalBankAccount> {
  await lockOwnerOf(db, tx, requestScope.programId, token);
  await enableDuePrenotesWithin(db, tx, requestScope);
  const row = await lockOrThrow(db, tx, requestScope.programId, token);
  const scope = actingOn(requestScope, row.updated_ms);
  if (row.verification_method !== method || !['PENDING', 'FAILED_VERIFICATION', 'INSUFFICIENT_FUNDS'].includes(row.verification_state)) {
    throw new UnprocessableError(
      `external bank account '${token}' is ${row.verification_method} with verification_state ${row.verification_state}; only a PENDING, FAILED_VERIFICATION or INSUFFICIENT_FUNDS ${method} verification can be retried`,
    );
  }
  await refuseClosedOwner(db, tx, row, `its external bank account '${token}' sends no ${method === 'MICRO_DEPOSIT' ? 'micro-deposits' : 'prenote'}`);
  const fundingToken = body.financial_account_token ?? row.financial_account_token;
  await checkFundingAccount(tx, scope.programId, fundingToken ?? undefined, row.account_token);
  const started = { ...(await startVerification(db, tx, scope, row, fundingToken, secrets)), financial_account_token: fundingToken };
  await store.update(tx, scope.programId, token, started, scope.nowMs);
  return recorded(tx, scope, 'external_bank_account.updated', { ...row, ...started, updated_ms: scope.nowMs });
}

/**
 * The clock job: PENDING prenotes whose wait is over become ENABLED, dated when the wait ended (never
 * before the account's last change), however late the job runs. Idempotent (conditional update).
 */
export async function applyDuePrenotes(_db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  for (const due of await store.duePrenotes(tx, scope.programId, scope.nowMs)) {
    const enabledAt = actingOn({ ...scope, nowMs: due.prenote_due_ms }, due.updated_ms);
    if ((await store.enableDuePrenote(tx, scope.programId, due.token, due.prenote_due_ms, enabledAt.nowMs)) === 0) continue;
    await recorded(tx, enabledAt, 'external_bank_account.updated', await findOrThrow(tx, scope.programId, due.token));
  }
}

/** Locks the prenotes `applyDuePrenotes` would enable now, before a write locks balances (clock-jobs.ts `lockDueMoney`). */
export async function lockDuePrenotes(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  await store.lockDuePrenotes(db, tx, scope.programId, scope.nowMs);
}

/** The instants through program time `throughMs` at which a prenote falls due, earliest first. */
export function prenoteInstantsThrough(exec: Executor, programId: string, throughMs: number): Promise<number[]> {
  return store.prenoteDueInstantsThrough(exec, programId, throughMs);
}

export const duePrenotes: DueWork = {
  check: async (exec: Executor, scope: ProgramScope) => ({ due: (await store.duePrenotes(exec, scope.programId, scope.nowMs, 1)).length > 0 }),
};

/**
 * For a write, at the start of its transaction: prenotes whose wait ended since the last sweep or
 * read are ENABLED first (as a read would show them, with what fell due before them), so a
 * retry_prenote of one is refused and a PATCH answers and announces the state it has.
 */
function enableDuePrenotesWithin(db: Db, tx: Tx, scope: ProgramScope): Promise<void> {
  return applyDueWork(db, tx, scope, duePrenotes);
}

export async function get(db: Db, scope: ProgramScope, token: string): Promise<ExternalBankAccount> {
  await catchUp(db, scope, duePrenotes);
  return toApi(await findOrThrow(db.kysely, scope.programId, token));
}

export async function list(db: Db, scope: ProgramScope, query: ListExternalBankAccountsQuery): Promise<ListResponse<ExternalBankAccount>> {
  await catchUp(db, scope, duePrenotes);
  const { page_size, starting_after, ending_before, ...filters } = query;
  const page: PageParams = { page_size, starting_after, ending_before };
  const { rows, has_more } = await store.list(db.kysely, scope.programId, filters, page);
  return { data: rows.map(toApi), has_more };
}
