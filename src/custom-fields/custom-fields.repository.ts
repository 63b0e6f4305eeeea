import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AccessRead } from '../common/access/access.repository';
import { READ_PARAMS } from '../common/access/access.repository';
import { ColumnField, FieldsMatch, selectListSql } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import type { CHANGE_FIELDS } from '../events/event-types';
import { Actor, eventCtes } from '../events/events.sql';
import { fieldVisibleSql } from '../tasks/tasks.sql';
import type { FieldCreate, FieldWrite } from './custom-field-body';
import type { CustomFieldDefinitionDto, CustomFieldDto } from './custom-fields.dto';

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

/** D42: the answer of create, get and update, key by key in response order, over custom_fields row `f`. */
const DEFINITION_JSON: { [K in keyof CustomFieldDto]: (f: string, s: DefinitionSets) => string } = {
  id: (f) => `${f}.id`,
  name: (f) => `${f}.name`,
  type: (f) => `${f}.type`,
  config: (f) => `${f}.config`,
  position: (f) => `${f}.position`,
  is_scope_restricted: (f) => `${f}.is_scope_restricted`,
  granted_folder_ids: (_f, s) => `to_json(${s.folders})`,
  list_overrides: (_f, s) => s.overrides,
  allowed_user_ids: (f, s) => `CASE WHEN ${f}.has_allowed_users THEN to_json(${s.allowed}) END`,
};

/** The definition of row `f` as a json value. */
function definitionJsonSql(f: string, sets: DefinitionSets): string {
  return `json_build_object(${Object.entries(DEFINITION_JSON).map(([key, sql]) => `'${key}', ${sql(f, sets)}`).join(', ')})`;
}

/** What a write statement found at D3 step 8, and the field it wrote (null when a check failed or the field is gone). */
export interface FieldWriteResult {
  folders_ok: boolean;
  lists_ok: boolean;
  field: CustomFieldDto | null;
}

/** The update's `changes` names (D48). */
type FieldChange = (typeof CHANGE_FIELDS)['custom_field.updated'][number];

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
   * D42 step 8 and the write, one statement: whether every folder of `folders` and every list of
   * `lists` is one of workspace `ws` (placeholders), the rows they name share-locked (their foreign-key
   * checks would otherwise wait after the event lock), and the members among `allowed` (placeholder of
   * an int[], NULL: none) share-locked with their users.
   */
  private static refCtes(ws: string, folders: string, lists: string, allowed: string): string[] {
    return [
      `checks AS MATERIALIZED (
         SELECT NOT EXISTS (SELECT 1 FROM unnest(${folders}) x(id)
                             WHERE NOT EXISTS (SELECT 1 FROM folders fo WHERE fo.id = x.id AND fo.workspace_id = ${ws})) AS folders_ok,
                NOT EXISTS (SELECT 1 FROM unnest(${lists}) x(id)
                             WHERE NOT EXISTS (SELECT 1 FROM lists l WHERE l.id = x.id AND l.workspace_id = ${ws})) AS lists_ok)`,
      `ref_folders AS MATERIALIZED (SELECT fo.id FROM folders fo WHERE fo.id = ANY(${folders}) AND fo.workspace_id = ${ws} FOR KEY SHARE)`,
      `ref_lists AS MATERIALIZED (SELECT l.id FROM lists l WHERE l.id = ANY(${lists}) AND l.workspace_id = ${ws} FOR KEY SHARE)`,
      // D42: ids of non-members are dropped.
      `ref_users AS MATERIALIZED (SELECT m.user_id FROM workspace_members m JOIN users u ON u.id = m.user_id
                                  WHERE m.workspace_id = ${ws} AND m.user_id = ANY(${allowed}) FOR KEY SHARE OF m, u)`,
    ];
  }

  /**
   * D42 create: the step 8 checks (granted folders, then override lists, of the workspace) and, when
   * they pass, the field at position max + 1 (D24) with its folder grants, list overrides and allowed
   * users (members only), recording `custom_field.created` by `actor` (D48). One statement; a duplicate
   * name raises the unique violation that toHttpError answers 409.
   */
  async insert(actor: Actor, workspaceId: number, body: FieldCreate, db: Db = this.sql): Promise<FieldWriteResult> {
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const folders = p.add(body.granted_folder_ids, 'int[]');
    const lists = p.add(body.list_overrides.map((o) => o.list_id), 'int[]');
    const access = p.add(body.list_overrides.map((o) => o.access), 'text[]');
    const allowed = p.add(body.allowed_user_ids, 'int[]');
    const ctes = [
      ...CustomFieldsRepository.refCtes(ws, folders, lists, allowed),
      `f AS (INSERT INTO custom_fields (workspace_id, name, type, config, position, is_scope_restricted, has_allowed_users)
             SELECT ${ws}, ${p.add(body.name, 'text')}, ${p.add(body.type, 'text')}, ${p.add(body.config === null ? null : JSON.stringify(body.config), 'jsonb')},
                    (SELECT COALESCE(MAX(position), 0) + 1 FROM custom_fields WHERE workspace_id = ${ws}),
                    ${p.add(body.is_scope_restricted, 'boolean')}, ${allowed} IS NOT NULL
               FROM checks WHERE checks.folders_ok AND checks.lists_ok
             RETURNING *)`,
      `add_folders AS (INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id)
                       SELECT f.id, r.id, ${ws} FROM f, ref_folders r RETURNING folder_id)`,
      `add_overrides AS (INSERT INTO custom_field_list_overrides (field_id, list_id, workspace_id, access)
                         SELECT f.id, x.list_id, ${ws}, x.access FROM f, unnest(${lists}, ${access}) x(list_id, access) RETURNING list_id, access)`,
      `add_users AS (INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id)
                     SELECT f.id, r.user_id, ${ws} FROM f, ref_users r RETURNING user_id)`,
      ...eventCtes(p, actor, {
        type: 'custom_field.created', from: 'f', workspace: 'f.workspace_id', data: { custom_field_id: 'f.id' },
        drain: ['ref_folders', 'ref_lists', 'ref_users', 'add_folders', 'add_overrides', 'add_users'],
      }),
    ];
    // The grant tables' triggers fill the field's arrays after the statement: the answer reads the rows it inserted.
    const sets: DefinitionSets = {
      folders: 'ARRAY(SELECT DISTINCT folder_id FROM add_folders ORDER BY 1)',
      overrides: `COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id) FROM add_overrides o), '[]'::json)`,
      allowed: 'ARRAY(SELECT user_id FROM add_users ORDER BY 1)',
    };
    const rows: FieldWriteResult[] = await db.rows(
      `WITH ${ctes.join(',\n')}
       SELECT checks.folders_ok, checks.lists_ok, (SELECT ${definitionJsonSql('f', sets)} FROM f) AS field FROM checks`,
      p.values,
    );
    return rows[0];
  }

  /**
   * D42 update of field `id` in workspace `workspaceId`: the step 8 checks of the sets sent and, when they
   * pass, the sent columns; the sent sets replace the stored ones; a new dropdown config clears the
   * values holding an option it removed. Records `custom_field.updated` by `actor` when something
   * changed (D48; sets compared as sets). One statement; `field` null when a check failed or the
   * field is gone; a duplicate name raises the 409 violation.
   */
  async update(actor: Actor, id: number, workspaceId: number, patch: FieldWrite, db: Db = this.sql): Promise<FieldWriteResult> {
    const p = new SqlParams();
    const fieldId = p.add(id, 'int');
    const ws = p.add(workspaceId, 'int');
    const overrides = patch.list_overrides;
    const folders = p.add(patch.granted_folder_ids ?? [], 'int[]');
    const lists = p.add(overrides?.map((o) => o.list_id) ?? [], 'int[]');
    const allowed = p.add(patch.allowed_user_ids ?? null, 'int[]');
    const sets: string[] = [];
    const column = (name: string, value: unknown, cast: string) => {
      if (value !== undefined) sets.push(`${name} = ${p.add(value, cast)}`);
    };
    column('name', patch.name, 'text');
    if (patch.config !== undefined) sets.push(`config = ${p.add(patch.config === null ? null : JSON.stringify(patch.config), 'jsonb')}`);
    column('position', patch.position, 'int');
    column('is_scope_restricted', patch.is_scope_restricted, 'boolean');
    if (patch.allowed_user_ids !== undefined) sets.push(`has_allowed_users = ${allowed} IS NOT NULL`);
    if (!sets.length) sets.push('name = c.name');

    const ctes = [
      // The row before the write, locked so that it is the version the update applies to (D48 changes).
      `old AS MATERIALIZED (SELECT * FROM custom_fields WHERE id = ${fieldId} FOR NO KEY UPDATE)`,
      // The overrides before the write, as `list_id:access` text, sorted (compared as a set).
      `old_overrides AS MATERIALIZED (SELECT ARRAY(SELECT o.list_id || ':' || o.access FROM custom_field_list_overrides o
                                                   WHERE o.field_id = ${fieldId} ORDER BY 1) AS pairs)`,
      ...CustomFieldsRepository.refCtes(ws, folders, lists, allowed),
      `f AS (UPDATE custom_fields c SET ${sets.join(', ')}
               FROM old WHERE c.id = old.id AND (SELECT folders_ok AND lists_ok FROM checks)
             RETURNING c.*)`,
    ];
    const drain = ['ref_folders', 'ref_lists', 'ref_users'];
    const changes: Record<FieldChange, string> = {
      allowed_user_ids: 'false',
      config: 'f.config IS DISTINCT FROM old.config',
      granted_folder_ids: 'false',
      is_scope_restricted: 'f.is_scope_restricted IS DISTINCT FROM old.is_scope_restricted',
      list_overrides: 'false',
      name: 'f.name IS DISTINCT FROM old.name',
      position: 'f.position IS DISTINCT FROM old.position',
    };
    const answer = STORED_SETS('f');
    answer.folders = 'old.granted_folder_ids';
    answer.allowed = 'old.allowed_user_ids';
    if (patch.granted_folder_ids) {
      ctes.push(
        `drop_folders AS (DELETE FROM custom_field_folder_grants g USING f WHERE g.field_id = f.id AND g.folder_id NOT IN (SELECT id FROM ref_folders) RETURNING g.folder_id)`,
        `add_folders AS (INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id)
                         SELECT f.id, r.id, ${ws} FROM f, ref_folders r ON CONFLICT DO NOTHING RETURNING folder_id)`,
      );
      drain.push('drop_folders', 'add_folders');
      answer.folders = 'ARRAY(SELECT id FROM ref_folders ORDER BY 1)';
      changes.granted_folder_ids = `${answer.folders} IS DISTINCT FROM old.granted_folder_ids`;
    }
    if (overrides) {
      const access = p.add(overrides.map((o) => o.access), 'text[]');
      ctes.push(
        `new_overrides AS MATERIALIZED (SELECT x.list_id, x.access FROM unnest(${lists}, ${access}) x(list_id, access))`,
        `drop_overrides AS (DELETE FROM custom_field_list_overrides o USING f
                            WHERE o.field_id = f.id AND o.list_id NOT IN (SELECT list_id FROM new_overrides) RETURNING o.list_id)`,
        `set_overrides AS (INSERT INTO custom_field_list_overrides (field_id, list_id, workspace_id, access)
                           SELECT f.id, n.list_id, ${ws}, n.access FROM f, new_overrides n
                           ON CONFLICT (field_id, list_id) DO UPDATE SET access = EXCLUDED.access RETURNING list_id)`,
      );
      drain.push('drop_overrides', 'set_overrides');
      answer.overrides = `COALESCE((SELECT json_agg(json_build_object('list_id', n.list_id, 'access', n.access) ORDER BY n.list_id) FROM new_overrides n), '[]'::json)`;
      changes.list_overrides = `ARRAY(SELECT n.list_id || ':' || n.access FROM new_overrides n ORDER BY 1) IS DISTINCT FROM (SELECT pairs FROM old_overrides)`;
    }
    if (patch.allowed_user_ids !== undefined) {
      ctes.push(
        `drop_users AS (DELETE FROM custom_field_allowed_users a USING f WHERE a.field_id = f.id AND a.user_id NOT IN (SELECT user_id FROM ref_users) RETURNING a.user_id)`,
        `add_users AS (INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id)
                       SELECT f.id, r.user_id, ${ws} FROM f, ref_users r ON CONFLICT DO NOTHING RETURNING user_id)`,
      );
      drain.push('drop_users', 'add_users');
      answer.allowed = 'ARRAY(SELECT user_id FROM ref_users ORDER BY 1)';
      // null (everyone) and [] (nobody) differ.
      changes.allowed_user_ids = `f.has_allowed_users IS DISTINCT FROM old.has_allowed_users
                                  OR (f.has_allowed_users AND ${answer.allowed} IS DISTINCT FROM old.allowed_user_ids)`;
    }
    if (patch.config !== undefined) {
      // D42: removing dropdown options clears the values holding them, in the same statement.
      ctes.push(`clear_values AS (DELETE FROM task_custom_field_values v USING f, old
                   WHERE v.field_id = f.id AND f.type = 'dropdown'
                     AND v.value IN (SELECT jsonb_array_elements_text(old.config -> 'options'))
                     AND v.value NOT IN (SELECT jsonb_array_elements_text(f.config -> 'options'))
                 RETURNING v.task_id)`);
      drain.push('clear_values');
    }
    ctes.push(
      ...eventCtes(p, actor, {
        type: 'custom_field.updated', from: 'f JOIN old ON old.id = f.id', workspace: 'f.workspace_id',
        data: { custom_field_id: 'f.id' }, changes, drain,
      }),
    );
    const rows: FieldWriteResult[] = await db.rows(
      `WITH ${ctes.join(',\n')}
       SELECT checks.folders_ok, checks.lists_ok, (SELECT ${definitionJsonSql('f', answer)} FROM f JOIN old ON old.id = f.id) AS field FROM checks`,
      p.values,
    );
    return rows[0];
  }

  /**
   * D42 delete: the field with its values, grants, overrides and allowed users, recording
   * `custom_field.deleted` by `actor` (D48). The dependent rows are deleted by the statement
   * itself, not by the cascade at its end, so that their row locks come before the event lock.
   * False when the field was already gone. One statement.
   */
  async delete(actor: Actor, id: number, db: Db = this.sql): Promise<boolean> {
    const p = new SqlParams();
    const fieldId = p.add(id, 'int');
    const ctes = [
      `gone_values AS (DELETE FROM task_custom_field_values WHERE field_id = ${fieldId} RETURNING task_id)`,
      `gone_folders AS (DELETE FROM custom_field_folder_grants WHERE field_id = ${fieldId} RETURNING folder_id)`,
      `gone_overrides AS (DELETE FROM custom_field_list_overrides WHERE field_id = ${fieldId} RETURNING list_id)`,
      `gone_users AS (DELETE FROM custom_field_allowed_users WHERE field_id = ${fieldId} RETURNING user_id)`,
      `f AS (DELETE FROM custom_fields WHERE id = ${fieldId} RETURNING id, workspace_id)`,
      ...eventCtes(p, actor, {
        type: 'custom_field.deleted', from: 'f', workspace: 'f.workspace_id', data: { custom_field_id: 'f.id' },
        drain: ['gone_values', 'gone_folders', 'gone_overrides', 'gone_users'],
      }),
    ];
    const rows: { deleted: boolean }[] = await db.rows(`WITH ${ctes.join(',\n')} SELECT EXISTS (SELECT 1 FROM f) AS deleted`, p.values);
    return rows[0].deleted;
  }
}
