/**
 * One statement that applies a partial update to row `id` of `table` and
 * selects `selectColumns` of the updated row (or of the unchanged row when
 * nothing was sent): the "only sent fields change" rule of the PATCH routes.
 * Column names come from the fixed `columns` list, never from the request;
 * values travel as parameters (`$2`, `$3`, ...; `$1` is the id).
 * Wrapped in a CTE so the driver returns plain rows (a bare UPDATE answers [rows, count]).
 */
export function patchStatement<P extends object>(
  table: string,
  columns: ReadonlyArray<keyof P & string>,
  id: number,
  patch: P,
  selectColumns: string,
): { sql: string; params: unknown[] } {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const column of columns) {
    const value = patch[column];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  const sql = sets.length
    ? `WITH r AS (UPDATE ${table} SET ${sets.join(', ')} WHERE id = $1 RETURNING *) SELECT ${selectColumns} FROM r`
    : `SELECT ${selectColumns} FROM ${table} WHERE id = $1`;
  return { sql, params };
}
