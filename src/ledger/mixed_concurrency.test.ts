/**
 * Mixed operations under concurrency: a seeded storm of every kind of money movement at once on a
 * few shared financial accounts and cards (book transfers and reversals, management operations now
 * and in the future and their reversals, external payments with settle/release/cancel/reverse
 * racing each other on one payment, card authorizations, clearings, voids, returns), with
 * financial account status changes, card state changes and clock moves in the middle. The mix of
 * requests comes from the seed (CW_STORM_SEED to replay one); their interleaving is the engine's.
 * On PostgreSQL the requests truly overlap (a pool of connections); on SQLite they go through its
 * single writer.
 *
 * After the storm, whatever the interleaving:
 *  - no request got anything but 200 or 422 (never a 5xx);
 *  - balances the API reports equal the balance rows, which equal what the entries sum to, and all
 *    entries sum to zero;
 *  - accounts whose every debit is funds-checked (`strict`: the storm never reverses a credit into
 *    them nor clears a card transaction above its hold) never showed a negative available balance,
 *    neither to a reader during the storm nor at the end; a CLOSED account holds no money;
 *  - every transfer, operation, payment and card transaction is in a final state consistent with
 *    its events and with the journals the ledger holds for it (a DECLINED one moved no money).
 */
import Lithic from 'lithic';
import { expect, it } from 'vitest';
import { isoDate, MS_PER_DAY } from '../clock.js';
import { frozenWallClock } from '../testing/clock.js';
import { acceptedAccountToken } from '../testing/enrollment.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { fund } from '../testing/money.js';
import { seededRandom } from '../testing/random.js';
import { accountJournals, verifyProgramLedger, type AccountJournal } from './ledger.js';

const STEPS = 400;
const LANES = 12;
const CLOCK_MOVES = 10;
const CLOCK_STEP_MS = 20 * 3_600_000;

interface Account {
  token: string;
  /** Every debit of it is funds-checked: its available balance may never be negative. */
  strict: boolean;
}

interface CardOf {
  token: string;
  pan: string;
  account: Account;
}

interface Made {
  token: string;
  /** The account whose funds a reversal would take without a check, if any (strict ones are never reversed). */
  reversible: boolean;
}

describeWithDb('mixed money movements under concurrency', () => {
  const clock = frozenWallClock('2033-03-07T12:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  it('a seeded storm of every movement at once leaves every balance, journal and state consistent', async () => {
    const seed = process.env.CW_STORM_SEED === undefined ? 20_330_307 : Number(process.env.CW_STORM_SEED);
    const next = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
    const amount = (max = 3_000) => 1 + Math.floor(next() * max);

    const program = await context.server.newProgram('storm');
    const { client } = program;
    await client.post('/v1/simulate/program', { body: { require_funds: true } });
    let nowMs = Date.parse((await client.get<unknown, { now: string }>('/v1/simulate/clock')).now);
    const today = (daysAhead = 0) => isoDate(nowMs + daysAhead * MS_PER_DAY);

    const operating = async (nickname: string, strict: boolean, cents: number): Promise<Account> => {
      const token = (await client.financialAccounts.create({ nickname, type: 'OPERATING' })).token;
      if (cents > 0) await fund(client, token, cents);
      return { token, strict };
    };
    const cardsOn = async (strict: boolean, cents: number, count: number): Promise<CardOf[]> => {
      const accountToken = await acceptedAccountToken(client);
      const cards: CardOf[] = [];
      for (let index = 0; index < count; index++) {
        const card = await client.cards.create({ type: 'VIRTUAL', account_token: accountToken });
        cards.push({ token: card.token, pan: card.pan as string, account: { token: card.funding.token, strict } });
      }
      const issuing = (cards[0] as CardOf).account;
      if (cents > 0) await fund(client, issuing.token, cents);
      return cards;
    };
    const accounts = [
      await operating('strict 1', true, 40_000),
      await operating('strict 2', true, 40_000),
      await operating('loose 1', false, 40_000),
      await operating('loose 2', false, 40_000),
    ];
    /** Starts empty: closing it races transfers into it (some with USE_SUSPENSE). */
    const closable = await operating('closable', false, 0);
    const strictCards = await cardsOn(true, 30_000, 2);
    const looseCards = await cardsOn(false, 30_000, 2);
    /** A card on an empty ISSUING account: closed, then its returns race the account's closing. */
    const [lastCard] = await cardsOn(false, 0, 1);
    const cards = [...strictCards, ...looseCards];
    const movable = [...accounts, (strictCards[0] as CardOf).account, (looseCards[0] as CardOf).account];
    const everyAccount = [...movable, closable, (lastCard as CardOf).account];
    const strictTokens = new Set(everyAccount.filter((account) => account.strict).map((account) => account.token));

    const statuses = new Map<string, number>();
    const problems: string[] = [];
    async function call<T>(name: string, request: Promise<T>): Promise<T | undefined> {
      try {
        const answer = await request;
        statuses.set(`${name} 200`, (statuses.get(`${name} 200`) ?? 0) + 1);
        return answer;
      } catch (error) {
        if (!(error instanceof Lithic.APIError)) throw error;
        statuses.set(`${name} ${error.status}`, (statuses.get(`${name} ${error.status}`) ?? 0) + 1);
        if (error.status !== 422) problems.push(`${name}: ${error.status} ${JSON.stringify(error.error)}`);
        return undefined;
      }
    }

    const transfers: Made[] = [];
    const operations: Made[] = [];
    const payments: Made[] = [];
    const authorizations: Array<{ token: string; strict: boolean }> = [];
    const returns: string[] = [];
    const cardTransactions: string[] = [];

    /** Calls `request` and, when it answers, remembers what it made. */
    const keep = async (list: Made[], name: string, request: Promise<{ token: string }>, reversible: boolean) => {
      const made = await call(name, request);
      if (made) list.push({ token: made.token, reversible });
    };
    const transfer = (from: Account, to: Account, extra: Partial<Lithic.BookTransferCreateParams> = {}) =>
      keep(
        transfers,
        'transfer',
        client.bookTransfers.create({
          amount: amount(),
          category: 'TRANSFER',
          type: 'ACCOUNT_TO_ACCOUNT',
          subtype: 'storm',
          from_financial_account_token: from.token,
          to_financial_account_token: to.token,
          ...extra,
        }),
        !to.strict,
      );

    /** Reverses one of `made` that may be reversed, sometimes twice at once. */
    const reverseOneOf = async (made: readonly Made[], name: string, reverse: (token: string) => Promise<unknown>) => {
      const chosen = pick(made.filter((candidate) => candidate.reversible));
      if (!chosen) return;
      await Promise.all(Array.from({ length: next() < 0.3 ? 2 : 1 }, () => call(name, reverse(chosen.token))));
    };

    /** One step of the storm: a request, or a few that race on the same resource. */
    const steps: Array<[weight: number, run: () => Promise<unknown>]> = [
      [
        6,
        async () => {
          const from = pick(movable) as Account;
          const to = pick(movable.filter((account) => account !== from)) as Account;
          await transfer(from, to);
        },
      ],
      [1, () => transfer(pick(movable) as Account, closable, next() < 0.5 ? { on_closed_account: 'USE_SUSPENSE' } : {})],
      [
        3,
        () => reverseOneOf(transfers, 'reverse transfer', (token) => client.bookTransfers.reverse(token, {})),
      ],
      [
        4,
        async () => {
          const account = pick(movable) as Account;
          const direction = next() < 0.5 ? 'CREDIT' : 'DEBIT';
          await keep(
            operations,
            'operation',
            client.managementOperations.create({
              amount: amount(),
              category: direction === 'CREDIT' ? 'MANAGEMENT_REWARD' : 'MANAGEMENT_FEE',
              direction,
              effective_date: today(pick([0, 0, 1, 2]) as number),
              event_type: direction === 'CREDIT' ? 'CASH_BACK' : 'LATE_PAYMENT',
              financial_account_token: account.token,
            }),
            direction === 'DEBIT' || !account.strict,
          );
        },
      ],
      [
        2,
        () => reverseOneOf(operations, 'reverse operation', (token) => client.managementOperations.reverse(token, { effective_date: today() })),
      ],
      [
        4,
        async () => {
          const account = pick(movable) as Account;
          const paymentType = next() < 0.5 ? 'DEPOSIT' : 'WITHDRAWAL';
          await keep(
            payments,
            'payment',
            client.externalPayments.create({
              amount: amount(),
              category: 'EXTERNAL_ACH',
              effective_date: today(),
              financial_account_token: account.token,
              payment_type: paymentType,
              ...(next() < 0.3 ? { progress_to: pick(['SETTLED', 'RELEASED'] as const) } : {}),
            }),
            paymentType === 'WITHDRAWAL' || !account.strict,
          );
        },
      ],
      [
        4,
        async () => {
          const chosen = pick(payments);
          if (!chosen) return;
          const actions = (['settle', 'release', 'cancel', 'reverse'] as const).filter((action) => action !== 'reverse' || chosen.reversible);
          const racing = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(actions) as (typeof actions)[number]);
          await Promise.all(racing.map((action) => call(`${action} payment`, client.externalPayments[action](chosen.token, { effective_date: today() }))));
        },
      ],
      [
        6,
        async () => {
          const card = pick(cards) as CardOf;
          const kind = next() < 0.8 ? 'AUTHORIZATION' : 'FINANCIAL_AUTHORIZATION';
          const made = await call('authorize', client.transactions.simulateAuthorization({ amount: amount(2_000), descriptor: 'STORM SHOP', pan: card.pan, status: kind }));
          if (!made) return;
          cardTransactions.push(made.token as string);
          if (kind === 'AUTHORIZATION') authorizations.push({ token: made.token as string, strict: card.account.strict });
        },
      ],
      [
        4,
        async () => {
          const chosen = pick(authorizations);
          if (!chosen) return;
          // Strict accounts are cleared at most their hold (an over-clearing takes funds unchecked).
          const clearing = () => (chosen.strict || next() < 0.5 ? {} : { amount: amount(2_500) });
          const voiding = () => (next() < 0.5 ? {} : { amount: amount(1_000) });
          const racing = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
            next() < 0.5
              ? call('clear', client.transactions.simulateClearing({ token: chosen.token, ...clearing() }))
              : call('void', client.transactions.simulateVoid({ token: chosen.token, ...voiding() })),
          );
          await Promise.all(racing);
        },
      ],
      [
        2,
        async () => {
          const card = pick(cards) as CardOf;
          const made = await call('return', client.transactions.simulateReturn({ amount: amount(1_000), descriptor: 'STORM RETURN', pan: card.pan }));
          if (!made) return;
          cardTransactions.push(made.token as string);
          if (!card.account.strict) returns.push(made.token as string);
        },
      ],
      [
        1,
        async () => {
          const chosen = pick(returns);
          if (chosen) await call('reverse return', client.transactions.simulateReturnReversal({ token: chosen }));
        },
      ],
      [
        1,
        async () => {
          const account = pick(movable) as Account;
          await call('suspend', client.financialAccounts.updateStatus(account.token, { status: 'SUSPENDED', substatus: null }));
          await call('reopen', client.financialAccounts.updateStatus(account.token, { status: 'OPEN', substatus: null }));
        },
      ],
      [
        1,
        async () => {
          const card = pick(cards) as CardOf;
          await call('pause card', client.cards.update(card.token, { state: 'PAUSED' }));
          await call('resume card', client.cards.update(card.token, { state: 'OPEN' }));
        },
      ],
      [
        1,
        () => call('balances', client.balances.list()).then((page) =>
          page?.data.forEach((balance) => {
            if (strictTokens.has(balance.financial_account_token) && balance.available_amount < 0) {
              problems.push(`strict account ${balance.financial_account_token} read with available ${balance.available_amount}`);
            }
          }),
        ),
      ],
    ];
    const totalWeight = steps.reduce((sum, [weight]) => sum + weight, 0);
    const chooseStep = () => {
      let roll = next() * totalWeight;
      for (const [weight, run] of steps) {
        roll -= weight;
        if (roll < 0) return run;
      }
      return (steps.at(-1) as (typeof steps)[number])[1];
    };

    let started = 0;
    const lane = async () => {
      while (started < STEPS) {
        const halfway = ++started === Math.floor(STEPS / 2);
        const run = chooseStep();
        await run();
        if (halfway) {
          // Halfway: the empty accounts close while money races into them.
          await call('close card', client.cards.update((lastCard as CardOf).token, { state: 'CLOSED' }));
          await Promise.all([
            call('close', client.financialAccounts.updateStatus(closable.token, { status: 'CLOSED', substatus: null })),
            transfer(pick(accounts) as Account, closable, { on_closed_account: 'USE_SUSPENSE' }),
            call('close', client.financialAccounts.updateStatus((lastCard as CardOf).account.token, { status: 'CLOSED', substatus: null })),
            call('return', client.transactions.simulateReturn({ amount: amount(1_000), descriptor: 'LATE RETURN', pan: (lastCard as CardOf).pan })).then(
              (made) => made && cardTransactions.push(made.token as string),
            ),
          ]);
        }
      }
    };
    const clockLane = async () => {
      for (let move = 0; move < CLOCK_MOVES && started < STEPS; move++) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        nowMs += CLOCK_STEP_MS;
        await call('clock', client.post('/v1/simulate/clock', { body: { now: new Date(nowMs).toISOString() } }));
      }
    };
    await Promise.all([...Array.from({ length: LANES }, lane), clockLane()]);

    // ---- after the storm ----------------------------------------------------------------------
    const summary = [...statuses].sort().map(([key, count]) => `${key}: ${count}`);
    expect(problems, summary.join('\n')).toEqual([]);
    const db = context.server.server.db.kysely;
    expect(await verifyProgramLedger(db, program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });

    const reported = new Map((await client.balances.list()).data.map((balance) => [balance.financial_account_token, balance]));
    const journals = new Map<string, AccountJournal[]>();
    const statusOf = new Map<string, string>();
    for (const account of everyAccount) {
      const own = await accountJournals(db, program.programId, account.token);
      journals.set(account.token, own);
      const balance = reported.get(account.token);
      const sum = (bucket: 'available_cents' | 'pending_cents') => own.reduce((total, journal) => total + journal[bucket], 0);
      expect({ available: balance?.available_amount, pending: balance?.pending_amount }, account.token).toEqual({ available: sum('available_cents'), pending: sum('pending_cents') });
      if (account.strict) expect(balance?.available_amount, `strict ${account.token}`).toBeGreaterThanOrEqual(0);
      const status = (await client.financialAccounts.retrieve(account.token)).status;
      statusOf.set(account.token, status);
      if (status === 'CLOSED') expect({ available: balance?.available_amount, pending: balance?.pending_amount }, `CLOSED ${account.token}`).toEqual({ available: 0, pending: 0 });
    }

    /** Each resource's net effect per financial account, from the journals: token → account → amounts. */
    const moved = new Map<string, Map<string, { available: number; pending: number; kinds: string[] }>>();
    for (const [account, own] of journals) {
      for (const journal of own) {
        const byAccount = moved.get(journal.transaction_token) ?? new Map();
        const net = byAccount.get(account) ?? { available: 0, pending: 0, kinds: [] };
        net.available += journal.available_cents;
        net.pending += journal.pending_cents;
        net.kinds.push(journal.kind);
        byAccount.set(account, net);
        moved.set(journal.transaction_token, byAccount);
      }
    }
    const netOf = (token: string, account: string) => moved.get(token)?.get(account) ?? { available: 0, pending: 0, kinds: [] };

    const [finalTransfers, finalOperations, finalPayments, finalCardTransactions] = await Promise.all([
      Promise.all(transfers.map(({ token }) => client.bookTransfers.retrieve(token))),
      Promise.all(operations.map(({ token }) => client.managementOperations.retrieve(token))),
      Promise.all(payments.map(({ token }) => client.externalPayments.retrieve(token))),
      Promise.all(cardTransactions.map((token) => client.transactions.retrieve(token))),
    ]);

    for (const transfer of finalTransfers) {
      const { token } = transfer;
      const from = netOf(token, transfer.from_financial_account_token);
      const to = netOf(token, transfer.to_financial_account_token);
      const events = transfer.events.map((event) => event.result);
      const expected = {
        SETTLED: { events: ['APPROVED'], from: -transfer.settled_amount, kinds: ['BOOK_TRANSFER'] },
        REVERSED: { events: ['APPROVED', 'APPROVED'], from: 0, kinds: ['BOOK_TRANSFER', 'BOOK_TRANSFER_REVERSAL'] },
        DECLINED: { events: ['DECLINED'], from: 0, kinds: [] },
      }[transfer.status as 'SETTLED' | 'REVERSED' | 'DECLINED'];
      expect({ status: transfer.status, events, from: from.available, kinds: from.kinds.sort() }, `transfer ${token}`).toEqual({ status: transfer.status, ...expected });
      const inSuspense = transfer.to_financial_account_token === closable.token && to.kinds.length === 0 && transfer.status === 'SETTLED';
      if (!inSuspense) expect(to.available, `transfer ${token} credit`).toBe(0 - from.available);
    }

    for (const operation of finalOperations) {
      const { token } = operation;
      // Due by the clock, it has taken effect, unless its account is not OPEN.
      if (operation.status === 'PENDING' && statusOf.get(operation.financial_account_token as string) === 'OPEN') {
        expect(operation.events?.[0]?.effective_date, `PENDING operation ${token}`).toSatisfy((date: string) => date > today());
      }
      const net = netOf(token, operation.financial_account_token as string);
      const sign = operation.direction === 'CREDIT' ? 1 : -1;
      const effect = { available: net.available, pending: net.pending, kinds: net.kinds };
      const reversals = (operation.events ?? []).filter((event) => event.type.endsWith('_REVERSAL')).length;
      const shape = { status: operation.status, reversals, effect };
      if (operation.status === 'SETTLED') expect(shape, `operation ${token}`).toEqual({ status: 'SETTLED', reversals: 0, effect: { available: sign * (operation.settled_amount ?? 0), pending: 0, kinds: ['MANAGEMENT_OPERATION'] } });
      else if (operation.status === 'REVERSED') {
        expect(reversals, `operation ${token}`).toBe(1);
        expect([effect.available, effect.pending], `operation ${token}`).toEqual([0, 0]);
        expect([[], ['MANAGEMENT_OPERATION', 'MANAGEMENT_OPERATION_REVERSAL']], `operation ${token}`).toContainEqual(effect.kinds.sort());
      } else expect(shape, `operation ${token}`).toEqual({ status: operation.status, reversals: 0, effect: { available: 0, pending: 0, kinds: [] } });
    }

    for (const payment of finalPayments) {
      const { token } = payment;
      const net = netOf(token, payment.financial_account_token as string);
      const paid = payment.events?.[0]?.amount ?? 0;
      const steps = (payment.events ?? []).map((event) => event.type.replace('EXTERNAL_ACH_', ''));
      const deposit = payment.payment_type === 'DEPOSIT';
      const expected: Record<string, { steps: string[][]; available: number; pending: number }> = {
        DECLINED: { steps: [['INITIATED']], available: 0, pending: 0 },
        PENDING: { steps: [['INITIATED'], ['INITIATED', 'SETTLED']], available: deposit ? 0 : -paid, pending: paid },
        SETTLED: { steps: [['INITIATED', 'SETTLED', 'RELEASED']], available: deposit ? paid : -paid, pending: 0 },
        CANCELED: { steps: [['INITIATED', 'CANCELED'], ['INITIATED', 'SETTLED', 'CANCELED']], available: 0, pending: 0 },
        REVERSED: { steps: [['INITIATED', 'SETTLED', 'RELEASED', 'REVERSED']], available: 0, pending: 0 },
      };
      const want = expected[payment.status] as (typeof expected)[string];
      expect(want.steps, `payment ${token} (${payment.status}) steps`).toContainEqual(steps);
      expect({ available: net.available, pending: net.pending }, `payment ${token} (${payment.status})`).toEqual({ available: want.available, pending: want.pending });
      const journalSteps = net.kinds.map((kind) => kind.replace('EXTERNAL_PAYMENT_', ''));
      expect(journalSteps.sort(), `payment ${token} journals`).toEqual(payment.status === 'DECLINED' ? [] : steps.filter((step) => step !== 'SETTLED').sort());
    }

    for (const transaction of finalCardTransactions) {
      const { token } = transaction;
      if (transaction.status === 'PENDING') expect(Date.parse(transaction.created), `PENDING transaction ${token} past its expiry`).toBeGreaterThan(nowMs - 7 * MS_PER_DAY);
      const net = netOf(token, transaction.card_token === (lastCard as CardOf).token ? (lastCard as CardOf).account.token : cardAccount(transaction.card_token));
      const hold = transaction.amounts.hold.amount;
      const settled = transaction.amounts.settlement.amount;
      const credit = transaction.events?.[0]?.effective_polarity === 'CREDIT';
      const types = transaction.events?.map((event) => event.type) ?? [];
      if (transaction.status === 'DECLINED') expect(net.kinds, `transaction ${token}`).toEqual([]);
      expect({ pending: net.pending, total: net.available + net.pending }, `transaction ${token} (${transaction.status}: ${types.join(', ')})`).toEqual({
        pending: Math.abs(hold),
        total: 0 - (settled + (credit ? hold : 0)),
      });
      expect(types.filter((type) => type === 'CLEARING').length, `transaction ${token} clearings`).toBeLessThanOrEqual(1);
      if (transaction.status === 'EXPIRED') expect(types.filter((type) => type === 'AUTHORIZATION_EXPIRY'), `transaction ${token}`).toHaveLength(1);
    }

    function cardAccount(cardToken: string): string {
      const card = cards.find((candidate) => candidate.token === cardToken);
      if (!card) throw new Error(`unknown card ${cardToken}`);
      return card.account.token;
    }
    console.info(`storm (seed ${seed}, ${engine}):\n  ${summary.join('\n  ')}`);
  }, 120_000);
});
