import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ColumnField, columnTable, FieldsMatch, insertRowSql, positionWrite, WritesMatch } from '../common/database/field-table';
import { patchStatement } from '../common/database/patch';
import type { Db } from '../common/database/request-db';
import { SqlParams } from '../common/database/sql-params';
import { Actor, columnChangesSql, eventCtes } from '../events/events.sql';
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
    const p = new SqlParams();
    const ctes = [
      `s AS (${insertRowSql(p, 'statuses', STATUS_TABLE.writes, body, p.add(workspaceId, 'int'))} RETURNING *)`,
      ...eventCtes(p, actor, { type: 'status.created', from: 's', workspace: 's.workspace_id', data: { status_id: 's.id' } }),
    ];
    const rows: StatusDto[] = await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT ${STATUS_TABLE.select} FROM s`, p.values);
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
  async update(em: EntityManager, actor: Actor, id: number, patch: UpdateStatusDto): Promise<StatusDto | null> {
    const { sql, params } = patchStatement('statuses', STATUS_TABLE.columns, id, patch, STATUS_TABLE.select, (p) =>
      eventCtes(p, actor, {
        type: 'status.updated',
        from: 'r JOIN old ON old.id = r.id',
        workspace: 'r.workspace_id',
        data: { status_id: 'r.id' },
        changes: columnChangesSql(STATUS_TABLE.columns),
      }),
    );
    const rows: StatusDto[] = await em.query(sql, params);
    return rows[0] ?? null;
  }
}
