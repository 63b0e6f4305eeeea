import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WORLD_NAMES, worldEmail, WorldRole } from '../setup/world';

/**
 * Issue 35, D41: add, update and remove members, and a member's access. The
 * checks every route makes (keys, scopes, ids, non-members) are the route
 * matrix's too; here every rule of D41 in its stated order, the cleanup of a
 * removal, and grants removed with their folder or list.
 */

const M = roleKeys('mbr');
const MEMBER_KEYS = ['avatar_url', 'email', 'id', 'joined_at', 'name', 'role'] satisfies Array<keyof Schema<'Member'>>;
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MANAGE = 'Only owners and admins can manage members';

describe('members (D41)', () => {
  const { t, ids } = useRoleWorld('mbr', () => ({
    more: {
      users: [
        { ref: 'newbie', email: 'Newbie@Members.test', name: 'Newbie' },
        { ref: 'newbie2', email: 'newbie2@members.test', name: 'Newbie Two', avatar_url: 'https://img.test/n2.png' },
        { ref: 'newbie3', email: 'newbie3@members.test', name: 'Newbie Three' },
        { ref: 'racer', email: 'racer@members.test', name: 'Racer' },
        { ref: 'admin2', email: 'admin2@members.test', name: 'Second Admin' },
        { ref: 'leaver', email: 'leaver@members.test', name: 'Leaver' },
      ],
      api_keys: [{ user: 'admin2', key: 'svc_mbr_admin2', scopes: ['members:write', 'workspaces:read'] }],
    },
  }));

  const send = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, key: string, payload?: unknown) =>
    t.inject({ method, url, headers: auth(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  const members = () => `/api/v1/workspaces/${ids.ws}/members`;
  const add = (payload: unknown, key = M.key('owner')) => send('POST', members(), key, payload);
  const patch = (userId: number | string, payload: unknown, key = M.key('owner')) => send('PATCH', `${members()}/${userId}`, key, payload);
  const remove = (userId: number | string, key = M.key('owner')) => send('DELETE', `${members()}/${userId}`, key);
  const access = (userId: number | string, key = M.key('owner')) => send('GET', `${members()}/${userId}/access`, key);
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => t.db.ds.query(sql, params);
  const lastEvent = async () =>
    (
      await q<{ type: string; data: unknown; actor_user_id: number }>(
        `SELECT type, data, actor_user_id FROM events WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1`,
        [ids.ws],
      )
    )[0];
  const eventCount = async () => (await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1`, [ids.ws]))[0].n;
  /** A role user of the world as a member element; the email is shown to the owner only. */
  const worldMember = (user: WorldRole, role: Schema<'Member'>['role'], shownEmail = true) =>
    ({
      id: ids[user],
      email: shownEmail ? worldEmail('mbr', user) : null,
      name: WORLD_NAMES[user],
      avatar_url: null,
      role,
      joined_at: expect.stringMatching(TS),
    }) satisfies Schema<'Member'>;
  const answer = async (res: Promise<{ statusCode: number; json(): unknown }>) => {
    const r = await res;
    return { status: r.statusCode, body: r.json() };
  };

  describe('add', () => {
    it('adds by user_id: 201 with the member element (email for the owner), member.added, grants kept whatever restricted is', async () => {
      const res = await add({ user_id: String(ids.newbie), folder_ids: [ids.ops, ids.eng, ids.ops], list_ids: [ids.loose], role: null, restricted: null });
      expect(res.statusCode).toBe(201);
      expect(Object.keys(res.json()).sort()).toEqual(MEMBER_KEYS);
      expect(res.json()).toEqual({
        id: ids.newbie,
        email: 'Newbie@Members.test',
        name: 'Newbie',
        avatar_url: null,
        role: 'member',
        joined_at: expect.stringMatching(TS),
      } satisfies Schema<'Member'>);
      expect(await lastEvent()).toEqual({ type: 'member.added', data: { user_id: ids.newbie, role: 'member' }, actor_user_id: ids.owner });
      expect((await access(ids.newbie)).json()).toEqual({
        user_id: ids.newbie,
        role: 'member',
        restricted: false,
        folder_ids: [ids.eng, ids.ops].sort((a, b) => a - b),
        list_ids: [ids.loose],
      } satisfies Schema<'MemberAccess'>);
      // Unrestricted: the grants do not limit anything yet.
      expect((await send('GET', `/api/v1/workspaces/${ids.ws}/members`, M.key('owner'))).json().map((m: { id: number }) => m.id)).toContain(ids.newbie);
    });

    it('adds by email ignoring ASCII case, trimmed; an admin sees no email', async () => {
      const res = await add(
        { email: '  NEWBIE2@members.TEST ', role: 'viewer', restricted: true, list_ids: [ids.backlog] } satisfies Schema<'AddMember'>,
        M.key('admin'),
      );
      expect(res.json()).toEqual({
        id: ids.newbie2,
        email: null,
        name: 'Newbie Two',
        avatar_url: 'https://img.test/n2.png',
        role: 'viewer',
        joined_at: expect.stringMatching(TS),
      } satisfies Schema<'Member'>);
      expect((await access(ids.newbie2, M.key('admin'))).json()).toEqual({
        user_id: ids.newbie2,
        role: 'viewer',
        restricted: true,
        folder_ids: [],
        list_ids: [ids.backlog],
      } satisfies Schema<'MemberAccess'>);
      expect(await answer(add({ email: 'newbie2@members.tesT' } satisfies Schema<'AddMember'>))).toEqual({
        status: 409,
        body: { error: 'User is already a member of this workspace' },
      });
      expect(await answer(add({ email: 'nobody@members.test' } satisfies Schema<'AddMember'>))).toEqual({ status: 404, body: { error: 'User not found' } });
    });

    it.each([
      [{}, 'user_id or email is required'],
      [{ user_id: null, email: null }, 'user_id or email is required'],
      [{ user_id: 1, email: 'a@b.c' }, 'Send user_id or email, not both'],
      [{ user_id: 'abc' }, 'user_id must be a valid numeric ID'],
      [{ user_id: 1.5, role: 'owner' }, 'user_id must be a valid numeric ID'],
      [{ user_id: true }, 'user_id must be a valid numeric ID'],
      [{ email: 5 }, 'email must be a string'],
      [{ email: 'a\u0000@b.c' }, 'email must not contain NUL characters'],
      [{ user_id: 1, role: 'owner' }, 'Invalid role. Must be one of: admin, member, viewer'],
      [{ user_id: 1, role: 'Admin' }, 'Invalid role. Must be one of: admin, member, viewer'],
      [{ user_id: 1, role: 3, restricted: 'yes' }, 'Invalid role. Must be one of: admin, member, viewer'],
      [{ user_id: 1, restricted: 'true' }, 'restricted must be a boolean'],
      [{ user_id: 1, restricted: 0, folder_ids: 'x' }, 'restricted must be a boolean'],
      [{ user_id: 1, folder_ids: 'x' }, 'folder_ids must be an array of folder IDs'],
      [{ user_id: 1, folder_ids: [1, 'a'] }, 'folder_ids must be an array of folder IDs'],
      [{ user_id: 1, folder_ids: [null] }, 'folder_ids must be an array of folder IDs'],
      [{ user_id: 1, folder_ids: [[1]], list_ids: 'x' }, 'folder_ids must be an array of folder IDs'],
      [{ user_id: 1, list_ids: {} }, 'list_ids must be an array of list IDs'],
      [{ user_id: 1, list_ids: [-1] }, 'list_ids must be an array of list IDs'],
    ])('400 for %j: %s', async (payload, error) => {
      expect(await answer(add(payload))).toEqual({ status: 400, body: { error } });
    });

    it('step 8 in order: the user, then folder_ids, then list_ids, each in array order', async () => {
      const otherFolder = ids.o_folder;
      expect(await answer(add({ user_id: 99999999, folder_ids: [otherFolder] }))).toEqual({ status: 404, body: { error: 'User not found' } });
      expect(await answer(add({ user_id: ids.newbie3, folder_ids: [ids.eng, otherFolder], list_ids: [0] }))).toEqual({
        status: 404,
        body: { error: 'Folder not found' },
      });
      expect(await answer(add({ user_id: ids.newbie3, folder_ids: [ids.eng], list_ids: [ids.backlog, ids.o_list] }))).toEqual({
        status: 404,
        body: { error: 'List not found' },
      });
      // A folder id in the list array is no list.
      expect(await answer(add({ user_id: ids.newbie3, list_ids: ['99999999999999'] }))).toEqual({ status: 404, body: { error: 'List not found' } });
      expect(await q(`SELECT 1 FROM workspace_members WHERE user_id = $1`, [ids.newbie3])).toEqual([]);
    });

    it('step 9 in order: already a member (409), only the owner adds admins (403), no restricted admin (400)', async () => {
      // The user is a member already and an admin adds them as admin: 409 comes first.
      expect(await answer(add({ user_id: ids.member, role: 'admin' }, M.key('admin')))).toEqual({
        status: 409,
        body: { error: 'User is already a member of this workspace' },
      });
      expect(await answer(add({ user_id: ids.newbie3, role: 'admin', restricted: true }, M.key('admin')))).toEqual({
        status: 403,
        body: { error: 'Only the owner can manage admins' },
      });
      expect(await answer(add({ user_id: ids.newbie3, role: 'admin', restricted: true }))).toEqual({
        status: 400,
        body: { error: 'Only members and viewers can be access-restricted' },
      });
      // But a step 8 404 comes before any of them.
      expect(await answer(add({ user_id: ids.member, role: 'admin', folder_ids: [0] }, M.key('admin')))).toEqual({
        status: 404,
        body: { error: 'Folder not found' },
      });
      expect((await add({ user_id: ids.admin2, role: 'admin' } satisfies Schema<'AddMember'>)).json()).toEqual({
        id: ids.admin2,
        email: 'admin2@members.test',
        name: 'Second Admin',
        avatar_url: null,
        role: 'admin',
        joined_at: expect.stringMatching(TS),
      } satisfies Schema<'Member'>);
    });

    it('is for owners and admins: members and viewers get 403 before the body is read', async () => {
      for (const role of ['member', 'viewer', 'restricted'] as const) {
        expect(await answer(add({ user_id: 'x' }, M.key(role)))).toEqual({ status: 403, body: { error: MANAGE } });
      }
      expect(await answer(add({ user_id: ids.newbie3 }, M.keyWithout('members:write')))).toEqual({
        status: 403,
        body: { error: "Scope 'members:write' is required for this endpoint" },
      });
    });

    it('takes 10,000 grants: duplicates collapse, and 10,000 unknown ids answer 404', async () => {
      const unknown = Array.from({ length: 10_000 }, (_, i) => 50_000_000 + i);
      expect(await answer(add({ user_id: ids.newbie3, folder_ids: unknown }))).toEqual({ status: 404, body: { error: 'Folder not found' } });
      const res = await add({ user_id: ids.newbie3, folder_ids: Array(10_000).fill(ids.eng), list_ids: Array(10_000).fill(String(ids.inbox)) });
      expect(res.statusCode).toBe(201);
      expect((await access(ids.newbie3)).json()).toEqual({
        user_id: ids.newbie3,
        role: 'member',
        restricted: false,
        folder_ids: [ids.eng],
        list_ids: [ids.inbox],
      } satisfies Schema<'MemberAccess'>);
    });

    it('of concurrent adds of one user, one answers 201 and the others 409', async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => add({ user_id: ids.racer } satisfies Schema<'AddMember'>)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      expect(await q(`SELECT count(*)::int AS n FROM events WHERE type = 'member.added' AND (data->>'user_id')::int = $1`, [ids.racer])).toEqual([{ n: 1 }]);
    });
  });

  describe('update', () => {
    it('changes role, restriction and grants (the arrays replace); member.updated names what changed; a no-op records nothing', async () => {
      const before = await eventCount();
      expect((await patch(ids.member, {} satisfies Schema<'UpdateMember'>)).json()).toEqual(worldMember('member', 'member'));
      expect((await patch(ids.member, { role: 'member', restricted: false, folder_ids: [], list_ids: [] } satisfies Schema<'UpdateMember'>)).statusCode).toBe(
        200,
      );
      expect(await eventCount()).toBe(before);

      const res = await patch(
        ids.member,
        { restricted: true, folder_ids: [ids.ops, ids.eng], role: 'viewer' } satisfies Schema<'UpdateMember'>,
        M.key('admin'),
      );
      expect(res.json()).toEqual({
        id: ids.member,
        email: null,
        name: 'Mia Member',
        avatar_url: null,
        role: 'viewer',
        joined_at: expect.stringMatching(TS),
      } satisfies Schema<'Member'>);
      expect(await lastEvent()).toEqual({
        type: 'member.updated',
        data: { user_id: ids.member, changes: ['folder_ids', 'restricted', 'role'] },
        actor_user_id: ids.admin,
      });
      // The same set in another order changes nothing.
      const n = await eventCount();
      expect((await patch(ids.member, { folder_ids: [ids.eng, ids.ops, ids.eng] } satisfies Schema<'UpdateMember'>)).statusCode).toBe(200);
      expect(await eventCount()).toBe(n);
      expect((await patch(ids.member, { folder_ids: [ids.eng], list_ids: [ids.inbox] } satisfies Schema<'UpdateMember'>)).statusCode).toBe(200);
      expect(await lastEvent()).toMatchObject({ data: { user_id: ids.member, changes: ['folder_ids', 'list_ids'] } });
      expect((await access(ids.member)).json()).toEqual({
        user_id: ids.member,
        role: 'viewer',
        restricted: true,
        folder_ids: [ids.eng],
        list_ids: [ids.inbox],
      } satisfies Schema<'MemberAccess'>);
      // The restriction counts at once: the member sees only the granted folder.
      const folders = (await send('GET', `/api/v1/workspaces/${ids.ws}/folders`, M.key('member'))).json();
      expect(folders.map((f: Schema<'Folder'>) => f.id)).toEqual([ids.eng]);
      expect((await patch(ids.member, { restricted: false, role: 'member' } satisfies Schema<'UpdateMember'>)).json()).toEqual(worldMember('member', 'member'));
    });

    it('the owner cannot be changed, not even by an empty PATCH or by the owner', async () => {
      for (const key of [M.key('owner'), M.key('admin')]) {
        expect(await answer(patch(ids.owner, {}, key))).toEqual({ status: 403, body: { error: 'The workspace owner cannot be changed' } });
      }
    });

    it('only the owner edits admins (an admin themself too, even an empty PATCH) or makes someone admin', async () => {
      expect(await answer(patch(ids.admin, {}, M.key('admin')))).toEqual({ status: 403, body: { error: 'Only the owner can manage admins' } });
      expect(await answer(patch(ids.viewer, { role: 'admin' }, M.key('admin')))).toEqual({ status: 403, body: { error: 'Only the owner can manage admins' } });
      expect((await patch(ids.viewer, { role: 'viewer' } satisfies Schema<'UpdateMember'>, M.key('admin'))).statusCode).toBe(200);
      expect((await patch(ids.admin, { role: 'admin' } satisfies Schema<'UpdateMember'>)).statusCode).toBe(200);
    });

    it('the result may not be a restricted admin: 400, after the 403s', async () => {
      expect(await answer(patch(ids.restricted, { role: 'admin' }))).toEqual({
        status: 400,
        body: { error: 'Only members and viewers can be access-restricted' },
      });
      expect(await answer(patch(ids.admin, { restricted: true }))).toEqual({
        status: 400,
        body: { error: 'Only members and viewers can be access-restricted' },
      });
      expect(await answer(patch(ids.restricted, { role: 'admin' }, M.key('admin')))).toEqual({
        status: 403,
        body: { error: 'Only the owner can manage admins' },
      });
      expect((await patch(ids.restricted, { role: 'admin', restricted: false } satisfies Schema<'UpdateMember'>)).json()).toEqual(
        worldMember('restricted', 'admin'),
      );
      expect((await patch(ids.restricted, { role: 'member', restricted: true } satisfies Schema<'UpdateMember'>)).json()).toEqual(
        worldMember('restricted', 'member'),
      );
    });

    it('checks ids left to right at step 4, the member at step 5 (before the role), the body after the role', async () => {
      expect(await answer(send('PATCH', `/api/v1/workspaces/x/members/y`, M.key('owner'), {}))).toEqual({
        status: 400,
        body: { error: 'Invalid workspace ID' },
      });
      expect(await answer(patch('y', {}))).toEqual({ status: 400, body: { error: 'Invalid user ID' } });
      expect(await answer(patch(ids.outsider, { role: 'x' }, M.key('viewer')))).toEqual({ status: 404, body: { error: 'Member not found' } });
      expect(await answer(patch(ids.member, { role: 'x' }, M.key('viewer')))).toEqual({ status: 403, body: { error: MANAGE } });
      expect(await answer(patch(ids.member, { role: 'x' }))).toEqual({ status: 400, body: { error: 'Invalid role. Must be one of: admin, member, viewer' } });
      expect(await answer(patch(ids.member, { folder_ids: [ids.o_folder] }))).toEqual({ status: 404, body: { error: 'Folder not found' } });
      expect(await answer(send('PATCH', `/api/v1/workspaces/${ids.other}/members/${ids.outsider}`, M.key('owner'), {}))).toEqual({
        status: 404,
        body: { error: 'Workspace not found' },
      });
    });
  });

  describe('access', () => {
    it('managers read anyone, a member only themself; an unknown member is 404 before the role', async () => {
      expect((await access(ids.restricted, M.key('admin'))).json()).toEqual({
        user_id: ids.restricted,
        role: 'member',
        restricted: true,
        folder_ids: [ids.eng],
        list_ids: [],
      } satisfies Schema<'MemberAccess'>);
      expect((await access(ids.restrictedViewer, M.key('restrictedViewer'))).json()).toEqual({
        user_id: ids.restrictedViewer,
        role: 'viewer',
        restricted: true,
        folder_ids: [],
        list_ids: [ids.inbox],
      } satisfies Schema<'MemberAccess'>);
      expect(await answer(access(ids.owner, M.key('viewer')))).toEqual({ status: 403, body: { error: MANAGE } });
      expect(await answer(access(ids.outsider, M.key('viewer')))).toEqual({ status: 404, body: { error: 'Member not found' } });
      expect((await access(ids.owner)).json()).toEqual({
        user_id: ids.owner,
        role: 'owner',
        restricted: false,
        folder_ids: [],
        list_ids: [],
      } satisfies Schema<'MemberAccess'>);
    });
  });

  describe('remove', () => {
    it('removes the membership, grants, assignments, people values and allowed users in one transaction; member.removed', async () => {
      const leaver = ids.leaver;
      expect((await add({ user_id: leaver, restricted: true, folder_ids: [ids.eng], list_ids: [ids.inbox] } satisfies Schema<'AddMember'>)).statusCode).toBe(
        201,
      );
      const [{ id: people }] = await q<{ id: number }>(
        `INSERT INTO custom_fields (workspace_id, name, type, position) VALUES ($1, 'Reviewers', 'people', 9) RETURNING id`,
        [ids.ws],
      );
      await q(`INSERT INTO custom_field_allowed_users (field_id, user_id, workspace_id) VALUES ($1, $2, $3), ($1, $4, $3)`, [
        people,
        leaver,
        ids.ws,
        ids.admin,
      ]);
      await q(`UPDATE custom_fields SET has_allowed_users = true WHERE id = $1`, [people]);
      await q(`INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value) VALUES ($1, $3, $4, $5), ($2, $3, $4, $6)`, [
        ids.t_backlog,
        ids.t_inbox,
        people,
        ids.ws,
        [ids.admin, leaver, ids.viewer].sort((a, b) => a - b).join(','),
        String(leaver),
      ]);
      await q(`INSERT INTO task_assignees (task_id, user_id, workspace_id) VALUES ($1, $2, $3), ($4, $2, $3)`, [ids.t_backlog, leaver, ids.ws, ids.t_inbox]);
      // The leaver's assignment in another workspace stays.
      await q(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [ids.other, leaver]);
      await q(`INSERT INTO task_assignees (task_id, user_id, workspace_id) VALUES ($1, $2, $3)`, [ids.o_task, leaver, ids.other]);

      const res = await remove(leaver, M.key('admin'));
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
      expect(await lastEvent()).toEqual({ type: 'member.removed', data: { user_id: leaver }, actor_user_id: ids.admin });
      expect(await q(`SELECT workspace_id FROM workspace_members WHERE user_id = $1`, [leaver])).toEqual([{ workspace_id: ids.other }]);
      expect(await q(`SELECT count(*)::int AS n FROM member_folder_grants WHERE user_id = $1`, [leaver])).toEqual([{ n: 0 }]);
      expect(await q(`SELECT count(*)::int AS n FROM member_list_grants WHERE user_id = $1`, [leaver])).toEqual([{ n: 0 }]);
      expect(await q(`SELECT task_id FROM task_assignees WHERE user_id = $1`, [leaver])).toEqual([{ task_id: ids.o_task }]);
      expect(await q(`SELECT task_id, value FROM task_custom_field_values WHERE field_id = $1`, [people])).toEqual([
        { task_id: ids.t_backlog, value: [ids.admin, ids.viewer].sort((a, b) => a - b).join(',') },
      ]);
      expect(await q(`SELECT allowed_user_ids FROM custom_fields WHERE id = $1`, [people])).toEqual([{ allowed_user_ids: [ids.admin] }]);
      expect(await answer(access(leaver))).toEqual({ status: 404, body: { error: 'Member not found' } });
      expect(await answer(remove(leaver))).toEqual({ status: 404, body: { error: 'Member not found' } });
    });

    it('anyone may remove themself; others need a manager; the owner cannot be removed; only the owner removes admins', async () => {
      expect(await answer(remove(ids.member, M.key('viewer')))).toEqual({ status: 403, body: { error: MANAGE } });
      expect(await answer(remove(ids.owner))).toEqual({ status: 403, body: { error: 'The workspace owner cannot be removed' } });
      expect(await answer(remove(ids.owner, M.key('admin')))).toEqual({ status: 403, body: { error: 'The workspace owner cannot be removed' } });
      expect(await answer(remove(ids.admin, 'svc_mbr_admin2'))).toEqual({ status: 403, body: { error: 'Only the owner can manage admins' } });
      expect((await remove(ids.admin2, 'svc_mbr_admin2')).statusCode).toBe(204);
      expect((await remove(ids.restrictedViewer, M.key('restrictedViewer'))).statusCode).toBe(204);
      // Gone: the next request of the removed member is a non-member's.
      expect(await answer(send('GET', `/api/v1/workspaces/${ids.ws}`, M.key('restrictedViewer')))).toEqual({
        status: 404,
        body: { error: 'Workspace not found' },
      });
    });
  });

  describe('events (D48)', () => {
    it('workspace and member events are visible to every member, restricted ones too', async () => {
      expect((await send('PATCH', `/api/v1/workspaces/${ids.ws}`, M.key('owner'), { icon: 'team' } satisfies Schema<'UpdateWorkspace'>)).statusCode).toBe(200);
      const res = await send(
        'GET',
        `/api/v1/workspaces/${ids.ws}/events?type=workspace.updated,member.added,member.updated,member.removed&limit=100`,
        M.key('restricted'),
      );
      expect(res.statusCode).toBe(200);
      const page: Schema<'EventPage'> = res.json();
      const types = new Set(page.data.map((e) => e.type));
      expect([...types].sort()).toEqual(['member.added', 'member.removed', 'member.updated', 'workspace.updated'] satisfies Array<Schema<'Event'>['type']>);
      const added = page.data.find((e) => e.type === 'member.added');
      expect(Object.keys(added?.data ?? {}).sort()).toEqual(['role', 'user_id'] satisfies Array<keyof Schema<'Event'>['data']>);
    });
  });

  describe('deleting a folder or a list removes what names it', () => {
    it("member grants, custom fields' granted folders and list overrides", async () => {
      const mk = async (sql: string, params: unknown[]) => (await q<{ id: number }>(sql, params))[0].id;
      const folder = await mk(`INSERT INTO folders (workspace_id, name, position) VALUES ($1, 'Doomed', 50) RETURNING id`, [ids.ws]);
      const list = await mk(`INSERT INTO lists (workspace_id, folder_id, name, position) VALUES ($1, $2, 'Doomed list', 50) RETURNING id`, [ids.ws, folder]);
      const loose = await mk(`INSERT INTO lists (workspace_id, name, position) VALUES ($1, 'Loose doomed', 51) RETURNING id`, [ids.ws]);
      expect((await patch(ids.restricted, { folder_ids: [ids.eng, folder], list_ids: [list, loose] } satisfies Schema<'UpdateMember'>)).statusCode).toBe(200);
      const field = await mk(
        `INSERT INTO custom_fields (workspace_id, name, type, position, is_scope_restricted) VALUES ($1, 'Scoped', 'text', 10, true) RETURNING id`,
        [ids.ws],
      );
      await q(`INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id) VALUES ($1, $2, $3), ($1, $4, $3)`, [field, folder, ids.ws, ids.eng]);
      await q(`INSERT INTO custom_field_list_overrides (field_id, list_id, workspace_id, access) VALUES ($1, $2, $3, 'granted'), ($1, $4, $3, 'denied')`, [
        field,
        loose,
        ids.ws,
        ids.backlog,
      ]);

      expect((await send('DELETE', `/api/v1/lists/${loose}`, M.key('owner'))).statusCode).toBe(204);
      expect((await send('DELETE', `/api/v1/folders/${folder}`, M.key('owner'))).statusCode).toBe(204);
      expect((await access(ids.restricted)).json()).toEqual({
        user_id: ids.restricted,
        role: 'member',
        restricted: true,
        folder_ids: [ids.eng],
        list_ids: [],
      } satisfies Schema<'MemberAccess'>);

      expect(await q(`SELECT granted_folder_ids, granted_list_ids, denied_list_ids FROM custom_fields WHERE id = $1`, [field])).toEqual([
        { granted_folder_ids: [ids.eng], granted_list_ids: [], denied_list_ids: [ids.backlog] },
      ]);
    });
  });
});
