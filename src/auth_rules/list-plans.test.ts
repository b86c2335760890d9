/**
 * The Auth Rules list pages through `auth_rules_by_created` in list order; the ACCOUNT and
 * BUSINESS_ACCOUNT scope filters, which ask whether a rule has targets of a kind, are seeks into
 * the targets' primary key per rule, never a scan or a sort. PostgreSQL picks its plan by cost.
 */
import { expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { pagePlan } from '../testing/plans.js';
import { listRules } from './store.js';

describeWithDb('auth rule list plans', () => {
  const storage = useMigratedDb();

  it.skipIf(engine !== 'sqlite').each(['ACCOUNT', 'BUSINESS_ACCOUNT'])('scope %s: auth_rules_by_created in list order, targets by primary key', async (scope) => {
    const { kysely } = storage.db;
    const plan = await pagePlan(kysely, (watched) => listRules(watched, 'p-1', { scope }, { page_size: 10 }));
    expect(plan[0]).toBe('SEARCH auth_rules USING INDEX auth_rules_by_created (program_id=?)');
    const targetSteps = plan.filter((step) => / t /.test(`${step} `));
    expect(targetSteps.length).toBeGreaterThan(0);
    for (const step of targetSteps) expect(step).toMatch(/^SEARCH t (EXISTS )?USING PRIMARY KEY \(program_id=\? AND rule_token=\? AND kind=\?\)$/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|SCAN/);
  });
});
