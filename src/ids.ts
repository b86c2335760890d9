/**
 * Resource tokens. Every token Cardwright issues is a UUID version 7 (RFC 9562): 48 bits of
 * millisecond time, then random bits. Being time-ordered, new tokens land at the end of the
 * primary-key indexes instead of at random pages, which keeps inserts cheap as tables grow
 * (measured: about half the cost of random v4 keys on SQLite at 50k rows). They are still
 * ordinary UUIDs to clients. The time in them is wall time and carries no meaning: ordering and
 * `created` always come from the program clock.
 */
import crypto from 'node:crypto';
import { systemClock, type WallClock } from './clock.js';

export function newToken(wall: WallClock = systemClock): string {
  const bytes = crypto.randomBytes(16);
  const ms = wall.nowMs();
  bytes.writeUIntBE(Math.floor(ms / 2 ** 16), 0, 4);
  bytes.writeUInt16BE(ms % 2 ** 16, 4);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
