/**
 * Races of different kinds of request on the same accounts and cards, checked request by request.
 * fast-check draws rounds (fixed seeds, so a failure replays); each round starts its groups of
 * requests all at once, and a group may itself race: the same reversal sent twice (with the same
 * Idempotency-Key or not), a clearing and voids of one authorization, settle/release/cancel/reverse
 * of one payment, one transfer sent under one Idempotency-Key several times, a clock move. The
 * card draws on an ISSUING account that requires funds, under a card spend limit and an account
 * daily limit. On PostgreSQL the requests truly overlap; on SQLite writes serialize but interleave.
 *
 * Unlike `mixed_concurrency.test.ts` (one storm, then final states) this keeps what every request
 * was answered and, after every round, holds the ledger to it:
 *  - every journal's entries sum to zero, every balance re-derives from the entries, and each
 *    financial account's balance on the API equals the sum of its entries;
 *  - every 2xx has its effect once (the effect of each resource in the ledger is what its answered
 *    requests add up to), a reversal or payment step answered 200 twice under two keys is a bug, and
 *    a refused request (422, a decline) moved nothing: no journal names a resource the test does not
 *    know;
 *  - available funds never below zero where the API checks every debit, the card's approved spend
 *    within its limit and the account's spend of any trailing 24 hours within its daily limit.
 * Replay one seed with RACES_SEED=<seed>.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { isoDate, MS_PER_DAY, MS_PER_HOUR } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { acceptedAccountToken } from '../testing/enrollment.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { fund } from '../testing/money.js';
import { accountJournals, SystemAccount, verifyProgramLedger } from './ledger.js';

const SEEDS = process.env.RACES_SEED === undefined ? [20_261_124, 1_337, 90_210] : [Number(process.env.RACES_SEED)];
const RUNS_PER_SEED = engine === 'postgres' ? 2 : 3;
const CARD_LIMIT = 2_500;
const DAILY_LIMIT = 4_000;
/** What each financial account is funded with before the races. */
const FUNDS = 3_000;
/** Total clock movement per run stays under the 7 days after which a hold expires. */
const MAX_CLOCK_MS = 6 * MS_PER_DAY;

/** Accounts by index: A (strict), B (loose), ISSUING (strict: funds required for card debits). */
const A = 0;
const B = 1;
const ISSUING = 2;
const STRICT = [A, ISSUING];

type Group =
  | { kind: 'transfer'; from: number; to: number; amount: number }
  | { kind: 'replayedTransfer'; from: number; to: number; amount: number; copies: number }
  | { kind: 'reverseTransfer'; pick: number; keys: number[] }
  | { kind: 'operation'; account: number; direction: 'CREDIT' | 'DEBIT'; amount: number; daysAhead: number }
  | { kind: 'reverseOperation'; pick: number; keys: number[] }
  | { kind: 'payment'; account: number; type: 'DEPOSIT' | 'WITHDRAWAL'; amount: number }
  | { kind: 'paymentSteps'; pick: number; steps: PaymentStep[] }
  | { kind: 'authorize'; card: number; financial: boolean; amount: number; copies: number }
  | { kind: 'cardMessages'; pick: number; messages: CardMessage[] }
  | { kind: 'return'; card: number; amount: number }
  | { kind: 'clock'; hours: number };

type PaymentStep = 'settle' | 'release' | 'cancel' | 'reverse';
/** A clearing or a void, full (no amount) or of a fraction of the authorization. */
interface CardMessage {
  type: 'clear' | 'void';
  fraction: number | undefined;
}

const account = fc.constantFrom(A, B, ISSUING);
const amount = fc.integer({ min: 1, max: 2_500 });
const pick = fc.nat({ max: 1_000 });
/** Copies of one request: equal numbers share an Idempotency-Key. */
const keys = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 });

const group: fc.Arbitrary<Group> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('transfer' as const), from: account, to: account, amount: fc.integer({ min: 1, max: 4_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replayedTransfer' as const), from: account, to: account, amount, copies: fc.integer({ min: 2, max: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('reverseTransfer' as const), pick, keys }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('operation' as const), account, direction: fc.constantFrom('CREDIT' as const, 'DEBIT' as const), amount, daysAhead: fc.constantFrom(0, 0, 1) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverseOperation' as const), pick, keys }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payment' as const), account, type: fc.constantFrom('DEPOSIT' as const, 'WITHDRAWAL' as const), amount }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('paymentSteps' as const), pick, steps: fc.array(fc.constantFrom<PaymentStep>('settle', 'release', 'release', 'cancel', 'reverse'), { minLength: 1, maxLength: 3 }) }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('authorize' as const), card: fc.nat({ max: 1 }), financial: fc.boolean(), amount: fc.integer({ min: 1, max: 1_500 }), copies: fc.integer({ min: 1, max: 4 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('cardMessages' as const),
      pick,
      messages: fc.array(fc.record({ type: fc.constantFrom('clear' as const, 'void' as const), fraction: fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { nil: undefined }) }), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('return' as const), card: fc.nat({ max: 1 }), amount }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clock' as const), hours: fc.integer({ min: 1, max: 30 }) }) },
);
/** Outcomes of every run, by request and answer: to show (and check) that the races were met. */
const tally = new Map<string, number>();
const count = (outcome: string) => tally.set(outcome, (tally.get(outcome) ?? 0) + 1);

const rounds = fc.array(fc.array(group, { minLength: 4, maxLength: 12 }), { minLength: 3, maxLength: 6 });

/** What the test knows of a resource it made: enough to say what its answered requests add up to. */
interface Transfer {
  token: string;
  from: string;
  to: string;
  amount: number;
  settled: boolean;
  /** Idempotency-Keys (or one per request sent without) of reversals answered 200. */
  reversals: Set<string>;
}
interface Operation {
  token: string;
  account: string;
  sign: 1 | -1;
  amount: number;
  created: string;
  reversals: Set<string>;
}
interface Payment {
  token: string;
  account: string;
  deposit: boolean;
  amount: number;
  declined: boolean;
  /** Steps answered 200, each once per request. */
  done: PaymentStep[];
}
interface CardTransaction {
  token: string;
  card: number;
  kind: 'AUTHORIZATION' | 'FINANCIAL_AUTHORIZATION' | 'RETURN';
  amount: number;
  approved: boolean;
  clearings: Array<number | undefined>;
  /** Requested amounts of voids answered 200 (undefined: full). */
  voids: Array<number | undefined>;
}

describeWithDb('different requests racing on the same accounts and cards', () => {
  const clock = frozenWallClock('2034-06-10T15:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  async function runRounds(plan: Group[][]): Promise<number> {
    const program = await context.server.newProgram('races');
    const { client } = program;
    const retrying = new Lithic({ apiKey: program.apiKey, baseURL: context.server.url, maxRetries: 10 });
    const db = context.server.server.db.kysely;
    await client.post('/v1/simulate/program', { body: { require_funds: true } });
    const accounts = [
      (await client.financialAccounts.create({ nickname: 'a', type: 'OPERATING' })).token,
      (await client.financialAccounts.create({ nickname: 'b', type: 'OPERATING' })).token,
    ];
    const accountToken = await acceptedAccountToken(client);
    await client.accounts.update(accountToken, { daily_spend_limit: DAILY_LIMIT });
    const cards = [
      await client.cards.create({ type: 'VIRTUAL', account_token: accountToken, spend_limit: CARD_LIMIT, spend_limit_duration: 'FOREVER' }),
      await client.cards.create({ type: 'VIRTUAL', account_token: accountToken }),
    ];
    accounts.push(cards[0]!.funding.token);
    for (const token of accounts) await fund(client, token, FUNDS);
    const startMs = Date.parse((await client.get<unknown, { now: string }>('/v1/simulate/clock')).now);
    let nowMs = startMs;

    const transfers: Transfer[] = [];
    const operations: Operation[] = [];
    const payments: Payment[] = [];
    const cardTransactions: CardTransaction[] = [];
    const problems: string[] = [];

    /** The answer of a request, or the status it was refused with (only 422, or 409 for a key in flight, may refuse). */
    async function answer<T>(name: string, request: Promise<T>, mayConflict = false): Promise<T | number> {
      try {
        const made = await request;
        count(`${name} 200`);
        return made;
      } catch (error) {
        if (!(error instanceof Lithic.APIError) || error.status === undefined) throw error;
        count(`${name} ${error.status}`);
        if (error.status !== 422 && !(mayConflict && error.status === 409)) problems.push(`${name}: ${error.status} ${JSON.stringify(error.error)}`);
        return error.status;
      }
    }
    const answered = <T>(value: T | number): value is T => typeof value !== 'number';
    const keyed = (copies: number[]) => {
      const byCopy = new Map<number, string>();
      return copies.map((copy) => byCopy.get(copy) ?? (byCopy.set(copy, crypto.randomUUID()).get(copy) as string));
    };

    const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
    const createTransfer = async (from: number, to: number, cents: number, key?: string, sender = client) => {
      const made = await answer(
        'transfer',
        sender.bookTransfers.create({
          amount: cents,
          category: 'TRANSFER',
          type: 'ACCOUNT_TO_ACCOUNT',
          subtype: 'race',
          from_financial_account_token: accounts[from] as string,
          to_financial_account_token: accounts[to] as string,
        }, key === undefined ? {} : withKey(key)),
        sender === retrying,
      );
      return answered(made) ? made : undefined;
    };
    const remember = (made: Lithic.BookTransferResponse, from: number, to: number, cents: number) => {
      if (transfers.some((transfer) => transfer.token === made.token)) return;
      transfers.push({ token: made.token, from: accounts[from] as string, to: accounts[to] as string, amount: cents, settled: made.status === 'SETTLED', reversals: new Set() });
    };

    /** Sends one reversal as copies at once (equal `copies` share a key); notes the key of each answered 200. */
    const reverseRacing = (name: string, copies: number[], reversals: Set<string>, reverse: (key: string) => Promise<unknown>) =>
      Promise.all(
        keyed(copies).map(async (key) => {
          if (answered(await answer(name, reverse(key), true))) reversals.add(key);
        }),
      );

    async function start(g: Group, movedClock: { moved: boolean }): Promise<void> {
      const today = isoDate(nowMs);
      switch (g.kind) {
        case 'transfer': {
          if (g.from === g.to) return;
          const made = await createTransfer(g.from, g.to, g.amount);
          if (made) remember(made, g.from, g.to, g.amount);
          if (made?.status === 'DECLINED') count('transfer declined');
          return;
        }
        case 'replayedTransfer': {
          if (g.from === g.to) return;
          const key = crypto.randomUUID();
          const made = await Promise.all(Array.from({ length: g.copies }, () => createTransfer(g.from, g.to, g.amount, key, retrying)));
          const tokens = new Set(made.flatMap((transfer) => (transfer ? [transfer.token] : [])));
          if (tokens.size !== 1) problems.push(`${g.copies} replays of one Idempotency-Key answered ${tokens.size} different transfers`);
          for (const transfer of made) if (transfer) remember(transfer, g.from, g.to, g.amount);
          return;
        }
        case 'reverseTransfer': {
          // A reversal debits the credited account unchecked: strict accounts are never reversed into.
          const candidates = transfers.filter((transfer) => transfer.to !== accounts[A] && transfer.to !== accounts[ISSUING]);
          const transfer = candidates[g.pick % Math.max(candidates.length, 1)];
          if (transfer) await reverseRacing('reverse transfer', g.keys, transfer.reversals, (key) => retrying.bookTransfers.reverse(transfer.token, {}, withKey(key)));
          return;
        }
        case 'operation': {
          const made = await answer(
            'operation',
            client.managementOperations.create({
              amount: g.amount,
              category: g.direction === 'CREDIT' ? 'MANAGEMENT_REWARD' : 'MANAGEMENT_FEE',
              direction: g.direction,
              effective_date: isoDate(nowMs + g.daysAhead * MS_PER_DAY),
              event_type: g.direction === 'CREDIT' ? 'CASH_BACK' : 'LATE_PAYMENT',
              financial_account_token: accounts[g.account] as string,
            }),
          );
          if (answered(made)) {
            operations.push({ token: made.token, account: accounts[g.account] as string, sign: g.direction === 'CREDIT' ? 1 : -1, amount: g.amount, created: made.status, reversals: new Set() });
          }
          return;
        }
        case 'reverseOperation': {
          // Reversing a credit debits unchecked: only debits are reversed on strict accounts.
          const candidates = operations.filter((operation) => operation.sign === -1 || (operation.account !== accounts[A] && operation.account !== accounts[ISSUING]));
          const operation = candidates[g.pick % Math.max(candidates.length, 1)];
          if (operation) {
            await reverseRacing('reverse operation', g.keys, operation.reversals, (key) => retrying.managementOperations.reverse(operation.token, { effective_date: today }, withKey(key)));
          }
          return;
        }
        case 'payment': {
          const made = await answer(
            'payment',
            client.externalPayments.create({
              amount: g.amount,
              category: 'EXTERNAL_ACH',
              effective_date: today,
              financial_account_token: accounts[g.account] as string,
              payment_type: g.type,
            }),
          );
          if (answered(made)) {
            payments.push({ token: made.token, account: accounts[g.account] as string, deposit: g.type === 'DEPOSIT', amount: g.amount, declined: made.status === 'DECLINED', done: [] });
          }
          return;
        }
        case 'paymentSteps': {
          const payment = payments[g.pick % Math.max(payments.length, 1)];
          if (!payment) return;
          // Reversing a deposit debits unchecked: not on strict accounts.
          const strict = payment.account === accounts[A] || payment.account === accounts[ISSUING];
          const steps = g.steps.filter((step) => step !== 'reverse' || !payment.deposit || !strict);
          await Promise.all(
            steps.map(async (step) => {
              const done = await answer(`${step} payment`, client.externalPayments[step](payment.token, { effective_date: today }));
              if (answered(done)) payment.done.push(step);
            }),
          );
          return;
        }
        case 'authorize': {
          const card = cards[g.card] as Lithic.Card;
          const kind = g.financial ? 'FINANCIAL_AUTHORIZATION' : 'AUTHORIZATION';
          // A burst of equal authorizations at once: the limits and the funds decide them one at a time.
          await Promise.all(
            Array.from({ length: g.copies }, async () => {
              const made = await answer('authorize', client.transactions.simulateAuthorization({ amount: g.amount, descriptor: 'RACE SHOP', pan: card.pan as string, status: kind }));
              if (!answered(made)) return;
              const transaction = await client.transactions.retrieve(made.token as string);
              if (transaction.status === 'DECLINED') count(`authorize declined ${transaction.events?.[0]?.detailed_results?.join('+')}`);
              cardTransactions.push({ token: transaction.token, card: g.card, kind, amount: g.amount, approved: transaction.status !== 'DECLINED', clearings: [], voids: [] });
            }),
          );
          return;
        }
        case 'cardMessages': {
          const candidates = cardTransactions.filter((transaction) => transaction.kind === 'AUTHORIZATION');
          const transaction = candidates[g.pick % Math.max(candidates.length, 1)];
          if (!transaction) return;
          await Promise.all(
            g.messages.map(async ({ type, fraction }) => {
              // Never above the authorization: a clearing above its hold takes funds unchecked.
              const cents = fraction === undefined ? undefined : Math.max(1, Math.floor(transaction.amount * fraction));
              const body = { token: transaction.token, ...(cents === undefined ? {} : { amount: cents }) };
              const done = await answer(type, type === 'clear' ? client.transactions.simulateClearing(body) : client.transactions.simulateVoid(body));
              if (answered(done)) (type === 'clear' ? transaction.clearings : transaction.voids).push(cents);
            }),
          );
          return;
        }
        case 'return': {
          const card = cards[g.card] as Lithic.Card;
          const made = await answer('return', client.transactions.simulateReturn({ amount: g.amount, descriptor: 'RACE RETURN', pan: card.pan as string }));
          if (answered(made)) cardTransactions.push({ token: made.token as string, card: g.card, kind: 'RETURN', amount: g.amount, approved: true, clearings: [], voids: [] });
          return;
        }
        case 'clock': {
          // One move per round (two at once could arrive out of order, a 400 by the CONTRACT).
          const target = nowMs + g.hours * MS_PER_HOUR;
          if (movedClock.moved || target - startMs > MAX_CLOCK_MS) return;
          movedClock.moved = true;
          nowMs = target;
          await answer('clock', client.post('/v1/simulate/clock', { body: { now: new Date(target).toISOString() } }));
          return;
        }
      }
    }

    /** Net change per financial account and bucket of each resource, from the entries. */
    async function ledgerEffects() {
      const effects = new Map<string, Map<string, { available: number; pending: number }>>();
      const journalSums = new Map<string, { available: number; pending: number }>();
      const reported = new Map((await client.balances.list()).data.map((balance) => [balance.financial_account_token, balance]));
      for (const ledgerAccount of [...accounts, ...Object.values(SystemAccount)]) {
        const journals = await accountJournals(db, program.programId, ledgerAccount);
        const sum = { available: 0, pending: 0 };
        for (const journal of journals) {
          sum.available += journal.available_cents;
          sum.pending += journal.pending_cents;
          const perJournal = journalSums.get(journal.journal_token) ?? { available: 0, pending: 0 };
          perJournal.available += journal.available_cents;
          perJournal.pending += journal.pending_cents;
          journalSums.set(journal.journal_token, perJournal);
          const byAccount = effects.get(journal.transaction_token) ?? new Map<string, { available: number; pending: number }>();
          const net = byAccount.get(ledgerAccount) ?? { available: 0, pending: 0 };
          net.available += journal.available_cents;
          net.pending += journal.pending_cents;
          byAccount.set(ledgerAccount, net);
          effects.set(journal.transaction_token, byAccount);
        }
        const balance = reported.get(ledgerAccount);
        if (balance) {
          expect({ available: balance.available_amount, pending: balance.pending_amount }, `balance of ${ledgerAccount} against its entries`).toEqual(sum);
        }
      }
      for (const [index, token] of accounts.entries()) {
        const balance = reported.get(token);
        expect(balance, token).toBeDefined();
        if (STRICT.includes(index)) expect(balance?.available_amount, `available of strict account ${index}`).toBeGreaterThanOrEqual(0);
      }
      // A journal sums to zero over its entries; not per bucket, since a hold moves one account's available to its pending.
      const unbalanced = [...journalSums].filter(([, sum]) => sum.available + sum.pending !== 0);
      expect(unbalanced, 'journals whose entries do not sum to zero').toEqual([]);
      return effects;
    }

    async function check(): Promise<void> {
      expect(problems).toEqual([]);
      expect(await verifyProgramLedger(db, program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
      const effects = await ledgerEffects();
      const known = new Set<string>();
      const effectOf = (token: string, on: string) => {
        known.add(token);
        return effects.get(token)?.get(on) ?? { available: 0, pending: 0 };
      };

      for (const transfer of transfers) {
        const reversed = transfer.reversals.size;
        const final = await client.bookTransfers.retrieve(transfer.token);
        expect(reversed, `transfer ${transfer.token}: reversals answered 200 under different keys`).toBeLessThanOrEqual(1);
        expect({ reversed, status: final.status }, `transfer ${transfer.token}: reversals answered 200`).toEqual({
          reversed: final.status === 'REVERSED' ? 1 : 0,
          status: transfer.settled ? (reversed === 1 ? 'REVERSED' : 'SETTLED') : 'DECLINED',
        });
        const moved = transfer.settled && reversed === 0 ? transfer.amount : 0;
        expect([effectOf(transfer.token, transfer.from), effectOf(transfer.token, transfer.to)], `transfer ${transfer.token}`).toEqual([
          { available: 0 - moved, pending: 0 },
          { available: moved, pending: 0 },
        ]);
      }

      for (const operation of operations) {
        const final = await client.managementOperations.retrieve(operation.token);
        const reversed = operation.reversals.size;
        expect(reversed, `operation ${operation.token}: reversals answered 200 under different keys`).toBeLessThanOrEqual(1);
        expect(reversed, `operation ${operation.token}: reversals answered 200`).toBe(final.status === 'REVERSED' ? 1 : 0);
        if (operation.created !== 'PENDING') expect([operation.created, 'REVERSED'], `operation ${operation.token} was ${operation.created}`).toContain(final.status);
        if (operation.created === 'DECLINED') expect(final.status).toBe('DECLINED');
        expect(effectOf(operation.token, operation.account), `operation ${operation.token} (${final.status})`).toEqual({
          available: final.status === 'SETTLED' ? operation.sign * operation.amount : 0,
          pending: 0,
        });
      }

      for (const payment of payments) {
        const final = await client.externalPayments.retrieve(payment.token);
        const count = (step: PaymentStep) => payment.done.filter((done) => done === step).length;
        for (const step of ['settle', 'release', 'cancel', 'reverse'] as const) expect(count(step), `payment ${payment.token}: ${step} answered 200`).toBeLessThanOrEqual(1);
        const status = payment.declined ? 'DECLINED' : count('reverse') ? 'REVERSED' : count('cancel') ? 'CANCELED' : count('release') ? 'SETTLED' : 'PENDING';
        expect(final.status, `payment ${payment.token} after ${payment.done.join(', ') || 'nothing'}`).toBe(status);
        if (count('cancel')) expect(count('release'), `payment ${payment.token} released and canceled`).toBe(0);
        // Each step answered 200 once, summed: what the ledger must hold for the payment.
        const a = payment.amount;
        const expected = { available: 0, pending: 0 };
        if (!payment.declined) {
          expected.pending += a;
          if (!payment.deposit) expected.available -= a;
          if (count('release')) (expected.pending -= a), (expected.available += payment.deposit ? a : 0);
          if (count('cancel')) (expected.pending -= a), (expected.available += payment.deposit ? 0 : a);
          if (count('reverse')) expected.available += payment.deposit ? -a : a;
        }
        expect(effectOf(payment.token, payment.account), `payment ${payment.token} after ${payment.done.join(', ') || 'nothing'}`).toEqual(expected);
      }

      const spends: Array<{ card: number; createdMs: number; spend: number }> = [];
      for (const transaction of cardTransactions) {
        const final = await client.transactions.retrieve(transaction.token);
        const effect = effectOf(transaction.token, accounts[ISSUING] as string);
        const label = `card transaction ${transaction.token} (${transaction.kind} ${transaction.amount}, clearings ${transaction.clearings}, voids ${transaction.voids})`;
        if (!transaction.approved) {
          expect({ status: final.status, effect, messages: transaction.clearings.length + transaction.voids.length }, label).toEqual({ status: 'DECLINED', effect: { available: 0, pending: 0 }, messages: 0 });
          continue;
        }
        if (transaction.kind === 'RETURN') {
          expect({ status: final.status, effect }, label).toEqual({ status: 'SETTLED', effect: { available: transaction.amount, pending: 0 } });
          continue;
        }
        const types = (final.events ?? []).map((event) => event.type);
        const voided = (final.events ?? []).filter((event) => event.type === 'AUTHORIZATION_REVERSAL').map((event) => Math.abs(event.amount));
        const voidedCents = voided.reduce((sum, cents) => sum + cents, 0);
        expect({ clearings: types.filter((type) => type === 'CLEARING').length, voids: voided.length }, label).toEqual({ clearings: transaction.clearings.length, voids: transaction.voids.length });
        expect(transaction.clearings.length, label).toBeLessThanOrEqual(transaction.kind === 'AUTHORIZATION' ? 1 : 0);
        // A clearing or a full void ends the hold: of those raced on one authorization, one at most is answered 200.
        expect(transaction.clearings.length + transaction.voids.filter((cents) => cents === undefined).length, `${label}: final messages answered 200`).toBeLessThanOrEqual(1);
        for (const cents of transaction.voids) if (cents !== undefined) expect(voided, label).toContain(cents);
        const hold = final.amounts.hold.amount;
        const settled = final.amounts.settlement.amount;
        if (transaction.kind === 'FINANCIAL_AUTHORIZATION') {
          expect({ hold, settled }, label).toEqual({ hold: 0, settled: transaction.amount });
        } else if (transaction.clearings.length === 1) {
          const [cleared] = transaction.clearings;
          expect({ hold, settled, status: final.status }, label).toEqual({ hold: 0, settled: cleared ?? transaction.amount - voidedCents, status: 'SETTLED' });
        } else {
          expect({ hold, settled, status: final.status }, label).toEqual({ hold: transaction.amount - voidedCents, settled: 0, status: hold === 0 ? 'VOIDED' : 'PENDING' });
        }
        expect(effect, label).toEqual({ available: 0 - (hold + settled), pending: hold });
        spends.push({ card: transaction.card, createdMs: Date.parse(final.created), spend: hold + settled });
      }

      const cardSpend = spends.filter((spend) => spend.card === 0).reduce((sum, spend) => sum + spend.spend, 0);
      expect(cardSpend, 'approved spend of the card with a FOREVER limit').toBeLessThanOrEqual(CARD_LIMIT);
      for (const { createdMs } of spends) {
        const trailingDay = spends.filter((spend) => spend.createdMs >= createdMs - MS_PER_DAY && spend.createdMs <= createdMs).reduce((sum, spend) => sum + spend.spend, 0);
        expect(trailingDay, `account spend in the 24 hours to ${new Date(createdMs).toISOString()}`).toBeLessThanOrEqual(DAILY_LIMIT);
      }

      // A refused request moved nothing: every journal is of a resource the test was answered for (or funding).
      const unknown = [...effects.keys()].filter((token) => !known.has(token) && !funding.has(token));
      expect(unknown, 'journals of resources no 2xx made').toEqual([]);
    }

    const funding = new Set<string>();
    for (const token of accounts) for (const journal of await accountJournals(db, program.programId, token)) funding.add(journal.transaction_token);

    let requests = 0;
    for (const round of plan) {
      const movedClock = { moved: false };
      await Promise.all(round.map((g) => start(g, movedClock)));
      requests += round.length;
      await check();
    }
    return requests;
  }

  it('every answer has its effect once, refusals none, and funds and limits hold, whatever the interleaving', async () => {
    let groups = 0;
    for (const seed of SEEDS) {
      try {
        await fc.assert(
          fc.asyncProperty(rounds, async (plan) => {
            groups += await runRounds(plan);
          }),
          { seed, numRuns: RUNS_PER_SEED, endOnFailure: true },
        );
      } catch (error) {
        console.error(`races failed with seed ${seed} on ${engine}: replay with RACES_SEED=${seed}`);
        throw error;
      }
    }
    const summary = [...tally].sort().map(([outcome, times]) => `${outcome}: ${times}`);
    console.info(`races: ${groups} groups of requests in ${SEEDS.length * RUNS_PER_SEED} runs on ${engine}\n  ${summary.join('\n  ')}`);
    expect(groups).toBeGreaterThan(SEEDS.length * RUNS_PER_SEED * 9);
    if (process.env.RACES_SEED === undefined && engine === 'sqlite') {
      // The fixed seeds meet each limit and each refused race at least once. Checked on SQLite,
      // whose serialized writes give the same outcomes run after run; on PostgreSQL the requests
      // truly overlap, so which of two limits or refusals comes first varies (a run met the card
      // limit 2 times, the next 0), and only the invariants above are asserted there.
      const met = ['authorize declined CARD_SPEND_LIMIT_EXCEEDED', 'authorize declined ACCOUNT_DAILY_SPEND_LIMIT_EXCEEDED', 'authorize declined INSUFFICIENT_FUNDS', 'transfer declined', 'reverse transfer 422', 'reverse operation 422', 'clear 422', 'void 422', 'release payment 422', 'cancel payment 422'];
      expect(met.filter((outcome) => !tally.has(outcome)), summary.join('\n')).toEqual([]);
    }
  }, 120_000);
});
