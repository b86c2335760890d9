/**
 * Case-insensitive partial matching for list filters (`memo`, names), written once for both engines:
 * `lower(column) LIKE '%text%'` with LIKE's own characters in `text` escaped, since SQLite's LIKE
 * ignores ASCII case and PostgreSQL's does not. Both engines' `lower()` fold every letter as
 * JavaScript's `toLowerCase` does (SQLite's is replaced by it, db/sqlite.ts: its own folds ASCII only).
 */
import { sql, type RawBuilder } from 'kysely';

export function containsIgnoringCase(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
