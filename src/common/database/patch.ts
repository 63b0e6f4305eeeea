import { SqlParams } from './sql-params';

/**
 * One statement that applies a partial update to row `id` of `table` and
 * selects `selectColumns` of the updated row (or of the unchanged row when
 * nothing was sent): the "only sent fields change" rule of the PATCH routes.
 * Column names come from the fixed `columns` list, never from the request;
 * values travel as parameters (`$1` is the id).
 * Wrapped in a CTE so the driver returns plain rows (a bare UPDATE answers [rows, count]).
 *
 * `extraCtes`, when given and something was sent, adds CTEs to the statement
 * (the D37 event): they may read `r` (the row after the update) and `old` (the
 * same row before it, locked FOR NO KEY UPDATE first so that `old` is the
 * latest committed version the update applies to, not the statement's snapshot).
 */
export function patchStatement<P extends object>(
  table: string,
  columns: ReadonlyArray<keyof P & string>,
  id: number,
  patch: P,
  selectColumns: string,
  extraCtes?: (p: SqlParams) => string[],
): { sql: string; params: unknown[] } {
  const p = new SqlParams();
  const rowId = p.add(id);
  const sets: string[] = [];
  for (const column of columns) {
    const value = patch[column];
    if (value === undefined) continue;
    sets.push(`${column} = ${p.add(value)}`);
  }
  if (!sets.length) return { sql: `SELECT ${selectColumns} FROM ${table} WHERE id = ${rowId}`, params: p.values };
  if (!extraCtes) {
    return { sql: `WITH r AS (UPDATE ${table} SET ${sets.join(', ')} WHERE id = ${rowId} RETURNING *) SELECT ${selectColumns} FROM r`, params: p.values };
  }
  const ctes = [
    `old AS MATERIALIZED (SELECT * FROM ${table} WHERE id = ${rowId} FOR NO KEY UPDATE)`,
    `r AS (UPDATE ${table} t SET ${sets.join(', ')} FROM old WHERE t.id = old.id RETURNING t.*)`,
    ...extraCtes(p),
  ];
  return { sql: `WITH ${ctes.join(',\n')} SELECT ${selectColumns} FROM r`, params: p.values };
}
