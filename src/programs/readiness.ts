/**
 * The readiness check of `GET /v1/status` asks PostgreSQL `select 1`. Status calls that arrive while
 * such a query is under way share its answer, so a burst of them is one query on the pool, not one
 * each (a probe or a load balancer polling hard would otherwise take connections from real work).
 * Each caller's answer is still that of a query under way when it asked; a failure fails every one
 * of them, and the next call asks again.
 */
export function sharedWhileRunning(check: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= check().finally(() => {
      running = undefined;
    });
    return running;
  };
}
