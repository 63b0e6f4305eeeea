import { Injectable } from '@nestjs/common';
import type { Db } from '../common/database/request-db';
import { DataSource } from 'typeorm';
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

  /** Inserts a label; a duplicate name raises the unique violation that maps to 409 (D28). */
  async insert(workspaceId: number, name: string, color: string | null, db?: Db): Promise<LabelDto> {
    const rows: LabelDto[] = await (db?.manager ?? this.db).query(
      `INSERT INTO labels (workspace_id, name, color) VALUES ($1, $2, $3) RETURNING ${LABEL_COLUMNS}`,
      [workspaceId, name, color],
    );
    return rows[0];
  }

  /** Deletes a label; task links go with it (D26, ON DELETE CASCADE). */
  async delete(id: number, db?: Db): Promise<void> {
    await (db?.manager ?? this.db).query(`DELETE FROM labels WHERE id = $1`, [id]);
  }
}
