import type Lithic from 'lithic';
import type { Db } from '../src/db/database.js';

/** What a scenario's `prepare` gets: the running server, an SDK client, and its database. */
export interface BenchContext {
  engine: 'sqlite' | 'postgres';
  url: string;
  apiKey: string;
  client: Lithic;
  /** A connection to the server's database, for seeding rows in bulk. */
  db: Db;
  programId: string;
}
