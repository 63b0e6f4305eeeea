import { type Membership, type Operation, POLICY, rolesOf } from './access.policy';

/**
 * Placeholders (`$4::int[]`, ...) carrying a membership's grants into a
 * statement, so that SQL applies the same list rule as `permitsList`.
 */
export interface GrantParams {
  restricted: string;
  listIds: string;
  folderIds: string;
}

/** A membership's grants as statement values, in the order grantParams adds them. */
export function grantValues(membership: Membership): [boolean, number[], number[]] {
  return [membership.restricted, membership.listIds, membership.folderIds];
}

/** Adds a membership's grants to a statement's parameters (`params.add` returns the placeholder, as SqlParams does). */
export function grantParams(params: { add(value: unknown, cast: string): string }, membership: Membership): GrantParams {
  const [restricted, listIds, folderIds] = grantValues(membership);
  return {
    restricted: params.add(restricted, 'boolean'),
    listIds: params.add(listIds, 'int[]'),
    folderIds: params.add(folderIds, 'int[]'),
  };
}

/**
 * The visibility rule of D29, D30 and D33 in SQL, the twin of `permitsList`:
 * true when the list `listExpr` is permitted (unrestricted members: every list;
 * restricted ones: granted lists and the lists of granted folders; a NULL list,
 * i.e. a task not in a list, is outside). One rule for listings, embedded
 * subtasks and parent lookups; the grant subquery is uncorrelated, so
 * PostgreSQL evaluates it once per statement.
 */
export function permittedListSql(listExpr: string, g: GrantParams): string {
  return `(NOT ${g.restricted} OR COALESCE(${listExpr} IN (
             SELECT pl.id FROM lists pl WHERE pl.id = ANY(${g.listIds}) OR pl.folder_id = ANY(${g.folderIds})), false))`;
}

/** The grants of the access row `a` (AccessRepository.resolveAndRead), for permittedListSql inside that statement. */
export const ACCESS_ROW_GRANTS: GrantParams = { restricted: 'COALESCE(a.is_restricted, false)', listIds: 'a.list_ids', folderIds: 'a.folder_ids' };

/** SQL of the folder of the access row `a`'s target (its list's; NULL without one). */
export const ACCESS_ROW_FOLDER = 'a.folder_id';

/**
 * The SQL twin of `decide` for `operation` on the access row `a`: true exactly
 * when decide() allows it (the role class; with the list restriction, a
 * permitted list: permitsList; with folderOrList, a granted folder or one holding
 * a granted list). Operations restricted otherwise (folders) have no twin, and asking for one is a programming error.
 */
export function allowedSql(operation: Operation): string {
  const rule = POLICY[operation];
  if (rule.restriction !== 'none' && rule.restriction !== 'list' && rule.restriction !== 'folderOrList') {
    throw new Error(`allowedSql: ${operation} is restricted by folder, which has no SQL twin`);
  }
  const role =
    rule.role === 'member'
      ? 'a.role IS NOT NULL'
      : `a.role IN (${rolesOf(rule.role)
          .map((r) => `'${r}'`)
          .join(', ')})`;
  if (rule.restriction === 'none') return role;
  if (rule.restriction === 'folderOrList') {
    // D39: the folder is granted, or holds a granted list (the access row of a folder target carries their folders).
    return `${role} AND (NOT COALESCE(a.is_restricted, false) OR COALESCE(a.folder_id = ANY(a.folder_ids) OR a.folder_id = ANY(a.list_folder_ids), false))`;
  }
  return `${role} AND (NOT COALESCE(a.is_restricted, false)
            OR (a.list_id IS NOT NULL AND (a.list_id = ANY(a.list_ids) OR COALESCE(a.folder_id = ANY(a.folder_ids), false))))`;
}
