/** Query plans for tests: the statements a read runs, as it runs them, and their plans. */
import { CompiledQuery, createQueryId, PostgresAdapter, type Kysely, type RootOperationNode } from 'kysely';
import type { Database } from '../db/schema.js';

/** Every statement `read` runs on the Kysely it is given, compiled again to be explained. */
export async function statementsOf(kysely: Kysely<Database>, read: (watched: Kysely<Database>) => Promise<unknown>): Promise<CompiledQuery[]> {
  const nodes: RootOperationNode[] = [];
  await read(
    kysely.withPlugin({
      transformQuery: ({ node }) => {
        nodes.push(node);
        return node;
      },
      transformResult: async ({ result }) => result,
    }),
  );
  return nodes.map((node) => kysely.getExecutor().compileQuery(node, createQueryId()));
}

/** The plan of `statement`, a line per step: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN lines. */
export async function planOf(kysely: Kysely<Database>, statement: CompiledQuery): Promise<string[]> {
  const postgres = kysely.getExecutor().adapter instanceof PostgresAdapter;
  const plan = await kysely.executeQuery<Record<string, string>>(CompiledQuery.raw(`${postgres ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${statement.sql}`, [...statement.parameters]));
  return plan.rows.map((row) => (postgres ? row['QUERY PLAN'] : row.detail) ?? '');
}

/** The plan of the last statement `read` runs (a list's page; before it, the cursor's lookup). */
export async function pagePlan(kysely: Kysely<Database>, read: (watched: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const statement = (await statementsOf(kysely, read)).at(-1);
  if (statement === undefined) throw new Error('the read ran no statement');
  return planOf(kysely, statement);
}
