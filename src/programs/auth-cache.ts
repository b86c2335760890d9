/**
 * Successful authentications, kept in memory for a second so that a request does not query the
 * database for its key (on the hottest path there is: every request).
 *
 * - Only successes are kept (an unknown key always reaches the database, so guessing cannot fill
 *   the cache), at most MAX_ENTRIES of them, the oldest dropped first.
 * - An entry is trusted for AUTH_CACHE_TTL_MS (1 s) of wall time, then the key is looked up again. So a key revoked
 *   by the CLI or by another server, or a clock moved by another server, takes effect within a
 *   second everywhere.
 * - When this process moves a program's clock, the program's entries are dropped at once (after
 *   the move commits), so its next request reads the new time. A lookup that began before a drop
 *   may have read the old time, so it is not stored (`epoch`).
 */
import type { WallClock } from '../clock.js';

export const AUTH_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export interface CachedAuthentication {
  programId: string;
  clockOffsetMs: number;
}

interface Entry extends CachedAuthentication {
  expiresAtMs: number;
}

export class AuthCache {
  readonly #entries = new Map<string, Entry>();
  #epoch = 0;

  constructor(private readonly wall: WallClock) {}

  /** Taken before a database lookup, and given back to `set`. */
  get epoch(): number {
    return this.#epoch;
  }

  get(keyHash: string): CachedAuthentication | undefined {
    const entry = this.#entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= this.wall.nowMs()) {
      this.#entries.delete(keyHash);
      return undefined;
    }
    return entry;
  }

  /** Stores a lookup's result, unless entries were dropped since the lookup began (`epoch`). */
  set(keyHash: string, authentication: CachedAuthentication, epoch: number): void {
    if (epoch !== this.#epoch) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(keyHash, { ...authentication, expiresAtMs: this.wall.nowMs() + AUTH_CACHE_TTL_MS });
  }

  /** Drops every entry of a program (its clock moved, or its keys changed). */
  forgetProgram(programId: string): void {
    this.#epoch += 1;
    for (const [keyHash, entry] of this.#entries) if (entry.programId === programId) this.#entries.delete(keyHash);
  }
}
