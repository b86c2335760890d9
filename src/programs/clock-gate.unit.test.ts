import { describe, expect, it } from 'vitest';
import { ClockGate, type Leave } from './clock-gate.js';

/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Enters a move of `p`, recording when it got in. */
function trackedMove(gate: ClockGate): { entered(): boolean; leave(): Promise<void> } {
  let entered = false;
  const moving = gate.enterMove('p').then((leave) => ((entered = true), leave));
  return { entered: () => entered, leave: async () => (await moving)() };
}

describe('ClockGate', () => {
  it('lets writes of a program run together', async () => {
    const gate = new ClockGate();
    const leaves = await Promise.all([gate.enterWrite('p'), gate.enterWrite('p'), gate.enterWrite('p')]);
    leaves.forEach((leave) => leave());
  });

  it('holds a move until the writes under way leave, and the writes arriving meanwhile until the move leaves', async () => {
    const gate = new ClockGate();
    const order: string[] = [];
    const leaveFirst = await gate.enterWrite('p');
    const moving = gate.enterMove('p').then((leave) => (order.push('move'), leave));
    await settle();
    const later = gate.enterWrite('p').then((leave) => (order.push('later write'), leave));
    await settle();
    expect(order).toEqual([]);
    order.push('first write leaves');
    leaveFirst();
    const leaveMove = await moving;
    await settle();
    expect(order).toEqual(['first write leaves', 'move']);
    leaveMove();
    (await later)();
    expect(order).toEqual(['first write leaves', 'move', 'later write']);
  });

  it('runs moves one at a time', async () => {
    const gate = new ClockGate();
    const order: string[] = [];
    const leaveA = await gate.enterMove('p');
    const second = gate.enterMove('p').then((leave) => (order.push('B'), leave));
    await settle();
    expect(order).toEqual([]);
    leaveA();
    (await second)();
    expect(order).toEqual(['B']);
  });

  it('holds a later move for a write that waited out an earlier one', async () => {
    const gate = new ClockGate();
    const leaveFirstMove = await gate.enterMove('p');
    const writing = gate.enterWrite('p');
    await settle();
    leaveFirstMove();
    const leaveWrite = await writing;
    const move = trackedMove(gate);
    await settle();
    expect(move.entered()).toBe(false);
    leaveWrite();
    await move.leave();
    expect(move.entered()).toBe(true);
  });

  it('runs one at a time the moves that waited out an earlier one', async () => {
    const gate = new ClockGate();
    const leaveFirst = await gate.enterMove('p');
    const order: string[] = [];
    const waiting = [gate.enterMove('p'), gate.enterMove('p')].map((entering, index) =>
      entering.then((leave) => {
        order.push(`enter ${index}`);
        return () => {
          order.push(`leave ${index}`);
          leave();
        };
      }),
    );
    await settle();
    leaveFirst();
    await settle();
    expect(order).toHaveLength(1);
    const [enteredFirst, enteredSecond] = order[0] === 'enter 0' ? [0, 1] : [1, 0];
    (await (waiting[enteredFirst] as Promise<Leave>))();
    (await (waiting[enteredSecond] as Promise<Leave>))();
    expect(order).toEqual([`enter ${enteredFirst}`, `leave ${enteredFirst}`, `enter ${enteredSecond}`, `leave ${enteredSecond}`]);
  });

  it("never holds another program's writes", async () => {
    const gate = new ClockGate();
    const leaveMove = await gate.enterMove('p');
    const leave = await gate.enterWrite('q');
    leave();
    leaveMove();
  });

  it('leaves once however often leave is called', async () => {
    const gate = new ClockGate();
    const leaveA = await gate.enterWrite('p');
    const leaveB = await gate.enterWrite('p');
    leaveA();
    leaveA();
    const move = trackedMove(gate);
    await settle();
    expect(move.entered()).toBe(false);
    leaveB();
    await move.leave();
    expect(move.entered()).toBe(true);
  });
});
