import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { ColumnField, columnTable, FieldsMatch, positionWrite, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { writeStatement } from '../common/database/write-statement';
import { Actor, insertRowStatement, patchRowStatement, statementEvent } from '../events/events.sql';
import type { CreateStatusDto, StatusDto, UpdateStatusDto } from './statuses.dto';

/** spec: Status, key by key in response order, with the columns create and update write (field-table.ts). */
export const STATUS_FIELDS = [
  { key: 'id' },
  { key: 'workspace_id' },
  { key: 'name', write: { column: 'name', cast: 'text' } },
  { key: 'icon', write: { column: 'icon', cast: 'text' } },
  { key: 'color', write: { column: 'color', cast: 'text', createDefault: () => `'gray'` } },
  { key: 'category', write: { column: 'category', cast: 'text' } },
  { key: 'position', write: positionWrite('statuses') },
  { key: 'created_at', sql: 'api_ts(created_at)' },
] as const satisfies readonly ColumnField<keyof UpdateStatusDto>[];

/** Fails to compile when STATUS_FIELDS and the response or the update body disagree on a key. */
const FIELDS_MATCH_DTOS: [FieldsMatch<typeof STATUS_FIELDS, StatusDto>, WritesMatch<typeof STATUS_FIELDS, UpdateStatusDto>] = [true, true];
void FIELDS_MATCH_DTOS;

/** The select list, the written columns and their names (an update's SET list: never from the request). */
export const STATUS_TABLE = columnTable<keyof UpdateStatusDto>(STATUS_FIELDS);

/** What delete() found: the checks of D43 steps 8 and 9, and whether the status was deleted. */
export interface StatusDeletion {
  replacement_found: boolean;
  replacement_self: boolean;
  last_completed: boolean;
  deleted: boolean;
}

/** Inserts a status (defaults: STATUS_FIELDS; position max + 1 of the workspace, D24), recording `status.created` (D37). */
const INSERT = insertRowStatement<Omit<CreateStatusDto, 'workspace_id'>, StatusDto, 'status.created'>(
  'status.insert',
  'statuses',
  STATUS_TABLE,
  'status.created',
  {
    status_id: 'r.id',
  },
);

/** The fields sent of a status; `status.updated` when a stored value changed (D37). */
const UPDATE = patchRowStatement<UpdateStatusDto, StatusDto, 'status.updated'>('status.update', 'statuses', STATUS_TABLE, 'status.updated', {
  status_id: 'r.id',
});

/** D43 status delete (StatusesRepository.delete). */
const DELETE = writeStatement<{ actor: Actor; workspaceId: number; id: number; replacementId: number | null }, StatusDeletion>(
  'status.delete',
  () => '',
  (w) => {
    const ws = w.arg((i) => i.workspaceId, 'int');
    const statusId = w.arg((i) => i.id, 'int');
    const replacement = w.arg((i) => i.replacementId, 'int');
    return (
      w
        .lock(
          'completed',
          'statuses',
          `MATERIALIZED (SELECT id FROM statuses WHERE workspace_id = ${ws} AND category = 'completed' ORDER BY id FOR NO KEY UPDATE)`,
        )
        // FOR UPDATE: waits for the task writes that reference it (their key-share locks), and keeps new ones out.
        .lock(
          'target',
          'statuses',
          `MATERIALIZED (SELECT s.id, s.category FROM statuses s, (SELECT count(*) FROM completed) c WHERE s.id = ${statusId} FOR UPDATE OF s)`,
        )
        .check(
          'chk',
          `(
         SELECT ${replacement} IS NULL OR EXISTS (SELECT 1 FROM statuses r WHERE r.id = ${replacement} AND r.workspace_id = ${ws}) AS replacement_found,
                COALESCE(${replacement} = ${statusId}, false) AS replacement_self,
                target.category = 'completed' AND NOT EXISTS (SELECT 1 FROM completed WHERE id <> ${statusId}) AS last_completed
           FROM target)`,
        )
        .check('ok', '(SELECT replacement_found AND NOT replacement_self AND NOT last_completed AS ok FROM chk)')
        // The status the tasks take, share-locked before the event lock (their foreign-key check would otherwise wait after it).
        .lock(
          'next_status',
          'statuses',
          `MATERIALIZED (SELECT n.id FROM statuses n, ok WHERE ok.ok AND n.id = COALESCE(${replacement},
                   (SELECT d.id FROM statuses d WHERE d.workspace_id = ${ws} AND d.category = 'pending' AND d.id <> ${statusId} ORDER BY d.position, d.id LIMIT 1))
                   FOR KEY SHARE OF n)`,
        )
        .write(
          'moved',
          `(UPDATE tasks SET status_id = (SELECT id FROM next_status)
                  WHERE status_id = ${statusId} AND (SELECT ok FROM ok) RETURNING id)`,
        )
        .write('gone', `(DELETE FROM statuses WHERE id = ${statusId} AND (SELECT ok FROM ok) AND (SELECT count(*) FROM moved) >= 0 RETURNING id, workspace_id)`)
        .event(statementEvent({ type: 'status.deleted', from: 'gone', reads: ['gone'], workspace: 'gone.workspace_id', data: { status_id: 'gone.id' } }))
        .select('chk.replacement_found, chk.replacement_self, chk.last_completed, EXISTS (SELECT 1 FROM gone) AS deleted FROM chk')
    );
  },
);

/** The write statements of statuses. */
export const STATUS_WRITES = [INSERT, UPDATE, DELETE];

/** SQL for statuses. Every method returns the API shape of spec: Status. */
@Injectable()
export class StatusesRepository {
  constructor(private readonly db: DataSource) {}

  /** Statuses of a workspace by position then id (D23). */
  listByWorkspace(workspaceId: number): Promise<StatusDto[]> {
    return this.db.query(`SELECT ${STATUS_TABLE.select} FROM statuses WHERE workspace_id = $1 ORDER BY position, id`, [workspaceId]);
  }

  /**
   * Inserts a status (defaults: STATUS_FIELDS; position max + 1 of the workspace, D24), recording `status.created` by `actor` (D37).
   * A duplicate name raises the unique violation of `statuses_workspace_name_key`,
   * which toHttpError answers 409 (D25), also when two creates race.
   */
  async insert(actor: Actor, workspaceId: number, body: Omit<CreateStatusDto, 'workspace_id'>, db?: Db): Promise<StatusDto> {
    return (await INSERT.run(db ?? this.db.manager, { actor, workspaceId, body }))[0];
  }

  /**
   * Locks the workspace's `completed` statuses until the transaction ends and
   * returns their ids (rule 1). FOR NO KEY UPDATE serialises category changes
   * without blocking tasks that reference these statuses (FOR KEY SHARE).
   */
  async lockCompleted(em: EntityManager, workspaceId: number): Promise<number[]> {
    // In id order, as delete() locks them: two writers of the rule never wait for each other in a cycle.
    const rows: { id: number }[] = await em.query(`SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'completed' ORDER BY id FOR NO KEY UPDATE`, [
      workspaceId,
    ]);
    return rows.map((r) => r.id);
  }

  /**
   * D43: deletes status `id` of workspace `workspaceId` in ONE statement, unless a check of step 8 or 9
   * fails (then nothing is written and the row says which): the replacement (`replacementId`,
   * when given) is a status of the workspace other than this one; this is not the workspace's last
   * `completed` status. The workspace's completed statuses are locked first (FOR NO KEY UPDATE, id
   * order, as lockCompleted does for a category change), so that of two writes that together would
   * leave none, the later sees the earlier (a locked row is read as committed: one deleted or moved
   * to another category meanwhile no longer counts). Tasks that held it take the replacement, else
   * the workspace's default status (D17: first `pending` by position, this one excluded), else null;
   * their `updated_at` is left as it was and no task event is recorded (D39). Records
   * `status.deleted` by `actor`. Null when the status no longer exists.
   */
  async delete(actor: Actor, workspaceId: number, id: number, replacementId: number | null, db: Db): Promise<StatusDeletion | null> {
    return (await DELETE.run(db, { actor, workspaceId, id, replacementId }))[0] ?? null;
  }

  /**
   * Applies `patch` to status `id` and returns it; null when the status no longer exists. A duplicate name raises the 409 violation (D25).
   * Records `status.updated` by `actor` when a stored value changed (D37).
   */
  async update(em: EntityManager, actor: Actor, id: number, patch: UpdateStatusDto): Promise<StatusDto | null> {
    return (await UPDATE.run(em, { actor, id, patch }))[0] ?? null;
  }
}
