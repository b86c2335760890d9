import crypto from 'node:crypto';
/**
 * The evaluator on a real database, called as the authorization engine calls it (inside a
 * transaction of the server's database, with facts and a history), against rules made over HTTP.
 */
import { sql, type KyselyPlugin } from 'kysely';
import type Lithic from 'lithic';
import { describe, expect, it } from 'vitest';
import type { RuleResult } from '../engine/rules-seam.js';
import { acceptedAccountToken } from '../testing/enrollment.js';
import {
  authorizationFacts,
  conditionalBlock,
  createRule,
  enforcedRule,
  evaluate,
  fakeHistory,
  merchantLock,
  newCard,
  programNow,
  threeDsAction,
  velocityLimit,
} from '../testing/auth_rules.js';
import { describeWithDb, engine, useTestServer, type TestProgram } from '../testing/harness.js';
import { afterRowsNaming } from '../testing/interleave.js';
import { openDatabase } from '../db/database.js';
import { authRulesEvaluator, CompiledRuleCache } from './evaluator.js';
import { rulesVersion } from './store.js';

const GAMBLING = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }];

describeWithDb('auth rules evaluator', () => {
  const context = useTestServer();

  /** A fresh program with a card on its default account and one on an enrolled account. */
  async function setUp(name: string) {
    const program = await context.server.newProgram(name);
    const holderAccount = await acceptedAccountToken(program.client);
    const card = await newCard(program.client);
    const holderCard = await newCard(program.client, holderAccount);
    return { program, client: program.client, card, holderCard, holderAccount };
  }

  async function authorize(program: TestProgram, card: Lithic.Card, overrides: Parameters<typeof authorizationFacts>[2] = {}, history = fakeHistory().history): Promise<RuleResult[]> {
    const facts = authorizationFacts(card, await programNow(program.client), overrides);
    return evaluate(context.server, program, facts, history);
  }
  const at = (mcc: string) => ({ merchant: { ...authorizationFacts({ token: '', account_token: '' }, 0).merchant, mcc } });

  it('approves when no rule applies', async () => {
    const { program, card } = await setUp('none');
    expect(await authorize(program, card, at('7995'))).toEqual([]);
  });

  it('enforces a promoted rule: the decline names rule, name, detailed result and explanation', async () => {
    const { program, client, card } = await setUp('enforced');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true }, 'No gambling'));
    expect(await authorize(program, card, at('7995'))).toEqual([
      { auth_rule_token: rule.token, name: 'No gambling', result: 'AUTH_RULE_BLOCKED_MCC', explanation: 'MCC 7995 is one of 7995' },
    ]);
    expect(await authorize(program, card, at('5411'))).toEqual([]);
  });

  it('runs a draft in shadow: a draft that would decline never declines', async () => {
    const { program, client, card } = await setUp('shadow');
    await createRule(client, conditionalBlock(GAMBLING));
    expect(await authorize(program, card, at('7995'))).toEqual([]);
  });

  it('enforces the current version while the draft runs in shadow', async () => {
    const { program, client, card } = await setUp('both');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING));
    await client.authRules.v2.draft(rule.token, { parameters: { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }] } } as never);
    expect(await authorize(program, card, at('5411'))).toEqual([]);
    expect(await authorize(program, card, at('7995'))).toHaveLength(1);
  });

  it('applies program-level rules minus excluded cards, account-level rules to the account’s cards, card-level rules to the card', async () => {
    const { program, client, card, holderCard, holderAccount } = await setUp('scopes');
    const other = await newCard(client, holderAccount);
    const programRule = await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true, excluded_card_tokens: [holderCard.token] }, 'program'));
    const accountRule = await enforcedRule(client, conditionalBlock(GAMBLING, { account_tokens: [holderAccount] }, 'account'));
    const cardRule = await enforcedRule(client, conditionalBlock(GAMBLING, { card_tokens: [holderCard.token] }, 'card'));
    const tokens = async (target: Lithic.Card) => (await authorize(program, target, at('7995'))).map((result) => result.auth_rule_token);
    expect(await tokens(card)).toEqual([programRule.token]);
    expect(await tokens(holderCard)).toEqual([accountRule.token, cardRule.token]);
    expect(await tokens(other)).toEqual([programRule.token, accountRule.token]);
  });

  it('does not evaluate INACTIVE rules, deleted rules, rules of the 3DS stream, or another program’s rules', async () => {
    const { program, client, card } = await setUp('skipped');
    const inactive = await enforcedRule(client, conditionalBlock(GAMBLING));
    await client.authRules.v2.update(inactive.token, { state: 'INACTIVE' });
    const deleted = await enforcedRule(client, conditionalBlock(GAMBLING));
    await client.authRules.v2.del(deleted.token);
    await enforcedRule(client, threeDsAction('DECLINE', GAMBLING));
    const stranger = await context.server.newProgram('stranger');
    await enforcedRule(stranger.client, conditionalBlock(GAMBLING));
    expect(await authorize(program, card, at('7995'))).toEqual([]);
    await client.authRules.v2.draft(inactive.token, { parameters: { conditions: GAMBLING } } as never);
    await client.authRules.v2.promote(inactive.token);
    expect(await authorize(program, card, at('7995'))).toHaveLength(1);
  });

  it('returns every enforced decline, in the order the rules were created, with each type’s detailed result', async () => {
    const { program, client, card } = await setUp('order');
    const block = await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true }, 'block'));
    const velocity = await enforcedRule(client, velocityLimit({ limit_amount: 1_500 }, { card_tokens: [card.token] }, 'velocity'));
    const lock = await enforcedRule(client, merchantLock([{ merchant_id: 'ONLY-HERE' }], { account_tokens: [card.account_token] }, 'lock'));
    const results = await authorize(program, card, at('7995'), fakeHistory({ amount_cents: 1_000, count: 1 }).history);
    expect(results.map((result) => [result.auth_rule_token, result.name, result.result])).toEqual([
      [block.token, 'block', 'AUTH_RULE_BLOCKED_MCC'],
      [velocity.token, 'velocity', 'CARD_SPEND_LIMIT_EXCEEDED'],
      [lock.token, 'lock', 'MERCHANT_LOCKED_CARD_ATTEMPTED_ELSEWHERE'],
    ]);
  });

  it('asks the history for the velocity window of the card or account, once per distinct window', async () => {
    const { program, client, card } = await setUp('velocity');
    await enforcedRule(client, velocityLimit({ limit_amount: 10_000, period: 'DAY' }));
    await enforcedRule(client, velocityLimit({ limit_count: 10, period: { type: 'DAY' } }));
    await enforcedRule(client, velocityLimit({ limit_count: 10, scope: 'ACCOUNT', period: 3600 }));
    const fake = fakeHistory({ amount_cents: 9_500, count: 2 });
    const now = await programNow(client);
    const results = await evaluate(context.server, program, authorizationFacts(card, now), fake.history);
    expect(results.map((result) => result.explanation)).toEqual(['Card spend in the current DAY (US Eastern) would be 10500 cents, above the limit of 10000']);
    // 'DAY' and {type: 'DAY'} are the same window: one sum serves both rules.
    expect(fake.spendQueries.map((query) => [query.scope, query.token, query.until_ms - query.since_ms <= 86_400_001])).toEqual([
      ['CARD', card.token, true],
      ['ACCOUNT', card.account_token, true],
    ]);
    expect(fake.spendQueries[1]?.since_ms).toBe(now - 3_600_000);
  });

  it('sees a change another process makes to a rule or to its targets at the next event', async () => {
    const { program, client, card } = await setUp('elsewhere');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { program_level: true }));
    expect(await authorize(program, card, at('7995'))).toHaveLength(1);
    // Another process: its own connection to the same database, writing rows directly.
    const { databaseUrl, dataDir } = context.server.database;
    const other = openDatabase(databaseUrl, { dataDir });
    try {
      const setState = (state: string) => sql`update auth_rules set state = ${state} where program_id = ${program.programId} and token = ${rule.token}`.execute(other.kysely);
      await setState('INACTIVE');
      expect(await authorize(program, card, at('7995'))).toEqual([]);
      await setState('ACTIVE');
      expect(await authorize(program, card, at('7995'))).toHaveLength(1);
      await sql`insert into auth_rule_targets (program_id, rule_token, kind, target_token)
        values (${program.programId}, ${rule.token}, 'EXCLUDED_CARD', ${card.token})`.execute(other.kysely);
      expect(await authorize(program, card, at('7995'))).toEqual([]);
      await sql`delete from auth_rule_targets where program_id = ${program.programId} and rule_token = ${rule.token}`.execute(other.kysely);
      expect(await authorize(program, card, at('7995'))).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  // PostgreSQL only: there each statement of a transaction sees what committed before it, so a
  // rule deleted between the event's query of its rules and the read of their parameters has no
  // versions left (on SQLite the event's transaction holds the write lock: the delete waits).
  it.skipIf(engine !== 'postgres')('skips a rule deleted while an event is reading it, instead of failing the event', async () => {
    const { program, client, card } = await setUp('deleted meanwhile');
    const rule = await enforcedRule(client, conditionalBlock(GAMBLING, { card_tokens: [card.token] }));
    const deleteMeanwhile = afterRowsNaming(rule.token, () => client.authRules.v2.del(rule.token));
    const db = context.server.server.db;
    const facts = authorizationFacts(card, await programNow(client), at('7995'));
    const scope = { programId: program.programId, clockOffsetMs: 0, nowMs: facts.now_ms };
    const results = await db.transaction((tx) =>
      authRulesEvaluator.evaluateAuthorization({ db, tx: tx.withPlugin(deleteMeanwhile) as typeof tx, scope, facts, history: fakeHistory().history }),
    );
    expect(deleteMeanwhile.ran).toBe(true);
    expect(results).toEqual([]);
    expect(await authorize(program, card, at('7995'))).toEqual([]);
  });

  describe('cost', () => {
    /** Counts the statements run through a transaction (every query result passes through a plugin). */
    async function statementsFor(program: TestProgram, card: Lithic.Card, eventToken: string, rulesVersion?: string): Promise<{ statements: number; results: RuleResult[] }> {
      let statements = 0;
      const counter: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          statements += 1;
          return args.result;
        },
      };
      const db = context.server.server.db;
      const facts = { ...authorizationFacts(card, await programNow(program.client), at('7995')), event_token: eventToken };
      const scope = { programId: program.programId, clockOffsetMs: 0, nowMs: facts.now_ms };
      const results = await db.transaction((tx) =>
        authRulesEvaluator.evaluateAuthorization({
          db,
          tx: tx.withPlugin(counter) as typeof tx,
          scope,
          facts,
          history: fakeHistory().history,
          ...(rulesVersion === undefined ? {} : { rules_version: rulesVersion }),
        }),
      );
      return { statements, results };
    }

    it('runs the same two statements (the rules version, the outcome) with 1 rule and with 100 rules', async () => {
      const { program, client, card } = await setUp('cost');
      // Events of one shard of the outcome's day counter: after its first event, each is one upsert.
      const eventToken = crypto.randomUUID();
      await enforcedRule(client, conditionalBlock(GAMBLING));
      const first = await statementsFor(program, card, eventToken);
      expect(first.statements).toBeGreaterThan(2);
      const one = await statementsFor(program, card, eventToken);
      expect(one).toMatchObject({ statements: 2 });
      expect(one.results).toHaveLength(1);
      for (let index = 1; index < 100; index++) {
        const body = conditionalBlock(GAMBLING, index % 3 === 0 ? { card_tokens: [card.token] } : { program_level: true });
        if (index % 2 === 0) await enforcedRule(client, body);
        else await createRule(client, body);
      }
      await statementsFor(program, card, eventToken);
      const hundred = await statementsFor(program, card, eventToken);
      expect(hundred.statements).toBe(2);
      expect(hundred.results).toHaveLength(50);
    });

    it('does not read the rules version again when the caller read it (as an authorization does, with its card)', async () => {
      const { program, client, card } = await setUp('cost with the version');
      const eventToken = crypto.randomUUID();
      await enforcedRule(client, conditionalBlock(GAMBLING));
      await statementsFor(program, card, eventToken);
      const version = await rulesVersion(context.server.server.db.kysely, program.programId);
      const given = await statementsFor(program, card, eventToken, version);
      expect(given).toMatchObject({ statements: 1 });
      expect(given.results).toHaveLength(1);
    });

    it('compiles each rule version once, reading its parameters only then', () => {
      const cache = new CompiledRuleCache(2);
      const exec = context.server.server.db.kysely;
      const parameters = () => JSON.stringify({ conditions: GAMBLING });
      const first = cache.get(exec, 'p', 'rule-1', 1, 'CONDITIONAL_BLOCK', parameters);
      expect(cache.get(exec, 'p', 'rule-1', 1, 'CONDITIONAL_BLOCK', () => '{not even json')).toBe(first);
      expect(cache.compiled('p', 'rule-1', 1)).toBe(first);
      const second = cache.get(exec, 'p', 'rule-1', 2, 'CONDITIONAL_BLOCK', parameters);
      expect(second).not.toBe(first);
      expect(cache.compiled('p', 'rule-2', 1)).toBeUndefined();
    });

    it('keeps a version compiled inside a transaction only once it commits (a rolled-back version number may come back with other parameters)', async () => {
      const cache = new CompiledRuleCache(10);
      const { db } = context.server.server;
      const parameters = () => JSON.stringify({ conditions: GAMBLING });
      await expect(
        db.transaction(async (tx) => {
          cache.get(tx, 'p', 'rule-1', 1, 'CONDITIONAL_BLOCK', parameters);
          expect(cache.compiled('p', 'rule-1', 1)).toBeUndefined();
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(cache.compiled('p', 'rule-1', 1)).toBeUndefined();
      await db.transaction(async (tx) => {
        cache.get(tx, 'p', 'rule-1', 1, 'CONDITIONAL_BLOCK', parameters);
      });
      expect(cache.compiled('p', 'rule-1', 1)).toBeDefined();
    });
  });

});
