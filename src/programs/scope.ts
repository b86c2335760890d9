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
