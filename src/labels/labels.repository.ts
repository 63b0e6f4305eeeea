import { Injectable } from '@nestjs/common';

import { ColumnField, columnTable, FieldsMatch, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { writeStatement } from '../common/database/write-statement';
import { Actor, insertRowStatement, patchRowStatement, statementEvent } from '../events/events.sql';
import type { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';

/** The body of create label without its target. */
type LabelBody = Omit<CreateLabelDto, 'workspace_id'>;

/** spec: Label, key by key in response order, with the columns create writes (field-table.ts). */
export const LABEL_FIELDS = [
  { key: 'id' },
  { key: 'workspace_id' },
  { key: 'name', write: { column: 'name', cast: 'text' } },
  { key: 'color', write: { column: 'color', cast: 'text' } },
  { key: 'created_at', sql: 'api_ts(created_at)' },
] as const satisfies readonly ColumnField<keyof LabelBody>[];

/** Fails to compile when LABEL_FIELDS and the response or the create body disagree on a key. */
const FIELDS_MATCH_DTOS: [FieldsMatch<typeof LABEL_FIELDS, LabelDto>, WritesMatch<typeof LABEL_FIELDS, LabelBody>] = [true, true];
void FIELDS_MATCH_DTOS;

/** The select list, the written columns and their names (an update's SET list: never from the request). */
export const LABEL_TABLE = columnTable<keyof LabelBody>(LABEL_FIELDS);

/** Who writes: the event's actor, and the request's connection. */
interface LabelUpdate {
  actor: Actor;
  id: number;
  patch: UpdateLabelDto;
}
interface LabelDelete {
  actor: Actor;
  id: number;
}

/** Inserts a label, recording `label.created` (D37). */
const INSERT = insertRowStatement<LabelBody, LabelDto, 'label.created'>('label.insert', 'labels', LABEL_TABLE, 'label.created', { label_id: 'r.id' });

/** D43: the fields sent of a label; `label.updated` when a stored value changed (D37). */
const UPDATE = patchRowStatement<LabelUpdate['patch'], LabelDto, 'label.updated'>('label.update', 'labels', LABEL_TABLE, 'label.updated', { label_id: 'r.id' });

/**
 * Deletes a label with its task links (D26), recording `label.deleted` (D37). The links are deleted by the
 * statement itself, not by the cascade at its end, so their row locks come before the event lock.
 */
const DELETE = writeStatement<LabelDelete, { count: string }>(
  'label.delete',
  () => '',
  (w) => {
    const labelId = w.arg((i) => i.id, 'int');
    return w
      .write('links', `(DELETE FROM task_labels WHERE label_id = ${labelId} RETURNING task_id)`)
      .write('lb', `(DELETE FROM labels WHERE id = ${labelId} RETURNING id, workspace_id)`)
      .event(statementEvent({ type: 'label.deleted', from: 'lb', reads: ['lb'], workspace: 'lb.workspace_id', data: { label_id: 'lb.id' } }))
      .select('count(*) FROM lb');
  },
);

/** The write statements of labels (the rendered queries file lists them). */
export const LABEL_WRITES = [INSERT, UPDATE, DELETE];

/** SQL for labels. */
@Injectable()
export class LabelsRepository {
  constructor(private readonly sql: Sql) {}

  /** Labels of a workspace by name (case-insensitive) then id (D23). */
  listByWorkspace(workspaceId: number): Promise<LabelDto[]> {
    return this.sql.rows(`SELECT ${LABEL_TABLE.select} FROM labels WHERE workspace_id = $1 ORDER BY lower(name), id`, [workspaceId]);
  }

  /** Inserts a label, recording `label.created` by `actor` (D37); a duplicate name raises the unique violation that maps to 409 (D28). */
  async insert(actor: Actor, workspaceId: number, body: LabelBody, db: Db = this.sql): Promise<LabelDto> {
    return (await INSERT.run(db, { actor, workspaceId, body }))[0];
  }

  /**
   * D43: applies `patch` to label `id` and returns it (null when it no longer exists), in one statement;
   * records `label.updated` by `actor` when a stored value changed (D37). A duplicate name raises the 409 violation (D28).
   */
  async update(actor: Actor, id: number, patch: UpdateLabelDto, db: Db = this.sql): Promise<LabelDto | null> {
    return (await UPDATE.run(db, { actor, id, patch }))[0] ?? null;
  }

  /** Deletes a label with its task links (D26), recording `label.deleted` by `actor` (D37). */
  async delete(actor: Actor, id: number, db: Db = this.sql): Promise<void> {
    await DELETE.run(db, { actor, id });
  }
}
