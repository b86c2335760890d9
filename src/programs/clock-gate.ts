/**
 * Writes of a program and moves of its clock take turns, within this process.
 *
 * A write dates everything it records with the program's time, and decides with the state that
 * time gives (a credit that fell due, a hold that expired). Read when the request arrived, that
 * time could be from before a clock move that committed while the request waited: a transfer
 * could then be approved on a credit the move applied at 00:00 and yet be stamped 23:59 the day
 * before. So a write enters the gate before its transaction and reads the program's time there
 * (`commit`), and a move enters alone: it waits for the writes under way to commit, and writes
 * that arrive meanwhile wait for it (so a move is never starved).
 *
 * Another server on the same PostgreSQL is not held back by this gate; its cached clock catches
 * up within a second (auth-cache.ts), as documented.
 */
export type Leave = () => void;

interface ProgramGate {
  writes: number;
  /** Settles when the move under way (or waiting for writes to drain) has left. */
  move: Promise<void> | null;
  /** Wakes the waiting move when the last write leaves. */
  drained: (() => void) | null;
}

export class ClockGate {
  readonly #programs = new Map<string, ProgramGate>();

  /** Waits for any move of the program's clock to finish, then holds the gate open for one write. */
  async enterWrite(programId: string): Promise<Leave> {
    let gate = this.#gateOf(programId);
    while (gate.move) {
      await gate.move;
      gate = this.#gateOf(programId); // see #forgetIfIdle
    }
    gate.writes += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      gate.writes -= 1;
      if (gate.writes === 0) {
        gate.drained?.();
        this.#forgetIfIdle(programId, gate);
      }
    };
  }

  /** Waits for other moves and for the writes under way; writes arriving meanwhile wait for this move. */
  async enterMove(programId: string): Promise<Leave> {
    let gate = this.#gateOf(programId);
    while (gate.move) {
      await gate.move;
      gate = this.#gateOf(programId); // see #forgetIfIdle
    }
    let finish!: () => void;
    gate.move = new Promise<void>((resolve) => (finish = resolve));
    if (gate.writes > 0) await new Promise<void>((resolve) => (gate.drained = resolve));
    gate.drained = null;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      gate.move = null;
      finish();
      this.#forgetIfIdle(programId, gate);
    };
  }

  #gateOf(programId: string): ProgramGate {
    let gate = this.#programs.get(programId);
    if (!gate) {
      gate = { writes: 0, move: null, drained: null };
      this.#programs.set(programId, gate);
    }
    return gate;
  }

  /**
   * A program with nothing under way keeps no entry (the map holds only the programs in use now).
   * Whoever waited on a move of a forgotten gate looks the gate up again once it wakes, and claims
   * it in that same turn, with no await between: it counts in the gate that is kept, which a later
   * move sees.
   */
  #forgetIfIdle(programId: string, gate: ProgramGate): void {
    if (gate.writes === 0 && gate.move === null && this.#programs.get(programId) === gate) this.#programs.delete(programId);
  }
}
