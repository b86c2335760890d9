/**
 * The rules a card or account response lists start from the program's ACTIVE program-level rules,
 * read on every card and account read: a seek into `auth_rules_applying` per event stream, however
 * many card- and account-level rules the program has. (Asked for them in creation order, SQLite
 * walked all of the program's rules in that order instead.) PostgreSQL picks its plan by cost.
 */
import { expect, it } from 'vitest';
import { describeWithDb, engine, useMigratedDb } from '../testing/harness.js';
import { planOf } from '../testing/plans.js';
import { activeProgramRulesQuery } from './store.js';

describeWithDb('program-level rules of a card or account response', () => {
  const storage = useMigratedDb();

  it.skipIf(engine !== 'sqlite')('are read through auth_rules_applying, not by walking every rule of the program', async () => {
    const { kysely } = storage.db;
    const details = await planOf(kysely, activeProgramRulesQuery(kysely, 'p-1').compile());
    expect(details.filter((detail) => detail.includes('auth_rules'))).toEqual([expect.stringMatching(/^SEARCH auth_rules USING COVERING INDEX auth_rules_applying \(program_id=\? AND event_stream=\? AND state=\? AND scope=\?\)$/)]);
    expect(details.join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
