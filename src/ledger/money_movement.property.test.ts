/**
 * The proof of the ledger: thousands of random, interleaved money operations (transfers and their
 * reversals, management operations now and in the future, payments and every action on them, card
 * authorizations, clearings (partial, full, over), voids, returns, the funds switch, clock moves
 * and the authorization expiries they bring) run against the server and against a tiny reference
 * model (`testing/money_model.ts`). The wall clock stands still, so the program clock moves only
 * with the test and every expiry falls at an instant both sides agree on.
 * After every step, the balances the API reports must equal the model's, and the ledger must be
 * consistent: its entries sum to zero and re-derive every stored balance.
 *
 * A failure prints the seed and path; replay it with MONEY_SEED=<seed> MONEY_PATH=<path>.
 * New kinds of movement come in as new commands below plus their rules in the model; nothing else
 * changes. The card's ISSUING financial account is one of the model's accounts, so transfers,
 * operations and payments fund it too.
 */
import fc from 'fast-check';
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { isoDate, MS_PER_DAY } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { acceptedAccountToken } from '../testing/enrollment.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { MoneyModel, type Outcome, type PaymentAction } from '../testing/money_model.js';
import { LIMITS_OUT_OF_REACH } from '../testing/transactions.js';
import { verifyProgramLedger } from './ledger.js';

/** Three OPERATING financial accounts and the card's ISSUING one (the last). */
const ACCOUNTS = 4;
const ISSUING = ACCOUNTS - 1;
/** Runs × commands ≈ operations per engine: enough for thousands of steps in a few seconds. */
const RUNS = engine === 'postgres' ? 25 : 45;
const MAX_COMMANDS = 100;

interface Real {
  client: Lithic;
  programId: string;
  accounts: string[];
  nowMs: number;
  /** The card whose account's ISSUING financial account is `accounts[ISSUING]`. */
  pan: string;
}

type Command = fc.AsyncCommand<MoneyModel, Real, false>;

/** The status a call answered with, or 422: the only refusal a valid random step may meet. */
async function outcome(call: Promise<{ status: string }>): Promise<Outcome> {
  try {
    return (await call).status;
  } catch (error) {
    if (error instanceof Lithic.APIError && error.status === 422) return 422;
    throw error;
  }
}

const dateOf = (real: Real, daysAhead = 0) => isoDate(real.nowMs + daysAhead * MS_PER_DAY);

class TransferCommand implements Command {
  constructor(readonly from: number, readonly to: number, readonly amountCents: number) {}
  check = () => this.from !== this.to;
  async run(model: MoneyModel, real: Real) {
    const from = real.accounts[this.from] as string;
    const to = real.accounts[this.to] as string;
    const created = await real.client.bookTransfers.create({
      amount: this.amountCents,
      category: 'TRANSFER',
      type: 'ACCOUNT_TO_ACCOUNT',
      subtype: 'random',
      from_financial_account_token: from,
      to_financial_account_token: to,
    });
    expect(created.status).toBe(model.transfer(created.token, from, to, this.amountCents));
  }
  toString = () => `transfer(${this.from}→${this.to}, ${this.amountCents})`;
}

class ReverseTransferCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MoneyModel>) => model.transfers.length > 0;
  async run(model: MoneyModel, real: Real) {
    const transfer = model.transfers[this.pick % model.transfers.length];
    if (!transfer) throw new Error('no transfer to pick');
    const answered = await outcome(real.client.bookTransfers.reverse(transfer.token, {}));
    expect(answered).toBe(model.reverseTransfer(transfer));
  }
  toString = () => `reverseTransfer(#${this.pick})`;
}

class OperationCommand implements Command {
  constructor(readonly account: number, readonly direction: 'CREDIT' | 'DEBIT', readonly amountCents: number, readonly daysAhead: number) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    const account = real.accounts[this.account] as string;
    const effectiveDate = dateOf(real, this.daysAhead);
    const created = await real.client.managementOperations.create({
      amount: this.amountCents,
      category: this.direction === 'CREDIT' ? 'MANAGEMENT_REWARD' : 'MANAGEMENT_FEE',
      direction: this.direction,
      effective_date: effectiveDate,
      event_type: this.direction === 'CREDIT' ? 'CASH_BACK' : 'LATE_PAYMENT',
      financial_account_token: account,
    });
    expect(created.status).toBe(model.operate(created.token, account, this.direction, this.amountCents, effectiveDate));
  }
  toString = () => `operation(${this.account}, ${this.direction}, ${this.amountCents}, +${this.daysAhead}d)`;
}

class ReverseOperationCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MoneyModel>) => model.operations.length > 0;
  async run(model: MoneyModel, real: Real) {
    const operation = model.operations[this.pick % model.operations.length];
    if (!operation) throw new Error('no operation to pick');
    const answered = await outcome(real.client.managementOperations.reverse(operation.token, { effective_date: dateOf(real) }));
    expect(answered).toBe(model.reverseOperation(operation));
  }
  toString = () => `reverseOperation(#${this.pick})`;
}

class PaymentCommand implements Command {
  constructor(
    readonly account: number,
    readonly paymentType: 'DEPOSIT' | 'WITHDRAWAL',
    readonly amountCents: number,
    readonly progressTo: 'SETTLED' | 'RELEASED' | undefined,
  ) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    const account = real.accounts[this.account] as string;
    const created = await real.client.externalPayments.create({
      amount: this.amountCents,
      category: 'EXTERNAL_ACH',
      effective_date: dateOf(real),
      financial_account_token: account,
      payment_type: this.paymentType,
      ...(this.progressTo === undefined ? {} : { progress_to: this.progressTo }),
    });
    expect(created.status).toBe(model.pay(created.token, account, this.paymentType, this.amountCents, this.progressTo));
  }
  toString = () => `payment(${this.account}, ${this.paymentType}, ${this.amountCents}, ${this.progressTo ?? '-'})`;
}

class PaymentActionCommand implements Command {
  constructor(readonly pick: number, readonly action: PaymentAction) {}
  check = (model: Readonly<MoneyModel>) => model.payments.length > 0;
  async run(model: MoneyModel, real: Real) {
    const payment = model.payments[this.pick % model.payments.length];
    if (!payment) throw new Error('no payment to pick');
    const answered = await outcome(real.client.externalPayments[this.action](payment.token, { effective_date: dateOf(real) }));
    expect(answered).toBe(model.act(payment, this.action));
  }
  toString = () => `${this.action}Payment(#${this.pick})`;
}

class AdvanceClockCommand implements Command {
  constructor(readonly hours: number) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    real.nowMs += this.hours * 3_600_000;
    await real.client.post('/v1/simulate/clock', { body: { now: new Date(real.nowMs).toISOString() } });
    model.advanceTo(dateOf(real), real.nowMs);
  }
  toString = () => `advanceClock(${this.hours}h)`;
}

class RequireFundsCommand implements Command {
  constructor(readonly required: boolean) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    await real.client.post('/v1/simulate/program', { body: { require_funds: this.required } });
    model.requireFunds = this.required;
  }
  toString = () => `requireFunds(${this.required})`;
}

/** The status of a card transaction after a simulation on it, or 422. */
async function cardOutcome(real: Real, token: string, call: Promise<unknown>): Promise<Outcome> {
  try {
    await call;
  } catch (error) {
    if (error instanceof Lithic.APIError && error.status === 422) return 422;
    throw error;
  }
  return (await real.client.transactions.retrieve(token)).status;
}

class AuthorizeCommand implements Command {
  constructor(readonly kind: 'AUTHORIZATION' | 'FINANCIAL_AUTHORIZATION', readonly amountCents: number) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    const { token } = await real.client.transactions.simulateAuthorization({ amount: this.amountCents, descriptor: 'MODEL SHOP', pan: real.pan, status: this.kind });
    const created = await real.client.transactions.retrieve(token as string);
    expect(created.status).toBe(model.authorize(created.token, real.accounts[ISSUING] as string, this.kind, this.amountCents, real.nowMs));
  }
  toString = () => `authorize(${this.kind}, ${this.amountCents})`;
}

type ClearMode = 'partial' | 'full' | 'over';

class ClearCommand implements Command {
  constructor(readonly pick: number, readonly mode: ClearMode, readonly extraCents: number) {}
  check = (model: Readonly<MoneyModel>) => model.cardTransactions.length > 0;
  async run(model: MoneyModel, real: Real) {
    const card = model.cardTransactions[this.pick % model.cardTransactions.length];
    if (!card) throw new Error('no card transaction to pick');
    const amount = this.mode === 'full' ? undefined : this.mode === 'partial' ? Math.floor(card.hold_cents / 2) : card.hold_cents + this.extraCents;
    const answered = await cardOutcome(real, card.token, real.client.transactions.simulateClearing({ token: card.token, ...(amount === undefined ? {} : { amount }) }));
    expect(answered).toBe(model.clearCard(card, amount));
  }
  toString = () => `clear(#${this.pick}, ${this.mode}${this.mode === 'over' ? ` +${this.extraCents}` : ''})`;
}

class VoidCommand implements Command {
  constructor(readonly pick: number, readonly mode: 'partial' | 'full' | 'over', readonly cents: number) {}
  check = (model: Readonly<MoneyModel>) => model.cardTransactions.length > 0;
  async run(model: MoneyModel, real: Real) {
    const card = model.cardTransactions[this.pick % model.cardTransactions.length];
    if (!card) throw new Error('no card transaction to pick');
    const amount = this.mode === 'full' ? undefined : this.mode === 'partial' ? 1 + (this.cents % Math.max(card.hold_cents, 1)) : card.hold_cents + 1;
    const answered = await cardOutcome(real, card.token, real.client.transactions.simulateVoid({ token: card.token, ...(amount === undefined ? {} : { amount }) }));
    expect(answered).toBe(model.voidCard(card, amount));
  }
  toString = () => `void(#${this.pick}, ${this.mode}, ${this.cents})`;
}

class CardReturnCommand implements Command {
  constructor(readonly amountCents: number) {}
  check = () => true;
  async run(model: MoneyModel, real: Real) {
    const { token } = await real.client.transactions.simulateReturn({ amount: this.amountCents, descriptor: 'MODEL RETURN', pan: real.pan });
    const created = await real.client.transactions.retrieve(token as string);
    expect(created.status).toBe(model.cardReturn(created.token, real.accounts[ISSUING] as string, this.amountCents, real.nowMs));
  }
  toString = () => `cardReturn(${this.amountCents})`;
}

const account = fc.integer({ min: 0, max: ACCOUNTS - 1 });
const amount = fc.integer({ min: 1, max: 5_000 });
const pick = fc.nat({ max: 1_000 });

const commands = [
  fc.tuple(account, account, amount).map(([from, to, cents]) => new TransferCommand(from, to, cents)),
  pick.map((index) => new ReverseTransferCommand(index)),
  fc
    .tuple(account, fc.constantFrom('CREDIT' as const, 'DEBIT' as const), amount, fc.constantFrom(0, 0, 1, 2))
    .map(([index, direction, cents, days]) => new OperationCommand(index, direction, cents, days)),
  pick.map((index) => new ReverseOperationCommand(index)),
  fc
    .tuple(account, fc.constantFrom('DEPOSIT' as const, 'WITHDRAWAL' as const), amount, fc.constantFrom(undefined, 'SETTLED' as const, 'RELEASED' as const))
    .map(([index, type, cents, progressTo]) => new PaymentCommand(index, type, cents, progressTo)),
  fc
    .tuple(pick, fc.constantFrom<PaymentAction>('settle', 'release', 'release', 'cancel', 'reverse'))
    .map(([index, action]) => new PaymentActionCommand(index, action)),
  fc.integer({ min: 1, max: 36 }).map((hours) => new AdvanceClockCommand(hours)),
  fc.boolean().map((required) => new RequireFundsCommand(required)),
  fc
    .tuple(fc.constantFrom('AUTHORIZATION' as const, 'AUTHORIZATION' as const, 'FINANCIAL_AUTHORIZATION' as const), amount)
    .map(([kind, cents]) => new AuthorizeCommand(kind, cents)),
  fc
    .tuple(pick, fc.constantFrom<ClearMode>('partial', 'full', 'over'), fc.integer({ min: 1, max: 500 }))
    .map(([index, mode, extra]) => new ClearCommand(index, mode, extra)),
  fc
    .tuple(pick, fc.constantFrom('partial' as const, 'full' as const, 'over' as const), fc.nat({ max: 5_000 }))
    .map(([index, mode, cents]) => new VoidCommand(index, mode, cents)),
  amount.map((cents) => new CardReturnCommand(cents)),
];

describeWithDb('money movement against a reference model', () => {
  const clock = frozenWallClock('2032-01-15T12:00:00.000Z');
  const fixture = useTestServer({ wall: clock.wall });

  async function expectAgreement(model: MoneyModel, real: Real): Promise<void> {
    const balances = (await real.client.balances.list()).data;
    for (const [token, expected] of model.balances) {
      const reported = balances.find((balance) => balance.financial_account_token === token);
      expect(reported, token).toBeDefined();
      expect({ available_cents: reported?.available_amount, pending_cents: reported?.pending_amount }, token).toEqual(expected);
      expect(reported?.total_amount).toBe(expected.available_cents + expected.pending_cents);
    }
    expect(await verifyProgramLedger(fixture.server.server.db.kysely, real.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
  }

  it('agrees with the model after every step, and the ledger always balances', async () => {
    const seed = process.env.MONEY_SEED === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(process.env.MONEY_SEED);
    let steps = 0;
    const property = fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: 'max' }), async (sequence) => {
      const program = await fixture.server.newProgram('model');
      const accounts: string[] = [];
      for (let index = 0; index < ISSUING; index++) accounts.push((await program.client.financialAccounts.create({ nickname: `m${index}`, type: 'OPERATING' })).token);
      const accountToken = await acceptedAccountToken(program.client);
      await program.client.accounts.update(accountToken, LIMITS_OUT_OF_REACH);
      const card = await program.client.cards.create({ type: 'VIRTUAL', account_token: accountToken });
      accounts.push(card.funding.token);
      const now = await program.client.get<unknown, { now: string }>('/v1/simulate/clock');
      const real: Real = { client: program.client, programId: program.programId, accounts, nowMs: Date.parse(now.now), pan: card.pan as string };
      const model = new MoneyModel(accounts, dateOf(real));
      const checked = [...sequence].map(
        (command): Command => ({
          check: (state) => command.check(state) === true,
          run: async (state, context) => {
            await command.run(state, context);
            steps++;
            await expectAgreement(state, context);
          },
          toString: () => command.toString(),
        }),
      );
      await fc.asyncModelRun(() => ({ model, real }), checked);
    });
    try {
      await fc.assert(property, {
        numRuns: RUNS,
        seed,
        ...(process.env.MONEY_PATH === undefined ? {} : { path: process.env.MONEY_PATH }),
      });
    } catch (error) {
      console.error(`money model failed: replay with MONEY_SEED=${seed} (fast-check also names the path below)`);
      throw error;
    }
    console.info(`money model: ${steps} steps in ${RUNS} runs agreed (seed ${seed})`);
    expect(steps).toBeGreaterThan(RUNS * 10);
  }, 300_000);
});
