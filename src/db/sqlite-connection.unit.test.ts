/**
 * The SQLite connection answers what better-sqlite3's own row objects would, for every kind of
 * column name and value, and runs writes and streams as Kysely expects.
 */
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileRowBuilder, SqliteConnection } from './sqlite-connection.js';

describe('SqliteConnection', () => {
  let database: BetterSqlite3.Database;
  let connection: SqliteConnection;
  beforeEach(() => {
    database = new BetterSqlite3(':memory:');
    database.exec(`create table t ("id" integer primary key, "quote""d" text, "back\\slash" real, "ünï" blob, "n" integer)`);
    connection = new SqliteConnection(database);
  });
  afterEach(() => database.close());

  const run = (sql: string, parameters: unknown[] = []) => connection.executeQuery<Record<string, unknown>>(CompiledQuery.raw(sql, parameters));

  it('builds the same row objects as better-sqlite3, key order included', async () => {
    await run(`insert into t values (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)`, [1, 'a"b', 1.5, Buffer.from([1, 2]), null, 2, '', -0, null, 2 ** 53 - 1]);
    const sql = 'select * from t order by "id"';
    const expected = database.prepare(sql).all();
    const { rows } = await run(sql);
    expect(rows).toEqual(expected);
    expect(rows.map(Object.keys)).toEqual(expected.map((row) => Object.keys(row as object)));
  });

  it('keeps the last of two columns with the same name, as better-sqlite3 does', async () => {
    await run(`insert into t ("id", "n") values (7, 70)`);
    const sql = 'select "id" as "x", "n" as "x", "n" as "y" from t';
    const { rows } = await run(sql);
    expect(rows).toEqual(database.prepare(sql).all());
    expect(rows).toEqual([{ x: 70, y: 70 }]);
  });

  it('answers writes with their counts and RETURNING with rows', async () => {
    const inserted = await run(`insert into t ("id", "n") values (?, ?), (?, ?)`, [1, 10, 2, 20]);
    expect(inserted).toEqual({ numAffectedRows: 2n, insertId: 2n, rows: [] });
    const updated = await run(`update t set "n" = "n" + 1 where "id" = ? returning "id", "n"`, [2]);
    expect(updated.rows).toEqual([{ id: 2, n: 21 }]);
    expect((await run(`delete from t where "id" = ?`, [9])).numAffectedRows).toBe(0n);
  });

  it('streams rows one at a time and refuses to stream a write', async () => {
    await run(`insert into t ("id") values (1), (2), (3)`);
    const streamed: unknown[] = [];
    for await (const chunk of connection.streamQuery(CompiledQuery.raw('select "id" from t order by "id"'))) streamed.push(...chunk.rows);
    expect(streamed).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    await expect(connection.streamQuery(CompiledQuery.raw('delete from t')).next()).rejects.toThrow(/stream/);
  });

  it('builds objects for any column names (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '"', '\\', '`${x}`')), { minLength: 1, maxLength: 8 }), (names) => {
        const values = names.map((_, index) => index);
        const expected: Record<string, unknown> = {};
        names.forEach((name, index) => Object.defineProperty(expected, name, { value: values[index], enumerable: true, writable: true, configurable: true }));
        const built = compileRowBuilder(names)(values);
        expect(built).toEqual(expected);
        expect(Object.keys(built)).toEqual(Object.keys(expected));
        expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
      }),
    );
  });
});
