/*
 * Which custom fields apply where and who sees them (D19), as SQL conditions
 * over a custom_fields row: read by task answers, task writes, the custom-field
 * list and the events feed. Only fixed identifiers are interpolated.
 */

/**
 * D19: custom field `f` applies to the list `listExpr` whose folder is `folderExpr`:
 * unrestricted fields everywhere; a restricted one when a `granted` override names
 * the list, or when the list's folder is granted and no `denied` override names the
 * list. A NULL list (task not in a list) matches only unrestricted fields (D18).
 */
export function fieldAppliesSql(f: string, listExpr: string, folderExpr: string): string {
  return `(NOT ${f}.is_scope_restricted
           OR COALESCE(${listExpr} = ANY(${f}.granted_list_ids)
                       OR (${folderExpr} = ANY(${f}.granted_folder_ids) AND ${listExpr} <> ALL(${f}.denied_list_ids)), false))`;
}

/** D19: custom field `f` is visible to user `userExpr`: everyone, or only its allowed users (owners included). */
export function fieldVisibleSql(f: string, userExpr: string): string {
  return `(NOT ${f}.has_allowed_users OR ${userExpr} = ANY(${f}.allowed_user_ids))`;
}
