import { expect, it } from 'vitest';
import { describeWithDb, startTestServer } from '../testing/harness.js';

/**
 * Two databases side by side (on PostgreSQL: two schemas of one database, as concurrent test files
 * or two servers with their own search_path have): the second migrates although the first already
 * has its migration bookkeeping tables.
 */
describeWithDb('migrations', () => {
  it('migrate a database next to an already migrated one', async () => {
    const first = await startTestServer();
    try {
      const second = await startTestServer();
      try {
        const program = await second.newProgram();
        await expect(program.client.accounts.list()).resolves.toMatchObject({ has_more: false });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
