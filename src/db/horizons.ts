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
 * the work even if no request comes. Such work may also commit while a check that did not see it
 * is under way (the check of the clock move's own transaction, say): a horizon from that check
 * would hide the work. So a check takes a `stamp` before it reads, and `set` keeps its horizon only
 * if nothing was lowered since: a check sees all work committed before it began, or that work's
 * `lower` comes after the stamp.
 *
 * Another server's request that read the clock before a move lowers only that server's horizons.
 * Every server learns the new time within a second (programs/auth-cache.ts), so for UNSETTLED_MS
 * of elapsed time after a move no server trusts or learns a horizon of the program: its checks ask
 * the database, which by then holds that work. The server that moved the clock knows at once
 * (`unsettle`); the others when they read the program's clock again, which comes with the wall
 * time of its last move (`noteClockMove`, from the key lookup and the minute sweep). That relies on
 * the servers' wall clocks agreeing to well within UNSETTLED_MS.
 */
export const REQUEST_CLOCK_MARGIN_MS = 5 * 60_000;

/** How long after this process moved a program's clock its horizons are not used (elapsed ms). */
const UNSETTLED_MS = 5_000;

export class DueHorizons {
  readonly #untilMs = new Map<string, number>();
  /** How many times work was lowered into each (kind, program): a check's stamp. */
  readonly #lowerings = new Map<string, number>();
  /** Per program moved by this process: until when (performance.now() ms) its horizons are not used. */
  readonly #unsettledUntil = new Map<string, number>();

  constructor(private readonly unsettledMs: number = UNSETTLED_MS) {}

  /** Whether nothing of `kind` can be due for the program at program time `nowMs`. */
  isClear(kind: string, programId: string, nowMs: number): boolean {
    if (this.#unsettled(programId)) return false;
    const untilMs = this.#untilMs.get(`${kind}|${programId}`);
    return untilMs !== undefined && nowMs < untilMs;
  }

  /** After this process moved the program's clock: its horizons are dropped and, for UNSETTLED_MS, neither used nor learned. */
  unsettle(programId: string): void {
    this.#unsettleFor(programId, this.unsettledMs);
  }

  /**
   * This process read that the program's clock was last moved at wall time `movedWallMs` (by any
   * server; 0 if never): until UNSETTLED_MS after it, as after a move of its own (`unsettle`).
   */
  noteClockMove(programId: string, movedWallMs: number, wallNowMs: number): void {
    const remainingMs = movedWallMs + this.unsettledMs - wallNowMs;
    if (remainingMs > 0) this.#unsettleFor(programId, remainingMs);
  }

  #unsettleFor(programId: string, elapsedMs: number): void {
    const untilMs = performance.now() + elapsedMs;
    if ((this.#unsettledUntil.get(programId) ?? Number.NEGATIVE_INFINITY) < untilMs) this.#unsettledUntil.set(programId, untilMs);
    for (const key of [...this.#untilMs.keys()]) if (key.endsWith(`|${programId}`)) this.#untilMs.delete(key);
  }

  #unsettled(programId: string): boolean {
    const untilMs = this.#unsettledUntil.get(programId);
    if (untilMs === undefined) return false;
    if (performance.now() < untilMs) return true;
    this.#unsettledUntil.delete(programId);
    return false;
  }

  /** Taken before a check whose result may become a horizon (see `set`). */
  stamp(kind: string, programId: string): number {
    return this.#lowerings.get(`${kind}|${programId}`) ?? 0;
  }

  /**
   * Records that nothing of `kind` falls due for the program before program time `untilMs`, as a
   * check that began at `stamp` found; unless work was lowered since, which the check may have missed.
   */
  set(kind: string, programId: string, untilMs: number, stamp: number): void {
    if (this.#unsettled(programId)) return;
    if (this.stamp(kind, programId) === stamp) this.#untilMs.set(`${kind}|${programId}`, untilMs);
  }

  /** Committed work of `kind` falls due at program time `dueMs`: a later horizon no longer holds. */
  lower(kind: string, programId: string, dueMs: number): void {
    const key = `${kind}|${programId}`;
    this.#lowerings.set(key, this.stamp(kind, programId) + 1);
    const untilMs = this.#untilMs.get(key);
    if (untilMs !== undefined && dueMs < untilMs) this.#untilMs.set(key, dueMs);
  }
}
