import { patchStatement } from '../common/database/patch';
import { Injectable } from '@nestjs/common';
import type { Db } from '../common/database/request-db';
import { DataSource, EntityManager } from 'typeorm';
import { jsonArraySql, RawJson } from '../common/http/raw-json';
import type { FolderDto } from './folders.dto';

const FOLDER_COLUMNS = `id, workspace_id, name, icon, color, position, api_ts(created_at) AS created_at`;

/** The columns an update may set; only the fields sent are present. */
export interface FolderPatch {
  name?: string;
  icon?: string | null;
  color?: string | null;
  position?: number;
}

/** Fixed column order of an update's SET list (names never come from the request). */
const PATCH_COLUMNS: ReadonlyArray<keyof FolderPatch> = ['name', 'icon', 'color', 'position'];

/** SQL for folders. Reads return the API shape of spec: Folder. */
@Injectable()
export class FoldersRepository {
  constructor(private readonly db: DataSource) {}

  /** Folders of a workspace by position, name, id (D23), as JSON text; `onlyIds` (a restricted member's grants, D29) filters when not null. */
  async listByWorkspace(workspaceId: number, onlyIds: number[] | null): Promise<RawJson<FolderDto[]>> {
    const rows: { json: string }[] = await this.db.query(
      jsonArraySql(`SELECT ${FOLDER_COLUMNS} FROM folders
        WHERE workspace_id = $1 AND ($2::int[] IS NULL OR id = ANY($2::int[]))
        ORDER BY position, name, id`),
      [workspaceId, onlyIds],
    );
    return new RawJson(rows[0].json);
  }

  /** Inserts a folder at position max + 1 of the workspace, from 1 (D24). */
  async insert(workspaceId: number, name: string, icon: string | null, color: string | null, db?: Db): Promise<FolderDto> {
    const rows: FolderDto[] = await (db?.manager ?? this.db).query(
      `INSERT INTO folders (workspace_id, name, icon, color, position)
       VALUES ($1, $2, $3, $4, (SELECT COALESCE(MAX(position), 0) + 1 FROM folders WHERE workspace_id = $1))
       RETURNING ${FOLDER_COLUMNS}`,
      [workspaceId, name, icon, color],
    );
    return rows[0];
  }

  /** Applies `patch` to folder `id` and returns the whole folder; null when it no longer exists. */
  async update(id: number, patch: FolderPatch, db?: Db): Promise<FolderDto | null> {
    const { sql, params } = patchStatement('folders', PATCH_COLUMNS, id, patch, FOLDER_COLUMNS);
    const rows: FolderDto[] = await (db?.manager ?? this.db).query(sql, params);
    return rows[0] ?? null;
  }

  /**
   * D26: deletes a folder with its lists and their tasks (with the tasks' subtasks,
   * comments, attachments and values). One statement, so one transaction: the
   * foreign keys cascade folders -> lists -> tasks -> the rest.
   */
  async delete(id: number, db?: Db): Promise<void> {
    await (db?.manager ?? this.db).query(`DELETE FROM folders WHERE id = $1`, [id]);
  }

  /**
   * The workspace of folder `id`, or null when there is none. Takes FOR KEY SHARE on
   * the row so the folder cannot be deleted before the transaction of `em` ends
   * (a list created in or moved to it keeps a valid folder_id).
   */
  async lockWorkspaceOf(em: EntityManager, id: number): Promise<number | null> {
    const rows: { workspace_id: number }[] = await em.query(`SELECT workspace_id FROM folders WHERE id = $1 FOR KEY SHARE`, [id]);
    return rows[0]?.workspace_id ?? null;
  }
}
