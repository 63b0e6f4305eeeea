import { Injectable } from '@nestjs/common';
import type { Role } from '../common/access/access.policy';
import type { Db } from '../common/database/request-db';
import { SqlParams } from '../common/database/sql-params';
import { Actor, eventCtes } from '../events/events.sql';
import type { MemberDto } from '../workspaces/workspaces.dto';

/** D3 step 8 of the member writes: the first id of each array that names no folder or list of the workspace (null: all do). */
export interface GrantLookups {
  missing_folder: number | null;
  missing_list: number | null;
}

/** What an add statement found and did. */
export interface AddResult extends GrantLookups {
  /** The user the body names, null when there is none (404 `User not found`). */
  user_id: number | null;
  /** That user was a member already (409). */
  already: boolean;
  /** The new member (spec: Workspace member), null when nothing was written. */
  member: MemberDto | null;
}

/** What an update statement found and did. */
export interface UpdateResult extends GrantLookups {
  /** The updated member, null when nothing was written (a check failed, or the member changed meanwhile). */
  member: MemberDto | null;
}

/** A member's new state, as the service decided it. */
export interface MemberWrite {
  role?: Role;
  restricted?: boolean;
  /** null: not sent (the grants stay). */
  folderIds: number[] | null;
  listIds: number[] | null;
}

/**
 * The member element (spec: Workspace member) of `m` (workspace_members) joined with `u` (users);
 * `email` only when `emails` (SQL boolean) holds: the caller is the owner.
 */
const memberJson = (emails: string) =>
  `json_build_object('id', u.id, 'email', CASE WHEN ${emails} THEN u.email END, 'name', u.name, 'avatar_url', u.avatar_url,
                     'role', m.role, 'joined_at', api_ts(m.joined_at))`;

/** CTEs `fm`, `lm`: the first id of `folders` / `lists` (int[] SQL, may be NULL) that is no folder / list of workspace `ws`, in array order. */
function grantLookupCtes(ws: string, folders: string, lists: string): string[] {
  const missing = (table: string, ids: string) =>
    `SELECT x.id FROM unnest(${ids}) WITH ORDINALITY x(id, ord)
      WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = x.id AND t.workspace_id = ${ws}) ORDER BY x.ord LIMIT 1`;
  return [`fm AS (${missing('folders', folders)})`, `lm AS (${missing('lists', lists)})`];
}

/** CTEs replacing the grants of the member `row` (a CTE with workspace_id, user_id) with `ids` (int[] SQL; NULL: unchanged): `<kind>_del`, `<kind>_ins`. */
function replaceGrantsCtes(kind: 'folder' | 'list', row: string, ids: string): string[] {
  const table = `member_${kind}_grants`;
  return [
    `${kind}_del AS (DELETE FROM ${table} g USING ${row} o
       WHERE ${ids} IS NOT NULL AND g.workspace_id = o.workspace_id AND g.user_id = o.user_id AND g.${kind}_id <> ALL(${ids}) RETURNING 1)`,
    `${kind}_ins AS (INSERT INTO ${table} (workspace_id, user_id, ${kind}_id)
       SELECT o.workspace_id, o.user_id, x.id FROM ${row} o CROSS JOIN unnest(${ids}) x(id) WHERE ${ids} IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING 1)`,
  ];
}

/** SQL of members' writes (D41). Each write is one statement: its checks (D3 step 8), the write and its event (D48). */
@Injectable()
export class MembersRepository {
  /**
   * D41 add: finds the user (by id, or by email ignoring ASCII case), checks the grants, and,
   * when `allowed` (the service's step 9 rules) and the user is no member yet, adds the member
   * with their grants and records `member.added` by `actor`.
   */
  async add(
    actor: Actor, workspaceId: number, user: { id?: number; email?: string }, write: Required<MemberWrite>, allowed: boolean, emails: boolean, db: Db,
  ): Promise<AddResult> {
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const folders = p.add(write.folderIds, 'int[]');
    const lists = p.add(write.listIds, 'int[]');
    const userId = p.add(user.id ?? null, 'int');
    const email = p.add(user.email ?? null, 'text');
    const ctes = [
      // lower(email) finds it by the unique index; the C collation then keeps the comparison to ASCII case.
      `u AS (SELECT id FROM users WHERE CASE WHEN ${userId} IS NOT NULL THEN id = ${userId}
               ELSE lower(email) = lower(${email}) AND lower(email COLLATE "C") = lower(${email} COLLATE "C") END LIMIT 1)`,
      ...grantLookupCtes(ws, folders, lists),
      `ex AS (SELECT 1 FROM workspace_members m JOIN u ON m.user_id = u.id WHERE m.workspace_id = ${ws})`,
      `ins AS (INSERT INTO workspace_members (workspace_id, user_id, role, is_restricted)
               SELECT ${ws}, u.id, ${p.add(write.role, 'text')}, ${p.add(write.restricted, 'boolean')} FROM u
                WHERE ${p.add(allowed, 'boolean')} AND NOT EXISTS (SELECT 1 FROM fm) AND NOT EXISTS (SELECT 1 FROM lm) AND NOT EXISTS (SELECT 1 FROM ex)
               ON CONFLICT DO NOTHING RETURNING *)`,
      ...replaceGrantsCtes('folder', 'ins', folders),
      ...replaceGrantsCtes('list', 'ins', lists),
      ...eventCtes(p, actor, {
        type: 'member.added', from: 'ins', workspace: 'ins.workspace_id', data: { user_id: 'ins.user_id', role: 'ins.role' },
        drain: ['folder_del', 'folder_ins', 'list_del', 'list_ins'],
      }),
    ];
    const rows = await db.rows<AddResult>(
      `WITH ${ctes.join(',\n')}
       SELECT (SELECT id FROM u) AS user_id, (SELECT id FROM fm) AS missing_folder, (SELECT id FROM lm) AS missing_list,
              EXISTS (SELECT 1 FROM ex) AS already,
              (SELECT ${memberJson(p.add(emails, 'boolean'))} FROM ins m JOIN users u ON u.id = m.user_id) AS member`,
      p.values,
    );
    return rows[0];
  }

  /**
   * D41 update: checks the grants and, when `allowed`, applies `write` to member `userId` (still
   * of role `role`: else nothing is written), replacing the grants sent; records `member.updated`
   * by `actor` with the fields whose stored value changed (the grants compared as sets).
   */
  async update(actor: Actor, workspaceId: number, userId: number, role: Role, write: MemberWrite, allowed: boolean, emails: boolean, db: Db): Promise<UpdateResult> {
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const folders = p.add(write.folderIds, 'int[]');
    const lists = p.add(write.listIds, 'int[]');
    const sameSet = (a: string, b: string) => `(${a} @> ${b} AND ${a} <@ ${b})`;
    const ctes = [
      ...grantLookupCtes(ws, folders, lists),
      `locked AS MATERIALIZED (SELECT * FROM workspace_members
         WHERE workspace_id = ${ws} AND user_id = ${p.add(userId, 'int')} AND role = ${p.add(role, 'text')}
           AND ${p.add(allowed, 'boolean')} AND NOT EXISTS (SELECT 1 FROM fm) AND NOT EXISTS (SELECT 1 FROM lm)
         FOR NO KEY UPDATE)`,
      `old AS MATERIALIZED (SELECT o.*,
         ARRAY(SELECT g.folder_id FROM member_folder_grants g WHERE g.workspace_id = o.workspace_id AND g.user_id = o.user_id) AS folder_ids,
         ARRAY(SELECT g.list_id FROM member_list_grants g WHERE g.workspace_id = o.workspace_id AND g.user_id = o.user_id) AS list_ids
         FROM locked o)`,
      `r AS (UPDATE workspace_members t SET role = COALESCE(${p.add(write.role ?? null, 'text')}, t.role),
                    is_restricted = COALESCE(${p.add(write.restricted ?? null, 'boolean')}, t.is_restricted)
               FROM old WHERE t.workspace_id = old.workspace_id AND t.user_id = old.user_id RETURNING t.*)`,
      ...replaceGrantsCtes('folder', 'old', folders),
      ...replaceGrantsCtes('list', 'old', lists),
      ...eventCtes(p, actor, {
        type: 'member.updated', from: 'r JOIN old ON old.user_id = r.user_id', workspace: 'r.workspace_id', data: { user_id: 'r.user_id' },
        changes: {
          folder_ids: `${folders} IS NOT NULL AND NOT ${sameSet('old.folder_ids', folders)}`,
          list_ids: `${lists} IS NOT NULL AND NOT ${sameSet('old.list_ids', lists)}`,
          restricted: 'r.is_restricted IS DISTINCT FROM old.is_restricted',
          role: 'r.role IS DISTINCT FROM old.role',
        },
        drain: ['folder_del', 'folder_ins', 'list_del', 'list_ins'],
      }),
    ];
    const rows = await db.rows<UpdateResult>(
      `WITH ${ctes.join(',\n')}
       SELECT (SELECT id FROM fm) AS missing_folder, (SELECT id FROM lm) AS missing_list,
              (SELECT ${memberJson(p.add(emails, 'boolean'))} FROM r m JOIN users u ON u.id = m.user_id) AS member`,
      p.values,
    );
    return rows[0];
  }

  /**
   * D41 remove, in one statement: member `userId` (still of role `role`) with their grants, their
   * task assignments in the workspace, their id in `people` values (a value left empty goes: null)
   * and in custom fields' allowed users; records `member.removed` by `actor`. False when the member
   * was gone or had changed role meanwhile (nothing was written).
   */
  async remove(actor: Actor, workspaceId: number, userId: number, role: Role, db: Db): Promise<boolean> {
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const user = p.add(userId, 'int');
    // The user's id as a `people` value's element (D42: ids joined by commas).
    const people = `FROM custom_fields f, old
         WHERE v.workspace_id = ${ws} AND f.id = v.field_id AND f.type = 'people' AND old.user_id::text = ANY(string_to_array(v.value, ','))`;
    const rest = `array_remove(string_to_array(v.value, ','), old.user_id::text)`;
    const ctes = [
      `old AS MATERIALIZED (SELECT * FROM workspace_members WHERE workspace_id = ${ws} AND user_id = ${user} AND role = ${p.add(role, 'text')} FOR UPDATE)`,
      `assignments AS (DELETE FROM task_assignees a USING old WHERE a.workspace_id = old.workspace_id AND a.user_id = old.user_id RETURNING 1)`,
      `people_kept AS (UPDATE task_custom_field_values v SET value = array_to_string(${rest}, ',') ${people} AND cardinality(${rest}) > 0 RETURNING 1)`,
      `people_emptied AS (DELETE FROM task_custom_field_values v USING custom_fields f, old
         WHERE v.workspace_id = ${ws} AND f.id = v.field_id AND f.type = 'people'
           AND old.user_id::text = ANY(string_to_array(v.value, ',')) AND cardinality(${rest}) = 0 RETURNING 1)`,
      `allowed_users AS (DELETE FROM custom_field_allowed_users a USING old WHERE a.workspace_id = old.workspace_id AND a.user_id = old.user_id RETURNING 1)`,
      `folder_grants AS (DELETE FROM member_folder_grants g USING old WHERE g.workspace_id = old.workspace_id AND g.user_id = old.user_id RETURNING 1)`,
      `list_grants AS (DELETE FROM member_list_grants g USING old WHERE g.workspace_id = old.workspace_id AND g.user_id = old.user_id RETURNING 1)`,
      `d AS (DELETE FROM workspace_members t USING old WHERE t.workspace_id = old.workspace_id AND t.user_id = old.user_id RETURNING t.*)`,
      ...eventCtes(p, actor, {
        type: 'member.removed', from: 'd', workspace: 'd.workspace_id', data: { user_id: 'd.user_id' },
        drain: ['assignments', 'people_kept', 'people_emptied', 'allowed_users', 'folder_grants', 'list_grants'],
      }),
    ];
    const rows = await db.rows<{ removed: boolean }>(`WITH ${ctes.join(',\n')} SELECT EXISTS (SELECT 1 FROM d) AS removed`, p.values);
    return rows[0].removed;
  }
}
