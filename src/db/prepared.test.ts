/**
 * Prepared statements (prepared.ts): a statement compiled once runs again with new arguments, and
 * `insertRows` keeps one compiled INSERT per column list, so rows built with their columns in
 * another order, or with other columns, land in the right columns.
 */
import { expect, it } from 'vitest';
import { describeWithDb, useMigratedDb } from '../testing/harness.js';
import { insertRows, prepared } from './prepared.js';

describeWithDb('prepared statements', () => {
  const storage = useMigratedDb();

  const eventsOf = prepared((kysely, programId: string) =>
    kysely.selectFrom('events').select(['token', 'event_type', 'payload', 'created_ms']).where('program_id', '=', programId).orderBy('token'),
  );

  it('runs a compiled statement again with new arguments', async () => {
    await insertRows(storage.db.kysely, 'events', [
      { program_id: 'p-args-1', token: 'a-1', event_type: 'card.created', payload: '{}', created_ms: 1 },
      { program_id: 'p-args-2', token: 'a-2', event_type: 'card.shipped', payload: '{}', created_ms: 2 },
    ]);
    expect((await eventsOf(storage.db.kysely, 'p-args-1')).map((row) => row.token)).toEqual(['a-1']);
    expect((await eventsOf(storage.db.kysely, 'p-args-2')).map((row) => row.token)).toEqual(['a-2']);
    expect(await eventsOf(storage.db.kysely, 'p-args-none')).toEqual([]);
  });

  it('inserts rows whose columns come in another order, with the same row count, into the right columns', async () => {
    await insertRows(storage.db.kysely, 'events', [{ program_id: 'p-order', token: 'o-1', event_type: 'card.created', payload: '{"n":1}', created_ms: 10 }]);
    await insertRows(storage.db.kysely, 'events', [{ created_ms: 20, payload: '{"n":2}', event_type: 'card.shipped', token: 'o-2', program_id: 'p-order' }]);
    await insertRows(storage.db.kysely, 'events', [{ program_id: 'p-order', token: 'o-3', event_type: 'balance.updated', payload: '{"n":3}', created_ms: 30 }]);
    const rows = (await eventsOf(storage.db.kysely, 'p-order')).map((row) => ({ ...row, created_ms: Number(row.created_ms) }));
    expect(rows).toEqual([
      { token: 'o-1', event_type: 'card.created', payload: '{"n":1}', created_ms: 10 },
      { token: 'o-2', event_type: 'card.shipped', payload: '{"n":2}', created_ms: 20 },
      { token: 'o-3', event_type: 'balance.updated', payload: '{"n":3}', created_ms: 30 },
    ]);
  });

  it('inserts many rows at once, every value in its place', async () => {
    const rows = Array.from({ length: 250 }, (_, index) => ({
      program_id: 'p-many',
      token: `m-${String(index).padStart(3, '0')}`,
      event_type: index % 2 === 0 ? 'card.created' : 'card.shipped',
      payload: JSON.stringify({ index }),
      created_ms: 1_000 + index,
    }));
    await insertRows(storage.db.kysely, 'events', rows);
    const stored = (await eventsOf(storage.db.kysely, 'p-many')).map((row) => ({ ...row, created_ms: Number(row.created_ms) }));
    expect(stored).toEqual(rows.map(({ program_id: _program, ...row }) => row));
  });
});
