/**
 * A tiny in-memory reference model of Cardwright's money rules, for the random-sequence test
 * (`ledger/money_movement.property.test.ts`). It knows nothing of the server's code: balances are
 * two numbers per account, and each operation says in a few lines what it does to them and which
 * states it may start from. The test runs the same operations against both and compares.
 *
 * To model a new kind of movement (card authorization holds and clearings, next), add its records
 * and operations here (a hold: available −a, pending +a; a clearing: pending −a; a release of a
 * hold: pending −a, available +a) and a command in the test; the checks after every step stay.
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

export class MoneyModel {
  readonly balances = new Map<string, ModelBalance>();
  readonly transfers: Transfer[] = [];
  readonly operations: Operation[] = [];
  readonly payments: Payment[] = [];

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

  /** The program clock reached `today`: due operations take effect, in token order (as the server does). */
  advanceTo(today: string): void {
    this.today = today;
    const due = this.operations.filter((operation) => operation.status === 'PENDING' && operation.effective_date <= today);
    for (const operation of due.sort((a, b) => (a.token < b.token ? -1 : 1))) this.settleOperation(operation);
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
