import { Injectable } from '@nestjs/common';

import type { Role } from '../common/access/access.policy';
import type { Db } from '../common/database/request-db';
import { replaceSet, type StatementEvent, type WriteChain, type WriteDb, writeStatement } from '../common/database/write-statement';
import { Actor, statementEvent } from '../events/events.sql';
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

/** The grants of kind `kind` of the member row `row` (a CTE with workspace_id, user_id) replaced with `ids` (int[] SQL; NULL: unchanged): `<kind>_del`, `<kind>_ins`. */
function replaceGrants<I>(w: WriteChain<I>, kind: 'folder' | 'list', row: string, ids: string): WriteChain<I> {
  return replaceSet(w, {
    names: [`${kind}_del`, `${kind}_ins`],
    table: `member_${kind}_grants`,
    owner: row,
    keys: { workspace_id: 'workspace_id', user_id: 'user_id' },
    column: `${kind}_id`,
    kept: `unnest(${ids}) k(id)`,
    when: `${ids} IS NOT NULL`,
  });
}

/** `actor` null: an operator's command (D32 `members add`), which records no event (D37). */
type AddInput = {
  actor: Actor | null;
  workspaceId: number;
  user: { id?: number; email?: string };
  write: Required<MemberWrite>;
  allowed: boolean;
  emails: boolean;
};
type UpdateInput = { actor: Actor; workspaceId: number; userId: number; role: Role; write: MemberWrite; allowed: boolean; emails: boolean };
type RemoveInput = { actor: Actor; workspaceId: number; userId: number; role: Role };

/** MembersRepository.add's statement. */
const ADD = writeStatement<AddInput, AddResult>(
  'member.add',
  (i) => (i.actor ? '' : 'operator'),
  (w, sample) => {
    const ws = w.arg((i) => i.workspaceId, 'int');
    const folders = w.arg((i) => i.write.folderIds, 'int[]');
    const lists = w.arg((i) => i.write.listIds, 'int[]');
    const userId = w.arg((i) => i.user.id ?? null, 'int');
    const email = w.arg((i) => i.user.email ?? null, 'text');
    // lower(email) finds it by the unique index; the C collation then keeps the comparison to ASCII case.
    w.check(
      'u',
      `(SELECT id FROM users WHERE CASE WHEN ${userId} IS NOT NULL THEN id = ${userId}
               ELSE lower(email) = lower(${email}) AND lower(email COLLATE "C") = lower(${email} COLLATE "C") END LIMIT 1)`,
    )
      .addAll('check', grantLookupCtes(ws, folders, lists))
      .check('ex', `(SELECT 1 FROM workspace_members m JOIN u ON m.user_id = u.id WHERE m.workspace_id = ${ws})`)
      .write(
        'ins',
        `(INSERT INTO workspace_members (workspace_id, user_id, role, is_restricted)
               SELECT ${ws}, u.id, ${w.arg((i) => i.write.role, 'text')}, ${w.arg((i) => i.write.restricted, 'boolean')} FROM u
                WHERE ${w.arg((i) => i.allowed, 'boolean')} AND NOT EXISTS (SELECT 1 FROM fm) AND NOT EXISTS (SELECT 1 FROM lm) AND NOT EXISTS (SELECT 1 FROM ex)
               ON CONFLICT DO NOTHING RETURNING *)`,
      );
    replaceGrants(w, 'folder', 'ins', folders);
    replaceGrants(w, 'list', 'ins', lists);
    const added = statementEvent<AddInput & { actor: Actor }, 'member.added'>({
      type: 'member.added',
      from: 'ins',
      reads: ['ins'],
      workspace: 'ins.workspace_id',
      data: { user_id: 'ins.user_id', role: 'ins.role' },
    });
    // The event's readers run only for inputs of this shape, whose actor is set (the shape key tells them apart).
    return (sample.actor ? w.event(added as unknown as StatementEvent<AddInput>) : w.noEvent('D37: the CLI records no event'))
      .select(`(SELECT id FROM u) AS user_id, (SELECT id FROM fm) AS missing_folder, (SELECT id FROM lm) AS missing_list,
              EXISTS (SELECT 1 FROM ex) AS already,
              (SELECT ${memberJson(w.arg((i) => i.emails, 'boolean'))} FROM ins m JOIN users u ON u.id = m.user_id) AS member`);
  },
);

/** MembersRepository.update's statement. */
const UPDATE = writeStatement<UpdateInput, UpdateResult>(
  'member.update',
  () => '',
  (w) => {
    const ws = w.arg((i) => i.workspaceId, 'int');
    const folders = w.arg((i) => i.write.folderIds, 'int[]');
    const lists = w.arg((i) => i.write.listIds, 'int[]');
    const sameSet = (a: string, b: string) => `(${a} @> ${b} AND ${a} <@ ${b})`;
    w.addAll('check', grantLookupCtes(ws, folders, lists))
      .lock(
        'locked',
        'workspace_members',
        `MATERIALIZED (SELECT * FROM workspace_members
         WHERE workspace_id = ${ws} AND user_id = ${w.arg((i) => i.userId, 'int')} AND role = ${w.arg((i) => i.role, 'text')}
           AND ${w.arg((i) => i.allowed, 'boolean')} AND NOT EXISTS (SELECT 1 FROM fm) AND NOT EXISTS (SELECT 1 FROM lm)
         FOR NO KEY UPDATE)`,
      )
      .check(
        'old',
        `MATERIALIZED (SELECT o.*,
         ARRAY(SELECT g.folder_id FROM member_folder_grants g WHERE g.workspace_id = o.workspace_id AND g.user_id = o.user_id) AS folder_ids,
         ARRAY(SELECT g.list_id FROM member_list_grants g WHERE g.workspace_id = o.workspace_id AND g.user_id = o.user_id) AS list_ids
         FROM locked o)`,
      )
      .write(
        'r',
        `(UPDATE workspace_members t SET role = COALESCE(${w.arg((i) => i.write.role ?? null, 'text')}, t.role),
                    is_restricted = COALESCE(${w.arg((i) => i.write.restricted ?? null, 'boolean')}, t.is_restricted)
               FROM old WHERE t.workspace_id = old.workspace_id AND t.user_id = old.user_id RETURNING t.*)`,
      );
    replaceGrants(w, 'folder', 'old', folders);
    replaceGrants(w, 'list', 'old', lists);
    return w.event(
      statementEvent({
        type: 'member.updated',
        from: 'r JOIN old ON old.user_id = r.user_id',
        reads: ['r', 'old', 'locked'],
        workspace: 'r.workspace_id',
        data: { user_id: 'r.user_id' },
        changes: {
          folder_ids: `${folders} IS NOT NULL AND NOT ${sameSet('old.folder_ids', folders)}`,
          list_ids: `${lists} IS NOT NULL AND NOT ${sameSet('old.list_ids', lists)}`,
          restricted: 'r.is_restricted IS DISTINCT FROM old.is_restricted',
          role: 'r.role IS DISTINCT FROM old.role',
        },
      }),
    ).select(`(SELECT id FROM fm) AS missing_folder, (SELECT id FROM lm) AS missing_list,
              (SELECT ${memberJson(w.arg((i) => i.emails, 'boolean'))} FROM r m JOIN users u ON u.id = m.user_id) AS member`);
  },
);

/** MembersRepository.remove's statement. */
const REMOVE = writeStatement<RemoveInput, { removed: boolean }>(
  'member.remove',
  () => '',
  (w) => {
    const ws = w.arg((i) => i.workspaceId, 'int');
    const user = w.arg((i) => i.userId, 'int');
    // Values `v` of the workspace's `people` fields `f` that hold the user's id (D42: ids joined by commas).
    const people = `f.workspace_id = ${ws} AND f.type = 'people' AND v.field_id = f.id AND v.workspace_id = ${ws}
           AND old.user_id::text = ANY(string_to_array(v.value, ','))`;
    const rest = `array_remove(string_to_array(v.value, ','), old.user_id::text)`;
    return w
      .lock(
        'old',
        'workspace_members',
        `MATERIALIZED (SELECT * FROM workspace_members WHERE workspace_id = ${ws} AND user_id = ${user} AND role = ${w.arg((i) => i.role, 'text')} FOR UPDATE)`,
      )
      .write('assignments', '(DELETE FROM task_assignees a USING old WHERE a.workspace_id = old.workspace_id AND a.user_id = old.user_id RETURNING 1)')
      .write(
        'people_kept',
        `(UPDATE task_custom_field_values v SET value = array_to_string(${rest}, ',') FROM custom_fields f, old
         WHERE ${people} AND cardinality(${rest}) > 0 RETURNING 1)`,
      )
      .write(
        'people_emptied',
        `(DELETE FROM task_custom_field_values v USING custom_fields f, old
         WHERE ${people} AND cardinality(${rest}) = 0 RETURNING 1)`,
      )
      .write(
        'allowed_users',
        '(DELETE FROM custom_field_allowed_users a USING old WHERE a.workspace_id = old.workspace_id AND a.user_id = old.user_id RETURNING 1)',
      )
      .write('folder_grants', '(DELETE FROM member_folder_grants g USING old WHERE g.workspace_id = old.workspace_id AND g.user_id = old.user_id RETURNING 1)')
      .write('list_grants', '(DELETE FROM member_list_grants g USING old WHERE g.workspace_id = old.workspace_id AND g.user_id = old.user_id RETURNING 1)')
      .write('d', '(DELETE FROM workspace_members t USING old WHERE t.workspace_id = old.workspace_id AND t.user_id = old.user_id RETURNING t.*)')
      .event(statementEvent({ type: 'member.removed', from: 'd', reads: ['d', 'old'], workspace: 'd.workspace_id', data: { user_id: 'd.user_id' } }))
      .select('EXISTS (SELECT 1 FROM d) AS removed');
  },
);

/** The write statements of members. */
export const MEMBER_WRITES = [ADD, UPDATE, REMOVE];

/** SQL of members' writes (D41). Each write is one statement: its checks (D3 step 8), the write and its event (D48). */
@Injectable()
export class MembersRepository {
  /**
   * D41 add: finds the user (by id, or by email ignoring ASCII case), checks the grants, and,
   * when `allowed` (the service's step 9 rules) and the user is no member yet, adds the member
   * with their grants and records `member.added` by `actor` (null: an operator's command, no event).
   */
  async add(
    actor: Actor | null,
    workspaceId: number,
    user: { id?: number; email?: string },
    write: Required<MemberWrite>,
    allowed: boolean,
    emails: boolean,
    db: WriteDb,
  ): Promise<AddResult> {
    return (await ADD.run(db, { actor, workspaceId, user, write, allowed, emails }))[0];
  }

  /**
   * D41 update: checks the grants and, when `allowed`, applies `write` to member `userId` (still
   * of role `role`: else nothing is written), replacing the grants sent; records `member.updated`
   * by `actor` with the fields whose stored value changed (the grants compared as sets).
   */
  async update(
    actor: Actor,
    workspaceId: number,
    userId: number,
    role: Role,
    write: MemberWrite,
    allowed: boolean,
    emails: boolean,
    db: Db,
  ): Promise<UpdateResult> {
    return (await UPDATE.run(db, { actor, workspaceId, userId, role, write, allowed, emails }))[0];
  }

  /**
   * D41 remove, in one statement: member `userId` (still of role `role`) with their grants, their
   * task assignments in the workspace, their id in `people` values (a value left empty goes: null)
   * and in custom fields' allowed users; records `member.removed` by `actor`. False when the member
   * was gone or had changed role meanwhile (nothing was written).
   */
  async remove(actor: Actor, workspaceId: number, userId: number, role: Role, db: Db): Promise<boolean> {
    return (await REMOVE.run(db, { actor, workspaceId, userId, role }))[0].removed;
  }
}
