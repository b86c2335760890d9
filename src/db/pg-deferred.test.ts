/**
 * Deferrable INSERTs (pg-deferred.ts) against a real database: whatever PostgreSQL holds and sends
 * later, a transaction reads its own rows, commits all of them or none, and fails with the INSERT's
 * own error. The same tests run on SQLite, where `deferrable` changes nothing: the two engines must
 * agree.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeWithDb, useMigratedDb } from '../testing/harness.js';
import { insertRows, preparedDeferredWrite } from './prepared.js';

describeWithDb('deferrable INSERTs', () => {
  const storage = useMigratedDb();

  const event = (programId: string, token: string, createdMs = 1) => ({ program_id: programId, token, event_type: 'card.created', payload: '{}', created_ms: createdMs });
  const tokensOf = async (programId: string) =>
    (await storage.db.kysely.selectFrom('events').select('token').where('program_id', '=', programId).orderBy('token').execute()).map((row) => row.token);

  it('commits held rows, and the transaction reads its own rows before it commits', async () => {
    const seen = await storage.db.transaction(async (tx) => {
      await insertRows(tx, 'events', [event('p-read', 'r-1'), event('p-read', 'r-2')], { deferrable: true });
      // A statement on another table carries them; a read of their table comes after them.
      await tx.selectFrom('programs').select('id').where('id', '=', 'none').execute();
      await insertRows(tx, 'events', [event('p-read', 'r-3')], { deferrable: true });
      return (await tx.selectFrom('events').select('token').where('program_id', '=', 'p-read').orderBy('token').execute()).map((row) => row.token);
    });
    expect(seen).toEqual(['r-1', 'r-2', 'r-3']);
    expect(await tokensOf('p-read')).toEqual(['r-1', 'r-2', 'r-3']);
  });

  it('commits rows held until COMMIT, several tables at once', async () => {
    await storage.db.transaction(async (tx) => {
      await insertRows(tx, 'events', [event('p-commit', 'c-1')], { deferrable: true });
      await insertRows(tx, 'example_events', [{ program_id: 'p-commit', token: 'x-1', event_type: 'card.created', payload: '{}', created_ms: 1 }], { deferrable: true });
    });
    expect(await tokensOf('p-commit')).toEqual(['c-1']);
    const examples = await storage.db.kysely.selectFrom('example_events').select('token').where('program_id', '=', 'p-commit').execute();
    expect(examples.map((row) => row.token)).toEqual(['x-1']);
  });

  it('answers a statement that carries held rows with its own rows', async () => {
    await insertRows(storage.db.kysely, 'events', [event('p-carry', 'k-1', 5)]);
    const updated = await storage.db.transaction(async (tx) => {
      await insertRows(tx, 'example_events', [{ program_id: 'p-carry', token: 'x-2', event_type: 'card.created', payload: '{}', created_ms: 1 }], { deferrable: true });
      return tx.updateTable('events').set({ created_ms: sql`created_ms + ${10}` }).where('program_id', '=', 'p-carry').returning(['token', 'created_ms']).execute();
    });
    expect(updated.map((row) => ({ ...row, created_ms: Number(row.created_ms) }))).toEqual([{ token: 'k-1', created_ms: 15 }]);
  });

  it('leaves nothing of a transaction that fails after holding rows', async () => {
    await expect(
      storage.db.transaction(async (tx) => {
        await insertRows(tx, 'events', [event('p-fail', 'f-1')], { deferrable: true });
        await tx.selectFrom('programs').select('id').where('id', '=', 'none').execute();
        await insertRows(tx, 'events', [event('p-fail', 'f-2')], { deferrable: true });
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await tokensOf('p-fail')).toEqual([]);
  });

  it("fails the transaction with the held INSERT's own error, and keeps nothing of it", async () => {
    await insertRows(storage.db.kysely, 'events', [event('p-dup', 'd-1')]);
    const failure = await storage.db
      .transaction(async (tx) => {
        await insertRows(tx, 'events', [event('p-dup', 'd-2')], { deferrable: true });
        await insertRows(tx, 'events', [event('p-dup', 'd-1')], { deferrable: true });
        await tx.selectFrom('programs').select('id').where('id', '=', 'none').execute();
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(storage.db.isUniqueViolation(failure)).toBe(true);
    expect(await tokensOf('p-dup')).toEqual(['d-1']);
  });

  it('writes a deferrable INSERT outside a transaction at once', async () => {
    await insertRows(storage.db.kysely, 'events', [event('p-now', 'n-1')], { deferrable: true });
    expect(await tokensOf('p-now')).toEqual(['n-1']);
  });

  it('keeps the order of statements made together (Promise.all) in one transaction', async () => {
    const [, , counted] = await storage.db.transaction(async (tx) =>
      Promise.all([
        insertRows(tx, 'events', [event('p-all', 'a-1')], { deferrable: true }),
        tx.selectFrom('programs').select('id').where('id', '=', 'none').execute(),
        tx.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('program_id', '=', 'p-all').executeTakeFirstOrThrow(),
      ]),
    );
    expect(Number(counted.n)).toBe(1);
    expect(await tokensOf('p-all')).toEqual(['a-1']);
  });

  const addSpend = preparedDeferredWrite((kysely, programId: string, scopeToken: string, cents: number) =>
    kysely
      .insertInto('card_spend_days')
      .values({ program_id: programId, scope_token: scopeToken, day_start_ms: 0, spent_cents: cents, approved_count: 1 })
      .onConflict((conflict) =>
        conflict.columns(['program_id', 'scope_token', 'day_start_ms']).doUpdateSet({
          spent_cents: sql`card_spend_days.spent_cents + excluded.spent_cents`,
          approved_count: sql`card_spend_days.approved_count + excluded.approved_count`,
        }),
      ),
  );

  it('applies held upserts of one row one after another, and reads their sum in the transaction', async () => {
    const inside = await storage.db.transaction(async (tx) => {
      await addSpend(tx, 'p-upsert', 'card-1', 100);
      await insertRows(tx, 'events', [event('p-upsert', 'u-1')], { deferrable: true });
      await addSpend(tx, 'p-upsert', 'card-1', 250);
      await addSpend(tx, 'p-upsert', 'card-1', 5);
      return tx.selectFrom('card_spend_days').select(['spent_cents', 'approved_count']).where('program_id', '=', 'p-upsert').executeTakeFirstOrThrow();
    });
    expect({ spent: Number(inside.spent_cents), count: Number(inside.approved_count) }).toEqual({ spent: 355, count: 3 });
    expect(await tokensOf('p-upsert')).toEqual(['u-1']);
  });

  it('writes more rows than one statement may carry', async () => {
    const rows = Array.from({ length: 7_000 }, (_, index) => event('p-wide', `w-${String(index).padStart(4, '0')}`, index));
    await storage.db.transaction(async (tx) => {
      await insertRows(tx, 'events', rows.slice(0, 3_500), { deferrable: true });
      await insertRows(tx, 'events', rows.slice(3_500), { deferrable: true });
    });
    const tokens = await tokensOf('p-wide');
    expect(tokens).toHaveLength(7_000);
    expect(tokens).toEqual(rows.map((row) => row.token));
  });
});
