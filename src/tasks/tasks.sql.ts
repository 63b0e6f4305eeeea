/**
 * SQL fragments that build task response shapes inside PostgreSQL as compact
 * JSON text (json-sql.ts), so a task or a whole page of tasks is one statement
 * whatever it holds (performance rules; D16 field sets; D18, D19 custom fields).
 * Only fixed identifiers are interpolated here; values always travel as parameters.
 */

import { GrantParams, permittedListSql } from '../common/access/access.sql';
import { ColumnWrite, FieldRow, FieldsMatch, writeColumns } from '../common/database/field-table';
import { J, JsonSql } from '../common/database/json-sql';
import { digestSql } from '../common/http/etag';
import { fieldAppliesSql, fieldVisibleSql } from '../custom-fields/custom-fields.sql';
import { type CreateTaskDto, DEFAULT_PRIORITY, type TaskDto, type TaskListItemDto, type TaskWriteDto, type UpdateTaskDto } from './tasks.dto';

/** Which response a task object is built for (spec: "Which fields appear in which response", D16). */
export type TaskShape = 'write' | 'full' | 'listItem';

/** spec: Status embedded in a task: id, name, icon, color, category; null when none. */
export function statusSummarySql(statusIdExpr: string): JsonSql {
  return J.jsonOrNull(`(SELECT ${embeddedSql('s')} FROM statuses s WHERE s.id = ${statusIdExpr})`);
}

/** The status of tasks row `t`, looked up by its own subquery (statusSummarySql). */
const statusOfRowSql = (t: string): JsonSql => statusSummarySql(`${t}.status_id`);

/**
 * The object a task answer embeds of row `row` of statuses (spec: status `{id, name, icon, color, category}`),
 * users (assignee, uploader: `{id, name, avatar_url}`) or labels (`{id, name, color}`): the row's
 * `embedded_json`, which a trigger keeps (migration 1796010000000).
 */
const embeddedSql = (row: string): JsonSql => `${row}.embedded_json`;

/**
 * Where a task's assignee, label and custom-field value rows are read: their
 * tables, or for a task its own statement is creating, the rows that statement
 * inserts (RETURNING rows with the tables' columns: `task_id` and `user_id`,
 * `task_id` and `label_id`, `task_id`, `field_id` and `value`), since a
 * statement does not see its own writes in the tables.
 */
export interface TaskLinkSources {
  assignees: string;
  labels: string;
  values: string;
}

/** The tables themselves. */
const TASK_LINK_TABLES: TaskLinkSources = { assignees: 'task_assignees', labels: 'task_labels', values: 'task_custom_field_values' };

/** spec: assignees `{id, name, avatar_url}`, ascending user id (D12); `[]` when none. */
function assigneesSql(taskIdExpr: string, source = TASK_LINK_TABLES.assignees): JsonSql {
  return J.array(embeddedSql('u'), `${source} ta JOIN users u ON u.id = ta.user_id WHERE ta.task_id = ${taskIdExpr}`, 'u.id');
}

/** spec: labels embedded in a task `{id, name, color}`, in the label order of D23. */
function labelsSql(taskIdExpr: string, source = TASK_LINK_TABLES.labels): JsonSql {
  return J.array(embeddedSql('lb'), `${source} tl JOIN labels lb ON lb.id = tl.label_id WHERE tl.task_id = ${taskIdExpr}`, 'lower(lb.name), lb.id');
}

/**
 * spec: subtask elements `{id, title, priority, identifier, status, assignees}`, oldest first (D16);
 * only subtasks in lists the caller may see (D33, the rule of permittedListSql).
 */
export function subtasksSql(taskIdExpr: string, grants: GrantParams): JsonSql {
  return J.array(
    subtaskSql('st', assigneesSql('st.id'), statusOfRowSql('st')),
    `tasks st WHERE ${subtaskOfSql('st', `= ${taskIdExpr}`, grants)}`,
    SUBTASK_ORDER,
  );
}

/** The subtask element of tasks row `st` whose assignees array is `assignees` and status object `status`. */
function subtaskSql(st: string, assignees: JsonSql, status: JsonSql): JsonSql {
  return J.object([
    ['id', J.int(`${st}.id`)],
    ['title', J.text(`${st}.title`)],
    ['priority', J.text(`${st}.priority`)],
    ['identifier', J.int(`${st}.identifier`)],
    ['status', status],
    ['assignees', assignees],
  ]);
}

/** Tasks row `st` is a subtask of a parent matching `parentTest` (`= 5`, `= ANY(...)`) in a list the caller may see (D33). */
function subtaskOfSql(st: string, parentTest: string, grants: GrantParams): string {
  return `${st}.parent_id ${parentTest} AND ${permittedListSql(`${st}.list_id`, grants)}`;
}

/** D16: subtasks oldest first. */
const SUBTASK_ORDER = 'st.created_at, st.id';

/** spec: the attachment element of attachments row `a` with its uploader, users row `au`. */
export const ATTACHMENT_ELEMENT: JsonSql = J.object([
  ['id', J.int('a.id')],
  ['file_name', J.text('a.file_name')],
  ['file_size', J.int('a.file_size')],
  ['mime_type', J.text('a.mime_type')],
  ['created_at', J.timestamp('a.created_at')],
  ['uploader', embeddedSql('au')],
]);

/** spec: confirmed attachments with their uploader, oldest first. */
export function attachmentsSql(taskIdExpr: string): JsonSql {
  return J.array(
    ATTACHMENT_ELEMENT,
    `attachments a JOIN users au ON au.id = a.uploader_id WHERE a.task_id = ${taskIdExpr} AND a.confirmed`,
    'a.created_at, a.id',
  );
}

/** SQL of the folder of the task's list, by key (a join with lists would let a generic plan hash the whole table per task). */
const listFolderSql = (t: string) => `(SELECT lf.folder_id FROM lists lf WHERE lf.id = ${t}.list_id)`;

/**
 * D18: an entry `{id, name, type, config, position, value}` of custom_fields row `f`
 * with its value row `v`. The entry up to its value, `task_entry_head`, is kept on the
 * field's row by a trigger (migration 1795860000000), config as task answers show it.
 */
const FIELD_ENTRY = `(f.task_entry_head || ${J.textOrNull('v.value')} || '}')`;

/** D18: custom fields by position then id. */
const FIELD_ORDER = 'f.position, f.id';

/**
 * A one-row FROM item `tf` whose `folder_id` is the folder of task row `t`'s
 * list (NULL without one), looked up once per task: OFFSET 0 keeps PostgreSQL
 * from folding it into each field's test, where it ran once per field.
 */
const taskFolderSql = (t: string) => `(SELECT ${listFolderSql(t)} AS folder_id OFFSET 0) tf`;
/** The folder taskFolderSql gives. */
const TASK_FOLDER = 'tf.folder_id';

/** Conditions on custom_fields row `f`: a field of task row `t`'s workspace, applying to its list (in folder `folder`) and visible to `userExpr` (D18, D19). */
function fieldOfTaskSql(t: string, userExpr: string, folder: string): string {
  return `f.workspace_id = ${t}.workspace_id
        AND ${fieldAppliesSql('f', `${t}.list_id`, folder)}
        AND ${fieldVisibleSql('f', userExpr)}`;
}

/** The join of a custom field `f` with task row `t`'s value `v` of it (none: NULL). */
const fieldValueJoinSql = (t: string, source = TASK_LINK_TABLES.values) => `LEFT JOIN ${source} v ON v.task_id = ${t}.id AND v.field_id = f.id`;

/**
 * D18: the entries of the fields applying to task row `t` and visible to the caller, by position then id.
 * `folder`: SQL of the task's folder when the statement already has it (an access row's), else looked up.
 */
function customFieldsSql(t: string, userExpr: string, values = TASK_LINK_TABLES.values, folder?: string): JsonSql {
  const from = folder === undefined ? `${taskFolderSql(t)} CROSS JOIN custom_fields f` : 'custom_fields f';
  return J.array(FIELD_ENTRY, `${from} ${fieldValueJoinSql(t, values)} WHERE ${fieldOfTaskSql(t, userExpr, folder ?? TASK_FOLDER)}`, FIELD_ORDER);
}

/**
 * Where a task object's nested arrays come from: for one task, subqueries
 * correlated with its row (taskJsonSql); for a page of tasks, arrays built
 * once per page and joined to each row (taskPageSql).
 */
interface NestedSql {
  status(t: string): JsonSql;
  assignees(t: string): JsonSql;
  labels(t: string): JsonSql;
  subtasks(t: string): JsonSql;
  customFields(t: string): JsonSql;
}

/** What a task field's SQL may use: the tasks row's alias and the source of its nested arrays. */
interface TaskSqlContext {
  t: string;
  nested: NestedSql;
}

/** How create and update write a column of tasks from the body field of the same name (createDefault over the workspace id `ws`). */
type TaskColumnWrite = ColumnWrite<keyof CreateTaskDto & keyof UpdateTaskDto>;

/** One key of the task object: the shapes it appears in (D16), the SQL of its JSON value, and the column behind it when the API writes one. */
interface TaskField extends FieldRow<TaskShape, TaskColumnWrite['column']> {
  shapes: readonly TaskShape[];
  json(c: TaskSqlContext): JsonSql;
}

const EVERY_SHAPE = ['full', 'write', 'listItem'] as const;

/**
 * The task object's keys in response order, the shapes each appears in (spec:
 * "Which fields appear in which response", D16) and how each is rendered. The
 * compiler checks every shape's keys against its response DTO (below).
 */
export const TASK_FIELDS = [
  { key: 'id', shapes: EVERY_SHAPE, json: ({ t }) => J.int(`${t}.id`) },
  { key: 'workspace_id', shapes: EVERY_SHAPE, json: ({ t }) => J.int(`${t}.workspace_id`) },
  { key: 'list_id', shapes: EVERY_SHAPE, json: ({ t }) => J.intOrNull(`${t}.list_id`), write: { column: 'list_id', cast: 'int' } },
  { key: 'title', shapes: EVERY_SHAPE, json: ({ t }) => J.text(`${t}.title`), write: { column: 'title', cast: 'text' } },
  { key: 'description', shapes: ['full', 'write'], json: ({ t }) => J.textOrNull(`${t}.description`), write: { column: 'description', cast: 'text' } },
  {
    key: 'priority',
    shapes: EVERY_SHAPE,
    json: ({ t }) => J.text(`${t}.priority`),
    write: { column: 'priority', cast: 'text', createDefault: () => `'${DEFAULT_PRIORITY}'` },
  },
  { key: 'identifier', shapes: EVERY_SHAPE, json: ({ t }) => J.int(`${t}.identifier`) },
  { key: 'due_date', shapes: EVERY_SHAPE, json: ({ t }) => J.timestampOrNull(`${t}.due_date`), write: { column: 'due_date', cast: 'timestamptz' } },
  { key: 'start_date', shapes: EVERY_SHAPE, json: ({ t }) => J.timestampOrNull(`${t}.start_date`), write: { column: 'start_date', cast: 'timestamptz' } },
  { key: 'creator_id', shapes: EVERY_SHAPE, json: ({ t }) => J.int(`${t}.creator_id`) },
  { key: 'created_at', shapes: EVERY_SHAPE, json: ({ t }) => J.timestamp(`${t}.created_at`) },
  {
    key: 'status',
    shapes: EVERY_SHAPE,
    json: ({ t, nested }) => nested.status(t),
    // D17: the workspace's first pending status by position.
    write: {
      column: 'status_id',
      cast: 'int',
      createDefault: (ws) => `(SELECT id FROM statuses WHERE workspace_id = ${ws} AND category = 'pending' ORDER BY position, id LIMIT 1)`,
    },
  },
  { key: 'assignees', shapes: EVERY_SHAPE, json: ({ t, nested }) => nested.assignees(t) },
  { key: 'labels', shapes: ['full'], json: ({ t, nested }) => nested.labels(t) },
  { key: 'subtasks', shapes: ['full', 'listItem'], json: ({ t, nested }) => nested.subtasks(t) },
  { key: 'attachments', shapes: ['full'], json: ({ t }) => attachmentsSql(`${t}.id`) },
  { key: 'custom_fields', shapes: EVERY_SHAPE, json: ({ t, nested }) => nested.customFields(t) },
] as const satisfies readonly TaskField[];

/** Fails to compile when a shape's keys and its response DTO's differ: a field added to one must be added to the other. */
const FIELDS_MATCH_DTOS: [
  FieldsMatch<typeof TASK_FIELDS, TaskDto, 'full'>,
  FieldsMatch<typeof TASK_FIELDS, TaskWriteDto, 'write'>,
  FieldsMatch<typeof TASK_FIELDS, TaskListItemDto, 'listItem'>,
] = [true, true, true];
void FIELDS_MATCH_DTOS;

/** The columns create and update write from the body (TASK_FIELDS with a `write`), in table order. */
export const TASK_WRITE_COLUMNS: readonly TaskColumnWrite[] = writeColumns<TaskColumnWrite['column']>(TASK_FIELDS);

/** The object of `shape` for the tasks row of `context`, from TASK_FIELDS. */
function taskObjectSql(shape: TaskShape, context: TaskSqlContext): JsonSql {
  const fields: readonly TaskField[] = TASK_FIELDS;
  return J.object(fields.filter((f) => f.shapes.includes(shape)).map((f) => [f.key, f.json(context)] as const));
}

/**
 * The task object of `shape` for task row `t` as compact JSON text, as seen by
 * user `userExpr` with the grants `grants` (needed by the shapes with subtasks, D33).
 * Keys exactly as D16 requires for that response, from TASK_FIELDS. `folder`: SQL of
 * the folder of the task's list when the statement has it already (customFieldsSql).
 */
export function taskJsonSql(shape: TaskShape, userExpr: string, grants: GrantParams | null, t = 't', folder?: string): JsonSql {
  if (shape !== 'write' && !grants) throw new Error(`taskJsonSql: the ${shape} shape embeds subtasks and needs the caller's grants`);
  const nested: NestedSql = {
    status: statusOfRowSql,
    assignees: (row) => assigneesSql(`${row}.id`),
    labels: (row) => labelsSql(`${row}.id`),
    subtasks: (row) => subtasksSql(`${row}.id`, grants!),
    customFields: (row) => customFieldsSql(row, userExpr, TASK_LINK_TABLES.values, folder),
  };
  return taskObjectSql(shape, { t, nested });
}

/**
 * For the task a statement is inserting (CTE `taskCte`, RETURNING *): a SELECT of its
 * create answer (`task`, the write shape as JSON text) and the digest of its get-task
 * body as user `userExpr` sees it (`digest`, its ETag). Assignees, labels and values
 * come from the rows the statement inserts (`sources`), each array built once for
 * both; a new task has no subtasks and no attachments (the latter read from their
 * table all the same). Byte for byte what taskJsonSql gives once the statement committed.
 */
export function newTaskAnswerSql(taskCte: string, userExpr: string, sources: TaskLinkSources): string {
  const arrays = `(SELECT ${assigneesSql('t.id', sources.assignees)} AS assignees, ${labelsSql('t.id', sources.labels)} AS labels,
                          ${customFieldsSql('t', userExpr, sources.values)} AS custom_fields OFFSET 0) x`;
  const nested: NestedSql = {
    status: statusOfRowSql,
    assignees: () => 'x.assignees',
    labels: () => 'x.labels',
    subtasks: () => "'[]'",
    customFields: () => 'x.custom_fields',
  };
  const object = (shape: TaskShape) => taskObjectSql(shape, { t: 't', nested });
  return `SELECT ${object('write')}::text AS task, ${digestSql(object('full'))} AS digest FROM ${taskCte} t CROSS JOIN LATERAL ${arrays}`;
}

/**
 * The list items (D16 `listItem` shape) of a page of tasks as one JSON array:
 * `ctes` to add to the statement, then `array`, an expression over them.
 * `pageIds` selects the page's task ids (column `id`) and `from` is a FROM
 * clause naming the page's rows as tasks `t` (with whatever else `orderBy`
 * sorts by); all of them are tasks of the workspace `workspaceExpr`. The nested arrays are built set-wise, once per page (subtasks,
 * the assignees of tasks and subtasks, custom fields), instead of by one
 * subquery per row: a fixed number of scans whatever the page size.
 * The text depends on its arguments only (placeholders and SQL fragments): it is built once
 * per distinct set of them (PAGE_SQL), where building it on every listing cost ~24 us of a request's CPU.
 */
export function taskPageSql(pageIds: string, from: string, orderBy: string, userExpr: string, grants: GrantParams, workspaceExpr: string): TaskPageSql {
  const key = [pageIds, from, orderBy, userExpr, grants.restricted, grants.listIds, grants.folderIds, workspaceExpr].join('\0');
  let built = PAGE_SQL.get(key);
  if (!built) {
    if (PAGE_SQL.size >= PAGE_SQL_MAX) PAGE_SQL.clear();
    PAGE_SQL.set(key, (built = buildTaskPageSql(pageIds, from, orderBy, userExpr, grants, workspaceExpr)));
  }
  return built;
}

/** A page's CTEs and its JSON array expression (taskPageSql); shared by every listing of the same shape, so read-only. */
type TaskPageSql = { readonly ctes: readonly string[]; readonly array: JsonSql };

/** taskPageSql's texts by their arguments; the listing builds a handful of argument sets (one per query shape). */
const PAGE_SQL = new Map<string, TaskPageSql>();
/** More distinct argument sets than any listing produces; past it the texts are built afresh. */
const PAGE_SQL_MAX = 1000;

function buildTaskPageSql(pageIds: string, from: string, orderBy: string, userExpr: string, grants: GrantParams, workspaceExpr: string): TaskPageSql {
  const ctes = [
    // The workspace's statuses as JSON once per page, joined to each task and subtask: a subquery per
    // row scanned statuses once per row (1.7 of 13.5 ms for a page of 100 tasks with 74 subtasks).
    `page_statuses AS MATERIALIZED (
       SELECT s.id, ${embeddedSql('s')} AS json FROM statuses s WHERE s.workspace_id = ${workspaceExpr})`,
    `page_subtasks AS MATERIALIZED (
       SELECT st.* FROM tasks st WHERE ${subtaskOfSql('st', `= ANY(ARRAY(${pageIds}))`, grants)})`,
    `page_assignees AS MATERIALIZED (
       SELECT ta.task_id, ${J.arrayAgg(embeddedSql('u'), 'u.id')} AS json
         FROM task_assignees ta JOIN users u ON u.id = ta.user_id
        WHERE ta.task_id = ANY(ARRAY(${pageIds} UNION ALL SELECT id FROM page_subtasks))
        GROUP BY ta.task_id)`,
    `page_subtask_arrays AS MATERIALIZED (
       SELECT st.parent_id, ${J.arrayAgg(subtaskSql('st', "COALESCE(sa.json, '[]')", "COALESCE(ss.json, 'null')"), SUBTASK_ORDER)} AS json
         FROM page_subtasks st LEFT JOIN page_assignees sa ON sa.task_id = st.id LEFT JOIN page_statuses ss ON ss.id = st.status_id
        GROUP BY st.parent_id)`,
    // The fields of the workspace visible to the caller, found once per page rather than once per task.
    `page_field_defs AS MATERIALIZED (
       SELECT f.id, f.position, f.task_entry_head, f.is_scope_restricted, f.granted_folder_ids, f.granted_list_ids, f.denied_list_ids
         FROM custom_fields f
        WHERE f.workspace_id = ${workspaceExpr} AND ${fieldVisibleSql('f', userExpr)})`,
    // Each task's folder (tf.folder_id) by a join: one pass over lists for the page, where a
    // subquery per task scanned the lists table once per task (1.2 of 7.4 ms for 100 tasks).
    `page_fields AS MATERIALIZED (
       SELECT pt.id AS task_id, ${J.arrayAgg(FIELD_ENTRY, FIELD_ORDER)} AS json
         FROM tasks pt LEFT JOIN lists tf ON tf.id = pt.list_id
         JOIN page_field_defs f ON ${fieldAppliesSql('f', 'pt.list_id', 'tf.folder_id')} ${fieldValueJoinSql('pt')}
        WHERE pt.id = ANY(ARRAY(${pageIds}))
        GROUP BY pt.id)`,
  ];
  const nested: NestedSql = {
    status: () => "COALESCE(pst.json, 'null')",
    assignees: () => "COALESCE(pa.json, '[]')",
    labels: (row) => labelsSql(`${row}.id`),
    subtasks: () => "COALESCE(ps.json, '[]')",
    customFields: () => "COALESCE(pf.json, '[]')",
  };
  const element = taskObjectSql('listItem', { t: 't', nested });
  const array = `(SELECT ${J.arrayAgg(element, orderBy)}
                    FROM ${from}
                    LEFT JOIN page_statuses pst ON pst.id = t.status_id
                    LEFT JOIN page_assignees pa ON pa.task_id = t.id
                    LEFT JOIN page_subtask_arrays ps ON ps.parent_id = t.id
                    LEFT JOIN page_fields pf ON pf.task_id = t.id)`;
  return { ctes, array };
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
