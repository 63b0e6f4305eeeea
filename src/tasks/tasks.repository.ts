import { Injectable } from '@nestjs/common';
import type { Membership } from '../common/access/access.policy';
import { READ_PARAMS } from '../common/access/access.repository';
import { ACCESS_ROW_GRANTS, GrantParams, grantParams, permittedListSql } from '../common/access/access.sql';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { RawJson } from '../common/http/raw-json';
import type { CursorValues } from './task-cursor';
import { TaskListScope, taskListSql } from './task-list.sql';
import type { TaskQuery } from './task-query';
import type { CreateTaskDto, CustomFieldInput, TaskDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { SqlParams } from '../common/database/sql-params';
import { fieldAppliesSql, fieldVisibleSql, TaskShape, taskJsonSql } from './tasks.sql';

/** Where a task is being written: its workspace, its (final) list and that list's folder. */
export interface TaskPlace {
  workspaceId: number;
  listId: number | null;
  folderId: number | null;
}

/** What the create-task checks of D3 step 8 found, and the new task's id (null when a check failed: nothing was written). */
export interface CreatedTask {
  /** status_id (when sent) belongs to the workspace. */
  status_ok: boolean;
  /** parent_id (when sent) is a task of the workspace in a list the caller may see (D14, D33). */
  parent_found: boolean;
  /** That parent is itself a subtask (D14). */
  parent_is_subtask: boolean;
  id: number | null;
}

/** What the update-task checks of D3 step 8 found, and whether the task was written (false when a check failed or it is gone). */
export interface UpdatedTask {
  /** list_id (when sent) is a list of the workspace. */
  list_found: boolean;
  /** That list's folder. */
  list_folder_id: number | null;
  /** status_id (when sent) belongs to the workspace. */
  status_ok: boolean;
  updated: boolean;
  /** With an If-Match precondition: whether it held (null when the task is gone). */
  precondition_ok?: boolean | null;
}

/**
 * D36 If-Match as a write checks it, atomically with the write: `any` for `*`, else
 * the SHA-256 digests of the get-task bodies the caller may have (ifMatchPrecondition).
 * The write happens only when the body as `viewer` sees it now has one of them.
 */
export interface Precondition {
  any: boolean;
  digests: Buffer[];
  viewer: TaskViewer;
}

/** A task as create and update answer it: the write shape, and the SHA-256 of the get-task body after the write (its ETag, D36). */
export interface WrittenTask {
  task: RawJson<TaskWriteDto>;
  digest: Buffer;
}

/**
 * A page of List tasks: its rows as JSON text (passed through to the answer),
 * the number of all matches (when asked) and, in cursor mode, the last row's
 * sort values when another row follows.
 */
export interface TaskPageRows {
  data: string;
  total?: number;
  next_key?: CursorValues | null;
}

/** Who reads a task: the user (custom-field visibility, D18) and their membership (subtask visibility, D33). */
export interface TaskViewer {
  userId: number;
  membership: Membership;
}

/** SQL: the SHA-256 of the get-task body of task row `t` as `user` with `grants` sees it (the bytes of its ETag, D36). */
function fullDigestSql(user: string, grants: GrantParams, t: string): string {
  return `sha256(convert_to((${taskJsonSql('full', user, grants, t)})::text, 'UTF8'))`;
}

/**
 * D36's check inside a write statement (CTE `pre`): `ok` when the precondition
 * holds on the task as the statement sees it, and the `updated_at` it saw: the
 * write also requires that `updated_at`, so a write of the same task that
 * committed meanwhile (each sets it) makes this one write nothing, and the
 * statement runs again on the new state (TasksRepository callers).
 */
function preconditionSql(p: SqlParams, taskId: string, pre: Precondition): string {
  const ok = pre.any ? 'true' : `${fullDigestSql(p.add(pre.viewer.userId, 'int'), grantParams(p, pre.viewer.membership), 'pt')} = ANY(${p.add(pre.digests, 'bytea[]')})`;
  return `pre AS (SELECT ${ok} AS ok, pt.updated_at AS seen FROM tasks pt WHERE pt.id = ${taskId})`;
}

/** The condition a write guarded by preconditionSql adds to its WHERE on `tasks`. */
const PRECONDITION_HOLDS = `(SELECT ok FROM pre) AND updated_at = (SELECT seen FROM pre)`;

/** The statement reading task `taskId` in `shape` as JSON text (column `task`; no row when there is no such task). */
function loadTaskSql(shape: TaskShape, taskId: string, user: string, grants: GrantParams | null): string {
  return `SELECT ${taskJsonSql(shape, user, grants)}::text AS task
            FROM tasks t WHERE t.id = ${taskId}`;
}

/** SQL for tasks, their assignees, labels and custom-field values; reads return API shapes directly. */
@Injectable()
export class TasksRepository {
  constructor(private readonly sql: Sql) {}

  /** Task `id` in `shape` as seen by `viewer` (D16, D18; subtasks per D33), as JSON text built by PostgreSQL, or null. One round trip. */
  async loadTask(id: number, viewer: TaskViewer, shape: 'full', db?: Db): Promise<RawJson<TaskDto> | null>;
  async loadTask(id: number, viewer: TaskViewer, shape: 'write', db?: Db): Promise<RawJson<TaskWriteDto> | null>;
  async loadTask(id: number, viewer: TaskViewer, shape: TaskShape, db: Db = this.sql): Promise<RawJson | null> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    const user = p.add(viewer.userId, 'int');
    // Grants only when the shape uses them: PostgreSQL rejects untyped unused parameters.
    const grants = shape === 'write' ? null : grantParams(p, viewer.membership);
    const rows: { task: string }[] = await db.rows(loadTaskSql(shape, taskId, user, grants), p.values);
    return rows.length ? new RawJson(rows[0].task) : null;
  }

  /**
   * Task `id` as create and update answer it, with the digest of its get-task body as
   * `viewer` sees it (D36: their ETag is the get-task one), both from ONE statement; null when gone.
   */
  async loadWritten(id: number, viewer: TaskViewer, db: Db = this.sql): Promise<WrittenTask | null> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    const user = p.add(viewer.userId, 'int');
    const grants = grantParams(p, viewer.membership);
    const rows: { task: string; digest: Buffer }[] = await db.rows(
      `SELECT ${fullDigestSql(user, grants, 't')} AS digest, ${taskJsonSql('write', user, null)}::text AS task
         FROM tasks t WHERE t.id = ${taskId}`,
      p.values,
    );
    return rows.length ? { task: new RawJson(rows[0].task), digest: rows[0].digest } : null;
  }

  /** The get-task read inside an access check's statement (AccessService.checkAndRead): the full task as the caller sees it. */
  readonly fullTaskRead = loadTaskSql('full', READ_PARAMS.id, READ_PARAMS.user, ACCESS_ROW_GRANTS);

  /**
   * One page of List tasks (D22, D34) in ONE statement whatever the page size
   * or filters (task-list.sql.ts): the rows as JSON text (each with its direct
   * subtasks, D33), the total when the query wants it, and in cursor mode the
   * sort values of the page's last row when another row follows.
   */
  async listPage(scope: TaskListScope, userId: number, query: TaskQuery): Promise<TaskPageRows> {
    const { sql, params } = taskListSql(scope, userId, query);
    const rows: TaskPageRows[] = await this.sql.rows(sql, params);
    return rows[0];
  }

  /**
   * The create-task checks of D3 step 8 and, when they pass, the insert of the
   * task with its assignees, labels and custom-field values: ONE statement (so
   * atomic without a transaction) whatever their number. The status is the one
   * sent, else the workspace's default (D17). The identifier comes from the
   * workspace counter (D15: the row lock makes it unique and gap-free under
   * concurrent creates, and a deleted task's number is never handed out again);
   * assignees are filtered to workspace members (D12), labels to the workspace
   * (D14), custom fields to those applying to the list and visible to the creator (D13);
   * a parent outside the lists `membership` may see is not found (D33).
   */
  async insertTask(place: TaskPlace, creatorId: number, membership: Membership, task: CreateTaskDto, db: Db = this.sql): Promise<CreatedTask> {
    const p = new SqlParams();
    const ws = p.add(place.workspaceId, 'int');
    const statusId = p.add(task.statusId ?? null, 'int');
    const parentId = p.add(task.parentId, 'int');
    const listId = p.add(place.listId, 'int');
    const ctes = [
      `checks AS (
         SELECT ${statusId} IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = ${statusId} AND workspace_id = ${ws}) AS status_ok,
                ${parentId} IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${parentId} AND pt.workspace_id = ${ws}
                                                 AND ${permittedListSql('pt.list_id', grantParams(p, membership))}) AS parent_found,
                EXISTS (SELECT 1 FROM tasks WHERE id = ${parentId} AND parent_id IS NOT NULL) AS parent_is_subtask)`,
      `counter AS (UPDATE workspaces SET task_counter = task_counter + 1
                    WHERE id = ${ws} AND (SELECT status_ok AND parent_found AND NOT parent_is_subtask FROM checks)
                    RETURNING task_counter)`,
      `new_task AS (
         INSERT INTO tasks (workspace_id, list_id, parent_id, identifier, title, description, priority, status_id, due_date, start_date, creator_id)
         SELECT ${ws}, ${listId}, ${parentId}, counter.task_counter, ${p.add(task.title, 'text')},
                ${p.add(task.description ?? null, 'text')}, ${p.add(task.priority ?? 'none', 'text')},
                COALESCE(${statusId}, (SELECT id FROM statuses WHERE workspace_id = ${ws} AND category = 'pending' ORDER BY position, id LIMIT 1)),
                ${p.add(task.dueDate ?? null, 'timestamptz')}, ${p.add(task.startDate ?? null, 'timestamptz')}, ${p.add(creatorId, 'int')}
           FROM counter
         RETURNING id)`,
    ];
    if (task.assigneeIds?.length) ctes.push(insertAssigneesSql(p, 'new_task', ws, task.assigneeIds));
    if (task.labelIds?.length) ctes.push(insertLabelsSql(p, 'new_task', ws, task.labelIds));
    const values = (task.customFields ?? []).filter((cf) => cf.value !== null);
    if (values.length) {
      ctes.push(...writeCustomFieldsSql(p, 'new_task', { workspace: ws, list: listId, folder: p.add(place.folderId, 'int') }, creatorId, values));
    }
    const rows: CreatedTask[] = await db.rows(
      `WITH ${ctes.join(',\n')} SELECT checks.*, (SELECT id FROM new_task) AS id FROM checks`,
      p.values,
    );
    return rows[0];
  }

  /**
   * The update-task checks of D3 step 8 (the list of a move is in the workspace
   * and permitted to `membership`, D30; status_id is in the workspace) and, when
   * they pass, the patch of task `id`, in ONE statement: the sent columns,
   * assignees replaced (D12), labels replaced (D14), the listed custom-field
   * values set or cleared when the field applies to the task's list after the
   * move and is visible to `userId` (D13; values of fields that no longer apply are kept).
   */
  async updateTask(id: number, place: TaskPlace, membership: Membership, userId: number, patch: UpdateTaskDto, db: Db = this.sql, pre?: Precondition): Promise<UpdatedTask> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    const ws = p.add(place.workspaceId, 'int');
    const moving = patch.listId !== undefined;
    const listId = p.add(patch.listId ?? null, 'int');
    const statusId = p.add(patch.statusId ?? null, 'int');
    const permitted = moving ? permittedListSql('l.id', grantParams(p, membership)) : 'true';
    const ctes = [
      `checks AS (
         SELECT ${listId} IS NULL OR l.id IS NOT NULL AS list_found, l.folder_id AS list_folder_id, ${permitted} AS list_permitted,
                ${statusId} IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = ${statusId} AND workspace_id = ${ws}) AS status_ok
           FROM (SELECT 1) one
           LEFT JOIN lists l ON l.id = ${listId} AND l.workspace_id = ${ws})`,
    ];
    const sets = ['updated_at = now()'];
    const column = (name: string, value: unknown, cast: string) => {
      if (value !== undefined) sets.push(`${name} = ${p.add(value, cast)}`);
    };
    column('title', patch.title, 'text');
    column('description', patch.description, 'text');
    column('priority', patch.priority, 'text');
    column('status_id', patch.statusId, 'int');
    column('list_id', patch.listId, 'int');
    column('due_date', patch.dueDate, 'timestamptz');
    column('start_date', patch.startDate, 'timestamptz');
    if (pre) ctes.push(preconditionSql(p, taskId, pre));
    // Everything below reads the id from `task`: nothing is written when a check failed or the task is gone.
    ctes.push(`task AS (UPDATE tasks SET ${sets.join(', ')}
                         WHERE id = ${taskId} AND (SELECT list_found AND list_permitted AND status_ok FROM checks)${pre ? ` AND ${PRECONDITION_HOLDS}` : ''}
                         RETURNING id)`);
    if (patch.assigneeIds) {
      const members = `SELECT m.user_id FROM workspace_members m WHERE m.workspace_id = ${ws} AND m.user_id = ANY(${p.add(patch.assigneeIds, 'int[]')})`;
      // Delete those not kept and insert the new ones: disjoint rows, so one statement is safe.
      ctes.push(`drop_assignees AS (DELETE FROM task_assignees WHERE task_id IN (SELECT id FROM task) AND user_id NOT IN (${members}))`);
      ctes.push(`add_assignees AS (INSERT INTO task_assignees (task_id, user_id, workspace_id)
                   SELECT task.id, k.user_id, ${ws} FROM task, (${members}) k ON CONFLICT DO NOTHING)`);
    }
    if (patch.labelIds) {
      const labels = `SELECT lb.id FROM labels lb WHERE lb.workspace_id = ${ws} AND lb.id = ANY(${p.add(patch.labelIds, 'int[]')})`;
      ctes.push(`drop_labels AS (DELETE FROM task_labels WHERE task_id IN (SELECT id FROM task) AND label_id NOT IN (${labels}))`);
      ctes.push(`add_labels AS (INSERT INTO task_labels (task_id, label_id, workspace_id)
                   SELECT task.id, k.id, ${ws} FROM task, (${labels}) k ON CONFLICT DO NOTHING)`);
    }
    if (patch.customFields?.length) {
      const placeSql = moving
        ? { workspace: ws, list: listId, folder: '(SELECT list_folder_id FROM checks)' }
        : { workspace: ws, list: p.add(place.listId, 'int'), folder: p.add(place.folderId, 'int') };
      ctes.push(...writeCustomFieldsSql(p, 'task', placeSql, userId, patch.customFields));
    }
    const rows: UpdatedTask[] = await db.rows(
      `WITH ${ctes.join(',\n')} SELECT checks.list_found, checks.list_folder_id, checks.status_ok, EXISTS (SELECT 1 FROM task) AS updated${pre ? ', (SELECT ok FROM pre) AS precondition_ok' : ''} FROM checks`,
      p.values,
    );
    return rows[0];
  }

  /** Deletes a task; subtasks, comments, attachments, assignees, labels and values go by FK cascade (D16). */
  async deleteTask(id: number, db: Db = this.sql): Promise<void> {
    await db.rows(`DELETE FROM tasks WHERE id = $1`, [id]);
  }

  /**
   * deleteTask under D36's If-Match, in one statement: deletes task `id` only when
   * `pre` holds on it now. `precondition_ok` null: the task is gone; `deleted`
   * false with `precondition_ok` true: a write of the task committed meanwhile (run it again).
   */
  async deleteTaskIf(id: number, pre: Precondition, db: Db = this.sql): Promise<{ precondition_ok: boolean | null; deleted: boolean }> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    const rows: { precondition_ok: boolean | null; deleted: boolean }[] = await db.rows(
      `WITH ${preconditionSql(p, taskId, pre)},
            gone AS (DELETE FROM tasks WHERE id = ${taskId} AND ${PRECONDITION_HOLDS} RETURNING 1)
       SELECT (SELECT ok FROM pre) AS precondition_ok, EXISTS (SELECT 1 FROM gone) AS deleted`,
      p.values,
    );
    return rows[0];
  }
}

/** D12: an INSERT CTE adding the workspace members among `ids` as assignees of the task of CTE `taskCte`. */
function insertAssigneesSql(p: SqlParams, taskCte: string, ws: string, ids: number[]): string {
  return `add_assignees AS (INSERT INTO task_assignees (task_id, user_id, workspace_id)
            SELECT ${taskCte}.id, m.user_id, ${ws} FROM ${taskCte}
              JOIN workspace_members m ON m.workspace_id = ${ws} AND m.user_id = ANY(${p.add(ids, 'int[]')}))`;
}

/** D14: an INSERT CTE adding the workspace's labels among `ids` to the task of CTE `taskCte`. */
function insertLabelsSql(p: SqlParams, taskCte: string, ws: string, ids: number[]): string {
  return `add_labels AS (INSERT INTO task_labels (task_id, label_id, workspace_id)
            SELECT ${taskCte}.id, lb.id, ${ws} FROM ${taskCte}
              JOIN labels lb ON lb.workspace_id = ${ws} AND lb.id = ANY(${p.add(ids, 'int[]')}))`;
}

/** SQL expressions of where a task is written: its workspace, list and that list's folder. */
interface PlaceSql {
  workspace: string;
  list: string;
  folder: string;
}

/**
 * D13: CTEs writing custom-field values for the task of CTE `taskCte`: the inputs whose
 * field applies to the list and folder of `place` and is visible to `userId` are kept
 * (others ignored); null deletes the value, anything else upserts it. Inputs have one
 * entry per field, so the delete and the upsert touch disjoint rows.
 */
function writeCustomFieldsSql(p: SqlParams, taskCte: string, place: PlaceSql, userId: number, inputs: CustomFieldInput[]): string[] {
  const ids = p.add(inputs.map((cf) => cf.id), 'int[]');
  const values = p.add(inputs.map((cf) => cf.value), 'text[]');
  const user = p.add(userId, 'int');
  return [
    `cf_input AS (
       SELECT x.id, x.value FROM unnest(${ids}, ${values}) AS x(id, value)
         JOIN custom_fields f ON f.id = x.id
        WHERE f.workspace_id = ${place.workspace}
          AND ${fieldAppliesSql('f', place.list, place.folder)}
          AND ${fieldVisibleSql('f', user)})`,
    `cf_clear AS (DELETE FROM task_custom_field_values v USING cf_input, ${taskCte}
                   WHERE v.task_id = ${taskCte}.id AND v.field_id = cf_input.id AND cf_input.value IS NULL)`,
    `cf_set AS (INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value)
                 SELECT ${taskCte}.id, cf_input.id, ${place.workspace}, cf_input.value FROM cf_input, ${taskCte}
                  WHERE cf_input.value IS NOT NULL
                 ON CONFLICT (task_id, field_id) DO UPDATE SET value = EXCLUDED.value)`,
  ];
}
