/** Programs (tenants) and their API keys. */
export interface ProgramsTable {
  id: string;
  name: string;
  /** Added to the wall clock to give the program's "now" (see clock.ts). Only ever grows. */
  clock_offset_ms: number;
  /** Wall time (ms) of the last move of the clock, 0 if never (migration 0024; db/horizons.ts `noteClockMove`). */
  clock_moved_wall_ms: number;
  /** 1: card authorizations need the available funds of the card's ISSUING financial account. */
  require_funds: number;
  /** A new random value whenever the program's Auth Rules or their targets change (set by triggers, migration 0010). */
  rules_version: string;
  created_ms: number;
}

export interface ApiKeysTable {
  id: string;
  program_id: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, to tell keys apart in `keys list`. */
  key_prefix: string;
  created_ms: number;
  revoked_ms: number | null;
}

export interface ProgramTables {
  programs: ProgramsTable;
  api_keys: ApiKeysTable;
}
