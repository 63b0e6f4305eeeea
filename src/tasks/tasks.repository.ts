import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Membership } from '../common/access/access.policy';
import { GrantParams, grantParams, permittedListSql } from '../common/access/access.sql';
import type { CustomFieldInput, NewTask, TaskPatch } from './tasks.body';
import type { CursorValues } from './task-cursor';
import { TaskListScope, taskListSql } from './task-list.sql';
import type { TaskQuery } from './task-query';
import type { TaskDto, TaskListItemDto, TaskWriteDto } from './tasks.dto';
import { fieldAppliesSql, fieldVisibleSql, SqlParams, TaskShape, taskJsonSql } from './tasks.sql';

/** Where a task is being written: its workspace, its (final) list and that list's folder. */
export interface TaskPlace {
  workspaceId: number;
  listId: number | null;
  folderId: number | null;
}

/** What the create-task checks of D3 step 8 need to know, in one round trip. */
export interface CreateChecks {
  /** D17: the pending status with the lowest position, then id; null when none. */
  default_status_id: number | null;
  /** status_id (when sent) belongs to the workspace. */
  status_ok: boolean;
  /** parent_id (when sent) is a task of the workspace in a list the caller may see (D14, D33). */
  parent_found: boolean;
  /** That parent is itself a subtask (D14). */
  parent_is_subtask: boolean;
}

/** What the update-task checks of D3 step 8 need to know, in one round trip. */
export interface UpdateChecks {
  /** list_id (when sent) is a list of the workspace. */
  list_found: boolean;
  /** Its folder. */
  list_folder_id: number | null;
  /** status_id (when sent) belongs to the workspace. */
  status_ok: boolean;
}

/** A page of List tasks: its rows, the number of all matches (when asked) and the last row's cursor values (cursor mode, when more follow). */
export interface TaskPageRows {
  data: TaskListItemDto[];
  total?: number;
  next_key?: CursorValues | null;
}

/** Who reads a task: the user (custom-field visibility, D18) and their membership (subtask visibility, D33). */
export interface TaskViewer {
  userId: number;
  membership: Membership;
}

/** SQL for tasks, their assignees, labels and custom-field values; reads return API shapes directly. */
@Injectable()
export class TasksRepository {
  constructor(private readonly db: DataSource) {}

  /** Task `id` in `shape` as seen by `viewer` (D16, D18; subtasks per D33), or null. One round trip. */
  async loadTask(id: number, viewer: TaskViewer, shape: 'full', manager?: EntityManager): Promise<TaskDto | null>;
  async loadTask(id: number, viewer: TaskViewer, shape: 'write', manager?: EntityManager): Promise<TaskWriteDto | null>;
  async loadTask(id: number, viewer: TaskViewer, shape: TaskShape, manager?: EntityManager): Promise<unknown> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    const user = p.add(viewer.userId, 'int');
    // Grants only when the shape uses them: PostgreSQL rejects untyped unused parameters.
    const grants = shape === 'write' ? null : grantParams((v, cast) => p.add(v, cast), viewer.membership);
    const rows: { task: unknown }[] = await (manager ?? this.db).query(
      `SELECT ${taskJsonSql(shape, user, grants)} AS task
         FROM tasks t LEFT JOIN lists l ON l.id = t.list_id
        WHERE t.id = ${taskId}`,
      p.values,
    );
    return rows[0]?.task ?? null;
  }

  /**
   * One page of List tasks (D22, D34) in ONE statement whatever the page size
   * or filters: the rows (each with its direct subtasks, D33), the total when
   * the query wants it, and in cursor mode the sort values of the page's last
   * row when another row follows.
   */
  async listPage(scope: TaskListScope, userId: number, query: TaskQuery): Promise<TaskPageRows> {
    const { sql, params } = taskListSql(scope, userId, query);
    const rows: TaskPageRows[] = await this.db.query(sql, params);
    return rows[0];
  }

  /** Workspace and folder of list `listId`, or null (list filter of D22). */
  async findList(listId: number): Promise<{ workspace_id: number; folder_id: number | null } | null> {
    const rows = await this.db.query(`SELECT workspace_id, folder_id FROM lists WHERE id = $1`, [listId]);
    return rows[0] ?? null;
  }

  /**
   * D3 step 8 of create task, one round trip: the default status (D17), status_id and
   * parent_id (a parent in a list `membership` may not see is not found, D33).
   */
  async createChecks(em: EntityManager, workspaceId: number, statusId: number | null, parentId: number | null, membership: Membership): Promise<CreateChecks> {
    const grants: GrantParams = { restricted: '$4::boolean', listIds: '$5::int[]', folderIds: '$6::int[]' };
    const rows: CreateChecks[] = await em.query(
      `SELECT (SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'pending' ORDER BY position, id LIMIT 1) AS default_status_id,
              ($2::int IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = $2::int AND workspace_id = $1)) AS status_ok,
              ($3::int IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = $3::int AND pt.workspace_id = $1
                                            AND ${permittedListSql('pt.list_id', grants)})) AS parent_found,
              EXISTS (SELECT 1 FROM tasks WHERE id = $3::int AND parent_id IS NOT NULL) AS parent_is_subtask`,
      [workspaceId, statusId, parentId, membership.restricted, membership.listIds, membership.folderIds],
    );
    return rows[0];
  }

  /** D3 step 8 of update task, one round trip: the target list of a move and status_id. */
  async updateChecks(em: EntityManager, workspaceId: number, listId: number | null, statusId: number | null): Promise<UpdateChecks> {
    const rows: UpdateChecks[] = await em.query(
      `SELECT ($2::int IS NULL OR l.id IS NOT NULL) AS list_found, l.folder_id AS list_folder_id,
              ($3::int IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = $3::int AND workspace_id = $1)) AS status_ok
         FROM (SELECT 1) one
         LEFT JOIN lists l ON l.id = $2::int AND l.workspace_id = $1`,
      [workspaceId, listId, statusId],
    );
    return rows[0];
  }

  /**
   * Inserts a task with its assignees, labels and custom-field values in ONE
   * statement, whatever their number: the identifier comes from the workspace
   * counter (D15: the row lock makes it unique and gap-free under concurrent
   * creates, and a deleted task's number is never handed out again); assignees
   * are filtered to workspace members (D12), labels to the workspace (D14),
   * custom fields to those applying to the list and visible to the creator (D13).
   * Returns the new task's id.
   */
  async insertTask(em: EntityManager, place: TaskPlace, creatorId: number, task: NewTask, statusId: number | null): Promise<number> {
    const p = new SqlParams();
    const ws = p.add(place.workspaceId, 'int');
    const ctes = [
      `counter AS (UPDATE workspaces SET task_counter = task_counter + 1 WHERE id = ${ws} RETURNING task_counter)`,
      `new_task AS (
         INSERT INTO tasks (workspace_id, list_id, parent_id, identifier, title, description, priority, status_id, due_date, start_date, creator_id)
         SELECT ${ws}, ${p.add(place.listId, 'int')}, ${p.add(task.parentId, 'int')}, counter.task_counter, ${p.add(task.title, 'text')},
                ${p.add(task.description ?? null, 'text')}, ${p.add(task.priority ?? 'none', 'text')}, ${p.add(statusId, 'int')},
                ${p.add(task.dueDate ?? null, 'timestamptz')}, ${p.add(task.startDate ?? null, 'timestamptz')}, ${p.add(creatorId, 'int')}
           FROM counter
         RETURNING id)`,
    ];
    if (task.assigneeIds?.length) ctes.push(insertAssigneesSql(p, 'new_task', ws, task.assigneeIds));
    if (task.labelIds?.length) ctes.push(insertLabelsSql(p, 'new_task', ws, task.labelIds));
    const values = (task.customFields ?? []).filter((cf) => cf.value !== null);
    if (values.length) ctes.push(...writeCustomFieldsSql(p, 'new_task', place, creatorId, values));
    const rows: { id: number }[] = await em.query(`WITH ${ctes.join(',\n')} SELECT id FROM new_task`, p.values);
    return rows[0].id;
  }

  /**
   * Applies a patch to task `id` in ONE statement: the sent columns, assignees
   * replaced (D12), labels replaced (D14), the listed custom-field values set or
   * cleared when the field applies to `place` (the task's list after the move)
   * and is visible to `userId` (D13; values of fields that no longer apply are kept).
   */
  async updateTask(em: EntityManager, id: number, place: TaskPlace, userId: number, patch: TaskPatch): Promise<void> {
    const p = new SqlParams();
    const taskId = p.add(id, 'int');
    let wsParam: string | undefined; // added only when used: PostgreSQL rejects untyped unused parameters
    const ws = () => (wsParam ??= p.add(place.workspaceId, 'int'));
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
    // Inserts read the id from `task`: a task deleted meanwhile gets no rows (and the caller a 404), not an FK error.
    const ctes = [`task AS (UPDATE tasks SET ${sets.join(', ')} WHERE id = ${taskId} RETURNING id)`];
    if (patch.assigneeIds) {
      const members = `SELECT m.user_id FROM workspace_members m WHERE m.workspace_id = ${ws()} AND m.user_id = ANY(${p.add(patch.assigneeIds, 'int[]')})`;
      // Delete those not kept and insert the new ones: disjoint rows, so one statement is safe.
      ctes.push(`drop_assignees AS (DELETE FROM task_assignees WHERE task_id = ${taskId} AND user_id NOT IN (${members}))`);
      ctes.push(`add_assignees AS (INSERT INTO task_assignees (task_id, user_id, workspace_id)
                   SELECT task.id, k.user_id, ${ws()} FROM task, (${members}) k ON CONFLICT DO NOTHING)`);
    }
    if (patch.labelIds) {
      const labels = `SELECT lb.id FROM labels lb WHERE lb.workspace_id = ${ws()} AND lb.id = ANY(${p.add(patch.labelIds, 'int[]')})`;
      ctes.push(`drop_labels AS (DELETE FROM task_labels WHERE task_id = ${taskId} AND label_id NOT IN (${labels}))`);
      ctes.push(`add_labels AS (INSERT INTO task_labels (task_id, label_id, workspace_id)
                   SELECT task.id, k.id, ${ws()} FROM task, (${labels}) k ON CONFLICT DO NOTHING)`);
    }
    if (patch.customFields?.length) ctes.push(...writeCustomFieldsSql(p, 'task', place, userId, patch.customFields));
    await em.query(`WITH ${ctes.join(',\n')} SELECT 1`, p.values);
  }

  /** Deletes a task; subtasks, comments, attachments, assignees, labels and values go by FK cascade (D16). */
  async deleteTask(id: number): Promise<void> {
    await this.db.query(`DELETE FROM tasks WHERE id = $1`, [id]);
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

/**
 * D13: CTEs writing custom-field values for the task of CTE `taskCte`: the inputs whose
 * field applies to `place` and is visible to `userId` are kept (others ignored); null
 * deletes the value, anything else upserts it. Inputs have one entry per field, so the
 * delete and the upsert touch disjoint rows.
 */
function writeCustomFieldsSql(p: SqlParams, taskCte: string, place: TaskPlace, userId: number, inputs: CustomFieldInput[]): string[] {
  const ids = p.add(inputs.map((cf) => cf.id), 'int[]');
  const values = p.add(inputs.map((cf) => cf.value), 'text[]');
  const list = p.add(place.listId, 'int');
  const folder = p.add(place.folderId, 'int');
  const user = p.add(userId, 'int');
  return [
    `cf_input AS (
       SELECT x.id, x.value FROM unnest(${ids}, ${values}) AS x(id, value)
         JOIN custom_fields f ON f.id = x.id
        WHERE f.workspace_id = ${p.add(place.workspaceId, 'int')}
          AND ${fieldAppliesSql('f', list, folder)}
          AND ${fieldVisibleSql('f', user)})`,
    `cf_clear AS (DELETE FROM task_custom_field_values v USING cf_input, ${taskCte}
                   WHERE v.task_id = ${taskCte}.id AND v.field_id = cf_input.id AND cf_input.value IS NULL)`,
    `cf_set AS (INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value)
                 SELECT ${taskCte}.id, cf_input.id, ${p.add(place.workspaceId, 'int')}, cf_input.value FROM cf_input, ${taskCte}
                  WHERE cf_input.value IS NOT NULL
                 ON CONFLICT (task_id, field_id) DO UPDATE SET value = EXCLUDED.value)`,
  ];
}
