import { afterAll, beforeAll, expect, it } from 'vitest';
import { catchUp, isDueWithin, sweepAllPrograms, type ClockJob, type DueCheck, type DueWork } from './clock-jobs.js';
import { systemClock } from './clock.js';
import { createProgramWithKey } from './programs/service.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { ProgramScope } from './programs/scope.js';
import { createTestDatabase, describeWithDb, type TestDatabase } from './testing/harness.js';

/** A due check whose answer the test sets, counting how often it asks the database, and its job, counting its runs. */
function fakeWork(horizon: string | undefined): DueWork & { answer: DueCheck; checks: number; jobs: number; job: ClockJob } {
  const work = {
    horizon,
    answer: { due: false, clearUntilMs: 1_000 } as DueCheck,
    checks: 0,
    jobs: 0,
    check: async () => {
      work.checks++;
      return work.answer;
    },
    job: async () => {
      work.jobs++;
    },
  };
  return work;
}

const at = (nowMs: number, programId = 'program-1'): ProgramScope => ({ programId, clockOffsetMs: 0, nowMs });

describeWithDb('due checks and their horizons', () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.databaseUrl, { dataDir: database.dataDir });
    await migrateToLatest(db); // catching up runs across the days management operations fall due on
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it('a horizon learned in a transaction answers later checks only once that transaction has committed', async () => {
    const work = fakeWork('committed');
    await db.transaction(async (tx) => {
      expect(await isDueWithin(db, tx, work, at(100))).toBe(false);
      expect(await isDueWithin(db, tx, work, at(100))).toBe(false);
    });
    expect(work.checks).toBe(2);
    await db.transaction(async (tx) => {
      expect(await isDueWithin(db, tx, work, at(999))).toBe(false);
    });
    expect(work.checks).toBe(2);
    work.answer = { due: true };
    await db.transaction(async (tx) => {
      expect(await isDueWithin(db, tx, work, at(1_000))).toBe(true);
    });
    expect(work.checks).toBe(3);
  });

  it('a transaction that rolls back teaches nothing', async () => {
    const work = fakeWork('rolled back');
    await expect(
      db.transaction(async (tx) => {
        await isDueWithin(db, tx, work, at(100));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await db.transaction((tx) => isDueWithin(db, tx, work, at(100)));
    expect(work.checks).toBe(2);
  });

  it('horizons are per program, and work without a horizon always asks', async () => {
    const named = fakeWork('per program');
    const unnamed = fakeWork(undefined);
    await catchUp(db, at(100, 'a'), named);
    await catchUp(db, at(100, 'a'), named);
    await catchUp(db, at(100, 'b'), named);
    expect(named.checks).toBe(2);
    await catchUp(db, at(100), unnamed);
    await catchUp(db, at(100), unnamed);
    expect(unnamed.checks).toBe(2);
  });

  it('catching up runs the job when something is due, and remembers nothing then', async () => {
    const work = fakeWork('due');
    work.answer = { due: true };
    await catchUp(db, at(100), work, [work.job]);
    await catchUp(db, at(100), work, [work.job]);
    expect({ checks: work.checks, jobs: work.jobs }).toEqual({ checks: 2, jobs: 2 });
  });

  it("the minute sweep brings every program up to date though one program's jobs fail, then reports the failure", async () => {
    const programs = [await createProgramWithKey(db, systemClock, 'first'), await createProgramWithKey(db, systemClock, 'second')];
    for (const failing of programs) {
      const swept = new Set<string>();
      const job: ClockJob = async (_db, _tx, scope) => {
        if (scope.programId === failing.programId) throw new Error('this program cannot be brought up to date');
        swept.add(scope.programId);
      };
      await expect(sweepAllPrograms(db, systemClock, [job])).rejects.toThrow(/this program cannot be brought up to date/);
      const others = programs.filter((program) => program !== failing).map((program) => program.programId);
      expect(others.filter((programId) => !swept.has(programId))).toEqual([]);
    }
  });

  it('afterCommit refuses a transaction it did not open', () => {
    expect(() => db.afterCommit(db.kysely as never, () => undefined)).toThrow(/not a transaction/);
  });
});
