/**
 * What every request knows about its caller: the program (tenant) its API key belongs to, and that
 * program's current time, read once when the request arrives so that every timestamp a request
 * writes is the same instant.
 */
export interface ProgramScope {
  programId: string;
  clockOffsetMs: number;
  nowMs: number;
}

/**
 * The scope of a write acting on an existing resource (a reversal, a settlement, a network message
 * on a transaction): its time is never before the resource's last change. A request reads the clock
 * when it arrives; if the program's clock was moved and the resource changed at the moved time
 * before this request committed, the request would otherwise date its event, journal and `updated`
 * before what it acts on.
 */
export function actingOn(scope: ProgramScope, lastChangedMs: number): ProgramScope {
  return lastChangedMs <= scope.nowMs ? scope : { ...scope, nowMs: lastChangedMs };
}
