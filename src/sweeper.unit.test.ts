import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSweeper } from './sweeper.js';

describe('startSweeper', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A run that ends only when the test says so. */
  function controlledRuns() {
    const finishers: Array<() => void> = [];
    const run = vi.fn(() => new Promise<void>((resolve) => finishers.push(resolve)));
    return { run, finishLast: () => finishers.at(-1)?.() };
  }

  it('runs on every tick while each run ends within the interval', async () => {
    const { run, finishLast } = controlledRuns();
    const sweeper = startSweeper(1_000, run);
    for (let tick = 1; tick <= 3; tick++) {
      await vi.advanceTimersByTimeAsync(1_000);
      expect(run).toHaveBeenCalledTimes(tick);
      finishLast();
    }
    await sweeper.stop();
  });

  it('skips the ticks that find the last run still under way: never two runs at once', async () => {
    const { run, finishLast } = controlledRuns();
    const sweeper = startSweeper(1_000, run);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run).toHaveBeenCalledTimes(1);
    finishLast();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run).toHaveBeenCalledTimes(2);
    finishLast();
    await sweeper.stop();
  });

  it('stop waits for the run under way and starts no other', async () => {
    const { run, finishLast } = controlledRuns();
    const sweeper = startSweeper(1_000, run);
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(stopped).toBe(false);
    finishLast();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('goes on after a run that fails', async () => {
    const run = vi.fn().mockRejectedValueOnce(new Error('sweep failed')).mockResolvedValue(undefined);
    const sweeper = startSweeper(1_000, () => run().catch(() => undefined));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(run).toHaveBeenCalledTimes(2);
    await sweeper.stop();
  });
});
