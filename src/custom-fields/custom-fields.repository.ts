import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { AccessRead } from '../common/access/access.repository';
import { READ_PARAMS } from '../common/access/access.repository';
import { ColumnField, FieldRow, FieldsMatch, positionWrite, selectListSql, writeColumns, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { columnChanges, createValues, replaceSet, sentKey, type WriteChain, writeStatement } from '../common/database/write-statement';
import { Actor, statementEvent } from '../events/events.sql';
import type { FieldCreate, FieldWrite } from './custom-field-body';
import type { CustomFieldDefinitionDto, CustomFieldDto } from './custom-fields.dto';
import { fieldVisibleSql } from './custom-fields.sql';

/**
 * spec: Custom-field definition, key by key in response order, over `custom_fields f`
 * (field-table.ts). Folder grants are the field's own array, list overrides a subquery:
 * one statement whatever the number of fields.
 */
const DEFINITION_FIELDS = [
  { key: 'id', sql: 'f.id' },
  { key: 'name', sql: 'f.name' },
  { key: 'type', sql: 'f.type' },
  { key: 'config', sql: 'f.config' },
  { key: 'position', sql: 'f.position' },
  { key: 'is_scope_restricted', sql: 'f.is_scope_restricted' },
  { key: 'granted_folder_ids', sql: 'f.granted_folder_ids' },
  {
    key: 'list_overrides',
    sql: `COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id)
                      FROM custom_field_list_overrides o WHERE o.field_id = f.id), '[]'::json)`,
  },
] as const satisfies readonly ColumnField[];

/** Fails to compile when DEFINITION_FIELDS and the response disagree on a key. */
const FIELDS_MATCH_DTO: FieldsMatch<typeof DEFINITION_FIELDS, CustomFieldDefinitionDto> = true;
void FIELDS_MATCH_DTO;

const DEFINITION_COLUMNS = selectListSql(DEFINITION_FIELDS);

/**
 * Where a definition's sets come from: SQL of the folder ids (int[], ascending and
 * distinct), of the list overrides (a json array by list_id) and of the allowed
 * users (int[] ascending; read only when the field has an allowed-users list).
 */
interface DefinitionSets {
  folders: string;
  overrides: string;
  allowed: string;
}

/** A stored field's sets: its own arrays (kept by triggers) and its overrides' rows. */
const STORED_SETS = (f: string): DefinitionSets => ({
  folders: `${f}.granted_folder_ids`,
  overrides: `COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id)
                          FROM custom_field_list_overrides o WHERE o.field_id = ${f}.id), '[]'::json)`,
  allowed: `${f}.allowed_user_ids`,
});

/** The columns create and update write from the body field of the same name (`type`: create only; the sets have tables of their own). */
type WrittenColumn = 'name' | 'config' | 'position' | 'is_scope_restricted';

/** One key of the definition answer: its SQL over custom_fields row `f` and the sets, and the column behind it when the API writes one. */
interface DefinitionField extends FieldRow<never, WrittenColumn> {
  render(f: string, s: DefinitionSets): string;
}

/**
 * D42: the answer of create, get and update, key by key in response order, over
 * custom_fields row `f` (field-table.ts), with the columns create and update write
 * from the body: defaults of create in `createDefault` (position D24: max + 1).
 */
export const CUSTOM_FIELD_FIELDS = [
  { key: 'id', render: (f) => `${f}.id` },
  { key: 'name', render: (f) => `${f}.name`, write: { column: 'name', cast: 'text' } },
  { key: 'type', render: (f) => `${f}.type` },
  { key: 'config', render: (f) => `${f}.config`, write: { column: 'config', cast: 'jsonb' } },
  { key: 'position', render: (f) => `${f}.position`, write: positionWrite('custom_fields') },
  {
    key: 'is_scope_restricted',
    render: (f) => `${f}.is_scope_restricted`,
    write: { column: 'is_scope_restricted', cast: 'boolean', createDefault: () => 'false' },
  },
  { key: 'granted_folder_ids', render: (_f, s) => `to_json(${s.folders})` },
  { key: 'list_overrides', render: (_f, s) => s.overrides },
  { key: 'allowed_user_ids', render: (f, s) => `CASE WHEN ${f}.has_allowed_users THEN to_json(${s.allowed}) END` },
] as const satisfies readonly DefinitionField[];

/** Fails to compile when CUSTOM_FIELD_FIELDS and the answer, or its written columns and the update body's, disagree. */
const CUSTOM_FIELD_FIELDS_MATCH: [
  FieldsMatch<typeof CUSTOM_FIELD_FIELDS, CustomFieldDto>,
  WritesMatch<typeof CUSTOM_FIELD_FIELDS, Pick<FieldWrite, WrittenColumn>>,
] = [true, true];
void CUSTOM_FIELD_FIELDS_MATCH;

/** The columns create and update write, in table order (an update's SET order). */
const CUSTOM_FIELD_WRITES = writeColumns<WrittenColumn>(CUSTOM_FIELD_FIELDS);

/** The definition of row `f` as a json value. */
function definitionJsonSql(f: string, sets: DefinitionSets): string {
  const fields: readonly DefinitionField[] = CUSTOM_FIELD_FIELDS;
  return `json_build_object(${fields.map(({ key, render }) => `'${key}', ${render(f, sets)}`).join(', ')})`;
}

/** A body's written columns as statement values: the config as JSON text for its `jsonb` parameter. */
function columnValues(body: Pick<FieldWrite, WrittenColumn>): Record<WrittenColumn, unknown> {
  return { ...body, config: body.config === undefined || body.config === null ? body.config : JSON.stringify(body.config) } as Record<WrittenColumn, unknown>;
}

/** What a write statement found at D3 step 8, and the field it wrote (null when a check failed or the field is gone). */
export interface FieldWriteResult {
  folders_ok: boolean;
  lists_ok: boolean;
  field: CustomFieldDto | null;
}

/**
 * D42 step 8 and the write: whether every folder of `folders` and every list of `lists` is one of workspace
 * `ws` (placeholders), the rows they name share-locked (their foreign-key checks would otherwise wait after
 * the event lock), and the members among `allowed` (placeholder of an int[], NULL: none) share-locked with their users.
 */
function refs<I>(w: WriteChain<I>, ws: string, folders: string, lists: string, allowed: string): WriteChain<I> {
  return (
    w
      .check(
        'checks',
        `MATERIALIZED (
         SELECT NOT EXISTS (SELECT 1 FROM unnest(${folders}) x(id)
                             WHERE NOT EXISTS (SELECT 1 FROM folders fo WHERE fo.id = x.id AND fo.workspace_id = ${ws})) AS folders_ok,
                NOT EXISTS (SELECT 1 FROM unnest(${lists}) x(id)
                             WHERE NOT EXISTS (SELECT 1 FROM lists l WHERE l.id = x.id AND l.workspace_id = ${ws})) AS lists_ok)`,
      )
      .lock('ref_folders', 'folders', `MATERIALIZED (SELECT fo.id FROM folders fo WHERE fo.id = ANY(${folders}) AND fo.workspace_id = ${ws} FOR KEY SHARE)`)
      .lock('ref_lists', 'lists', `MATERIALIZED (SELECT l.id FROM lists l WHERE l.id = ANY(${lists}) AND l.workspace_id = ${ws} FOR KEY SHARE)`)
      // D42: ids of non-members are dropped.
      .lock(
        'ref_users',
        'workspace_members',
        `MATERIALIZED (SELECT m.user_id FROM workspace_members m JOIN users u ON u.id = m.user_id
                                  WHERE m.workspace_id = ${ws} AND m.user_id = ANY(${allowed}) FOR KEY SHARE OF m, u)`,
      )
  );
}

/** CustomFieldsRepository.insert's statement. */
const INSERT = writeStatement<{ actor: Actor; workspaceId: number; body: FieldCreate }, FieldWriteResult>(
  'custom_field.insert',
  () => '',
  (w) => {
    const ws = w.arg((i) => i.workspaceId, 'int');
    const folders = w.arg((i) => i.body.granted_folder_ids, 'int[]');
    const lists = w.arg((i) => i.body.list_overrides.map((o) => o.list_id), 'int[]');
    const access = w.arg((i) => i.body.list_overrides.map((o) => o.access), 'text[]');
    const allowed = w.arg((i) => i.body.allowed_user_ids, 'int[]');
    const written = createValues(w, CUSTOM_FIELD_WRITES, (i) => columnValues(i.body), ws);
    // The grant tables' triggers fill the field's arrays after the statement: the answer reads the rows it inserted.
    const sets: DefinitionSets = {
      folders: 'ARRAY(SELECT DISTINCT folder_id FROM add_folders ORDER BY 1)',
      overrides: `COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id) FROM add_overrides o), '[]'::json)`,
      allowed: 'ARRAY(SELECT user_id FROM add_users ORDER BY 1)',
    };
    return refs(w, ws, folders, lists, allowed)
      .write(
        'f',
        `(INSERT INTO custom_fields (workspace_id, type, has_allowed_users, ${written.columns})
             SELECT ${ws}, ${w.arg((i) => i.body.type, 'text')}, ${allowed} IS NOT NULL, ${written.values}
               FROM checks WHERE checks.folders_ok AND checks.lists_ok
             RETURNING *)`,
      )
      .write(
        'add_folders',
        `(INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id)
                       SELECT f.id, r.id, ${ws} FROM f, ref_folders r RETURNING folder_id)`,
      )
      .write(
        'add_overrides',
        `(INSERT INTO custom_field_list_overrides (field_id, list_id, workspace_id, access)
                         SELECT f.id, x.list_id, ${ws}, x.access FROM f, unnest(${lists}, ${access}) x(list_id, access) RETURNING list_id, access)`,
      )
      .write(
        'add_users',
        `(INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id)
                     SELECT f.id, r.user_id, ${ws} FROM f, ref_users r RETURNING user_id)`,
      )
      .event(statementEvent({ type: 'custom_field.created', from: 'f', reads: ['f'], workspace: 'f.workspace_id', data: { custom_field_id: 'f.id' } }))
      .select(`checks.folders_ok, checks.lists_ok, (SELECT ${definitionJsonSql('f', sets)} FROM f) AS field FROM checks`);
  },
);

/** CustomFieldsRepository.update's statement. */
const UPDATE = writeStatement<{ actor: Actor; id: number; workspaceId: number; patch: FieldWrite }, FieldWriteResult>(
  'custom_field.update',
  (i) =>
    `${sentKey(
      CUSTOM_FIELD_WRITES.map((c) => c.column),
      columnValues(i.patch),
    )}${i.patch.allowed_user_ids === undefined ? 0 : 1}${i.patch.granted_folder_ids ? 1 : 0}${i.patch.list_overrides ? 1 : 0}`,
  (w, { patch }) => {
    const fieldId = w.arg((i) => i.id, 'int');
    const ws = w.arg((i) => i.workspaceId, 'int');
    const folders = w.arg((i) => i.patch.granted_folder_ids ?? [], 'int[]');
    const lists = w.arg((i) => i.patch.list_overrides?.map((o) => o.list_id) ?? [], 'int[]');
    const allowed = w.arg((i) => i.patch.allowed_user_ids ?? null, 'int[]');
    const values = columnValues(patch);
    const sets = CUSTOM_FIELD_WRITES.filter((c) => values[c.column] !== undefined).map(
      (c) => `${c.column} = ${w.arg((i) => columnValues(i.patch)[c.column], c.cast)}`,
    );
    if (patch.allowed_user_ids !== undefined) sets.push(`has_allowed_users = ${allowed} IS NOT NULL`);
    if (!sets.length) sets.push('name = c.name');
    // The row before the write, locked so that it is the version the update applies to (D48 changes).
    w.lock('old', 'custom_fields', `MATERIALIZED (SELECT * FROM custom_fields WHERE id = ${fieldId} FOR NO KEY UPDATE)`)
      // The overrides before the write, as `list_id:access` text, sorted (compared as a set).
      .check(
        'old_overrides',
        `MATERIALIZED (SELECT ARRAY(SELECT o.list_id || ':' || o.access FROM custom_field_list_overrides o
                                                   WHERE o.field_id = ${fieldId} ORDER BY 1) AS pairs)`,
      );
    refs(w, ws, folders, lists, allowed).write(
      'f',
      `(UPDATE custom_fields c SET ${sets.join(', ')}
               FROM old WHERE c.id = old.id AND (SELECT folders_ok AND lists_ok FROM checks)
             RETURNING c.*)`,
    );
    // D48: every written column of the field table, and the sets below when sent.
    const changes: Record<string, string> = columnChanges({ columns: CUSTOM_FIELD_WRITES.map((c) => c.column) }, 'f', 'old');
    const answer = STORED_SETS('f');
    answer.folders = 'old.granted_folder_ids';
    answer.allowed = 'old.allowed_user_ids';
    const owner = { owner: 'f', keys: { field_id: 'id' }, extra: { workspace_id: ws } };
    if (patch.granted_folder_ids) {
      replaceSet(w, { ...owner, names: ['drop_folders', 'add_folders'], table: 'custom_field_folder_grants', column: 'folder_id', kept: 'ref_folders k' });
      answer.folders = 'ARRAY(SELECT id FROM ref_folders ORDER BY 1)';
      changes.granted_folder_ids = `${answer.folders} IS DISTINCT FROM old.granted_folder_ids`;
    }
    if (patch.list_overrides) {
      const access = w.arg((i) => i.patch.list_overrides!.map((o) => o.access), 'text[]');
      w.check('new_overrides', `MATERIALIZED (SELECT x.list_id, x.access FROM unnest(${lists}, ${access}) x(list_id, access))`);
      replaceSet(w, {
        ...owner,
        names: ['drop_overrides', 'set_overrides'],
        table: 'custom_field_list_overrides',
        column: 'list_id',
        kept: '(SELECT list_id AS id, access FROM new_overrides) k',
        extra: { ...owner.extra, access: 'k.access' },
        onConflict: '(field_id, list_id) DO UPDATE SET access = EXCLUDED.access',
      });
      answer.overrides = `COALESCE((SELECT json_agg(json_build_object('list_id', n.list_id, 'access', n.access) ORDER BY n.list_id) FROM new_overrides n), '[]'::json)`;
      changes.list_overrides = `ARRAY(SELECT n.list_id || ':' || n.access FROM new_overrides n ORDER BY 1) IS DISTINCT FROM (SELECT pairs FROM old_overrides)`;
    }
    if (patch.allowed_user_ids !== undefined) {
      replaceSet(w, {
        ...owner,
        names: ['drop_users', 'add_users'],
        table: 'custom_field_allowed_users',
        column: 'user_id',
        kept: '(SELECT user_id AS id FROM ref_users) k',
      });
      answer.allowed = 'ARRAY(SELECT user_id FROM ref_users ORDER BY 1)';
      // null (everyone) and [] (nobody) differ.
      changes.allowed_user_ids = `f.has_allowed_users IS DISTINCT FROM old.has_allowed_users
                                  OR (f.has_allowed_users AND ${answer.allowed} IS DISTINCT FROM old.allowed_user_ids)`;
    }
    if (patch.config !== undefined) {
      // D42: removing dropdown options clears the values holding them, in the same statement.
      w.write(
        'clear_values',
        `(DELETE FROM task_custom_field_values v USING f, old
                   WHERE v.field_id = f.id AND f.type = 'dropdown'
                     AND v.value IN (SELECT jsonb_array_elements_text(old.config -> 'options'))
                     AND v.value NOT IN (SELECT jsonb_array_elements_text(f.config -> 'options'))
                 RETURNING v.task_id)`,
      );
    }
    return w
      .event(
        statementEvent({
          type: 'custom_field.updated',
          from: 'f JOIN old ON old.id = f.id',
          reads: ['f', 'old'],
          workspace: 'f.workspace_id',
          data: { custom_field_id: 'f.id' },
          changes,
        }),
      )
      .select(`checks.folders_ok, checks.lists_ok, (SELECT ${definitionJsonSql('f', answer)} FROM f JOIN old ON old.id = f.id) AS field FROM checks`);
  },
);

/**
 * D42 delete: the field with its values, grants, overrides and allowed users, recording `custom_field.deleted` (D48).
 * The dependent rows are deleted by the statement itself, not by the cascade at its end, so that their row locks come before the event lock.
 */
const DELETE = writeStatement<{ actor: Actor; id: number }, { deleted: boolean }>(
  'custom_field.delete',
  () => '',
  (w) => {
    const fieldId = w.arg((i) => i.id, 'int');
    return w
      .write('gone_values', `(DELETE FROM task_custom_field_values WHERE field_id = ${fieldId} RETURNING task_id)`)
      .write('gone_folders', `(DELETE FROM custom_field_folder_grants WHERE field_id = ${fieldId} RETURNING folder_id)`)
      .write('gone_overrides', `(DELETE FROM custom_field_list_overrides WHERE field_id = ${fieldId} RETURNING list_id)`)
      .write('gone_users', `(DELETE FROM custom_field_allowed_users WHERE field_id = ${fieldId} RETURNING user_id)`)
      .write('f', `(DELETE FROM custom_fields WHERE id = ${fieldId} RETURNING id, workspace_id)`)
      .event(statementEvent({ type: 'custom_field.deleted', from: 'f', reads: ['f'], workspace: 'f.workspace_id', data: { custom_field_id: 'f.id' } }))
      .select('EXISTS (SELECT 1 FROM f) AS deleted');
  },
);

/** The write statements of custom fields. */
export const CUSTOM_FIELD_WRITE_STATEMENTS = [INSERT, UPDATE, DELETE];

/** SQL for custom-field definitions. */
@Injectable()
export class CustomFieldsRepository {
  constructor(
    private readonly db: DataSource,
    private readonly sql: Sql,
  ) {}

  /**
   * The definitions of workspace `workspaceId` that user `userId` may see
   * (D19: no allowed-users list, or the user is on it), by position then id
   * (D23), with their folder grants and list overrides. One statement.
   */
  listVisible(workspaceId: number, userId: number): Promise<CustomFieldDefinitionDto[]> {
    return this.db.query(
      `SELECT ${DEFINITION_COLUMNS}
         FROM custom_fields f
        WHERE f.workspace_id = $1
          AND ${fieldVisibleSql('f', '$2')}
        ORDER BY f.position, f.id`,
      [workspaceId, userId],
    );
  }

  /** The get-custom-field read inside an access check's statement (AccessService.checkAndRead): the definition as JSON text. */
  readonly definitionRead: AccessRead = {
    sql: `(SELECT ${definitionJsonSql('f', STORED_SETS('f'))}::text FROM custom_fields f WHERE f.id = ${READ_PARAMS.id})`,
    tagged: false,
  };

  /**
   * D42 create: the step 8 checks (granted folders, then override lists, of the workspace) and, when
   * they pass, the field at position max + 1 (D24) with its folder grants, list overrides and allowed
   * users (members only), recording `custom_field.created` by `actor` (D48). One statement; a duplicate
   * name raises the unique violation that toHttpError answers 409.
   */
  async insert(actor: Actor, workspaceId: number, body: FieldCreate, db: Db = this.sql): Promise<FieldWriteResult> {
    return (await INSERT.run(db, { actor, workspaceId, body }))[0];
  }

  /**
   * D42 update of field `id` in workspace `workspaceId`: the step 8 checks of the sets sent and, when they
   * pass, the sent columns; the sent sets replace the stored ones; a new dropdown config clears the
   * values holding an option it removed. Records `custom_field.updated` by `actor` when something
   * changed (D48; sets compared as sets). One statement; `field` null when a check failed or the
   * field is gone; a duplicate name raises the 409 violation.
   */
  async update(actor: Actor, id: number, workspaceId: number, patch: FieldWrite, db: Db = this.sql): Promise<FieldWriteResult> {
    return (await UPDATE.run(db, { actor, id, workspaceId, patch }))[0];
  }

  /**
   * D42 delete: the field with its values, grants, overrides and allowed users, recording
   * `custom_field.deleted` by `actor` (D48). The dependent rows are deleted by the statement
   * itself, not by the cascade at its end, so that their row locks come before the event lock.
   * False when the field was already gone. One statement.
   */
  async delete(actor: Actor, id: number, db: Db = this.sql): Promise<boolean> {
    return (await DELETE.run(db, { actor, id }))[0].deleted;
  }
}
