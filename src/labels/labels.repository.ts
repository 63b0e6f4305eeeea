import { Injectable } from '@nestjs/common';
import type { Db } from '../common/database/request-db';
import { DataSource } from 'typeorm';
import { SqlParams } from '../common/database/sql-params';
import { Actor, eventCtes } from '../events/events.sql';
import type { LabelDto } from './labels.dto';

const LABEL_COLUMNS = `id, workspace_id, name, color, api_ts(created_at) AS created_at`;

/** SQL for labels. */
@Injectable()
export class LabelsRepository {
  constructor(private readonly db: DataSource) {}

  /** Labels of a workspace by name (case-insensitive) then id (D23). */
  listByWorkspace(workspaceId: number): Promise<LabelDto[]> {
    return this.db.query(`SELECT ${LABEL_COLUMNS} FROM labels WHERE workspace_id = $1 ORDER BY lower(name), id`, [workspaceId]);
  }

  /** Inserts a label, recording `label.created` by `actor` (D37); a duplicate name raises the unique violation that maps to 409 (D28). */
  async insert(actor: Actor, workspaceId: number, name: string, color: string | null, db?: Db): Promise<LabelDto> {
    const p = new SqlParams();
    const ctes = [
      `lb AS (INSERT INTO labels (workspace_id, name, color) VALUES (${p.add(workspaceId, 'int')}, ${p.add(name, 'text')}, ${p.add(color, 'text')}) RETURNING *)`,
      ...eventCtes(p, actor, { type: 'label.created', from: 'lb', workspace: 'lb.workspace_id', data: { label_id: 'lb.id' } }),
    ];
    const rows: LabelDto[] = await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT ${LABEL_COLUMNS} FROM lb`, p.values);
    return rows[0];
  }

  /**
   * Deletes a label with its task links (D26), recording `label.deleted` by `actor` (D37). The links are
   * deleted by the statement itself, not by the cascade at its end, so their row locks come before the event lock.
   */
  async delete(actor: Actor, id: number, db?: Db): Promise<void> {
    const p = new SqlParams();
    const labelId = p.add(id, 'int');
    const ctes = [
      `links AS (DELETE FROM task_labels WHERE label_id = ${labelId} RETURNING task_id)`,
      `lb AS (DELETE FROM labels WHERE id = ${labelId} RETURNING id, workspace_id)`,
      ...eventCtes(p, actor, { type: 'label.deleted', from: 'lb', workspace: 'lb.workspace_id', data: { label_id: 'lb.id' }, drain: ['links'] }),
    ];
    await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT count(*) FROM lb`, p.values);
  }
}
