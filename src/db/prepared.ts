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
 *   `preparedDeferredWrite(…)`: an INSERT or upsert whose answer nothing needs, which PostgreSQL
 *   may send with the transaction's next statement (pg-deferred.ts).
 * - `preparedOverTokens(…)`: a query over a list of tokens (`in (…)`), compiled once per engine
 *   and list length; `preparedByShape(…)`, its general form, for statements whose structure varies
 *   (compiled once per engine and shape).
 * - `insertRows(exec, table, rows)` inserts whole rows in one statement (or a few, for very many
 *   rows), compiled once per engine, table, column list and row count. With `{ deferrable: true }`
 *   PostgreSQL may send it with the transaction's next statement (pg-deferred.ts): for rows with
 *   fresh tokens whose INSERT cannot fail but for a bug.
 *
 * The SQL text is the same string each time, so the statement itself is a cached prepared
 * statement too (see sqlite.ts / postgres.ts). In the transaction of a SQLite write they run straight
 * on the connection, past Kysely's executor (group-commit.ts `executeCompiled`).
 */
import { CompiledQuery, PostgresAdapter, type Insertable, type Kysely } from 'kysely';
import type { Executor } from './database.js';
import { executeCompiled } from './group-commit.js';
import { deferrable } from './pg-deferred.js';
import type { Database } from './schema.js';

type Slot = { argument: number } | { constant: unknown };

interface Template {
  sql: string;
  slots: Slot[];
  /** What Kysely's `CompiledQuery.raw(sql)` would build on each call (see `withArguments`). */
  query: CompiledQuery['query'];
  queryId: CompiledQuery['queryId'];
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
  const raw = CompiledQuery.raw(compiled.sql);
  return { sql: compiled.sql, slots, query: raw.query, queryId: raw.queryId };
}

/**
 * The template's statement with these arguments. Built as a plain object rather than by
 * `CompiledQuery.raw`, which freezes four new objects and makes a query id on every call (a few
 * per cent of a write): the raw node and the id are the template's, made once (no plugin is
 * installed, and only plugins read the id), and nothing changes a compiled query once built.
 */
function withArguments<Row>(template: Template, args: readonly unknown[]): CompiledQuery<Row> {
  const parameters = template.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.constant));
  return { sql: template.sql, query: template.query, queryId: template.queryId, parameters };
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
  return async (exec, ...args) => (await executeCompiled(exec, compile(exec, args))).rows;
}

/** A prepared INSERT, UPDATE or DELETE: runs it with new arguments and returns how many rows it changed. */
export function preparedWrite<Args extends unknown[]>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<unknown> },
): (exec: Executor, ...args: Args) => Promise<number> {
  const compile = compiler(build);
  return async (exec, ...args) => Number((await executeCompiled(exec, compile(exec, args))).numAffectedRows ?? 0);
}

/**
 * A prepared INSERT (an upsert, typically) whose answer nothing needs: PostgreSQL may send it with
 * the transaction's next statement (pg-deferred.ts), so it answers nothing.
 */
export function preparedDeferredWrite<Args extends unknown[]>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<unknown> },
): (exec: Executor, ...args: Args) => Promise<void> {
  const compile = compiler(build);
  const markedSql = new Map<string, string>();
  return async (exec, ...args) => {
    const query = compile(exec, args);
    if (engineOf(exec) === 'postgres') {
      let sql = markedSql.get(query.sql);
      if (sql === undefined) {
        sql = deferrable(query.sql, 1); // the row count a held statement answers: nominal, nothing reads it
        markedSql.set(query.sql, sql);
      }
      await executeCompiled(exec, { ...query, sql });
    } else {
      await executeCompiled(exec, query);
    }
  };
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
    return (await executeCompiled(exec, withArguments<Row>(template, args))).rows;
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

/**
 * Compiled INSERTs by engine, table and row count, each with the column list it was compiled for
 * (a pure cache of SQL text). Rows built by one function have one column list, so a key holds one
 * or two entries; the list is compared name by name rather than joined into the key, which cost
 * more than the rest of building a statement.
 */
const insertTemplates = new Map<string, Array<{ columns: readonly string[]; template: Template }>>();

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * Bound parameters per INSERT `insertRows` writes: well under both engines' caps (SQLite 32,766,
 * PostgreSQL 65,535), so that callers may pass any number of rows (a clock move can record
 * thousands of events, a replay thousands of attempts).
 */
export const INSERT_PARAMETERS_MAX = 10_000;

/**
 * Inserts rows that all have the same columns, in the same order (as rows built by one function
 * do): in one statement, or in as few as the parameter bound allows. `deferrable`: see above.
 */
export async function insertRows<T extends keyof Database & string>(
  exec: Executor,
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
  options: { deferrable?: boolean } = {},
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const rowsPerStatement = Math.max(1, Math.floor(INSERT_PARAMETERS_MAX / columns.length));
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    await insertStatement(exec, table, columns, rows.slice(start, start + rowsPerStatement), options.deferrable === true);
  }
}

async function insertStatement<T extends keyof Database & string>(
  exec: Executor,
  table: T,
  columns: readonly string[],
  rows: ReadonlyArray<Insertable<Database[T]>>,
  deferred: boolean,
): Promise<void> {
  const engine = engineOf(exec);
  const deferredOnPostgres = deferred && engine === 'postgres';
  const key = `${engine}|${table}|${rows.length}${deferredOnPostgres ? '|deferrable' : ''}`;
  const compiled = insertTemplates.get(key) ?? [];
  let template = compiled.find((entry) => sameColumns(entry.columns, columns))?.template;
  if (!template) {
    const names = placeholders(rows.length * columns.length);
    const placeholderRows = rows.map((_, row) =>
      Object.fromEntries(columns.map((column, index) => [column, names[row * columns.length + index]])),
    );
    template = compileTemplate(exec.insertInto(table).values(placeholderRows as never));
    if (deferredOnPostgres) template = { ...template, sql: deferrable(template.sql, rows.length) };
    compiled.push({ columns: [...columns], template });
    insertTemplates.set(key, compiled);
  }
  const values: unknown[] = new Array(rows.length * columns.length);
  let next = 0;
  for (const row of rows) {
    for (const column of columns) values[next++] = (row as Record<string, unknown>)[column] ?? null;
  }
  await executeCompiled(exec, withArguments(template, values));
}
