import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ColumnField, columnTable, FieldsMatch, insertRowSql, positionWrite, WritesMatch } from '../common/database/field-table';
import { patchStatement } from '../common/database/patch';
import type { Db } from '../common/database/request-db';
import { type AccessRead, READ_PARAMS } from '../common/access/access.repository';
import { SqlParams } from '../common/database/sql-params';
import { Actor, columnChangesSql, eventCtes } from '../events/events.sql';
import { deleteTasksCtes } from '../tasks/tasks.sql';
import type { CreateListDto, ListDto, UpdateListDto } from './lists.dto';

/** spec: List, key by key in response order, with the columns create and update write (field-table.ts). */
export const LIST_FIELDS = [
  { key: 'id' },
  { key: 'workspace_id' },
  { key: 'folder_id', write: { column: 'folder_id', cast: 'int' } },
  { key: 'name', write: { column: 'name', cast: 'text' } },
  { key: 'icon', write: { column: 'icon', cast: 'text' } },
  { key: 'color', write: { column: 'color', cast: 'text', createDefault: () => `'gray'` } },
  // D24: max + 1 over all lists of the workspace, whatever their folder.
  { key: 'position', write: positionWrite('lists') },
  { key: 'created_at', sql: 'api_ts(created_at)' },
] as const satisfies readonly ColumnField<keyof UpdateListDto>[];

/** Fails to compile when LIST_FIELDS and the response or the update body disagree on a key. */
const FIELDS_MATCH_DTOS: [FieldsMatch<typeof LIST_FIELDS, ListDto>, WritesMatch<typeof LIST_FIELDS, UpdateListDto>] = [true, true];
void FIELDS_MATCH_DTOS;

/** The select list, the written columns and their names (an update's SET list: never from the request). */
export const LIST_TABLE = columnTable<keyof UpdateListDto>(LIST_FIELDS);

/** SQL for lists. Reads return the API shape of spec: List. */
@Injectable()
export class ListsRepository {
  constructor(private readonly db: DataSource) {}

  /** D45: get list, read inside its access check's statement (AccessService.checkAndRead): the list object as JSON text. */
  readonly oneRead: AccessRead = {
    sql: `SELECT row_to_json(x)::text FROM (SELECT ${LIST_TABLE.select} FROM lists WHERE id = ${READ_PARAMS.id}) x`,
    tagged: false,
  };

  /** Lists of a folder by position, name, id (D23); `onlyIds` (a restricted member's granted lists, D29) filters when not null. */
  listByFolder(folderId: number, onlyIds: number[] | null): Promise<ListDto[]> {
    return this.db.query(
      `SELECT ${LIST_TABLE.select} FROM lists
        WHERE folder_id = $1 AND ($2::int[] IS NULL OR id = ANY($2::int[]))
        ORDER BY position, name, id`,
      [folderId, onlyIds],
    );
  }

  /** Inserts a list in a folder (defaults: LIST_FIELDS; position max + 1 over all lists of the workspace, D24), recording `list.created` by `actor` (D37). */
  async insert(em: EntityManager, actor: Actor, workspaceId: number, body: Omit<CreateListDto, 'workspace_id'>): Promise<ListDto> {
    const p = new SqlParams();
    const ctes = [
      `l AS (${insertRowSql(p, 'lists', LIST_TABLE.writes, body, p.add(workspaceId, 'int'))} RETURNING *)`,
      ...eventCtes(p, actor, { type: 'list.created', from: 'l', workspace: 'l.workspace_id', data: { list_id: 'l.id', folder_id: 'l.folder_id' } }),
    ];
    const rows: ListDto[] = await em.query(`WITH ${ctes.join(',\n')} SELECT ${LIST_TABLE.select} FROM l`, p.values);
    return rows[0];
  }

  /**
   * Applies `patch` to list `id` and returns the whole list; null when it no longer exists.
   * Records `list.updated` by `actor` when a stored value changed (D37).
   */
  async update(actor: Actor, id: number, patch: UpdateListDto, em?: EntityManager | Db['manager']): Promise<ListDto | null> {
    const { sql, params } = patchStatement('lists', LIST_TABLE.columns, id, patch, LIST_TABLE.select, (p) =>
      eventCtes(p, actor, {
        type: 'list.updated',
        from: 'r JOIN old ON old.id = r.id',
        workspace: 'r.workspace_id',
        data: { list_id: 'r.id', folder_id: 'r.folder_id', previous_folder_id: 'old.folder_id' },
        changes: columnChangesSql(LIST_TABLE.columns),
      }),
    );
    const rows: ListDto[] = await (em ?? this.db).query(sql, params);
    return rows[0] ?? null;
  }

  /**
   * Deletes a list; its tasks (with their subtasks, comments, attachments, values) go with it (D26).
   * Records only `list.deleted` by `actor` (D37). The tasks are deleted by the statement itself
   * (deleteTasksCtes: their row locks before the event lock).
   */
  async delete(actor: Actor, id: number, db?: Db): Promise<void> {
    const p = new SqlParams();
    const listId = p.add(id, 'int');
    const tasks = deleteTasksCtes(`list_id = ${listId} OR parent_id IN (SELECT id FROM tasks WHERE list_id = ${listId})`);
    const ctes = [
      ...tasks.ctes,
      `l AS (DELETE FROM lists WHERE id = ${listId} RETURNING id, workspace_id, folder_id)`,
      ...eventCtes(p, actor, {
        type: 'list.deleted', from: 'l', workspace: 'l.workspace_id', data: { list_id: 'l.id', folder_id: 'l.folder_id' }, drain: tasks.names,
      }),
    ];
    await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT count(*) FROM l`, p.values);
  }
}
