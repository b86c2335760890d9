/**
 * The planner of deferred INSERTs (pg-deferred.ts): what it holds, what carries it, what it sends
 * first, and how parameters are renumbered.
 */
import { describe, expect, it } from 'vitest';
import { DeferredInserts, deferrable, MAX_CARRIED_PARAMETERS, type Plan, type Statement } from './pg-deferred.js';

const insertEvents = deferrable('insert into "events" ("token", "payload") values ($1, $2)', 1);
const insertEntries = deferrable('insert into "ledger_entries" ("token", "amount_cents") values ($1, $2), ($3, $4)', 2);

function sent(plan: Plan): Statement[] {
  if (plan.hold) throw new Error('expected statements to send, got a held INSERT');
  return plan.send;
}

function inTransaction(): DeferredInserts {
  const deferred = new DeferredInserts();
  expect(sent(deferred.plan('begin', []))).toEqual([{ text: 'begin', values: [] }]);
  return deferred;
}

describe('deferred INSERTs on PostgreSQL', () => {
  it('sends a deferrable INSERT at once, unmarked, outside a transaction', () => {
    const deferred = new DeferredInserts();
    expect(sent(deferred.plan(insertEvents, ['e1', '{}']))).toEqual([
      { text: 'insert into "events" ("token", "payload") values ($1, $2)', values: ['e1', '{}'] },
    ]);
  });

  it('holds INSERTs in a transaction and answers with their row count', () => {
    const deferred = inTransaction();
    expect(deferred.plan(insertEvents, ['e1', '{}'])).toEqual({ hold: true, rowCount: 1 });
    expect(deferred.plan(insertEntries, ['l1', 5, 'l2', -5])).toEqual({ hold: true, rowCount: 2 });
  });

  it("sends held INSERTs with the next statement, as CTEs numbered after the statement's own parameters", () => {
    const deferred = inTransaction();
    deferred.plan(insertEvents, ['e1', '{}']);
    deferred.plan(insertEntries, ['l1', 5, 'l2', -5]);
    expect(sent(deferred.plan('update "balances" set "available_cents" = available_cents + $1 where "token" = $2', [5, 'fa']))).toEqual([
      {
        text:
          'with cw_deferred_0 as (insert into "events" ("token", "payload") values ($3, $4)), ' +
          'cw_deferred_1 as (insert into "ledger_entries" ("token", "amount_cents") values ($5, $6), ($7, $8)) ' +
          'update "balances" set "available_cents" = available_cents + $1 where "token" = $2',
        values: [5, 'fa', 'e1', '{}', 'l1', 5, 'l2', -5],
      },
    ]);
    // Sent once: the next statement goes alone.
    expect(sent(deferred.plan('select 1', []))).toEqual([{ text: 'select 1', values: [] }]);
  });

  it('joins the WITH list of a statement that has one', () => {
    const deferred = inTransaction();
    deferred.plan(insertEvents, ['e1', '{}']);
    expect(sent(deferred.plan('with "x" as (select $1 as n) select n from x', [7]))).toEqual([
      { text: 'with cw_deferred_0 as (insert into "events" ("token", "payload") values ($2, $3)), "x" as (select $1 as n) select n from x', values: [7, 'e1', '{}'] },
    ]);
  });

  it('sends held INSERTs first, on their own, before a statement that names their table', () => {
    const deferred = inTransaction();
    deferred.plan(insertEvents, ['e1', '{}']);
    const read = { text: 'select count(*) from "events" where "token" = $1', values: ['e1'] };
    expect(sent(deferred.plan(read.text, read.values))).toEqual([
      { text: 'insert into "events" ("token", "payload") values ($1, $2)', values: ['e1', '{}'] },
      read,
    ]);
  });

  it('finds the table named in any case, quoted or not', () => {
    for (const read of ['select count(*) from EVENTS', 'select count(*) from events', 'SELECT * FROM "events"']) {
      const deferred = inTransaction();
      deferred.plan(insertEvents, ['e1', '{}']);
      expect(sent(deferred.plan(read, []))).toHaveLength(2);
    }
  });

  it('tells a table from another whose name contains it', () => {
    const deferred = inTransaction();
    deferred.plan(insertEvents, ['e1', '{}']);
    const [only] = sent(deferred.plan('select * from "money_events" where "token" = $1', ['m']));
    expect(only?.text.startsWith('with cw_deferred_0 as (insert into "events"')).toBe(true);
  });

  it('sends held INSERTs as one statement before COMMIT, SAVEPOINT and RELEASE', () => {
    for (const control of ['commit', 'savepoint "work"', 'release "work"']) {
      const deferred = inTransaction();
      deferred.plan(insertEvents, ['e1', '{}']);
      deferred.plan(insertEntries, ['l1', 5, 'l2', -5]);
      expect(sent(deferred.plan(control, []))).toEqual([
        {
          text:
            'with cw_deferred_0 as (insert into "events" ("token", "payload") values ($1, $2)), ' +
            'cw_deferred_1 as (insert into "ledger_entries" ("token", "amount_cents") values ($3, $4), ($5, $6)) select 1',
          values: ['e1', '{}', 'l1', 5, 'l2', -5],
        },
        { text: control, values: [] },
      ]);
    }
  });

  it('drops held INSERTs on ROLLBACK and ROLLBACK TO, and holds nothing after the transaction ends', () => {
    for (const rollback of ['rollback', 'rollback to "work"']) {
      const deferred = inTransaction();
      deferred.plan(insertEvents, ['e1', '{}']);
      expect(sent(deferred.plan(rollback, []))).toEqual([{ text: rollback, values: [] }]);
      expect(deferred.takeFlush()).toBeUndefined();
    }
    const ended = inTransaction();
    ended.plan('commit', []);
    expect(sent(ended.plan(insertEvents, ['e1', '{}']))).toHaveLength(1);
  });

  it('does not carry held INSERTs into WITH RECURSIVE, or past the parameter bound', () => {
    const recursive = inTransaction();
    recursive.plan(insertEvents, ['e1', '{}']);
    expect(sent(recursive.plan('with recursive r(n) as (select 1) select n from r', []))).toHaveLength(2);

    const many = inTransaction();
    const half = Array.from({ length: MAX_CARRIED_PARAMETERS / 2 + 1 }, (_, index) => index);
    expect(many.plan(deferrable('insert into "events" ("n") values ($1)', 1), half).hold).toBe(true);
    // A second one would pass the bound: the first goes, then this one, in order.
    const [first, second] = sent(many.plan(deferrable('insert into "ledger_entries" ("n") values ($1)', 1), half));
    expect(first?.values).toHaveLength(half.length);
    expect(second?.values).toHaveLength(half.length);
  });

  it('never holds two statements into one table: the held one goes first, then the new one', () => {
    const deferred = inTransaction();
    const upsert = deferrable('insert into "card_spend_days" ("k", "n") values ($1, $2) on conflict ("k") do update set "n" = "card_spend_days"."n" + excluded."n"', 1);
    expect(deferred.plan(upsert, ['day', 1]).hold).toBe(true);
    expect(deferred.plan(insertEvents, ['e1', '{}']).hold).toBe(true);
    const plain = upsert.replace(/^\/\* deferrable rows=1 \*\/ /, '');
    expect(sent(deferred.plan(upsert, ['day', 2]))).toEqual([
      {
        text: `with cw_deferred_0 as (${plain}), cw_deferred_1 as (insert into "events" ("token", "payload") values ($3, $4)) select 1`,
        values: ['day', 1, 'e1', '{}'],
      },
      { text: plain, values: ['day', 2] },
    ]);
  });

  it('gives what a cursor must wait for, once', () => {
    const deferred = inTransaction();
    expect(deferred.takeFlush()).toBeUndefined();
    deferred.plan(insertEvents, ['e1', '{}']);
    expect(deferred.takeFlush()).toEqual({ text: 'insert into "events" ("token", "payload") values ($1, $2)', values: ['e1', '{}'] });
    expect(deferred.takeFlush()).toBeUndefined();
  });
});
