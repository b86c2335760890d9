/**
 * A tiny in-memory reference model of Cardwright's money rules, for the random-sequence test
 * (`ledger/money_movement.property.test.ts`). It knows nothing of the server's code: balances are
 * two numbers per account, and each operation says in a few lines what it does to them and which
 * states it may start from. The test runs the same operations against both and compares.
 *
 * To model a new kind of movement, add its records and operations here and a command in the test;
 * the checks after every step stay. Card transactions are modelled below (holds, clearings,
 * releases, expiry, returns, the funds switch).
 */

export type Outcome = string | 422;

export interface ModelBalance {
  available_cents: number;
  pending_cents: number;
}

interface Transfer {
  token: string;
  from: string;
  to: string;
  amount_cents: number;
  status: 'SETTLED' | 'DECLINED' | 'REVERSED';
}

interface Operation {
  token: string;
  account: string;
  direction: 'CREDIT' | 'DEBIT';
  amount_cents: number;
  effective_date: string;
  status: 'PENDING' | 'SETTLED' | 'DECLINED' | 'REVERSED';
}

interface Payment {
  token: string;
  account: string;
  payment_type: 'DEPOSIT' | 'WITHDRAWAL';
  amount_cents: number;
  status: 'PENDING' | 'SETTLED' | 'DECLINED' | 'REVERSED' | 'CANCELED';
  settled: boolean;
}

export type PaymentAction = 'settle' | 'release' | 'cancel' | 'reverse';

/** A card transaction on an ISSUING financial account (the card's account's). */
interface CardTransaction {
  token: string;
  account: string;
  kind: 'AUTHORIZATION' | 'FINANCIAL_AUTHORIZATION' | 'RETURN';
  /** Still held (AUTHORIZATION while PENDING). */
  hold_cents: number;
  created_ms: number;
  status: 'PENDING' | 'SETTLED' | 'DECLINED' | 'VOIDED' | 'EXPIRED';
  /** What its expiry released (an EXPIRED authorization): what a later clearing settles by default. */
  expired_cents?: number;
}

/** A PENDING authorization expires this long after it was made (as the server's clock job does). */
const AUTHORIZATION_EXPIRY_MS = 7 * 86_400_000;

export class MoneyModel {
  readonly balances = new Map<string, ModelBalance>();
  readonly transfers: Transfer[] = [];
  readonly operations: Operation[] = [];
  readonly payments: Payment[] = [];
  readonly cardTransactions: CardTransaction[] = [];
  /** The program's funds switch: when on, a card debit needs the available funds. */
  requireFunds = false;

  constructor(
    accounts: readonly string[],
    /** The program's date, `YYYY-MM-DD`. */
    public today: string,
  ) {
    for (const account of accounts) this.balances.set(account, { available_cents: 0, pending_cents: 0 });
  }

  private balance(account: string): ModelBalance {
    const balance = this.balances.get(account);
    if (!balance) throw new Error(`model: unknown account ${account}`);
    return balance;
  }

  private move(account: string, bucket: keyof ModelBalance, deltaCents: number): void {
    this.balance(account)[bucket] += deltaCents;
  }

  transfer(token: string, from: string, to: string, amountCents: number): Outcome {
    const status = this.balance(from).available_cents >= amountCents ? 'SETTLED' : 'DECLINED';
    if (status === 'SETTLED') {
      this.move(from, 'available_cents', -amountCents);
      this.move(to, 'available_cents', amountCents);
    }
    this.transfers.push({ token, from, to, amount_cents: amountCents, status });
    return status;
  }

  reverseTransfer(transfer: Transfer): Outcome {
    if (transfer.status !== 'SETTLED') return 422;
    transfer.status = 'REVERSED';
    this.move(transfer.from, 'available_cents', transfer.amount_cents);
    this.move(transfer.to, 'available_cents', -transfer.amount_cents);
    return transfer.status;
  }

  private settleOperation(operation: Operation): void {
    const signed = operation.direction === 'CREDIT' ? operation.amount_cents : -operation.amount_cents;
    if (operation.direction === 'DEBIT' && this.balance(operation.account).available_cents < operation.amount_cents) {
      operation.status = 'DECLINED';
      return;
    }
    operation.status = 'SETTLED';
    this.move(operation.account, 'available_cents', signed);
  }

  operate(token: string, account: string, direction: Operation['direction'], amountCents: number, effectiveDate: string): Outcome {
    const operation: Operation = { token, account, direction, amount_cents: amountCents, effective_date: effectiveDate, status: 'PENDING' };
    this.operations.push(operation);
    if (effectiveDate <= this.today) this.settleOperation(operation);
    return operation.status;
  }

  reverseOperation(operation: Operation): Outcome {
    if (operation.status === 'SETTLED') {
      const signed = operation.direction === 'CREDIT' ? -operation.amount_cents : operation.amount_cents;
      this.move(operation.account, 'available_cents', signed);
    } else if (operation.status !== 'PENDING') {
      return 422;
    }
    operation.status = 'REVERSED';
    return operation.status;
  }

  /**
   * The program clock reached `nowMs` (day `today`): due operations take effect in the order they
   * fell due (effective date, then creation: token order), as the server applies them, then
   * authorizations pending for AUTHORIZATION_EXPIRY_MS expire (the server's clock jobs, in that order).
   */
  advanceTo(today: string, nowMs?: number): void {
    this.today = today;
    const due = this.operations.filter((operation) => operation.status === 'PENDING' && operation.effective_date <= today);
    const fellDueFirst = (a: Operation, b: Operation) => (a.effective_date === b.effective_date ? (a.token < b.token ? -1 : 1) : a.effective_date < b.effective_date ? -1 : 1);
    for (const operation of due.sort(fellDueFirst)) this.settleOperation(operation);
    if (nowMs === undefined) return;
    for (const card of this.cardTransactions) {
      if (card.status === 'PENDING' && nowMs - card.created_ms >= AUTHORIZATION_EXPIRY_MS) this.releaseHold(card, card.hold_cents, 'EXPIRED');
    }
  }

  // ---- card transactions: a hold is available −a, pending +a; a clearing is pending −hold and
  // available −(cleared − hold); a release is pending −r, available +r; a return is available +a.

  authorize(token: string, account: string, kind: 'AUTHORIZATION' | 'FINANCIAL_AUTHORIZATION', amountCents: number, nowMs: number): Outcome {
    const approved = !this.requireFunds || this.balance(account).available_cents >= amountCents;
    const card: CardTransaction = { token, account, kind, hold_cents: 0, created_ms: nowMs, status: 'DECLINED' };
    this.cardTransactions.push(card);
    if (!approved) return card.status;
    this.move(account, 'available_cents', -amountCents);
    if (kind === 'AUTHORIZATION') {
      this.move(account, 'pending_cents', amountCents);
      card.hold_cents = amountCents;
      card.status = 'PENDING';
    } else {
      card.status = 'SETTLED';
    }
    return card.status;
  }

  clearCard(card: CardTransaction, amountCents: number | undefined): Outcome {
    if (card.kind === 'AUTHORIZATION' && card.status === 'EXPIRED') {
      // The network may clear after the hold was released: the whole amount comes from available.
      this.move(card.account, 'available_cents', -(amountCents ?? card.expired_cents ?? 0));
      card.status = 'SETTLED';
      return card.status;
    }
    if (card.kind !== 'AUTHORIZATION' || card.status !== 'PENDING') return 422;
    const cleared = amountCents ?? card.hold_cents;
    this.move(card.account, 'pending_cents', -card.hold_cents);
    this.move(card.account, 'available_cents', -(cleared - card.hold_cents));
    card.hold_cents = 0;
    card.status = 'SETTLED';
    return card.status;
  }

  voidCard(card: CardTransaction, amountCents: number | undefined): Outcome {
    if (card.kind !== 'AUTHORIZATION' || card.status !== 'PENDING') return 422;
    const released = amountCents ?? card.hold_cents;
    if (released > card.hold_cents) return 422;
    this.releaseHold(card, released, 'VOIDED');
    return card.status;
  }

  private releaseHold(card: CardTransaction, releasedCents: number, finalStatus: 'VOIDED' | 'EXPIRED'): void {
    this.move(card.account, 'pending_cents', -releasedCents);
    this.move(card.account, 'available_cents', releasedCents);
    card.hold_cents -= releasedCents;
    if (card.hold_cents === 0) card.status = finalStatus;
    if (card.status === 'EXPIRED') card.expired_cents = releasedCents;
  }

  cardReturn(token: string, account: string, amountCents: number, nowMs: number): Outcome {
    this.move(account, 'available_cents', amountCents);
    this.cardTransactions.push({ token, account, kind: 'RETURN', hold_cents: 0, created_ms: nowMs, status: 'SETTLED' });
    return 'SETTLED';
  }

  pay(token: string, account: string, paymentType: Payment['payment_type'], amountCents: number, progressTo?: 'SETTLED' | 'RELEASED'): Outcome {
    const payment: Payment = { token, account, payment_type: paymentType, amount_cents: amountCents, status: 'PENDING', settled: false };
    this.payments.push(payment);
    if (paymentType === 'WITHDRAWAL' && this.balance(account).available_cents < amountCents) {
      payment.status = 'DECLINED';
      return payment.status;
    }
    if (paymentType === 'DEPOSIT') this.move(account, 'pending_cents', amountCents);
    else {
      this.move(account, 'available_cents', -amountCents);
      this.move(account, 'pending_cents', amountCents);
    }
    if (progressTo !== undefined) this.act(payment, 'settle');
    if (progressTo === 'RELEASED') this.act(payment, 'release');
    return payment.status;
  }

  act(payment: Payment, action: PaymentAction): Outcome {
    const amount = payment.amount_cents;
    const deposit = payment.payment_type === 'DEPOSIT';
    switch (action) {
      case 'settle':
        if (payment.status !== 'PENDING' || payment.settled) return 422;
        payment.settled = true;
        return payment.status;
      case 'release':
        if (payment.status !== 'PENDING') return 422;
        this.move(payment.account, 'pending_cents', -amount);
        if (deposit) this.move(payment.account, 'available_cents', amount);
        payment.settled = true;
        payment.status = 'SETTLED';
        return payment.status;
      case 'cancel':
        if (payment.status !== 'PENDING') return 422;
        this.move(payment.account, 'pending_cents', -amount);
        if (!deposit) this.move(payment.account, 'available_cents', amount);
        payment.status = 'CANCELED';
        return payment.status;
      case 'reverse':
        if (payment.status !== 'SETTLED') return 422;
        this.move(payment.account, 'available_cents', deposit ? -amount : amount);
        payment.status = 'REVERSED';
        return payment.status;
    }
  }
}
