/**
 * Horizons: what this process knows cannot fall due before a given program time. Some work falls
 * due as a program's clock moves (a management operation's effective date, an authorization's
 * expiry) and is caught up at the start of every money movement and card authorization. Asking
 * the database "is anything due?" each time cost a query on the hottest paths; a horizon turns it
 * into a comparison.
 *
 * A horizon for (kind, program) is a program time before which nothing of that kind can be due:
 * not what exists now, and not what any process may create later. Each caller proves that bound
 * where it sets one. Horizons are set only from committed state (`Db.afterCommit`, or a read
 * outside any transaction), and program clocks only move forward, so a horizon stays true until
 * the program's clock reaches it; then the caller asks the database again.
 *
 * A request reads its program's clock when it starts and may write a little later. Callers give
 * that delay a margin, `REQUEST_CLOCK_MARGIN_MS`, when they bound what later requests may create.
 * A margin cannot cover a request that read the clock before the clock was moved and commits after
 * (PostgreSQL runs them side by side): what it creates may be due at once by the moved clock. So
 * whatever creates work that will fall due lowers the horizon to that time once it commits
 * (`lower`), and this process's next check asks the database again; its minute sweep then applies
 * the work even if no request comes.
 */
export const REQUEST_CLOCK_MARGIN_MS = 5 * 60_000;

export class DueHorizons {
  readonly #untilMs = new Map<string, number>();

  /** Whether nothing of `kind` can be due for the program at program time `nowMs`. */
  isClear(kind: string, programId: string, nowMs: number): boolean {
    const untilMs = this.#untilMs.get(`${kind}|${programId}`);
    return untilMs !== undefined && nowMs < untilMs;
  }

  /** Records that nothing of `kind` falls due for the program before program time `untilMs`. */
  set(kind: string, programId: string, untilMs: number): void {
    this.#untilMs.set(`${kind}|${programId}`, untilMs);
  }

  /** Committed work of `kind` falls due at program time `dueMs`: a later horizon no longer holds. */
  lower(kind: string, programId: string, dueMs: number): void {
    const key = `${kind}|${programId}`;
    const untilMs = this.#untilMs.get(key);
    if (untilMs !== undefined && dueMs < untilMs) this.#untilMs.set(key, dueMs);
  }
}
