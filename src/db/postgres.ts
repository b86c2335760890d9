/**
 * PostgreSQL adapter (pg), the production store.
 *
 * - BIGINT and NUMERIC come back as JS numbers (every amount and timestamp is an integer far below
 *   2^53; the parser asserts it) instead of pg's default strings.
 * - Statements are prepared once per connection: each distinct SQL text gets a stable name.
 * - Deferrable INSERTs (`insertRows(…, { deferrable: true })`, `preparedDeferredWrite`) ride along
 *   with the transaction's next statement, one round trip instead of two (pg-deferred.ts).
 * - A connection that breaks (PostgreSQL restarted, a backend terminated, the network cut) fails
 *   only the requests using it (503, see `isPostgresUnavailable`); the pool opens new ones.
 * - `search_path` can be set through the URL (`?options=-c search_path=…`), which the tests use to
 *   give each server its own schema.
 */
import pg from 'pg';
import { PostgresDialect, sql, type DatabaseIntrospector, type Dialect, type Kysely } from 'kysely';
import { DeferredInserts, type Statement } from './pg-deferred.js';

const PREPARED_STATEMENT_LIMIT = 2000;
/**
 * How long opening a connection, or waiting for a free one in the pool, may take: a PostgreSQL
 * that does not answer (a host that drops packets, a port that accepts and stays silent) fails the
 * start, or the request (503), instead of leaving it waiting forever.
 */
export const PG_CONNECT_TIMEOUT_MS = 5_000;
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

function parseInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`database returned a non-integer or unsafe integer: ${text}`);
  return value;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return parseInteger;
    return pg.types.getTypeParser(oid, format);
  },
};

type QueryFn = (text: unknown, values?: unknown[]) => Promise<pg.QueryResult>;

/**
 * Wraps a pool so that every client runs parameterised queries as named prepared statements, and
 * holds deferrable INSERTs to send them with the transaction's next statement (pg-deferred.ts).
 */
function withPreparedStatements(pool: pg.Pool): pg.Pool {
  const names = new Map<string, string>();
  const nameFor = (text: string): string | undefined => {
    let name = names.get(text);
    if (!name && names.size < PREPARED_STATEMENT_LIMIT) {
      name = `cw${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  const patched = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!patched.has(client)) {
      // A client lent to a request has no 'error' listener (pg-pool has one only on idle clients):
      // a connection lost in the middle of a request (backend terminated, PostgreSQL restarted)
      // emitted an unhandled 'error' and crashed the process. The request's query fails with the
      // error all the same, and the pool drops the client when it comes back (no longer queryable).
      client.on('error', () => undefined);
      const query = client.query.bind(client) as QueryFn;
      const send = ({ text, values }: Statement) => {
        const name = values.length > 0 ? nameFor(text) : undefined;
        return name ? query({ name, text, values }) : query(text, values);
      };
      const deferred = new DeferredInserts();
      (client as unknown as { query: QueryFn }).query = (text, values) => {
        if (typeof text !== 'string') {
          // A cursor or a query object (none is used: the dialect has no cursor). The held INSERTs
          // go first; if they fail, the cursor fails with "transaction is aborted", not their error.
          const flush = deferred.takeFlush();
          if (flush) send(flush).catch(() => undefined);
          return query(text, values);
        }
        const plan = deferred.plan(text, values ?? []);
        if (plan.hold) return Promise.resolve({ command: 'INSERT', rowCount: plan.rowCount, rows: [], fields: [], oid: 0 } as pg.QueryResult);
        // Sent together, in order; the answer is the last one's, and a failure the first one's.
        const results = plan.send.map(send);
        return results.length === 1 ? (results[0] as Promise<pg.QueryResult>) : Promise.all(results).then((all) => all[all.length - 1] as pg.QueryResult);
      };
      patched.add(client);
    }
    return client;
  };
  return pool;
}

/**
 * Kysely's migrator asks the introspector whether its bookkeeping tables exist. Kysely's own reads
 * every column of every schema in the database and calls functions that take schema *names*
 * (has_schema_privilege): a schema that another client drops meanwhile made them fail with
 * 'schema "…" does not exist', and so the start of a server that had nothing to do with it. This
 * one looks only at the tables of the schema the database works in (the migrator is told it:
 * migrate.ts), by catalog joins alone.
 */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    const base = super.createIntrospector(db);
    const getTables = async () => {
      const { rows } = await sql<{ name: string; schema: string }>`
        select c.relname as name, n.nspname as schema from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v')`.execute(db);
      return rows.map((row) => ({ ...row, isView: false, columns: [] }));
    };
    return { getSchemas: () => base.getSchemas(), getTables, getMetadata: async () => ({ tables: await getTables() }) };
  }
}

export function openPostgres(connectionString: string, poolSize: number): { dialect: Dialect; pool: pg.Pool } {
  const pool = withPreparedStatements(new pg.Pool({ connectionString, max: poolSize, types, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS }));
  // An idle client that errors (e.g. the server restarts) must not crash the process.
  pool.on('error', () => undefined);
  return { dialect: new OwnSchemaPostgresDialect({ pool }), pool };
}

/** Serialization failure or deadlock: the transaction can be retried as a whole. */
export function isPostgresRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

/** SQLSTATE classes and codes that mean the server cannot be reached or is going away, not a bad query. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CONNECTION_LOST_MESSAGES = /^(Connection terminated|timeout expired|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

/**
 * The database is unreachable or dropped the connection (shut down, restarted, a backend
 * terminated, the network cut, no free connection in time): the request could not be served, which
 * is no fault of the request or of the code.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_ERROR_CODES.has(code))) return true;
  return typeof message === 'string' && CONNECTION_LOST_MESSAGES.test(message);
}

export function isPostgresUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23505';
}
