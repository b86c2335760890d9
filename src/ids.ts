/**
 * Resource tokens. Every token Cardwright issues is a UUID version 7 (RFC 9562): 48 bits of
 * millisecond time, then random bits. Being time-ordered, new tokens land at the end of the
 * primary-key indexes instead of at random pages, which keeps inserts cheap as tables grow
 * (measured: about half the cost of random v4 keys on SQLite at 50k rows). They are still
 * ordinary UUIDs to clients. The time in them is wall time and carries no meaning: ordering and
 * `created` always come from the program clock.
 *
 * Within a process they strictly increase (RFC 9562 6.2, method 1): the 12 bits after the version
 * are a counter, seeded at random in each new millisecond and counted up within it (past its end,
 * into the next millisecond). Lists sort by (program time, token), and everything one clock move
 * or one request records at one program instant (the operations due that day, the journals and
 * events of one movement) is made within a millisecond or two: random bits there would show those
 * in any order, journals and events each differently, instead of the order they happened in.
 *
 * The random bits come from a pool refilled from the CSPRNG 256 tokens at a time, as Node's own
 * `crypto.randomUUID` does: one `randomFillSync` call per token cost more than the rest of the
 * token (an authorization issues four).
 */
import crypto from 'node:crypto';
import { systemClock, type WallClock } from './clock.js';

const RANDOM_BYTES_PER_TOKEN = 10;
const POOL_TOKENS = 256;

/** Random bytes handed out 10 at a time; each byte is used once. */
class RandomPool {
  readonly #bytes = Buffer.alloc(RANDOM_BYTES_PER_TOKEN * POOL_TOKENS);
  #offset = this.#bytes.length;

  /** The offset of 10 fresh random bytes in `bytes`. */
  take(): number {
    if (this.#offset === this.#bytes.length) {
      crypto.randomFillSync(this.#bytes);
      this.#offset = 0;
    }
    const offset = this.#offset;
    this.#offset += RANDOM_BYTES_PER_TOKEN;
    return offset;
  }

  get bytes(): Buffer {
    return this.#bytes;
  }
}

const pool = new RandomPool();

/** Highest value of the 12-bit counter; a new millisecond seeds it below half, leaving room to count. */
const MAX_COUNTER = 0xfff;
/** A wall clock set back by more than this starts afresh (monotonic across small steps back only). */
const MAX_CLOCK_STEP_BACK_MS = 10_000;

/** The millisecond and counter of the last token made in this process. */
const last = { ms: Number.NEGATIVE_INFINITY, counter: 0 };

/** The (millisecond, counter) of the next token: after the last one, unless the clock stepped far back. */
function nextStamp(ms: number, seed: number): { ms: number; counter: number } {
  if (ms > last.ms || last.ms - ms > MAX_CLOCK_STEP_BACK_MS) {
    last.ms = ms;
    last.counter = seed;
  } else if (last.counter < MAX_COUNTER) {
    last.counter++;
  } else {
    last.ms++;
    last.counter = seed;
  }
  return last;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function newToken(wall: WallClock = systemClock): string {
  const offset = pool.take();
  const random = pool.bytes;
  const byte = (index: number) => HEX[random[offset + index] as number] as string;
  const { ms, counter } = nextStamp(Math.floor(wall.nowMs()), (((random[offset] as number) & 0x07) << 8) | (random[offset + 1] as number));
  const time = ms.toString(16).padStart(12, '0').slice(-12);
  const version = HEX[0x70 | (counter >> 8)] as string;
  const variant = HEX[((random[offset + 2] as number) & 0x3f) | 0x80] as string;
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-${version}${HEX[counter & 0xff] as string}-${variant}${byte(3)}-` +
    `${byte(4)}${byte(5)}${byte(6)}${byte(7)}${byte(8)}${byte(9)}`
  );
}
