/**
 * Every module can be the first one a process imports (as a unit test of it would): an import
 * cycle whose modules read each other's bindings while they load fails with "Cannot access 'X'
 * before initialization" for some import orders only. Needs `npm run build` (npm test does).
 */
import { expect, it } from 'vitest';
import { builtModules, importAlone } from './testing/process.js';

/** Processes at a time: the machine running the tests has few CPUs. */
const PARALLEL_IMPORTS = 2;

it('imports each built module of src first in a fresh process without an error', { timeout: 300_000 }, async () => {
  const pending = builtModules();
  expect(pending.length).toBeGreaterThan(100);
  const failures: string[] = [];
  const importNext = async (): Promise<void> => {
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      const { status, stderr } = await importAlone(file);
      if (status !== 0) failures.push(`${file}: ${/^\w*Error.*$/m.exec(stderr)?.[0] ?? stderr}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_IMPORTS }, importNext));
  expect(failures.sort()).toEqual([]);
});
