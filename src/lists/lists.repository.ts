import { patchStatement } from '../common/database/patch';
import { Injectable } from '@nestjs/common';
import type { Db } from '../common/database/request-db';
import { DataSource, EntityManager } from 'typeorm';
import type { ListDto } from './lists.dto';

const LIST_COLUMNS = `id, workspace_id, folder_id, name, icon, color, position, api_ts(created_at) AS created_at`;

/** The columns an update may set; only the fields sent are present. */
export interface ListPatch {
  name?: string;
  icon?: string | null;
  color?: string | null;
  position?: number;
  folder_id?: number;
}

/** Fixed column order of an update's SET list (names never come from the request). */
const PATCH_COLUMNS: ReadonlyArray<keyof ListPatch> = ['name', 'icon', 'color', 'position', 'folder_id'];

/** SQL for lists. Reads return the API shape of spec: List. */
@Injectable()
export class ListsRepository {
  constructor(private readonly db: DataSource) {}

  /** Lists of a folder by position, name, id (D23); `onlyIds` (a restricted member's granted lists, D29) filters when not null. */
  listByFolder(folderId: number, onlyIds: number[] | null): Promise<ListDto[]> {
    return this.db.query(
      `SELECT ${LIST_COLUMNS} FROM lists
        WHERE folder_id = $1 AND ($2::int[] IS NULL OR id = ANY($2::int[]))
        ORDER BY position, name, id`,
      [folderId, onlyIds],
    );
  }

  /** Inserts a list in a folder at position max + 1 over all lists of the workspace, from 1 (D24). */
  async insert(em: EntityManager, workspaceId: number, folderId: number, name: string, icon: string | null, color: string | null): Promise<ListDto> {
    const rows: ListDto[] = await em.query(
      `INSERT INTO lists (workspace_id, folder_id, name, icon, color, position)
       VALUES ($1, $2, $3, $4, $5, (SELECT COALESCE(MAX(position), 0) + 1 FROM lists WHERE workspace_id = $1))
       RETURNING ${LIST_COLUMNS}`,
      [workspaceId, folderId, name, icon, color],
    );
    return rows[0];
  }

  /** Applies `patch` to list `id` and returns the whole list; null when it no longer exists. */
  async update(id: number, patch: ListPatch, em?: EntityManager | Db['manager']): Promise<ListDto | null> {
    const { sql, params } = patchStatement('lists', PATCH_COLUMNS, id, patch, LIST_COLUMNS);
    const rows: ListDto[] = await (em ?? this.db).query(sql, params);
    return rows[0] ?? null;
  }

  /** Deletes a list; its tasks (with their subtasks, comments, attachments, values) go by cascade (D26). */
  async delete(id: number, db?: Db): Promise<void> {
    await (db?.manager ?? this.db).query(`DELETE FROM lists WHERE id = $1`, [id]);
  }
}
