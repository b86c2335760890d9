/**
 * Partial updates (PATCH): of the columns a request sets, those whose value really changes. An
 * update that changes nothing writes nothing, so `updated_ms` moves only when the row does.
 */
export function changedColumns<Row extends object>(row: Row, changes: Partial<Row>): Partial<Row> {
  const changed: Partial<Row> = {};
  for (const column of Object.keys(changes) as Array<keyof Row>) {
    if (changes[column] !== row[column]) changed[column] = changes[column];
  }
  return changed;
}

export function isEmpty(changes: object): boolean {
  return Object.keys(changes).length === 0;
}
