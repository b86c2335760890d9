import { describe, expect, it } from 'vitest';
import { DueHorizons } from './horizons.js';

describe('due horizons', () => {
  it('keep what a check found when no work was lowered since it began', () => {
    const horizons = new DueHorizons();
    const stamp = horizons.stamp('work', 'p');
    horizons.set('work', 'p', 1_000, stamp);
    expect([horizons.isClear('work', 'p', 999), horizons.isClear('work', 'p', 1_000)]).toEqual([true, false]);
  });

  it('drop what a check found when work it may have missed was lowered meanwhile, even with no horizon yet', () => {
    const horizons = new DueHorizons();
    const stamp = horizons.stamp('work', 'p');
    horizons.lower('work', 'p', 100); // committed while the check read: the check did not see it
    horizons.set('work', 'p', 1_000, stamp);
    expect(horizons.isClear('work', 'p', 500)).toBe(false);
    horizons.set('work', 'p', 100, horizons.stamp('work', 'p')); // a later check saw it
    expect([horizons.isClear('work', 'p', 99), horizons.isClear('work', 'p', 100)]).toEqual([true, false]);
  });

  it('lower a horizon set before the work committed, per kind and program', () => {
    const horizons = new DueHorizons();
    horizons.set('work', 'p', 1_000, horizons.stamp('work', 'p'));
    horizons.set('work', 'q', 1_000, horizons.stamp('work', 'q'));
    horizons.lower('work', 'p', 100);
    expect([horizons.isClear('work', 'p', 100), horizons.isClear('work', 'p', 99), horizons.isClear('work', 'q', 500)]).toEqual([false, true, true]);
  });

  it('after this process moved a program\'s clock, neither use nor learn that program\'s horizons for a while (another server\'s work may commit unseen)', () => {
    const horizons = new DueHorizons();
    horizons.set('work', 'p', 1_000, horizons.stamp('work', 'p'));
    horizons.set('work', 'q', 1_000, horizons.stamp('work', 'q'));
    horizons.unsettle('p');
    expect([horizons.isClear('work', 'p', 500), horizons.isClear('work', 'q', 500)]).toEqual([false, true]);
    horizons.set('work', 'p', 1_000, horizons.stamp('work', 'p'));
    expect(horizons.isClear('work', 'p', 500)).toBe(false);

    const settling = new DueHorizons(0); // the while is over at once
    settling.set('work', 'p', 1_000, settling.stamp('work', 'p'));
    settling.unsettle('p');
    expect(settling.isClear('work', 'p', 500)).toBe(false); // dropped
    settling.set('work', 'p', 1_000, settling.stamp('work', 'p'));
    expect(settling.isClear('work', 'p', 500)).toBe(true); // learned again
  });

  it('a clock move another server made is noted: unsettled until UNSETTLED_MS of wall time after it, not after it was read', () => {
    const horizons = new DueHorizons(5_000);
    horizons.set('work', 'p', 1_000, horizons.stamp('work', 'p'));
    horizons.noteClockMove('p', 0, 1_700_000_000_000); // never moved
    horizons.noteClockMove('p', 1_700_000_000_000 - 5_000, 1_700_000_000_000); // moved long enough ago
    expect(horizons.isClear('work', 'p', 500)).toBe(true);
    horizons.noteClockMove('p', 1_700_000_000_000 - 4_000, 1_700_000_000_000); // moved 4 s ago: 1 s to go
    expect([horizons.isClear('work', 'p', 500), horizons.isClear('work', 'q', 500)]).toEqual([false, false]);
    horizons.set('work', 'p', 1_000, horizons.stamp('work', 'p'));
    horizons.set('work', 'q', 1_000, horizons.stamp('work', 'q'));
    expect([horizons.isClear('work', 'p', 500), horizons.isClear('work', 'q', 500)]).toEqual([false, true]);
  });
});
