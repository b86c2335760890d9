/** The list mechanism's own table (migration 0021): where deleted rows stood in their lists. */
interface DeletedListItemsTable {
  program_id: string;
  /** The table the row was deleted from, e.g. `auth_rules`. */
  list_table: string;
  token: string;
  created_ms: number;
  deleted_ms: number;
}

export interface PaginationTables {
  deleted_list_items: DeletedListItemsTable;
}
