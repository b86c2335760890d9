/**
 * Statements built and compiled once, then run with new values. Kysely builds and compiles a query
 * on every call (6–15 µs here, more than executing a simple indexed statement); on the paths every
 * request or every money movement takes, that is worth avoiding. The helpers:
 *
 * - `prepared((db, a, b) => db.selectFrom(…).where('x', '=', a)…)` compiles the builder once per
 *   engine with placeholder arguments and remembers which bound parameter is which argument; it
 *   returns the rows. Only scalar arguments may be used (an array would expand to a variable
 *   number of parameters).
 * - `preparedWrite(…)`: the same for an INSERT, UPDATE or DELETE; returns the affected row count.
 * - `preparedOverTokens(…)`: a query over a list of tokens (`in (…)`), compiled once per engine
 *   and list length; `preparedByShape(…)`, its general form, for statements whose structure varies
 *   (compiled once per engine and shape).
 * - `insertRows(exec, table, rows)` inserts whole rows in one statement (or a few, for very many
 *   rows), compiled once per engine, table, column list and row count.
 *
 * The SQL text is the same string each time, so the statement itself is a cached prepared
 * statement too (see sqlite.ts / postgres.ts).
 */
import { CompiledQuery, PostgresAdapter, type Insertable, type Kysely } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

type Slot = { argument: number } | { constant: unknown };

interface Template {
  sql: string;
  slots: Slot[];
}

const PLACEHOLDER = '\u0000cardwright-argument-';

function engineOf(exec: Executor): 'sqlite' | 'postgres' {
  return exec.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

function placeholders(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${PLACEHOLDER}${index}`);
}

/** Compiles a query built from placeholder arguments and maps each bound parameter to its argument. */
function compileTemplate(query: { compile(): CompiledQuery<unknown> }): Template {
  const compiled = query.compile();
  const slots = compiled.parameters.map((parameter): Slot => {
    if (typeof parameter === 'string' && parameter.startsWith(PLACEHOLDER)) {
      return { argument: Number(parameter.slice(PLACEHOLDER.length)) };
    }
    return { constant: parameter };
  });
  return { sql: compiled.sql, slots };
}

function withArguments<Row>(template: Template, args: readonly unknown[]): CompiledQuery<Row> {
  const parameters = template.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.constant));
  return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Row>;
}

/** Compiles `build` once per engine; then gives the compiled query for new arguments. */
function compiler<Args extends unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<Row> },
): (exec: Executor, args: Args) => CompiledQuery<Row> {
  const templates = new Map<string, Template>();
  return (exec, args) => {
    const engine = engineOf(exec);
    let template = templates.get(engine);
    if (!template) {
      template = compileTemplate(build(exec, ...(placeholders(args.length) as Args)));
      templates.set(engine, template);
    }
    return withArguments<Row>(template, args);
  };
}

/** A prepared query: runs it with new arguments and returns its rows. */
export function prepared<Args extends unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<Row> },
): (exec: Executor, ...args: Args) => Promise<Row[]> {
  const compile = compiler(build);
  return async (exec, ...args) => (await exec.executeQuery<Row>(compile(exec, args))).rows;
}

/** A prepared INSERT, UPDATE or DELETE: runs it with new arguments and returns how many rows it changed. */
export function preparedWrite<Args extends unknown[]>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<unknown> },
): (exec: Executor, ...args: Args) => Promise<number> {
  const compile = compiler(build);
  return async (exec, ...args) => Number((await exec.executeQuery(compile(exec, args))).numAffectedRows ?? 0);
}

/**
 * A prepared query whose structure depends on a small `shape` (a key naming what the statement is
 * made of, e.g. the parts of a union): compiled once per engine, shape and argument count. `build`
 * gets placeholder arguments, one per value of `args`.
 */
export function preparedByShape<Row>(
  build: (db: Kysely<Database>, shape: string, args: readonly unknown[]) => { compile(): CompiledQuery<Row> },
): (exec: Executor, shape: string, args: readonly unknown[]) => Promise<Row[]> {
  const templates = new Map<string, Template>();
  return async (exec, shape, args) => {
    const key = `${engineOf(exec)}|${shape}|${args.length}`;
    let template = templates.get(key);
    if (!template) {
      template = compileTemplate(build(exec, shape, placeholders(args.length)));
      templates.set(key, template);
    }
    return (await exec.executeQuery<Row>(withArguments(template, args))).rows;
  };
}

/**
 * A prepared query over a program's list of tokens (`where(column, 'in', tokens)`): compiled once
 * per engine and list length. An empty list answers no rows without a query (`in ()` is not SQL).
 */
export function preparedOverTokens<Row>(
  build: (db: Kysely<Database>, programId: string, tokens: readonly string[]) => { compile(): CompiledQuery<Row> },
): (exec: Executor, programId: string, tokens: readonly string[]) => Promise<Row[]> {
  const query = preparedByShape<Row>((db, _shape, [programId, ...tokens]) => build(db, programId as string, tokens as string[]));
  return async (exec, programId, tokens) => (tokens.length === 0 ? [] : query(exec, 'tokens', [programId, ...tokens]));
}

/** Compiled INSERTs by (engine, table, row count, columns): a pure cache of SQL text. */
const insertTemplates = new Map<string, Template>();

/**
 * Bound parameters per INSERT `insertRows` writes: well under both engines' caps (SQLite 32,766,
 * PostgreSQL 65,535), so that callers may pass any number of rows (a clock move can record
 * thousands of events, a replay thousands of attempts).
 */
export const INSERT_PARAMETERS_MAX = 10_000;

/**
 * Inserts rows that all have the same columns, in the same order (as rows built by one function
 * do): in one statement, or in as few as the parameter bound allows.
 */
export async function insertRows<T extends keyof Database & string>(
  exec: Executor,
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const rowsPerStatement = Math.max(1, Math.floor(INSERT_PARAMETERS_MAX / columns.length));
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    await insertStatement(exec, table, columns, rows.slice(start, start + rowsPerStatement));
  }
}

async function insertStatement<T extends keyof Database & string>(
  exec: Executor,
  table: T,
  columns: readonly string[],
  rows: ReadonlyArray<Insertable<Database[T]>>,
): Promise<void> {
  const key = `${engineOf(exec)}|${table}|${rows.length}|${columns.join(',')}`;
  let template = insertTemplates.get(key);
  if (!template) {
    const names = placeholders(rows.length * columns.length);
    const placeholderRows = rows.map((_, row) =>
      Object.fromEntries(columns.map((column, index) => [column, names[row * columns.length + index]])),
    );
    template = compileTemplate(exec.insertInto(table).values(placeholderRows as never));
    insertTemplates.set(key, template);
  }
  const values = rows.flatMap((row) => columns.map((column) => (row as Record<string, unknown>)[column] ?? null));
  await exec.executeQuery(withArguments(template, values));
}
