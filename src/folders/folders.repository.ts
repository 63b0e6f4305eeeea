import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { type AccessRead, READ_PARAMS } from '../common/access/access.repository';
import { ColumnField, columnTable, FieldsMatch, positionWrite, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { writeStatement } from '../common/database/write-statement';
import { jsonArraySql, RawJson } from '../common/http/raw-json';
import { Actor, insertRowStatement, patchRowStatement, statementEvent } from '../events/events.sql';
import { deleteTasksCtes } from '../tasks/tasks.sql';
import type { CreateFolderDto, FolderDto, UpdateFolderDto } from './folders.dto';

/** spec: Folder, key by key in response order, with the columns create and update write (field-table.ts). */
export const FOLDER_FIELDS = [
  { key: 'id' },
  { key: 'workspace_id' },
  { key: 'name', write: { column: 'name', cast: 'text' } },
  { key: 'icon', write: { column: 'icon', cast: 'text' } },
  { key: 'color', write: { column: 'color', cast: 'text', createDefault: () => `'blue'` } },
  { key: 'position', write: positionWrite('folders') },
  { key: 'created_at', sql: 'api_ts(created_at)' },
] as const satisfies readonly ColumnField<keyof UpdateFolderDto>[];

/** Fails to compile when FOLDER_FIELDS and the response or the update body disagree on a key. */
const FIELDS_MATCH_DTOS: [FieldsMatch<typeof FOLDER_FIELDS, FolderDto>, WritesMatch<typeof FOLDER_FIELDS, UpdateFolderDto>] = [true, true];
void FIELDS_MATCH_DTOS;

/** The select list, the written columns and their names (an update's SET list: never from the request). */
export const FOLDER_TABLE = columnTable<keyof UpdateFolderDto>(FOLDER_FIELDS);

/** Inserts a folder (defaults: FOLDER_FIELDS; position max + 1 of the workspace, D24), recording `folder.created` (D37). */
const INSERT = insertRowStatement<Omit<CreateFolderDto, 'workspace_id'>, FolderDto, 'folder.created'>(
  'folder.insert',
  'folders',
  FOLDER_TABLE,
  'folder.created',
  {
    folder_id: 'r.id',
  },
);

/** The fields sent of a folder; `folder.updated` when a stored value changed (D37). */
const UPDATE = patchRowStatement<UpdateFolderDto, FolderDto, 'folder.updated'>('folder.update', 'folders', FOLDER_TABLE, 'folder.updated', {
  folder_id: 'r.id',
});

/**
 * D26: a folder with its lists and their tasks, recording only `folder.deleted` (D37). The lists and tasks are
 * deleted by the statement itself rather than by the foreign keys' cascade (at the statement's end), so that
 * their row locks are taken before the event lock.
 */
const DELETE = writeStatement<{ actor: Actor; id: number }, { count: string }>(
  'folder.delete',
  () => '',
  (w) => {
    const folderId = w.arg((i) => i.id, 'int');
    const lists = `SELECT id FROM lists WHERE folder_id = ${folderId}`;
    return w
      .addAll('write', deleteTasksCtes(`list_id IN (${lists}) OR parent_id IN (SELECT id FROM tasks WHERE list_id IN (${lists}))`).ctes)
      .write('doomed_lists', `(DELETE FROM lists WHERE folder_id = ${folderId} RETURNING id)`)
      .write('f', `(DELETE FROM folders WHERE id = ${folderId} RETURNING id, workspace_id)`)
      .event(statementEvent({ type: 'folder.deleted', from: 'f', reads: ['f'], workspace: 'f.workspace_id', data: { folder_id: 'f.id' } }))
      .select('count(*) FROM f');
  },
);

/** The write statements of folders. */
export const FOLDER_WRITES = [INSERT, UPDATE, DELETE];

/** SQL for folders. Reads return the API shape of spec: Folder. */
@Injectable()
export class FoldersRepository {
  constructor(private readonly db: DataSource) {}

  /** Folders of a workspace by position, name, id (D23), as JSON text; `onlyIds` (a restricted member's grants, D29) filters when not null. */
  async listByWorkspace(workspaceId: number, onlyIds: number[] | null): Promise<RawJson<FolderDto[]>> {
    const rows: { json: string }[] = await this.db.query(
      jsonArraySql(`SELECT ${FOLDER_TABLE.select} FROM folders
        WHERE workspace_id = $1 AND ($2::int[] IS NULL OR id = ANY($2::int[]))
        ORDER BY position, name, id`),
      [workspaceId, onlyIds],
    );
    return new RawJson(rows[0].json);
  }

  /** D45: get folder, read inside its access check's statement (AccessService.checkAndRead): the folder object as JSON text. */
  readonly oneRead: AccessRead = {
    sql: `SELECT row_to_json(x)::text FROM (SELECT ${FOLDER_TABLE.select} FROM folders WHERE id = ${READ_PARAMS.id}) x`,
    tagged: false,
  };

  /** Inserts a folder (defaults: FOLDER_FIELDS; position max + 1 of the workspace, D24), recording `folder.created` by `actor` (D37). */
  async insert(actor: Actor, workspaceId: number, body: Omit<CreateFolderDto, 'workspace_id'>, db?: Db): Promise<FolderDto> {
    return (await INSERT.run(db ?? this.db.manager, { actor, workspaceId, body }))[0];
  }

  /**
   * Applies `patch` to folder `id` and returns the whole folder; null when it no longer exists.
   * Records `folder.updated` by `actor` when a stored value changed (D37).
   */
  async update(actor: Actor, id: number, patch: UpdateFolderDto, db?: Db): Promise<FolderDto | null> {
    return (await UPDATE.run(db ?? this.db.manager, { actor, id, patch }))[0] ?? null;
  }

  /**
   * D26: deletes a folder with its lists and their tasks (with the tasks' subtasks,
   * comments, attachments and values), recording only `folder.deleted` by `actor` (D37).
   * One statement, so one transaction. The lists and tasks are deleted by the
   * statement itself rather than left to the foreign keys' cascade (which runs
   * at the statement's end), so that their row locks are taken before the event lock.
   */
  async delete(actor: Actor, id: number, db?: Db): Promise<void> {
    await DELETE.run(db ?? this.db.manager, { actor, id });
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
