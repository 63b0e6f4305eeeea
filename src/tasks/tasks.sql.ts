/**
 * SQL fragments that build task response shapes inside PostgreSQL (json_build_object
 * and json_agg subqueries), so a task or a whole page of tasks is one statement
 * whatever it holds (performance rules; D16 field sets; D18, D19 custom fields).
 * Only fixed identifiers are interpolated here; values always travel as parameters.
 */

import { GrantParams, permittedListSql } from '../common/access/access.sql';

/** Which response a task object is built for (spec: "Which fields appear in which response", D16). */
export type TaskShape = 'write' | 'full' | 'listItem';

/** spec: Status embedded in a task: id, name, icon, color, category; null when none. */
export function statusSummarySql(statusIdExpr: string): string {
  return `(SELECT json_build_object('id', s.id, 'name', s.name, 'icon', s.icon, 'color', s.color, 'category', s.category)
             FROM statuses s WHERE s.id = ${statusIdExpr})`;
}

/** spec: assignees `{id, name, avatar_url}`, ascending user id (D12); `[]` when none. */
export function assigneesSql(taskIdExpr: string): string {
  return `COALESCE((SELECT json_agg(json_build_object('id', u.id, 'name', u.name, 'avatar_url', u.avatar_url) ORDER BY u.id)
                      FROM task_assignees ta JOIN users u ON u.id = ta.user_id
                     WHERE ta.task_id = ${taskIdExpr}), '[]'::json)`;
}

/** spec: labels embedded in a task `{id, name, color}`, in the label order of D23. */
export function labelsSql(taskIdExpr: string): string {
  return `COALESCE((SELECT json_agg(json_build_object('id', lb.id, 'name', lb.name, 'color', lb.color) ORDER BY lower(lb.name), lb.id)
                      FROM task_labels tl JOIN labels lb ON lb.id = tl.label_id
                     WHERE tl.task_id = ${taskIdExpr}), '[]'::json)`;
}

/**
 * spec: subtask elements `{id, title, priority, identifier, status, assignees}`, oldest first (D16);
 * only subtasks in lists the caller may see (D33, the rule of permittedListSql).
 */
export function subtasksSql(taskIdExpr: string, grants: GrantParams): string {
  return `COALESCE((SELECT json_agg(json_build_object(
                        'id', st.id, 'title', st.title, 'priority', st.priority, 'identifier', st.identifier,
                        'status', ${statusSummarySql('st.status_id')},
                        'assignees', ${assigneesSql('st.id')}) ORDER BY st.created_at, st.id)
                      FROM tasks st WHERE st.parent_id = ${taskIdExpr} AND ${permittedListSql('st.list_id', grants)}), '[]'::json)`;
}

/** spec: confirmed attachments with their uploader, oldest first. */
export function attachmentsSql(taskIdExpr: string): string {
  return `COALESCE((SELECT json_agg(json_build_object(
                        'id', a.id, 'file_name', a.file_name, 'file_size', a.file_size, 'mime_type', a.mime_type,
                        'created_at', api_ts(a.created_at),
                        'uploader', json_build_object('id', au.id, 'name', au.name, 'avatar_url', au.avatar_url)) ORDER BY a.created_at, a.id)
                      FROM attachments a JOIN users au ON au.id = a.uploader_id
                     WHERE a.task_id = ${taskIdExpr} AND a.confirmed), '[]'::json)`;
}

/**
 * D19: custom field `f` applies to the list `listExpr` whose folder is `folderExpr`:
 * unrestricted fields everywhere; a restricted one when a `granted` override names
 * the list, or when the list's folder is granted and no `denied` override names the
 * list. A NULL list (task not in a list) matches only unrestricted fields (D18).
 */
export function fieldAppliesSql(f: string, listExpr: string, folderExpr: string): string {
  return `(NOT ${f}.is_scope_restricted
           OR EXISTS (SELECT 1 FROM custom_field_list_overrides o
                       WHERE o.field_id = ${f}.id AND o.list_id = ${listExpr} AND o.access = 'granted')
           OR (EXISTS (SELECT 1 FROM custom_field_folder_grants g
                        WHERE g.field_id = ${f}.id AND g.folder_id = ${folderExpr})
               AND NOT EXISTS (SELECT 1 FROM custom_field_list_overrides o
                                WHERE o.field_id = ${f}.id AND o.list_id = ${listExpr} AND o.access = 'denied')))`;
}

/** D19: custom field `f` is visible to user `userExpr`: everyone, or only its allowed users (owners included). */
export function fieldVisibleSql(f: string, userExpr: string): string {
  return `(NOT ${f}.has_allowed_users
           OR EXISTS (SELECT 1 FROM custom_field_allowed_users fu WHERE fu.field_id = ${f}.id AND fu.user_id = ${userExpr}))`;
}

/**
 * spec: Custom-field config in task responses: rating `{icon, color}` (stored as
 * the listing's `{iconName, color}`, D18), dropdown and money as stored, other types null.
 */
export function fieldConfigSql(f: string): string {
  return `CASE
            WHEN ${f}.type = 'rating' AND jsonb_typeof(${f}.config) = 'object'
              THEN jsonb_build_object('icon', COALESCE(${f}.config -> 'iconName', ${f}.config -> 'icon'), 'color', ${f}.config -> 'color')
            WHEN ${f}.type IN ('rating', 'dropdown', 'money') THEN ${f}.config
          END`;
}

/** D18: the entries `{id, name, type, config, position, value}` of the fields applying to the task and visible to the caller, by position then id. */
export function customFieldsSql(t: string, folderExpr: string, userExpr: string): string {
  return `COALESCE((SELECT json_agg(json_build_object(
                        'id', f.id, 'name', f.name, 'type', f.type, 'config', ${fieldConfigSql('f')},
                        'position', f.position, 'value', v.value) ORDER BY f.position, f.id)
                      FROM custom_fields f
                      LEFT JOIN task_custom_field_values v ON v.task_id = ${t}.id AND v.field_id = f.id
                     WHERE f.workspace_id = ${t}.workspace_id
                       AND ${fieldAppliesSql('f', `${t}.list_id`, folderExpr)}
                       AND ${fieldVisibleSql('f', userExpr)}), '[]'::json)`;
}

/**
 * The task object of `shape` for task row `t`, as seen by user `userExpr` with the
 * grants `grants` (needed by the shapes with subtasks, D33).
 * Keys exactly as D16 requires for that response.
 */
export function taskJsonSql(shape: TaskShape, userExpr: string, grants: GrantParams | null, t = 't'): string {
  const parts: string[] = [
    `'id', ${t}.id`,
    `'workspace_id', ${t}.workspace_id`,
    `'list_id', ${t}.list_id`,
    `'title', ${t}.title`,
  ];
  if (shape !== 'listItem') parts.push(`'description', ${t}.description`);
  parts.push(
    `'priority', ${t}.priority`,
    `'identifier', ${t}.identifier`,
    `'due_date', api_ts(${t}.due_date)`,
    `'start_date', api_ts(${t}.start_date)`,
    `'creator_id', ${t}.creator_id`,
    `'created_at', api_ts(${t}.created_at)`,
    `'status', ${statusSummarySql(`${t}.status_id`)}`,
    `'assignees', ${assigneesSql(`${t}.id`)}`,
  );
  if (shape === 'full') parts.push(`'labels', ${labelsSql(`${t}.id`)}`);
  if (shape !== 'write') {
    if (!grants) throw new Error(`taskJsonSql: the ${shape} shape embeds subtasks and needs the caller's grants`);
    parts.push(`'subtasks', ${subtasksSql(`${t}.id`, grants)}`);
  }
  if (shape === 'full') parts.push(`'attachments', ${attachmentsSql(`${t}.id`)}`);
  // The list's folder by key (a join with lists would let a generic plan hash the whole table per task).
  parts.push(`'custom_fields', ${customFieldsSql(t, `(SELECT lf.folder_id FROM lists lf WHERE lf.id = ${t}.list_id)`, userExpr)}`);
  return `json_build_object(${parts.join(', ')})`;
}

/**
 * CTEs deleting the tasks matching `where` (SQL over `tasks`) with their
 * label links, for a delete statement that records an event (D37): the
 * statement itself deletes them, rather than the foreign keys' cascade (which
 * runs at the statement's end, after the event lock), so that every row lock
 * these deletes need is taken before the event lock; their comments,
 * assignees, values and attachments still go by cascade (no other writer
 * locks those rows without first locking their task). `names` are the CTEs
 * to drain before the lock; `doomed` returns id, workspace_id, list_id, parent_id.
 */
export function deleteTasksCtes(where: string): { ctes: string[]; names: string[] } {
  return {
    ctes: [
      `doomed AS (DELETE FROM tasks WHERE ${where} RETURNING id, workspace_id, list_id, parent_id)`,
      `doomed_labels AS (DELETE FROM task_labels WHERE task_id IN (SELECT id FROM doomed) RETURNING task_id)`,
    ],
    names: ['doomed', 'doomed_labels'],
  };
}
