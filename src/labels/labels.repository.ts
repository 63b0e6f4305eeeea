import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ColumnField, columnTable, FieldsMatch, insertRowSql, WritesMatch } from '../common/database/field-table';
import { patchStatement } from '../common/database/patch';
import type { Db } from '../common/database/request-db';
import { SqlParams } from '../common/database/sql-params';
import { Actor, columnChangesSql, eventCtes } from '../events/events.sql';
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

/** SQL for labels. */
@Injectable()
export class LabelsRepository {
  constructor(private readonly db: DataSource) {}

  /** Labels of a workspace by name (case-insensitive) then id (D23). */
  listByWorkspace(workspaceId: number): Promise<LabelDto[]> {
    return this.db.query(`SELECT ${LABEL_TABLE.select} FROM labels WHERE workspace_id = $1 ORDER BY lower(name), id`, [workspaceId]);
  }

  /** Inserts a label, recording `label.created` by `actor` (D37); a duplicate name raises the unique violation that maps to 409 (D28). */
  async insert(actor: Actor, workspaceId: number, body: LabelBody, db?: Db): Promise<LabelDto> {
    const p = new SqlParams();
    const ctes = [
      `lb AS (${insertRowSql(p, 'labels', LABEL_TABLE.writes, body, p.add(workspaceId, 'int'))} RETURNING *)`,
      ...eventCtes(p, actor, { type: 'label.created', from: 'lb', workspace: 'lb.workspace_id', data: { label_id: 'lb.id' } }),
    ];
    const rows: LabelDto[] = await (db?.manager ?? this.db).query(`WITH ${ctes.join(',\n')} SELECT ${LABEL_TABLE.select} FROM lb`, p.values);
    return rows[0];
  }

  /**
   * D43: applies `patch` to label `id` and returns it (null when it no longer exists), in one statement;
   * records `label.updated` by `actor` when a stored value changed (D37). A duplicate name raises the 409 violation (D28).
   */
  async update(actor: Actor, id: number, patch: UpdateLabelDto, db?: Db): Promise<LabelDto | null> {
    const { sql, params } = patchStatement('labels', LABEL_TABLE.columns, id, patch, LABEL_TABLE.select, (p) =>
      eventCtes(p, actor, {
        type: 'label.updated', from: 'r JOIN old ON old.id = r.id', workspace: 'r.workspace_id',
        data: { label_id: 'r.id' }, changes: columnChangesSql(LABEL_TABLE.columns),
      }),
    );
    const rows: LabelDto[] = await (db?.manager ?? this.db).query(sql, params);
    return rows[0] ?? null;
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
