import { Injectable } from '@nestjs/common';

import type { Membership } from '../common/access/access.policy';
import { accessCte, type AccessRead, type AccessRow, READ_PARAMS } from '../common/access/access.repository';
import { ACCESS_ROW_FOLDER, ACCESS_ROW_GRANTS, allowedSql, GrantParams, grantParams, grantValues, permittedListSql } from '../common/access/access.sql';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import { columnChanges, sentKey, writeStatement } from '../common/database/write-statement';
import { digestSql } from '../common/http/etag';
import { RawJson } from '../common/http/raw-json';
import {
  CUSTOM_FIELD_VERDICT_SQL,
  CustomFieldVerdict,
  judgeCustomFieldsCtes,
  NO_CUSTOM_FIELD_VERDICT_SQL,
  PlaceSql,
  writeCustomFieldsCtes,
} from '../custom-fields/custom-field-values';
import { Actor, statementEvent } from '../events/events.sql';
import type { CursorValues } from './task-cursor';
import { checkedTaskListSql, TaskListScope, taskListSql } from './task-list.sql';
import type { TaskQuery } from './task-query';
import type { CreateTaskDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { deleteTasksCtes, newTaskAnswerSql, TASK_WRITE_COLUMNS, taskJsonSql, TaskLinkSources, TaskShape } from './tasks.sql';

/** Where a task is being written: its workspace, its (final) list and that list's folder. */
export interface TaskPlace {
  workspaceId: number;
  listId: number | null;
  folderId: number | null;
}

/**
 * The access row of the list, what the create-task checks of D3 step 8 found, and the
 * new task as create answers it (null when a check failed: nothing was written).
 */
export interface CreatedTask extends AccessRow, CustomFieldVerdict {
  /** status_id (when sent) belongs to the workspace. */
  status_ok: boolean;
  /** parent_id (when sent) is a task of the workspace in a list the caller may see (D14, D33). */
  parent_found: boolean;
  /** That parent is itself a subtask (D14). */
  parent_is_subtask: boolean;
  written: WrittenTask | null;
}

/** What the update-task checks of D3 step 8 found, the custom-field verdict (D42), and whether the task was written (false when a check failed or it is gone). */
export interface UpdatedTask extends CustomFieldVerdict {
  /** list_id (when sent) is a list of the workspace. */
  list_found: boolean;
  /** parent_id (when a task id is sent) is a task of the workspace the caller may see (D45, D33). */
  parent_found: boolean;
  /** parent_id names the task itself (D45). */
  parent_self: boolean;
  /** The parent is itself a subtask, or the task has subtasks (D45). */
  parent_nested: boolean;
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

/** checkedListPage's row: the page when `listed`, else the access row as JSON text. */
export type CheckedTaskPage = (TaskPageRows & { listed: true; access: null }) | { listed: false; access: string };

/** Who reads a task: the user (custom-field visibility, D18) and their membership (subtask visibility, D33). */
export interface TaskViewer {
  userId: number;
  membership: Membership;
}

/** SQL: the SHA-256 of the get-task body of task row `t` as `user` with `grants` sees it (the bytes of its ETag, D36). */
function fullDigestSql(user: string, grants: GrantParams, t: string): string {
  return digestSql(taskJsonSql('full', user, grants, t));
}

/** Empty relations with the columns of the link rows, standing for the links a create does not insert. */
const NO_LINKS: TaskLinkSources = {
  assignees: '(SELECT NULL::int AS task_id, NULL::int AS user_id WHERE false)',
  labels: '(SELECT NULL::int AS task_id, NULL::int AS label_id WHERE false)',
  values: '(SELECT NULL::int AS task_id, NULL::int AS field_id, NULL::text AS value WHERE false)',
};

/**
 * D36's check inside a write statement (CTE `pre`): `ok` when the precondition
 * holds on the task as the statement sees it, and the `updated_at` it saw: the
 * write also requires that `updated_at`, so a write of the same task that
 * committed meanwhile (each sets it) makes this one write nothing, and the
 * statement runs again on the new state (TasksRepository callers).
 */
function preconditionSql(p: Pick<SqlParams, 'add'>, taskId: string, pre: Precondition): string {
  const ok = pre.any
    ? 'true'
    : `${fullDigestSql(p.add(pre.viewer.userId, 'int'), grantParams(p, pre.viewer.membership), 'pt')} = ANY(${p.add(pre.digests, 'bytea[]')})`;
  return `pre AS (SELECT ${ok} AS ok, pt.updated_at AS seen FROM tasks pt WHERE pt.id = ${taskId})`;
}

/** D36 If-Match as a statement that checks access itself sees it: the viewer is the access row `a`'s (TasksRepository.setTaskLabel). */
export type RowPrecondition = Omit<Precondition, 'viewer'>;

/** What a label add or remove found (D43): the task's access row, the label, If-Match, and whether the task row was reached. */
export interface TaskLabelWrite extends AccessRow {
  /** The label is one of the task's workspace. */
  label_found: boolean;
  /** With an If-Match precondition: whether it held. */
  precondition_ok: boolean | null;
  /** The task row was locked as the checks saw it (false: gone, or under If-Match written meanwhile: run again). */
  reached: boolean;
}

/** The condition a write guarded by preconditionSql adds to its WHERE on the tasks row `t`. */
const preconditionHolds = (t: string) => `(SELECT ok FROM pre) AND ${t}.updated_at = (SELECT seen FROM pre)`;

/** The statement reading task `taskId` in `shape` as JSON text (column `task`; no row when there is no such task). */
function loadTaskSql(shape: TaskShape, taskId: string, user: string, grants: GrantParams | null, folder?: string): string {
  return `SELECT ${taskJsonSql(shape, user, grants, 't', folder)}::text AS task
            FROM tasks t WHERE t.id = ${taskId}`;
}

/**
 * The statement of loadWritten, built once (about 10 kB: building and hashing it per write cost
 * ~0.1 ms of a create's CPU). Parameters: the task id, the viewer's user id, then the
 * viewer's grants (grantValues).
 */
const LOAD_WRITTEN_SQL = (() => {
  const p = new SqlParams();
  const taskId = p.add(null, 'int');
  const user = p.add(null, 'int');
  const grants = grantParams(p, { role: 'member', restricted: false, folderIds: [], listIds: [] });
  return `SELECT ${fullDigestSql(user, grants, 't')} AS digest, ${taskJsonSql('write', user, null)}::text AS task
            FROM tasks t WHERE t.id = ${taskId}`;
})();

/** SQL for tasks, their assignees, labels and custom-field values; reads return API shapes directly. */
@Injectable()
export class TasksRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Task `id` as create and update answer it, with the digest of its get-task body as
   * `viewer` sees it (D36: their ETag is the get-task one), both from ONE statement; null when gone.
   */
  async loadWritten(id: number, viewer: TaskViewer, db: Db = this.sql): Promise<WrittenTask | null> {
    const rows: { task: string; digest: Buffer }[] = await db.rows(LOAD_WRITTEN_SQL, [id, viewer.userId, ...grantValues(viewer.membership)]);
    return rows.length ? { task: new RawJson(rows[0].task), digest: rows[0].digest } : null;
  }

  /**
   * The get-task read inside an access check's statement (AccessService.checkAndRead): the full task as the caller sees it,
   * tagged (D36). The task's folder is the access row's (the target is that task).
   */
  readonly fullTaskRead: AccessRead = { sql: loadTaskSql('full', READ_PARAMS.id, READ_PARAMS.user, ACCESS_ROW_GRANTS, ACCESS_ROW_FOLDER), tagged: true };

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
   * listPage for an unrestricted member with the workspace's access check, in one statement
   * (checkedTaskListSql): the page when `listed`; when not (the caller is not such a member, or the list
   * filter names no list of the workspace), `access`, the access row as JSON text; null when there is no
   * such workspace.
   */
  async checkedListPage(workspaceId: number, userId: number, query: TaskQuery): Promise<CheckedTaskPage | null> {
    const { sql, params } = checkedTaskListSql(workspaceId, userId, query);
    const rows: CheckedTaskPage[] = await this.sql.rows(sql, params);
    return rows[0] ?? null;
  }

  /**
   * The access check of a create in list `listId` (D3 steps 5-6, its row for
   * AccessService.answer), the create-task checks of D3 step 8 and, when all
   * pass, the insert of the task with its assignees, labels and custom-field
   * values: ONE statement (so atomic without a transaction) whatever their
   * number; null when there is no such list. The status is the one
   * sent, else the workspace's default (D17). The identifier is the next value
   * of the workspace's identifier sequence (D15: unique under concurrent creates
   * without serializing them, and never handed out again, even after a delete);
   * assignees are filtered to workspace members (D12), labels to the workspace
   * (D14), custom fields to those applying to the list and visible to the creator (D13);
   * a parent outside the lists the creator may see is not found (D33).
   * Records `task.created` by `actor` (the creator, D37) in the same statement;
   * the list, parent and labels it points at are share-locked before the event lock.
   */
  async insertTask(listId: number, actor: Actor, task: CreateTaskDto, db: Db = this.sql): Promise<CreatedTask | null> {
    const rows = await INSERT_TASK.run(db, { listId, actor, task });
    if (!rows.length) return null;
    const { task: json, digest, ...row } = rows[0];
    return { ...row, written: json === null ? null : { task: new RawJson(json), digest: digest! } };
  }

  /**
   * The update-task checks of D3 step 8 (the list of a move is in the workspace
   * and permitted to `membership`, D30; status_id is in the workspace) and, when
   * they pass, the patch of task `id`, in ONE statement: the sent columns,
   * assignees replaced (D12), labels replaced (D14), the listed custom-field
   * values set or cleared when the field applies to the task's list after the
   * move and is visible to `actor` (D13; values of fields that no longer apply are kept).
   * Records `task.updated` by `actor` when a stored value changed (D37: `changes`
   * compares the row before the write, locked first, with what the write stores;
   * the id sets and values as the statement's snapshot held them with what it writes).
   */
  async updateTask(
    id: number,
    place: TaskPlace,
    membership: Membership,
    actor: Actor,
    patch: UpdateTaskDto,
    db: Db = this.sql,
    pre?: Precondition,
  ): Promise<UpdatedTask> {
    return (await UPDATE_TASK.run(db, { id, place, membership, actor, patch, pre }))[0];
  }

  /**
   * D45: locks task `id` and its new parent `parentId` (FOR NO KEY UPDATE, in id order: no deadlock
   * between two re-parentings), in the caller's transaction, before the update statement. That
   * statement then runs on a snapshot taken after the locks: a re-parenting or a new subtask of
   * either task that committed meanwhile is seen (A under B and B under A at once: the later fails).
   */
  async lockFamily(db: Db, id: number, parentId: number): Promise<void> {
    await db.rows(`SELECT id FROM tasks WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE`, [[id, parentId]]);
  }

  /**
   * D43: adds (`add`) or removes the label `labelId` of task `id`, in ONE statement: the access check
   * of `task.edit` by `actor` (its row for AccessService.answer), the label of the task's workspace
   * (share-locked), D36's If-Match as the caller sees the task, then the task row locked and the link
   * inserted (ON CONFLICT DO NOTHING) or deleted. Each request writes only its own link row, under
   * the task's row lock, so concurrent adds of different labels all stay (no read-modify-write of
   * the set). Only when a link changed: `updated_at` is set and `task.updated` recorded with
   * `changes` `["label_ids"]` (D37, D39); otherwise nothing is written. Null when there is no such task.
   */
  async setTaskLabel(
    op: 'add' | 'remove',
    id: number,
    labelId: number,
    actor: Actor,
    db: Db = this.sql,
    pre?: RowPrecondition,
  ): Promise<TaskLabelWrite | null> {
    return (await SET_TASK_LABEL.run(db, { op, id, labelId, actor, pre }))[0] ?? null;
  }

  /**
   * Deletes a task with its subtasks (D16), recording only `task.deleted` by `actor` (D37). The task and its
   * subtasks are deleted by the statement itself (deleteTasksCtes: row locks before the event lock); comments,
   * attachments, assignees and values go by FK cascade. Under D36's If-Match (`pre`), only when it holds on the
   * task as it is now: the task row is locked first and its `updated_at` must be the one the check saw.
   * `precondition_ok` null: no precondition, or the task is gone; `deleted` false with `precondition_ok` true:
   * a write of the task committed meanwhile (run it again). One statement.
   */
  async deleteTask(actor: Actor, id: number, db: Db = this.sql, pre?: Precondition): Promise<{ precondition_ok: boolean | null; deleted: boolean }> {
    return (await DELETE_TASK.run(db, { actor, id, pre }))[0];
  }
}

/** D12: an INSERT CTE adding the workspace members among `ids` as assignees of the task of CTE `taskCte`. */
function insertAssigneesSql(p: Pick<SqlParams, 'add'>, taskCte: string, ws: string, ids: number[]): string {
  return `add_assignees AS (INSERT INTO task_assignees (task_id, user_id, workspace_id)
            SELECT ${taskCte}.id, m.user_id, ${ws} FROM ${taskCte}
              JOIN workspace_members m ON m.workspace_id = ${ws} AND m.user_id = ANY(${p.add(ids, 'int[]')})
            RETURNING task_id, user_id)`;
}

/**
 * D14: CTEs adding the workspace's labels among `ids` to the task of CTE `taskCte`; the labels are
 * share-locked first (D37: their foreign-key check would otherwise wait after the event lock).
 */
function insertLabelsSql(p: Pick<SqlParams, 'add'>, taskCte: string, ws: string, ids: number[]): string[] {
  return [
    `ref_labels AS MATERIALIZED (SELECT lb.id FROM labels lb WHERE lb.workspace_id = ${ws} AND lb.id = ANY(${p.add(ids, 'int[]')}) FOR KEY SHARE)`,
    `add_labels AS (INSERT INTO task_labels (task_id, label_id, workspace_id)
            SELECT ${taskCte}.id, lb.id, ${ws} FROM ${taskCte}, ref_labels lb
            RETURNING task_id, label_id)`,
  ];
}

/** Which If-Match a statement checks: none, `*`, or digests (a shape key part). */
const preKey = (pre: RowPrecondition | undefined) => (pre ? (pre.any ? 'a' : 'd') : '-');

/** The shape of create and update's body parts that add CTEs: custom-field values, assignees, labels. */
const linkKey = (body: { custom_fields?: unknown[]; assignee_ids?: unknown[]; label_ids?: unknown[] }, nonEmpty: boolean) =>
  `${body.custom_fields?.length ? 1 : 0}${(nonEmpty ? body.assignee_ids?.length : body.assignee_ids) ? 1 : 0}${(nonEmpty ? body.label_ids?.length : body.label_ids) ? 1 : 0}`;

/** The task columns the API writes (the field table's), by name. */
const TASK_COLUMNS = TASK_WRITE_COLUMNS.map((c) => c.column);

/** TasksRepository.insertTask's statement. */
const INSERT_TASK = writeStatement<
  { listId: number; actor: Actor; task: CreateTaskDto },
  Omit<CreatedTask, 'written'> & { task: string | null; digest: Buffer | null }
>(
  'task.insert',
  (i) => linkKey(i.task, true),
  (w, { task }) => {
    const list = w.arg((i) => i.listId, 'int');
    const creator = w.arg((i) => i.actor.userId, 'int');
    // The access row of the list for the creator (AccessService.answer reads it back), then the workspace and folder it found.
    w.addAll('access', [accessCte('list', list, creator)]);
    const ws = '(SELECT workspace_id FROM a)';
    const statusId = w.arg((i) => i.task.status_id ?? null, 'int');
    const parentId = w.arg((i) => i.task.parent_id ?? null, 'int');
    // The body's columns (the field table's), each with its default when left out; the list is the one checked.
    const written = TASK_WRITE_COLUMNS.map(({ column: name, cast, createDefault }) => {
      const value = name === 'list_id' ? list : name === 'status_id' ? statusId : w.arg((i) => i.task[name] ?? null, cast);
      return createDefault ? `COALESCE(${value}, ${createDefault(ws)})` : value;
    });
    // D37: the rows the insert's foreign keys check, share-locked now rather than by the checks at the statement's end (after the event lock).
    w.lock('ref_list', 'lists', `(SELECT id FROM lists WHERE id = ${list} FOR KEY SHARE)`)
      // D45: FOR SHARE waits for a re-parenting of the parent (FOR NO KEY UPDATE) and returns its row as committed: is it a subtask now?
      .lock('ref_parent', 'tasks', `MATERIALIZED (SELECT id, parent_id FROM tasks WHERE id = ${parentId} FOR SHARE)`)
      .check(
        'checks',
        `(
         SELECT ${allowedSql('task.create')} AS allowed,
                ${statusId} IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = ${statusId} AND workspace_id = a.workspace_id) AS status_ok,
                ${parentId} IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${parentId} AND pt.workspace_id = a.workspace_id
                                                 AND ${permittedListSql('pt.list_id', ACCESS_ROW_GRANTS)}) AS parent_found,
                EXISTS (SELECT 1 FROM ref_parent WHERE parent_id IS NOT NULL) AS parent_is_subtask
           FROM a)`,
      );
    // D42: the values judged against the list, after step 8's checks and before step 9's (the caller answers in that order).
    const judged = Boolean(task.custom_fields?.length);
    if (judged) {
      const place = { workspace: ws, list, folder: '(SELECT folder_id FROM a)' };
      w.addAll(
        'check',
        w.via(
          (i) => i.task.custom_fields!,
          (p, values) => judgeCustomFieldsCtes(p as SqlParams, values, place, creator),
        ),
      );
    }
    // D15: the identifier is drawn only when every check passed (a draw is never given back).
    w.check(
      'counter',
      `(SELECT nextval(task_identifier_sequence(a.workspace_id))::int AS identifier
                     FROM a, checks
                    WHERE checks.allowed AND checks.status_ok AND checks.parent_found AND NOT checks.parent_is_subtask${judged ? ' AND NOT EXISTS (SELECT 1 FROM cf_bad)' : ''}
                      -- A list or parent deleted since the checks' snapshot: nothing is written (the caller answers its 404).
                      AND EXISTS (SELECT 1 FROM ref_list) AND (${parentId} IS NULL OR EXISTS (SELECT 1 FROM ref_parent)))`,
    ).write(
      'new_task',
      `(
         INSERT INTO tasks (workspace_id, parent_id, identifier, creator_id, ${TASK_COLUMNS.join(', ')})
         SELECT ${ws}, ${parentId}, counter.identifier, ${creator}, ${written.join(', ')}
           FROM counter
         RETURNING *)`,
    );
    // The new task's links, read back from the rows their inserts return.
    const links: TaskLinkSources = { ...NO_LINKS };
    if (task.assignee_ids?.length) {
      w.addAll('write', [
        w.via(
          (i) => i.task.assignee_ids!,
          (p, ids) => insertAssigneesSql(p, 'new_task', ws, ids),
        ),
      ]);
      links.assignees = 'add_assignees';
    }
    if (task.label_ids?.length) {
      const [ref, add] = w.via(
        (i) => i.task.label_ids!,
        (p, ids) => insertLabelsSql(p, 'new_task', ws, ids),
      );
      w.addAll('lock', [ref], 'labels').addAll('write', [add]);
      links.labels = 'add_labels';
    }
    if (judged) {
      w.addAll('write', writeCustomFieldsCtes('new_task', ws, false));
      links.values = 'cf_set';
    }
    // The answer (write shape) and the digest of the get-task body as the creator sees it (the ETag, D36).
    return w.event(
      statementEvent({
        type: 'task.created',
        from: 'new_task',
        reads: ['new_task'],
        workspace: 'new_task.workspace_id',
        data: { task_id: 'new_task.id', list_id: 'new_task.list_id', parent_id: 'new_task.parent_id' },
      }),
    )
      .select(`a.*, checks.status_ok, checks.parent_found, checks.parent_is_subtask, ${judged ? CUSTOM_FIELD_VERDICT_SQL : NO_CUSTOM_FIELD_VERDICT_SQL}, w.task, w.digest
         FROM a CROSS JOIN checks LEFT JOIN (${newTaskAnswerSql('new_task', creator, links)}) w ON true`);
  },
);

/** TasksRepository.updateTask's statement. */
const UPDATE_TASK = writeStatement<
  { id: number; place: TaskPlace; membership: Membership; actor: Actor; patch: UpdateTaskDto; pre?: Precondition },
  UpdatedTask
>(
  'task.update',
  (i) => `${sentKey(TASK_COLUMNS, i.patch)}${i.patch.parent_id === undefined ? 0 : 1}${linkKey(i.patch, false)}${preKey(i.pre)}`,
  (w, { patch, pre }) => {
    const taskId = w.arg((i) => i.id, 'int');
    const ws = w.arg((i) => i.place.workspaceId, 'int');
    const moving = patch.list_id !== undefined;
    const listId = w.arg((i) => i.patch.list_id ?? null, 'int');
    const statusId = w.arg((i) => i.patch.status_id ?? null, 'int');
    const grants = w.via((i) => i.membership, grantParams);
    const permitted = moving ? permittedListSql('l.id', grants) : 'true';
    // D45: a task id makes the task a subtask (null: top-level, nothing to check).
    const parentId = w.arg((i) => i.patch.parent_id ?? null, 'int');
    // The row before the write (D37 changes), locked so that it is the version the update applies to.
    w.lock('old', 'tasks', `MATERIALIZED (SELECT * FROM tasks WHERE id = ${taskId} FOR NO KEY UPDATE)`)
      // The list of a move, share-locked before the event lock (its foreign-key check runs at the statement's end);
      // one deleted since the snapshot is not found (nothing is written, the caller answers its 404).
      .lock('ref_list', 'lists', `MATERIALIZED (SELECT id FROM lists WHERE id = ${listId} FOR KEY SHARE)`)
      .check(
        'checks',
        `(
         SELECT ${listId} IS NULL OR (l.id IS NOT NULL AND EXISTS (SELECT 1 FROM ref_list)) AS list_found, l.folder_id AS list_folder_id,
                ${permitted} AS list_permitted,
                ${statusId} IS NULL OR EXISTS (SELECT 1 FROM statuses WHERE id = ${statusId} AND workspace_id = ${ws}) AS status_ok,
                ${parentId} IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${parentId} AND pt.workspace_id = ${ws}
                                                 AND ${permittedListSql('pt.list_id', grants)}) AS parent_found,
                COALESCE(${parentId} = ${taskId}, false) AS parent_self,
                ${parentId} IS NOT NULL AND (EXISTS (SELECT 1 FROM tasks WHERE id = ${parentId} AND parent_id IS NOT NULL)
                                             OR EXISTS (SELECT 1 FROM tasks WHERE parent_id = ${taskId})) AS parent_nested
           FROM (SELECT 1) one
           LEFT JOIN lists l ON l.id = ${listId} AND l.workspace_id = ${ws})`,
      );
    // D37: every written column of the field table, and the link sets below when sent.
    const changes: Record<string, string> = { ...columnChanges({ columns: TASK_COLUMNS }, 'task'), parent_id: 'task.parent_id IS DISTINCT FROM old.parent_id' };
    const sets = ['updated_at = now()'];
    for (const { column: name, cast } of TASK_WRITE_COLUMNS) {
      if (patch[name] !== undefined) sets.push(`${name} = ${w.arg((i) => i.patch[name], cast)}`);
    }
    if (patch.parent_id !== undefined) sets.push(`parent_id = ${parentId}`);
    if (pre)
      w.addAll('check', [
        w.via(
          (i) => i.pre!,
          (p, value) => preconditionSql(p, taskId, value),
        ),
      ]);
    // D42: the values judged against the task's list after the write (a move's target), after step 8's checks.
    const judged = Boolean(patch.custom_fields?.length);
    if (judged) {
      const placeSql: PlaceSql = moving
        ? { workspace: ws, list: listId, folder: '(SELECT list_folder_id FROM checks)' }
        : { workspace: ws, list: w.arg((i) => i.place.listId, 'int'), folder: w.arg((i) => i.place.folderId, 'int') };
      const user = w.arg((i) => i.actor.userId, 'int');
      w.addAll(
        'check',
        w.via(
          (i) => i.patch.custom_fields!,
          (p, values) => judgeCustomFieldsCtes(p as SqlParams, values, placeSql, user),
        ),
      );
    }
    // Everything below reads the id from `task`: nothing is written when a check failed or the task is gone.
    w.write(
      'task',
      `(UPDATE tasks t SET ${sets.join(', ')}
                         FROM old WHERE t.id = old.id AND (SELECT list_found AND list_permitted AND status_ok AND parent_found AND NOT parent_self AND NOT parent_nested FROM checks)${pre ? ` AND ${preconditionHolds('t')}` : ''}${judged ? ' AND NOT EXISTS (SELECT 1 FROM cf_bad)' : ''}
                         RETURNING t.*)`,
    );
    // D37 id sets: before, as the snapshot holds them; after, the ids the write keeps (members, labels of the workspace).
    const idSetChanged = (table: string, column: string, kept: string) =>
      `ARRAY(SELECT x.${column} FROM ${table} x WHERE x.task_id = ${taskId} ORDER BY 1) IS DISTINCT FROM ARRAY(SELECT DISTINCT k.id FROM ${kept} k ORDER BY 1)`;
    if (patch.assignee_ids) {
      const members = `SELECT m.user_id FROM workspace_members m WHERE m.workspace_id = ${ws} AND m.user_id = ANY(${w.arg((i) => i.patch.assignee_ids, 'int[]')})`;
      // Delete those not kept and insert the new ones: disjoint rows, so one statement is safe.
      w.write('drop_assignees', `(DELETE FROM task_assignees WHERE task_id IN (SELECT id FROM task) AND user_id NOT IN (${members}) RETURNING task_id)`).write(
        'add_assignees',
        `(INSERT INTO task_assignees (task_id, user_id, workspace_id)
                   SELECT task.id, k.user_id, ${ws} FROM task, (${members}) k ON CONFLICT DO NOTHING RETURNING task_id)`,
      );
      changes.assignee_ids = idSetChanged('task_assignees', 'user_id', `(SELECT user_id AS id FROM (${members}) km)`);
    }
    if (patch.label_ids) {
      // Share-locked: the label's foreign-key check would otherwise wait after the event lock.
      w.lock(
        'ref_labels',
        'labels',
        `MATERIALIZED (SELECT lb.id FROM labels lb WHERE lb.workspace_id = ${ws} AND lb.id = ANY(${w.arg((i) => i.patch.label_ids, 'int[]')}) FOR KEY SHARE)`,
      )
        .write(
          'drop_labels',
          '(DELETE FROM task_labels WHERE task_id IN (SELECT id FROM task) AND label_id NOT IN (SELECT id FROM ref_labels) RETURNING task_id)',
        )
        .write(
          'add_labels',
          `(INSERT INTO task_labels (task_id, label_id, workspace_id)
                   SELECT task.id, k.id, ${ws} FROM task, ref_labels k ON CONFLICT DO NOTHING RETURNING task_id)`,
        );
      changes.label_ids = idSetChanged('task_labels', 'label_id', 'ref_labels');
    }
    if (judged) {
      w.addAll('write', writeCustomFieldsCtes('task', ws, true));
      // D37: a value written (applying, visible) that differs from the stored one; null = no value.
      changes.custom_fields = `EXISTS (SELECT 1 FROM cf_input LEFT JOIN task_custom_field_values v ON v.task_id = ${taskId} AND v.field_id = cf_input.id
                                       WHERE v.value IS DISTINCT FROM cf_input.value)`;
    }
    return w
      .event(
        statementEvent({
          type: 'task.updated',
          from: 'task JOIN old ON old.id = task.id',
          reads: ['task', 'old'],
          workspace: 'task.workspace_id',
          data: { task_id: 'task.id', list_id: 'task.list_id', previous_list_id: 'old.list_id', parent_id: 'task.parent_id' },
          changes,
        }),
      )
      .select(
        `checks.list_found, checks.list_folder_id, checks.status_ok, checks.parent_found, checks.parent_self, checks.parent_nested, ${judged ? CUSTOM_FIELD_VERDICT_SQL : NO_CUSTOM_FIELD_VERDICT_SQL}, EXISTS (SELECT 1 FROM task) AS updated${pre ? ', (SELECT ok FROM pre) AS precondition_ok' : ''} FROM checks`,
      );
  },
);

/** TasksRepository.setTaskLabel's statement. */
const SET_TASK_LABEL = writeStatement<{ op: 'add' | 'remove'; id: number; labelId: number; actor: Actor; pre?: RowPrecondition }, TaskLabelWrite>(
  'task.label',
  (i) => `${i.op}${preKey(i.pre)}`,
  (w, { op, pre }) => {
    const taskId = w.arg((i) => i.id, 'int');
    const label = w.arg((i) => i.labelId, 'int');
    const user = w.arg((i) => i.actor.userId, 'int');
    w.addAll('access', [accessCte('task', taskId, user)]).lock(
      'lb',
      'labels',
      `MATERIALIZED (SELECT lb.id FROM labels lb, a WHERE lb.id = ${label} AND lb.workspace_id = a.workspace_id AND ${allowedSql('task.edit')} FOR KEY SHARE OF lb)`,
    );
    let gate = `${allowedSql('task.edit')} AND EXISTS (SELECT 1 FROM lb)`;
    let seen = '';
    if (pre) {
      // The body as the caller sees it: the grants of the access row.
      const ok = pre.any ? 'true' : `${fullDigestSql(user, ACCESS_ROW_GRANTS, 'pt')} = ANY(${w.arg((i) => i.pre!.digests, 'bytea[]')})`;
      w.check('pre', `(SELECT ${ok} AS ok, pt.updated_at AS seen FROM tasks pt, a WHERE pt.id = ${taskId})`);
      gate += ' AND (SELECT ok FROM pre)';
      seen = ' AND old.updated_at = (SELECT seen FROM pre)';
    }
    return (
      w
        .check('gate', `(SELECT ${gate} AS ok FROM a)`)
        // The task row, locked: label writes of one task queue here, each then writing its own link.
        .lock('old', 'tasks', `MATERIALIZED (SELECT t.* FROM tasks t WHERE t.id = ${taskId} AND (SELECT ok FROM gate) FOR NO KEY UPDATE)`)
        .write(
          'link',
          op === 'add'
            ? `(INSERT INTO task_labels (task_id, label_id, workspace_id)
                    SELECT old.id, lb.id, old.workspace_id FROM old, lb WHERE true${seen}
                    ON CONFLICT DO NOTHING RETURNING task_id)`
            : `(DELETE FROM task_labels tl USING old, lb WHERE tl.task_id = old.id AND tl.label_id = lb.id${seen} RETURNING tl.task_id)`,
        )
        .write('task', '(UPDATE tasks t SET updated_at = now() FROM old WHERE t.id = old.id AND EXISTS (SELECT 1 FROM link) RETURNING t.*)')
        .event(
          statementEvent({
            type: 'task.updated',
            from: 'task JOIN old ON old.id = task.id',
            reads: ['task', 'old'],
            workspace: 'task.workspace_id',
            data: { task_id: 'task.id', list_id: 'task.list_id', previous_list_id: 'old.list_id', parent_id: 'task.parent_id' },
            changes: { label_ids: 'true' },
          }),
        ).select(`a.*, EXISTS (SELECT 1 FROM lb) AS label_found, ${pre ? '(SELECT ok FROM pre)' : 'NULL::boolean'} AS precondition_ok,
              EXISTS (SELECT 1 FROM old WHERE true${seen}) AS reached
         FROM a`)
    );
  },
);

/** TasksRepository.deleteTask's statement. */
const DELETE_TASK = writeStatement<{ actor: Actor; id: number; pre?: Precondition }, { precondition_ok: boolean | null; deleted: boolean }>(
  'task.delete',
  (i) => preKey(i.pre),
  (w, { pre }) => {
    const taskId = w.arg((i) => i.id, 'int');
    let where = `id = ${taskId} OR parent_id = ${taskId}`;
    if (pre) {
      w.addAll('check', [
        w.via(
          (i) => i.pre!,
          (p, value) => preconditionSql(p, taskId, value),
        ),
      ]).lock('target', 'tasks', `MATERIALIZED (SELECT tt.updated_at FROM tasks tt WHERE tt.id = ${taskId} FOR UPDATE)`);
      where = `(${where}) AND (SELECT ok FROM pre) AND (SELECT updated_at FROM target) = (SELECT seen FROM pre)`;
    }
    return w
      .addAll('write', deleteTasksCtes(where).ctes)
      .event(
        statementEvent({
          // The event is the task's, not its subtasks'.
          type: 'task.deleted',
          from: `(SELECT * FROM doomed WHERE doomed.id = ${taskId}) d`,
          reads: [],
          workspace: 'd.workspace_id',
          data: { task_id: 'd.id', list_id: 'd.list_id', parent_id: 'd.parent_id' },
        }),
      )
      .select(`${pre ? '(SELECT ok FROM pre)' : 'NULL::boolean'} AS precondition_ok, EXISTS (SELECT 1 FROM doomed WHERE doomed.id = ${taskId}) AS deleted`);
  },
);

/** The write statements of tasks. */
export const TASK_WRITE_STATEMENTS = [INSERT_TASK, UPDATE_TASK, SET_TASK_LABEL, DELETE_TASK];
