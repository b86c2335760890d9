import { defineConfig } from 'vitest/config';

/**
 * Three projects:
 * - `unit`: pure tests (`*.unit.test.ts`: ledger rules, rule engine, state machines), run once;
 * - `sqlite`: every HTTP/storage test against the embedded SQLite;
 * - `postgres`: the same tests against PostgreSQL, when TEST_DATABASE_URL is set (else skipped).
 */
const storageTests = { include: ['src/**/*.test.ts'], exclude: ['src/**/*.unit.test.ts'] };

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.unit.test.ts'] } },
      { extends: true, test: { name: 'sqlite', ...storageTests, env: { CW_TEST_ENGINE: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', ...storageTests, env: { CW_TEST_ENGINE: 'postgres' } } },
    ],
  },
});
