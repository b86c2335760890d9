/**
 * Deferred INSERTs on PostgreSQL: fewer round trips while a transaction holds its row locks.
 *
 * Why. On PostgreSQL every statement is a round trip, and a money movement makes most of them
 * after it has locked its balance rows (`FOR UPDATE`): the movement's resource, its event, its
 * ledger entries, the balance UPDATEs, the webhook events. Movements over the same accounts wait
 * for each other's locks, so their throughput is one over the time the locks are held: the round
 * trips made under them, and the COMMIT.
 *
 * What. An INSERT marked deferrable (by `insertRows` for rows with fresh tokens, or by
 * `preparedDeferredWrite` for an upsert; either way one whose answer nothing needs: no RETURNING)
 * is not sent when it is made. It is held and sent with the transaction's next statement, as a data-modifying
 * CTE (`with cw_deferred_0 as (insert …) <next statement>`): one round trip instead of two.
 * PostgreSQL runs such a CTE after the statement that carries it (a data-modifying CTE nothing
 * references runs once the main query is done), so a carried upsert takes its row locks after the
 * carrier's: carriers so far take no new locks (they read, or update rows already locked). The
 * held INSERTs are sent on their own first (`with … select 1`, or the one INSERT), in the order
 * they were made, when the next statement cannot carry them:
 *  - it reads or writes a table with held rows (its name in the statement's text, in any case).
 *    The statements of one WITH share one snapshot and do not see each other's rows, so a
 *    statement that needs the held rows must come after them. A read through a view, a function
 *    or a trigger does not name the table: there are none over the deferrable tables (only
 *    triggers on auth rules and on ledger UPDATE/DELETE), and one added later must flush first;
 *  - it is not a plain SELECT, INSERT, UPDATE, DELETE or WITH (COMMIT, SAVEPOINT, RELEASE…): the
 *    held rows are written before the transaction commits or sets a savepoint;
 *  - carrying them would pass MAX_CARRIED_PARAMETERS bound parameters.
 * A statement into a table that already has held rows is not held: the held ones go first, then
 * it. So the held statements of one WITH all write different tables, and two upserts can never
 * meet the same row in one statement (which PostgreSQL refuses).
 * A ROLLBACK (or ROLLBACK TO a savepoint, which always comes after the held rows' flush: every
 * SAVEPOINT flushes) drops them. Outside a transaction nothing is held.
 *
 * Errors. A held INSERT that fails (a constraint) fails the statement that carries it, so its
 * error surfaces there, a statement or two later than it would have. PostgreSQL aborts the
 * transaction on any error either way, and no caller handles the error of a deferrable INSERT
 * itself: the whole transaction fails, as before. When held rows are sent on their own before a
 * statement and fail, the caller gets their error, not the "transaction is aborted" of the
 * statement after them.
 *
 * SQLite never sees the marker: its statements are calls in this process, not round trips.
 */

/** Prefix `insertRows` puts before a deferrable INSERT's text on PostgreSQL; `rows=N` is its row count. */
const DEFERRABLE_PREFIX = '/* deferrable rows=';

/** Bound parameters a carrying statement may have in all (PostgreSQL allows 65,535). */
export const MAX_CARRIED_PARAMETERS = 30_000;

export interface Statement {
  text: string;
  values: unknown[];
}

/** What to do with a statement: hold it (its answer: `rowCount` rows inserted), or send these, in order. */
export type Plan = { hold: true; rowCount: number } | { hold: false; send: Statement[] };

interface Held extends Statement {
  table: string;
}

const DEFERRABLE = /^\/\* deferrable rows=(\d+) \*\/ (insert into "(\w+)"[^]*)$/;
const BEGIN = /^\s*(begin|start transaction)\b/i;
const ROLLBACK = /^\s*rollback\s*$/i;
const ROLLBACK_TO = /^\s*rollback\s+to\b/i;
const COMMIT = /^\s*(commit|end)\b/i;
const CAN_CARRY = /^\s*(select|insert|update|delete)\b/i;
const STARTS_WITH = /^\s*with\s+/i;
const STARTS_WITH_RECURSIVE = /^\s*with\s+recursive\b/i;

/** Marks an INSERT of `rowCount` rows as deferrable (see above). */
export function deferrable(insertText: string, rowCount: number): string {
  return `${DEFERRABLE_PREFIX}${rowCount} */ ${insertText}`;
}

/** `$n` → `$(n + offset)`: for an INSERT `insertRows` compiled (no literals, only placeholders). */
function renumber(text: string, offset: number): string {
  return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, index: string) => `$${Number(index) + offset}`);
}

const tablePatterns = new Map<string, RegExp>();
function mentions(text: string, table: string): boolean {
  let pattern = tablePatterns.get(table);
  if (!pattern) {
    pattern = new RegExp(`\\b${table}\\b`, 'i');
    tablePatterns.set(table, pattern);
  }
  return pattern.test(text);
}

/** `with cw_deferred_0 as (…), …` for the held INSERTs, their parameters numbered from `offset + 1`. */
function withClause(held: readonly Statement[], offset: number): { ctes: string; values: unknown[] } {
  const ctes: string[] = [];
  const values: unknown[] = [];
  for (const [index, statement] of held.entries()) {
    ctes.push(`cw_deferred_${index} as (${renumber(statement.text, offset + values.length)})`);
    values.push(...statement.values);
  }
  return { ctes: ctes.join(', '), values };
}

/** The held INSERTs as one statement of their own. */
function flushStatement(held: readonly Statement[]): Statement {
  const [only] = held;
  if (held.length === 1 && only) return { text: only.text, values: only.values };
  const { ctes, values } = withClause(held, 0);
  return { text: `with ${ctes} select 1`, values };
}

/** `statement` carrying the held INSERTs (their parameters after its own). */
function carrying(held: readonly Statement[], statement: Statement): Statement {
  const { ctes, values } = withClause(held, statement.values.length);
  const text = STARTS_WITH.test(statement.text)
    ? `with ${ctes}, ${statement.text.replace(STARTS_WITH, '')}`
    : `with ${ctes} ${statement.text.trimStart()}`;
  return { text, values: [...statement.values, ...values] };
}

/** The held INSERTs of one connection (one per pg client: a client serves one transaction at a time). */
export class DeferredInserts {
  #inTransaction = false;
  #held: Held[] = [];
  #heldParameters = 0;

  /** Decides what to send for `text` (and remembers what it holds). Called in the order statements are made. */
  plan(text: string, values: unknown[]): Plan {
    const deferred = DEFERRABLE.exec(text);
    if (deferred) return this.#planInsert(Number(deferred[1]), { text: deferred[2] as string, values, table: deferred[3] as string });
    if (BEGIN.test(text)) {
      this.#drop();
      this.#inTransaction = true;
      return { hold: false, send: [{ text, values }] };
    }
    if (ROLLBACK.test(text) || ROLLBACK_TO.test(text)) {
      this.#drop();
      if (ROLLBACK.test(text)) this.#inTransaction = false;
      return { hold: false, send: [{ text, values }] };
    }
    if (COMMIT.test(text)) this.#inTransaction = false;
    return { hold: false, send: this.#before({ text, values }) };
  }

  /** What a statement `plan` did not recognise (a cursor) must wait for: the held INSERTs, if any. */
  takeFlush(): Statement | undefined {
    if (this.#held.length === 0) return undefined;
    const statement = flushStatement(this.#held);
    this.#drop();
    return statement;
  }

  #planInsert(rowCount: number, insert: Held): Plan {
    if (!this.#inTransaction) return { hold: false, send: [{ text: insert.text, values: insert.values }] };
    if (this.#heldParameters + insert.values.length > MAX_CARRIED_PARAMETERS || this.#held.some((held) => held.table === insert.table)) {
      return { hold: false, send: this.#before({ text: insert.text, values: insert.values }) };
    }
    this.#held.push(insert);
    this.#heldParameters += insert.values.length;
    return { hold: true, rowCount };
  }

  /** The statements that send `statement`: carrying the held INSERTs, or after them, or alone. */
  #before(statement: Statement): Statement[] {
    if (this.#held.length === 0) return [statement];
    const held = this.#held;
    const heldParameters = this.#heldParameters;
    this.#drop();
    const canCarry =
      (CAN_CARRY.test(statement.text) || (STARTS_WITH.test(statement.text) && !STARTS_WITH_RECURSIVE.test(statement.text))) &&
      statement.values.length + heldParameters <= MAX_CARRIED_PARAMETERS &&
      !held.some((insert) => mentions(statement.text, insert.table));
    return canCarry ? [carrying(held, statement)] : [flushStatement(held), statement];
  }

  #drop(): void {
    this.#held = [];
    this.#heldParameters = 0;
  }
}
