import { patchStatement } from '../common/database/patch';
import { Injectable } from '@nestjs/common';
import type { Db } from '../common/database/request-db';
import { DataSource, EntityManager } from 'typeorm';
import { SqlParams } from '../common/database/sql-params';
import { Actor, columnChangesSql, eventCtes } from '../events/events.sql';
import type { StatusCategory, StatusDto } from './statuses.dto';

const STATUS_COLUMNS = `id, workspace_id, name, icon, color, category, position, api_ts(created_at) AS created_at`;

/** The columns an update may set; only the fields sent are present (spec: Update status). */
export interface StatusPatch {
  name?: string;
  category?: StatusCategory;
  icon?: string | null;
  color?: string | null;
  position?: number;
}

/** Fixed column order of an update's SET list (names never come from the request). */
const PATCH_COLUMNS: ReadonlyArray<keyof StatusPatch> = ['name', 'category', 'icon', 'color', 'position'];

/** SQL for statuses. Every method returns the API shape of spec: Status. */
@Injectable()
export class StatusesRepository {
  constructor(private readonly db: DataSource) {}

  /** Statuses of a workspace by position then id (D23). */
  listByWorkspace(workspaceId: number): Promise<StatusDto[]> {
    return this.db.query(`SELECT ${STATUS_COLUMNS} FROM statuses WHERE workspace_id = $1 ORDER BY position, id`, [workspaceId]);
  }

  /**
   * Inserts a status at position max + 1 of the workspace, from 1 (D24), recording `status.created` by `actor` (D37).
   * A duplicate name raises the unique violation of `statuses_workspace_name_key`,
   * which toHttpError answers 409 (D25), also when two creates race.
   */
  async insert(actor: Actor, workspaceId: number, name: string, category: StatusCategory, icon: string | null, color: string | null, db?: Db): Promise<StatusDto> {
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const ctes = [
      `s AS (INSERT INTO statuses (workspace_id, name, category, icon, color, position)
             VALUES (${ws}, ${p.add(name, 'text')}, ${p.add(category, 'text')}, ${p.add(icon, 'text')}, ${p.add(color, 'text')},
                     (SELECT COALESCE(MAX(position), 0) + 1 FROM statuses WHERE workspace_id = ${ws}))
             RETURNING *)`,
      ...eventCtes(p, actor, { type: 'status.created', from: 's', workspace: 's.workspace_id', data: { status_id: 's.id' } }),
    ];
    const rows: StatusDto[] = await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT ${STATUS_COLUMNS} FROM s`, p.values);
    return rows[0];
  }

  /**
   * Locks the workspace's `completed` statuses until the transaction ends and
   * returns their ids (rule 1). FOR NO KEY UPDATE serialises category changes
   * without blocking tasks that reference these statuses (FOR KEY SHARE).
   */
  async lockCompleted(em: EntityManager, workspaceId: number): Promise<number[]> {
    const rows: { id: number }[] = await em.query(
      `SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'completed' FOR NO KEY UPDATE`,
      [workspaceId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Applies `patch` to status `id` and returns it; null when the status no longer exists. A duplicate name raises the 409 violation (D25).
   * Records `status.updated` by `actor` when a stored value changed (D37).
   */
  async update(em: EntityManager, actor: Actor, id: number, patch: StatusPatch): Promise<StatusDto | null> {
    const { sql, params } = patchStatement('statuses', PATCH_COLUMNS, id, patch, STATUS_COLUMNS, (p) =>
      eventCtes(p, actor, {
        type: 'status.updated',
        from: 'r JOIN old ON old.id = r.id',
        workspace: 'r.workspace_id',
        data: { status_id: 'r.id' },
        changes: columnChangesSql(PATCH_COLUMNS),
      }),
    );
    const rows: StatusDto[] = await em.query(sql, params);
    return rows[0] ?? null;
  }
}
