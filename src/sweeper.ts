/**
 * Background work on a fixed interval (the minute sweep of clock jobs and idempotency records):
 * never two runs at once, as a run that outlasts the interval (many programs, a big catch-up) would
 * otherwise have the next one start beside it and pile up load; a tick that finds the last run still
 * under way is skipped. `stop` waits for the run under way, so the database closes after it.
 */
export interface Sweeper {
  stop(): Promise<void>;
}

export function startSweeper(intervalMs: number, run: () => Promise<void>): Sweeper {
  let underWay: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (underWay !== undefined) return;
    underWay = run().finally(() => {
      underWay = undefined;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await underWay;
    },
  };
}
