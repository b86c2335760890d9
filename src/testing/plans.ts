/** Query plans for tests: the statements a read runs, as it runs them. */
import { createQueryId, type CompiledQuery, type Kysely, type RootOperationNode } from 'kysely';
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
