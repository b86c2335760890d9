/**
 * Queries built and compiled once, then run with new parameter values. Kysely builds and compiles
 * a query on every call (about 15 µs here, several times the cost of executing a simple indexed
 * lookup); for the few queries on every request's path that is worth avoiding.
 *
 * `prepared((db, a, b) => db.selectFrom(…).where('x', '=', a)…)` compiles the builder once per
 * engine with placeholder arguments and remembers which bound parameter is which argument. Only
 * scalar arguments may be used (an array would expand to a variable number of parameters).
 * The statement itself is then a cached prepared statement (see sqlite.ts / postgres.ts).
 */
import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

type Slot = { argument: number } | { constant: unknown };

interface Template {
  sql: string;
  slots: Slot[];
}

const PLACEHOLDER = '\u0000cardwright-argument-';

/** Compiles `build` once per engine; then gives the compiled query for new arguments. */
function compiler<Args extends unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<Row> },
): (exec: Executor, args: Args) => CompiledQuery<Row> {
  const templates = new Map<string, Template>();

  function templateFor(exec: Executor, arity: number): Template {
    const engine = exec.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
    let template = templates.get(engine);
    if (!template) {
      const placeholders = Array.from({ length: arity }, (_, index) => `${PLACEHOLDER}${index}`) as Args;
      const compiled = build(exec, ...placeholders).compile();
      const slots = compiled.parameters.map((parameter): Slot => {
        if (typeof parameter === 'string' && parameter.startsWith(PLACEHOLDER)) {
          return { argument: Number(parameter.slice(PLACEHOLDER.length)) };
        }
        return { constant: parameter };
      });
      template = { sql: compiled.sql, slots };
      templates.set(engine, template);
    }
    return template;
  }

  return (exec, args) => {
    const template = templateFor(exec, args.length);
    const parameters = template.slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.constant));
    return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Row>;
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
