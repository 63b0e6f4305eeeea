import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { type AccessRead, READ_PARAMS } from '../common/access/access.repository';
import { ColumnField, columnTable, FieldsMatch, positionWrite, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { writeStatement } from '../common/database/write-statement';
import { Actor, insertRowStatement, patchRowStatement, statementEvent } from '../events/events.sql';
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

/** Inserts a list (defaults: LIST_FIELDS; position max + 1 over all lists of the workspace, D24), recording `list.created` (D37). */
const INSERT = insertRowStatement<Omit<CreateListDto, 'workspace_id'>, ListDto, 'list.created'>('list.insert', 'lists', LIST_TABLE, 'list.created', {
  list_id: 'r.id',
  folder_id: 'r.folder_id',
});

/** The fields sent of a list; `list.updated` when a stored value changed (D37). */
const UPDATE = patchRowStatement<UpdateListDto, ListDto, 'list.updated'>('list.update', 'lists', LIST_TABLE, 'list.updated', {
  list_id: 'r.id',
  folder_id: 'r.folder_id',
  previous_folder_id: 'old.folder_id',
});

/** A list with its tasks (D26), recording only `list.deleted` (D37); the tasks are deleted by the statement itself (row locks before the event lock). */
const DELETE = writeStatement<{ actor: Actor; id: number }, { count: string }>(
  'list.delete',
  () => '',
  (w) => {
    const listId = w.arg((i) => i.id, 'int');
    return w
      .addAll('write', deleteTasksCtes(`list_id = ${listId} OR parent_id IN (SELECT id FROM tasks WHERE list_id = ${listId})`).ctes)
      .write('l', `(DELETE FROM lists WHERE id = ${listId} RETURNING id, workspace_id, folder_id)`)
      .event(
        statementEvent({ type: 'list.deleted', from: 'l', reads: ['l'], workspace: 'l.workspace_id', data: { list_id: 'l.id', folder_id: 'l.folder_id' } }),
      )
      .select('count(*) FROM l');
  },
);

/** The write statements of lists. */
export const LIST_WRITES = [INSERT, UPDATE, DELETE];

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
    return (await INSERT.run(em, { actor, workspaceId, body }))[0];
  }

  /**
   * Applies `patch` to list `id` and returns the whole list; null when it no longer exists.
   * Records `list.updated` by `actor` when a stored value changed (D37).
   */
  async update(actor: Actor, id: number, patch: UpdateListDto, em?: EntityManager | Db['manager']): Promise<ListDto | null> {
    return (await UPDATE.run(em ?? this.db.manager, { actor, id, patch }))[0] ?? null;
  }

  /**
   * Deletes a list; its tasks (with their subtasks, comments, attachments, values) go with it (D26).
   * Records only `list.deleted` by `actor` (D37). The tasks are deleted by the statement itself
   * (deleteTasksCtes: their row locks before the event lock).
   */
  async delete(actor: Actor, id: number, db?: Db): Promise<void> {
    await DELETE.run(db ?? this.db.manager, { actor, id });
  }
}
