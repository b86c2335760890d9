/**
 * Financial transactions: what each transaction (a book transfer, a payment, a management
 * operation, a card transaction) did to one financial account, read from the ledger's journals
 * rather than kept a second time. A transaction is the journals that share its `transaction_token`;
 * each journal is one event (a payment's SETTLED step, which moves no money and so has no
 * journal, is shown from its event: see `ShownJournal`). From the account's entries, signed as the
 * money goes (negative when it leaves the account):
 *   - money coming in waits in pending (a deposit, a card credit): pending_amount = Σ pending,
 *     settled_amount = Σ available;
 *   - money going out is first held (a withdrawal, a card authorization: its first journal moves
 *     available into pending): pending_amount = −Σ pending (what is held, going out),
 *     settled_amount = Σ available + Σ pending (what has left; a hold alone has settled nothing);
 *   status PENDING while anything is pending, SETTLED when money stayed, and once everything was
 *   undone RETURNED (it had settled) or VOIDED (it never had: a hold let go, a deposit canceled).
 * A card transaction is described by its own record instead: its events' types (AUTHORIZATION,
 * CLEARING, …), the merchant's descriptor, and its status when PENDING (whatever it holds), VOIDED
 * or EXPIRED; a SETTLED one is SETTLED even if it settled 0, unless a return reversal made it
 * RETURNED (`cardStatusOf`).
 * A movement the funds declined, and a card transaction declined for any reason, wrote no entries;
 * each is read from its own resource and shown DECLINED (see `DECLINED_SOURCES`).
 *
 * Reading. A transaction's place in the list is when it first touched the account (its first
 * journal there: a management operation dated ahead posts, so begins, on its effective date; a card
 * authorization of $0 at its clearing), or a declined movement's creation. A page never reads the
 * account's history: `walkTransactions` merges, newest first (oldest first before an
 * `ending_before` cursor), chunks of its sources, each a range from the cursor within `begin`/`end`:
 * the account's transactions at their first journal (`transactionsTouching`) and each kind of
 * declined movement on the account; `result` and `category` choose the sources. It then derives just
 * those candidates (`transactionsIn`: their journals on the account, events and card facts, in a fixed
 * number of statements). A `status`, or a payment's category, can only be told once derived: such a
 * page walks the account's transactions in rounds of candidates, a page's worth and then each round
 * twice the last (up to WHOLE_LIST_CHUNK), until it is full (a known walk, docs/architecture.md).
 * Without `page_size` the whole list is the same walk, in chunks of WHOLE_LIST_CHUNK.
 */
import { exclusiveEndMs, isoTimestamp } from '../clock.js';
import { groupedByTransaction } from '../db/chunks.js';
import type { Db, Executor } from '../db/database.js';
import type { KeysetWalk, RowKey, RowsAsked } from '../db/pagination.js';
import { InvalidRequestError, notFound } from '../errors.js';
import type { ListResponse } from '../http/schemas.js';
import { accountJournals, firstTouchMs, transactionsTouching, type AccountJournal, type KindPrefixes } from '../ledger/ledger.js';
import { CURRENCY, eventsOf } from '../money_events/events.js';
import type { MoneyEventsTable } from '../money_events/tables.js';
import * as bookTransfers from '../book_transfers/store.js';
import * as externalPayments from '../external_payments/store.js';
import { JOURNAL_KIND_PREFIX, stepWithoutMoney } from '../external_payments/service.js';
import * as managementOperations from '../management_operations/store.js';
import type { ProgramScope } from '../programs/scope.js';
import { catchUpMoney } from './balances.js';
import { FINANCIAL_EVENT_TYPES, type FinancialTransaction, type FinancialTransactionsQuery, type FinancialTransactionStatus } from './schemas.js';
import * as cardTransactions from '../transactions/store.js';
import * as store from './store.js';

/** The event name of a journal: the type of the resource event that caused it, else the journal kind. */
type EventTypes = ReadonlyMap<string, string>;

/** What a card transaction's own record says of it, by transaction token. */
interface CardFacts {
  status: string;
  descriptor: string;
}

/**
 * The card transaction's own status, where its money alone cannot tell it: one whose hold was
 * released without settling ends VOIDED or EXPIRED; one still PENDING is PENDING even once it holds
 * nothing (an authorization advised down to 0), since the network may still clear it.
 */
const CARD_STATUSES: ReadonlyMap<string, FinancialTransactionStatus> = new Map([
  ['PENDING', 'PENDING'],
  ['VOIDED', 'VOIDED'],
  ['EXPIRED', 'EXPIRED'],
]);

/**
 * A card transaction's status: its own where CARD_STATUSES has it. A SETTLED one settled, even for
 * 0 (a clearing of 0, also of an expired hold or of a credit authorization), so it is never VOIDED
 * (which says it never settled): SETTLED, or RETURNED once a return reversal took back all it
 * settled, as its money tells (the card transaction stays SETTLED then, so its status cannot say it).
 */
function cardStatusOf(card: CardFacts, journals: readonly AccountJournal[]): FinancialTransactionStatus {
  const own = CARD_STATUSES.get(card.status);
  if (own !== undefined) return own;
  const byMoney = statusOf(journals);
  return card.status === 'SETTLED' && byMoney === 'VOIDED' ? 'SETTLED' : byMoney;
}

function categoryOf(kind: string, eventType: string): FinancialTransaction['category'] {
  if (kind.startsWith('CARD')) return 'CARD';
  if (kind.startsWith('BOOK_TRANSFER')) return 'TRANSFER';
  if (kind.startsWith('MICRO_DEPOSIT')) return 'ACH';
  if (kind.startsWith('EXTERNAL_PAYMENT')) return eventType.startsWith('EXTERNAL_ACH') ? 'ACH' : 'TRANSFER';
  return 'INTERNAL';
}

/**
 * The SDK's event type for an event of `kind` (a journal kind, or the resource of a declined
 * movement): TRANSFER_INSUFFICIENT_FUNDS for a declined book transfer (funds are the only reason one
 * is declined); the resource event's own type when the SDK's list has it; else TRANSFER for a book
 * transfer (whose `type` is a program's own word, e.g. MONTHLY) and INTERNAL_ADJUSTMENT for a
 * management operation (e.g. DISBURSE). A sandbox micro-deposit round keeps MICRO_DEPOSIT and
 * MICRO_DEPOSIT_WITHDRAWAL, so that a user can tell its amounts apart (README).
 */
export function financialEventType(kind: string, type: string, result: 'APPROVED' | 'DECLINED' = 'APPROVED'): string {
  if (kind.startsWith('BOOK_TRANSFER') && result === 'DECLINED') return 'TRANSFER_INSUFFICIENT_FUNDS';
  if (FINANCIAL_EVENT_TYPES.has(type)) return type;
  if (kind.startsWith('BOOK_TRANSFER')) return 'TRANSFER';
  if (kind.startsWith('MANAGEMENT_OPERATION')) return 'INTERNAL_ADJUSTMENT';
  return type;
}

/** Whether a transaction's money goes out through a hold: its first journal moves available into pending. */
function startsWithHold(journals: readonly AccountJournal[]): boolean {
  const first = journals[0];
  return first !== undefined && first.available_cents < 0 && first.pending_cents === -first.available_cents;
}

/** What of a transaction is still pending and what has settled, on one account (see the header). */
export function amountsOf(journals: readonly AccountJournal[]): { pending_amount: number; settled_amount: number } {
  const pending = journals.reduce((sum, journal) => sum + journal.pending_cents, 0);
  const available = journals.reduce((sum, journal) => sum + journal.available_cents, 0);
  return startsWithHold(journals) ? { pending_amount: 0 - pending, settled_amount: available + pending } : { pending_amount: pending, settled_amount: available };
}

/**
 * What one event moved: money going out through a hold moves by what left the account (a clearing:
 * all it took, whatever was held), else by what it held or let go (negative when it held); money
 * coming in moves by what became available, else by what arrived in pending.
 */
export function eventAmount(journal: Pick<AccountJournal, 'available_cents' | 'pending_cents'>, hold: boolean): number {
  if (hold) return (journal.available_cents + journal.pending_cents) || (0 - journal.pending_cents);
  return journal.available_cents !== 0 ? journal.available_cents : journal.pending_cents;
}

/** Each event's amount (`eventAmount`); one that moved nothing shows the amount of the event before it. */
function eventAmounts(group: readonly ShownJournal[], hold: boolean): number[] {
  const amounts: number[] = [];
  for (const journal of group) amounts.push(journal.moves_nothing ? (amounts.at(-1) ?? 0) : eventAmount(journal, hold));
  return amounts;
}

/**
 * The events of the account's payments that moved no money, as journals that change nothing (see
 * `ShownJournal`), from the events already loaded: a payment whose journals touched the account.
 */
function stepsWithoutMoney(journals: readonly AccountJournal[], events: ReadonlyMap<string, readonly MoneyEventsTable[]>): ShownJournal[] {
  const payments = new Set(journals.filter((journal) => journal.kind.startsWith(JOURNAL_KIND_PREFIX)).map((journal) => journal.transaction_token));
  return [...payments].flatMap((token) =>
    (events.get(token) ?? []).flatMap((event) => {
      const step = event.result === 'APPROVED' ? stepWithoutMoney(event.type) : undefined;
      if (step === undefined) return [];
      const kind = `${JOURNAL_KIND_PREFIX}${step}`;
      return [{ journal_token: event.token, kind, transaction_token: token, event_token: event.token, created_ms: Number(event.created_ms), available_cents: 0, pending_cents: 0, moves_nothing: true as const }];
    }),
  );
}

export function statusOf(journals: readonly AccountJournal[]): FinancialTransactionStatus {
  const { pending_amount, settled_amount } = amountsOf(journals);
  if (pending_amount !== 0) return 'PENDING';
  if (settled_amount !== 0) return 'SETTLED';
  const hold = startsWithHold(journals);
  let settledSoFar = 0;
  for (const journal of journals) {
    settledSoFar += journal.available_cents + (hold ? journal.pending_cents : 0);
    if (settledSoFar !== 0) return 'RETURNED';
  }
  return 'VOIDED';
}

/**
 * A journal, or an event of a payment that moved no money (a SETTLED step: the ledger records only
 * movements), standing in its place so that the financial transaction shows every event of the
 * payment, as Lithic's does. It changes nothing and shows the amount of the event before it: the
 * settlement of that money.
 */
type ShownJournal = AccountJournal & { moves_nothing?: true };

/** Groups an account's journals (oldest first) into its financial transactions, newest first. */
function deriveTransactions(
  journals: readonly ShownJournal[],
  eventTypes: EventTypes,
  cards: ReadonlyMap<string, CardFacts> = new Map(),
): FinancialTransaction[] {
  const transactions = [...groupedByTransaction(journals).entries()].map(([token, group]) => {
    const typeOf = (journal: AccountJournal) => eventTypes.get(journal.event_token) ?? journal.kind;
    const first = group[0] as AccountJournal;
    const last = group[group.length - 1] as AccountJournal;
    const card = cards.get(token);
    const hold = startsWithHold(group);
    return {
      token,
      category: categoryOf(first.kind, typeOf(first)),
      created: isoTimestamp(first.created_ms),
      updated: isoTimestamp(last.created_ms),
      currency: CURRENCY,
      descriptor: card?.descriptor ?? typeOf(first),
      events: eventAmounts(group, hold).map((amount, index) => {
        const journal = group[index] as ShownJournal;
        return { token: journal.event_token, amount, created: isoTimestamp(journal.created_ms), result: 'APPROVED' as const, type: financialEventType(journal.kind, typeOf(journal)) };
      }),
      ...amountsOf(group),
      result: 'APPROVED' as const,
      status: card === undefined ? statusOf(group) : cardStatusOf(card, group),
    };
  });
  return newestFirst(transactions);
}

/** Newest first; ties (one millisecond) by token, descending, as the other lists order them. */
function newestFirst(transactions: FinancialTransaction[]): FinancialTransaction[] {
  return transactions.sort((a, b) => (a.created === b.created ? (a.token < b.token ? 1 : -1) : a.created < b.created ? 1 : -1));
}

/**
 * A financial transaction's place in the list, `(created_ms, token)`: when it first touched the
 * account (its first journal there), or, for a declined movement, when that was created.
 */
interface Candidate extends RowKey {
  declined?: DeclinedMovement;
}

/**
 * The account's financial transactions of `candidates`, in their order: the journals of just those
 * transactions on the account, their events and card facts, in a fixed number of statements.
 */
async function transactionsIn(exec: Executor, programId: string, financialAccountToken: string, candidates: readonly Candidate[]): Promise<FinancialTransaction[]> {
  const declined = candidates.flatMap((candidate) => (candidate.declined === undefined ? [] : [candidate.declined]));
  const approvedTokens = candidates.filter((candidate) => candidate.declined === undefined).map((candidate) => candidate.token);
  const journals = approvedTokens.length === 0 ? [] : await accountJournals(exec, programId, financialAccountToken, { transactionTokens: approvedTokens });
  const [declinedCards, declinedMoney] = partition(declined, (movement) => movement.kind === 'CARD');
  const transactionTokens = [...new Set([...journals.map((journal) => journal.transaction_token), ...declinedMoney.map((movement) => movement.token)])];
  const cardTokens = [...new Set(journals.filter((journal) => journal.kind.startsWith('CARD')).map((journal) => journal.transaction_token))];
  const [events, cardRows, cardEvents] = await Promise.all([
    eventsOf(exec, programId, transactionTokens),
    cardTransactions.findMany(exec, programId, cardTokens),
    cardTransactions.eventsFor(exec, programId, [...cardTokens, ...declinedCards.map((movement) => movement.token)]),
  ]);
  const eventTypes = new Map<string, string>();
  const eventSeq = new Map<string, number>();
  for (const event of [...[...events.values()].flat(), ...cardEvents]) {
    eventTypes.set(event.token, event.type);
    eventSeq.set(event.token, event.seq);
  }
  const cards = new Map(cardRows.map((row) => [row.token, { status: row.status, descriptor: row.merchant_descriptor }]));
  // Journals of one request share a millisecond: the resource's event order breaks the tie.
  const ordered = [...journals, ...stepsWithoutMoney(journals, events)].sort(
    (a, b) => a.created_ms - b.created_ms || (eventSeq.get(a.event_token) ?? 0) - (eventSeq.get(b.event_token) ?? 0),
  );
  const approved = new Map(deriveTransactions(ordered, eventTypes, cards).map((transaction) => [transaction.token, transaction]));
  const cardEventsOf = groupedByTransaction(cardEvents);
  const refused = new Map(declined.map((movement) => [movement.token, declinedTransaction(movement, (movement.kind === 'CARD' ? cardEventsOf : events).get(movement.token) ?? [])]));
  return candidates.flatMap((candidate) => (candidate.declined === undefined ? approved : refused).get(candidate.token) ?? []);
}

/** The candidates of one token: the transaction if it touched the account, and the movement of that token declined on it. */
async function candidatesOf(exec: Executor, programId: string, financialAccountToken: string, token: string): Promise<Candidate[]> {
  const [firstMs, declined] = await Promise.all([firstTouchMs(exec, programId, financialAccountToken, token), declinedMovements(exec, programId, financialAccountToken, token)]);
  const approved = firstMs === undefined ? [] : [{ token, created_ms: firstMs }];
  return [...approved, ...declined.map((movement) => ({ token, created_ms: movement.created_ms, declined: movement }))];
}

/** A source of the account's candidates: one chunk of a walk over them, in the walk's order. */
type Source = (walk: KeysetWalk) => Promise<Candidate[]>;

/** Whether `a` comes before `b` in a walk going `direction`. */
function precedes(a: RowKey, b: RowKey, direction: KeysetWalk['direction']): boolean {
  const newer = a.created_ms > b.created_ms || (a.created_ms === b.created_ms && a.token > b.token);
  return direction === 'desc' ? newer : !newer;
}

/**
 * One source's candidates, read a chunk at a time from where the last chunk ended (a chunk as large
 * as the round that asks for it). A transaction that the source answers several times side by side
 * (`transactionsTouching`) is kept once.
 */
class SourceWalk {
  private buffer: Candidate[] = [];
  private exhausted = false;

  constructor(
    private readonly source: Source,
    private readonly walk: Omit<KeysetWalk, 'limit'>,
  ) {}

  /** The source's next candidate, undefined once it has none; `chunkSize` rows are read when it must read. */
  async next(chunkSize: number): Promise<Candidate | undefined> {
    while (this.buffer.length === 0 && !this.exhausted) {
      const rows = await this.source({ ...this.walk, limit: chunkSize });
      this.exhausted = rows.length < chunkSize;
      this.buffer = rows.filter((row, index) => index === 0 || row.token !== rows[index - 1]?.token || row.created_ms !== rows[index - 1]?.created_ms);
      this.walk.after = rows.at(-1) ?? this.walk.after;
    }
    return this.buffer[0];
  }

  take(): void {
    this.buffer.shift();
  }
}

/** Up to `count` candidates of the sources merged, in the walk's order (each source read in chunks, as needed). */
async function nextCandidates(walks: readonly SourceWalk[], direction: KeysetWalk['direction'], count: number): Promise<Candidate[]> {
  const taken: Candidate[] = [];
  while (taken.length < count) {
    const heads = await Promise.all(walks.map((walk) => walk.next(count)));
    let first = -1;
    heads.forEach((head, index) => {
      const best = heads[first];
      if (head !== undefined && (best === undefined || precedes(head, best, direction))) first = index;
    });
    const head = heads[first];
    if (head === undefined) break;
    taken.push(head);
    walks[first]?.take();
  }
  return taken;
}

/**
 * The journal kinds whose transactions may be of each category (`categoryOf`: a payment's is ACH or
 * TRANSFER by its event), and, as for a declined movement's kind, INTERNAL for any other kind.
 */
const KIND_CATEGORIES: ReadonlyArray<readonly [string, ReadonlyArray<FinancialTransaction['category']>]> = [
  ['CARD', ['CARD']],
  ['BOOK_TRANSFER', ['TRANSFER']],
  ['MICRO_DEPOSIT', ['ACH']],
  [JOURNAL_KIND_PREFIX.slice(0, -1), ['ACH', 'TRANSFER']],
];

function categoriesOfKind(kind: string): ReadonlyArray<FinancialTransaction['category']> {
  return KIND_CATEGORIES.find(([prefix]) => kind.startsWith(prefix))?.[1] ?? ['INTERNAL'];
}

/** The journal kinds a transaction of `category` may begin with (undefined: any). */
function kindsOfCategory(category: FinancialTransactionsQuery['category']): KindPrefixes | undefined {
  if (category === undefined) return undefined;
  const all = KIND_CATEGORIES.map(([prefix]) => prefix);
  if (category === 'INTERNAL') return { prefixes: all, negate: true };
  return { prefixes: KIND_CATEGORIES.filter(([, categories]) => categories.includes(category)).map(([prefix]) => prefix), negate: false };
}

/**
 * Where the list's transactions come from, as far as the filters tell before deriving them: the
 * transactions that touched the account (unless only DECLINED ones are asked for; a category keeps
 * those whose first journal's kind may have it), and each kind of declined movement (unless only
 * APPROVED ones are, or a status other than DECLINED; a category keeps the kinds that may have it).
 */
function sourcesOf(exec: Executor, programId: string, financialAccountToken: string, query: FinancialTransactionsQuery): Source[] {
  const sources: Source[] = [];
  const declinedOnly = query.result === 'DECLINED' || query.status === 'DECLINED';
  const approvedOnly = query.result === 'APPROVED' || (query.status !== undefined && query.status !== 'DECLINED');
  if (!declinedOnly) sources.push((walk) => transactionsTouching(exec, programId, financialAccountToken, walk, kindsOfCategory(query.category)));
  if (approvedOnly) return sources;
  for (const declined of DECLINED_SOURCES) {
    if (query.category !== undefined && !categoriesOfKind(declined.kind).includes(query.category)) continue;
    sources.push(async (walk) => (await declined.read(exec, programId, financialAccountToken, walk)).map((movement) => ({ token: movement.token, created_ms: movement.created_ms, declined: movement })));
  }
  return sources;
}

/**
 * Candidates derived per round of a walk over the whole list (without `page_size`), and the most a
 * round of a page grows to when the filters the sources cannot apply leave too few.
 */
const WHOLE_LIST_CHUNK = 500;

/**
 * The account's financial transactions the query asks for, in list order from its cursor (oldest
 * first with `ending_before`), at most `limit` of them (undefined: all). The sources' chunks are
 * merged in list order, the candidates derived a round at a time and kept where the filters the
 * sources could not apply (a status, a payment's category) keep them: the page's transactions
 * without a status are found in one round. A round that left the page short is followed by one twice
 * as large (up to WHOLE_LIST_CHUNK): a status few transactions have walks the account in a few dozen
 * rounds, not one per page's worth of transactions.
 */
async function walkTransactions(exec: Executor, programId: string, financialAccountToken: string, query: FinancialTransactionsQuery, limit: number | undefined): Promise<FinancialTransaction[]> {
  const direction = query.ending_before === undefined ? 'desc' : 'asc';
  const after = await cursorPlace(exec, programId, financialAccountToken, query);
  const fromMs = query.begin === undefined ? undefined : Date.parse(query.begin) + 1;
  const throughMs = query.end === undefined ? undefined : exclusiveEndMs(query.end) - 1;
  let round = limit ?? WHOLE_LIST_CHUNK;
  const walks = sourcesOf(exec, programId, financialAccountToken, query).map((source) => new SourceWalk(source, { direction, after, fromMs, throughMs }));
  const found: FinancialTransaction[] = [];
  while (limit === undefined || found.length < limit) {
    const candidates = await nextCandidates(walks, direction, round);
    if (candidates.length === 0) break;
    const transactions = await transactionsIn(exec, programId, financialAccountToken, candidates);
    found.push(...transactions.filter((transaction) => matchesFilters(transaction, query)));
    if (candidates.length < round) break;
    round = Math.max(round, Math.min(2 * round, WHOLE_LIST_CHUNK));
  }
  return limit === undefined ? found : found.slice(0, limit);
}

/**
 * Where the query's cursor is in the account's whole list (null: no cursor), so that a transaction
 * the filters leave out still marks where the page starts; a token that is none of the account's
 * transactions is refused, naming the field.
 */
async function cursorPlace(exec: Executor, programId: string, financialAccountToken: string, query: FinancialTransactionsQuery): Promise<RowKey | null> {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new InvalidRequestError('starting_after, ending_before: use one cursor at a time');
  }
  const [field, cursor] = query.starting_after !== undefined ? ['starting_after', query.starting_after] : ['ending_before', query.ending_before];
  if (cursor === undefined) return null;
  const [place] = await candidatesOf(exec, programId, financialAccountToken, cursor);
  if (place === undefined) throw new InvalidRequestError(`${field}: no item with token '${cursor}' in this list`);
  return { token: place.token, created_ms: place.created_ms };
}

/** Whether the list's filters keep `transaction` (the cursors and `begin`/`end` place the walk). */
function matchesFilters(transaction: FinancialTransaction, query: FinancialTransactionsQuery): boolean {
  return (
    (query.category === undefined || transaction.category === query.category) &&
    (query.result === undefined || transaction.result === query.result) &&
    (query.status === undefined || transaction.status === query.status)
  );
}

/** The financial account, in a snapshot after applying what has fallen due by the program clock, for `read`. */
async function onAccount<T>(db: Db, scope: ProgramScope, financialAccountToken: string, read: (exec: Executor) => Promise<T>): Promise<T> {
  await catchUpMoney(db, scope);
  return db.snapshot(async (exec) => {
    if (!(await store.find(exec, scope.programId, financialAccountToken))) throw notFound('financial account', financialAccountToken);
    return read(exec);
  });
}

/** The items that pass `test`, then the others. */
function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/**
 * A movement the funds refused (a book transfer out of the account, a debit operation, a
 * withdrawal), or a card transaction declined on the account (its card's ISSUING account) for any
 * reason: it wrote no entries, but the account's history shows it, DECLINED, with the amount it
 * would have moved, as Lithic's financial transactions show declined card transactions.
 */
interface DeclinedMovement {
  token: string;
  /** BOOK_TRANSFER, MANAGEMENT_OPERATION, EXTERNAL_PAYMENT or CARD. */
  kind: string;
  created_ms: number;
  /**
   * -1 when the movement would have taken money from the account, 1 when it would have added it; a
   * card transaction's -1: its events' amounts are signed from the cardholder's side (a debit
   * positive), the opposite of the account's.
   */
  sign: 1 | -1;
  /** A card transaction's merchant descriptor; the others are described by their first event's type. */
  descriptor?: string;
}

/** What `declinedTransaction` reads of an event, of a money movement or of a card transaction. */
type DeclinedEvent = Pick<MoneyEventsTable, 'token' | 'type' | 'amount_cents' | 'created_ms'> & { result: string };

/** A read of an account's declined rows of one kind, as its store answers it. */
type DeclinedRowsRead<R> = (exec: Executor, programId: string, financialAccountToken: string, asked: RowsAsked) => Promise<R[]>;

/** A kind of movement declined on an account: its rows asked for (`RowsAsked`), as `DeclinedMovement`s, each with the sign (and a card's descriptor) its row tells. */
function declinedSource<R extends { token: string; created_ms: number | string }>(kind: string, read: DeclinedRowsRead<R>, details: (row: R) => Pick<DeclinedMovement, 'sign' | 'descriptor'>) {
  const readMovements: DeclinedRowsRead<DeclinedMovement> = async (exec, programId, financialAccountToken, asked) =>
    (await read(exec, programId, financialAccountToken, asked)).map((row) => ({ token: row.token, kind, created_ms: Number(row.created_ms), ...details(row) }));
  return { kind, read: readMovements };
}

/** Each kind of movement declined on an account. */
const DECLINED_SOURCES = [
  declinedSource('BOOK_TRANSFER', bookTransfers.declinedFrom, () => ({ sign: -1 })),
  declinedSource('MANAGEMENT_OPERATION', managementOperations.declinedOn, (row) => ({ sign: row.direction === 'DEBIT' ? -1 : 1 })),
  declinedSource('EXTERNAL_PAYMENT', externalPayments.declinedOn, (row) => ({ sign: row.payment_type === 'WITHDRAWAL' ? -1 : 1 })),
  declinedSource('CARD', cardTransactions.declinedOn, (row) => ({ sign: -1, descriptor: row.merchant_descriptor })),
];

/** The account's movements of `token` declined on it (a primary-key seek each). */
async function declinedMovements(exec: Executor, programId: string, financialAccountToken: string, token: string): Promise<DeclinedMovement[]> {
  return (await Promise.all(DECLINED_SOURCES.map((source) => source.read(exec, programId, financialAccountToken, token)))).flat();
}

/**
 * A declined movement as a financial transaction: nothing pending or settled, each event with the
 * amount it would have moved. A card event's result is its decline reason (e.g. CARD_PAUSED), which
 * the SDK's financial event has no word for but DECLINED.
 */
function declinedTransaction(movement: DeclinedMovement, events: readonly DeclinedEvent[]): FinancialTransaction {
  const type = events[0]?.type ?? movement.kind;
  const last = events.at(-1);
  return {
    token: movement.token,
    category: categoryOf(movement.kind, type),
    created: isoTimestamp(movement.created_ms),
    updated: isoTimestamp(last?.created_ms ?? movement.created_ms),
    currency: CURRENCY,
    descriptor: movement.descriptor ?? type,
    events: events.map((event) => {
      const result = event.result === 'APPROVED' ? 'APPROVED' : 'DECLINED';
      return { token: event.token, amount: movement.sign * event.amount_cents, created: isoTimestamp(event.created_ms), result, type: financialEventType(movement.kind, event.type, result) };
    }),
    pending_amount: 0,
    settled_amount: 0,
    result: 'DECLINED',
    status: 'DECLINED',
  };
}

/**
 * Newest first. Without `page_size`, every transaction the cursor and filters leave (Lithic
 * answers this list whole, and its SDK reads it as one page), walked in chunks; with it, one page
 * of that, as the contract's lists are paged: with `ending_before`, the items just newer than the
 * cursor.
 */
export function list(db: Db, scope: ProgramScope, financialAccountToken: string, query: FinancialTransactionsQuery): Promise<ListResponse<FinancialTransaction>> {
  return onAccount(db, scope, financialAccountToken, (exec) => listIn(exec, scope.programId, financialAccountToken, query));
}

/** `list`, its statements run on `exec` (a snapshot), the account known to be the program's. */
export async function listIn(exec: Executor, programId: string, financialAccountToken: string, query: FinancialTransactionsQuery): Promise<ListResponse<FinancialTransaction>> {
  const pageSize = query.page_size;
  const found = await walkTransactions(exec, programId, financialAccountToken, query, pageSize === undefined ? undefined : pageSize + 1);
  const data = pageSize === undefined ? found : found.slice(0, pageSize);
  if (query.ending_before !== undefined) data.reverse();
  return { data, has_more: pageSize !== undefined && found.length > pageSize };
}

/** One financial transaction of the account: only its own journals, events and record are read. */
export async function get(db: Db, scope: ProgramScope, financialAccountToken: string, token: string): Promise<FinancialTransaction> {
  const found = await onAccount(db, scope, financialAccountToken, (exec) => getIn(exec, scope.programId, financialAccountToken, token));
  if (!found) throw notFound('financial transaction', token);
  return found;
}

/** `get`, its statements run on `exec` (a snapshot): the transaction, if it is one of the account's. */
export async function getIn(exec: Executor, programId: string, financialAccountToken: string, token: string): Promise<FinancialTransaction | undefined> {
  const [found] = await transactionsIn(exec, programId, financialAccountToken, await candidatesOf(exec, programId, financialAccountToken, token));
  return found;
}
