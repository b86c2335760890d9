/**
 * Writes between two statements of a read, to test that the read sees one state (`db.snapshot`).
 * PostgreSQL only: on SQLite a statement still holds the one connection when its rows come back.
 */
import type { KyselyPlugin } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * A Kysely plugin that runs `meanwhile` once, right after the first statement whose rows name
 * `token` and before the next one: what another request may commit between two statements of a
 * read or a transaction (PostgreSQL; on SQLite the statement still holds the one connection, so
 * `meanwhile` cannot write). `ran` says whether it did.
 */
export function afterRowsNaming(token: string, meanwhile: () => Promise<unknown>): KyselyPlugin & { readonly ran: boolean } {
  let ran = false;
  return {
    get ran() {
      return ran;
    },
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      if (!ran && JSON.stringify(args.result.rows).includes(token)) {
        ran = true;
        await meanwhile();
      }
      return args.result;
    },
  };
}

/**
 * `db` with `plugin` on every statement its reads run, in a snapshot or not (`kysely`): a service
 * read given it runs `afterRowsNaming`'s write between its statements unless they share a snapshot.
 */
export function readingThrough(db: Db, plugin: KyselyPlugin): Db {
  return Object.assign(Object.create(db) as Db, {
    kysely: db.kysely.withPlugin(plugin),
    snapshot: ((reads) => db.snapshot((exec) => reads(exec.withPlugin(plugin)))) satisfies Db['snapshot'],
  });
}
