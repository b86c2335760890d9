/**
 * A horizon (db/horizons.ts) never hides work that a request which read the program clock a moment
 * earlier creates after the horizon was learned: a PHYSICAL card made by a request that read the
 * clock just before midnight, or before a clock move, still ships at its midnight, as reads show.
 */
import { expect, it } from 'vitest';
import * as cards from './cards/service.js';
import { MS_PER_DAY } from './clock.js';
import type { ProgramScope } from './programs/scope.js';
import { frozenWallClock } from './testing/clock.js';
import { describeWithDb, useTestServer, type TestProgram } from './testing/harness.js';
import { moveClock } from './testing/transactions.js';

const SHIPPING_ADDRESS = { first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA' };
/** How long after a clock move this process neither uses nor learns a horizon (db/horizons.ts UNSETTLED_MS), and a little more. */
const UNSETTLED_WAIT_MS = 5_200;

describeWithDb('horizons and requests that read the clock earlier', () => {
  const { wall, advance } = frozenWallClock('2030-01-10T23:59:59.000Z');
  const context = useTestServer({ wall });

  /** Creates a PHYSICAL card as a request that read the program clock at `scope` and commits now. */
  async function straggler(scope: ProgramScope) {
    const { db, app } = context.server.server;
    return db.transaction((tx) => cards.create(db, tx, scope, app.deps.secrets, { type: 'PHYSICAL', shipping_address: SHIPPING_ADDRESS } as never));
  }

  async function shipped(program: TestProgram, token: string) {
    const card = await program.client.cards.retrieve(token);
    const events = [];
    for await (const event of program.client.events.list({ event_types: ['card.shipped'] })) events.push(event.created);
    return { state: card.state, shipped: events };
  }

  it('a card made by a request that read the clock a second before midnight ships at that midnight, though a read after midnight found nothing due', async () => {
    const program = await context.server.newProgram();
    const readBeforeMidnight: ProgramScope = { programId: program.programId, clockOffsetMs: 0, nowMs: wall.nowMs() };
    advance(2_000); // 00:00:01
    await program.client.cards.list(); // nothing waits from before today: learns a horizon
    const card = await straggler(readBeforeMidnight);
    expect(card.created).toBe('2030-01-10T23:59:59.000Z');
    expect(await shipped(program, card.token)).toEqual({ state: 'PENDING_ACTIVATION', shipped: ['2030-01-11T00:00:00.000Z'] });
  });

  it('a card made by a request that read the clock before a move ships at its midnight, though a read after the move found nothing due', async () => {
    const program = await context.server.newProgram();
    const readBeforeMove: ProgramScope = { programId: program.programId, clockOffsetMs: 0, nowMs: wall.nowMs() };
    const createdMs = readBeforeMove.nowMs;
    await moveClock(program.client, new Date(createdMs + 3.5 * MS_PER_DAY).toISOString()); // noon, 3 days after its midnight
    advance(UNSETTLED_WAIT_MS); // the wall time of the move, which every key lookup reads (noteClockMove)
    await new Promise((resolve) => setTimeout(resolve, UNSETTLED_WAIT_MS)); // and elapsed time, for this process's own move (unsettle)
    await program.client.cards.list(); // nothing waits from before today: learns a horizon
    const card = await straggler(readBeforeMove);
    const midnight = `${new Date(createdMs + MS_PER_DAY).toISOString().slice(0, 10)}T00:00:00.000Z`;
    expect(await shipped(program, card.token)).toEqual({ state: 'PENDING_ACTIVATION', shipped: [midnight] });
  });
});
