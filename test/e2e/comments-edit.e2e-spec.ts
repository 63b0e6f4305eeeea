import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WORLD_NAMES, WorldRole } from '../setup/world';

/**
 * D44: PATCH and DELETE /api/v1/comments/:id. Update: `content` (D8, D9) by its author only and only
 * when it really changes, `resolved` by any writer; delete by the author or a manager; events
 * `comment.updated` and `comment.deleted` (D48). The checks every route makes (keys, scopes, the
 * comment id, non-members, the role messages, restriction) are the route matrix's.
 */

const { key } = roleKeys('ce');

describe('comment edits (D44)', () => {
  const { t, ids } = useRoleWorld('ce', (b) => ({
    workspaces: [
      b.team(
        'acme',
        {
          folders: [
            { ref: 'f_eng', name: 'Engineering', lists: [{ ref: 'l_eng', name: 'Backlog' }] },
            { ref: 'f_ops', name: 'Ops', lists: [{ ref: 'l_ops', name: 'Inbox' }] },
          ],
          tasks: [
            {
              ref: 't1',
              list: 'l_eng',
              title: 'Discussed',
              updated_at: '2025-01-01T00:00:00.000Z',
              comments: [
                { ref: 'by_member', user: b.user('member'), content: '<p>mine</p>', created_at: '2025-03-01T09:00:00.000Z' },
                { ref: 'by_admin', user: b.user('admin'), content: '<p>admin says</p>', created_at: '2025-03-01T10:00:00.000Z' },
                { ref: 'reply', user: b.user('owner'), content: '<p>threaded</p>', parent: 'by_admin', created_at: '2025-03-01T11:00:00.000Z' },
                { ref: 'del_own', user: b.user('member'), content: '<p>delete me</p>' },
                { ref: 'del_other', user: b.user('owner'), content: '<p>not yours</p>' },
                { ref: 'del_by_admin', user: b.user('member'), content: '<p>admin removes</p>' },
                { ref: 'by_restricted', user: b.user('restricted'), content: '<p>restricted</p>' },
              ],
            },
            { ref: 't_ops', list: 'l_ops', title: 'Elsewhere', comments: [{ ref: 'c_ops', user: b.user('member'), content: '<p>ops</p>' }] },
          ],
        },
        { restricted: { folders: ['f_eng'] } },
      ),
    ],
  }));

  const patch = (k: string, id: number | string, payload: unknown) =>
    t.inject({ method: 'PATCH', url: `/api/v1/comments/${id}`, headers: auth(k), payload: payload as object });
  const remove = (k: string, id: number | string) => t.inject({ method: 'DELETE', url: `/api/v1/comments/${id}`, headers: auth(k) });
  const events = async (commentId: number) =>
    (await t.db.ds.query(`SELECT type, data, actor_user_id FROM events WHERE type LIKE 'comment.%' AND data->>'comment_id' = $1 ORDER BY id`, [
      String(commentId),
    ])) as object[];
  /** A comment of t1 as the API answers it. */
  const comment = (ref: string, author: WorldRole, created_at: string, content: string, resolved: boolean, parent_comment_id: number | null = null) =>
    ({
      id: ids[ref],
      task_id: ids.t1,
      user_id: ids[author],
      name: WORLD_NAMES[author],
      avatar_url: null,
      content,
      parent_comment_id,
      resolved,
      created_at,
    }) satisfies Schema<'Comment'>;
  const byMember = (content: string, resolved: boolean) => comment('by_member', 'member', '2025-03-01T09:00:00.000Z', content, resolved);
  const taskState = async () => {
    const res = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t1}`, headers: auth(key('owner')) });
    const [{ u }] = await t.db.ds.query(`SELECT updated_at::text AS u FROM tasks WHERE id = $1`, [ids.t1]);
    return { etag: res.headers.etag, updatedAt: u as string };
  };

  describe('PATCH /api/v1/comments/:id', () => {
    it('the author changes the content (trimmed, sanitized): 200 with the comment object; comment.updated ["content"]; the task is untouched', async () => {
      const before = await taskState();
      const res = await patch(key('member'), ids.by_member, { content: '  <p>edited<script>x()</script></p> ' } satisfies Schema<'UpdateComment'>);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: ids.by_member,
        task_id: ids.t1,
        user_id: ids.member,
        name: WORLD_NAMES.member,
        avatar_url: null,
        content: '<p>edited</p>',
        parent_comment_id: null,
        resolved: false,
        created_at: '2025-03-01T09:00:00.000Z',
      } satisfies Schema<'Comment'>);
      expect(await events(ids.by_member)).toEqual([
        { type: 'comment.updated', data: { comment_id: ids.by_member, task_id: ids.t1, list_id: ids.l_eng, changes: ['content'] }, actor_user_id: ids.member },
      ]);
      expect(await taskState()).toEqual(before);
    });

    it('any writer resolves; resolved then shows in the comment and the listing; comment.updated ["resolved"]', async () => {
      const res = await patch(key('admin'), ids.by_member, { resolved: true } satisfies Schema<'UpdateComment'>);
      expect([res.statusCode, res.json()]).toEqual([200, byMember('<p>edited</p>', true)]);
      const listed = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t1}/comments`, headers: auth(key('viewer')) });
      expect(listed.json().find((c: Schema<'Comment'>) => c.id === ids.by_member)).toEqual(byMember('<p>edited</p>', true));
      const reopened = await patch(key('restricted'), ids.by_member, { resolved: false } satisfies Schema<'UpdateComment'>);
      expect([reopened.statusCode, reopened.json()]).toEqual([200, byMember('<p>edited</p>', false)]);
      expect((await events(ids.by_member)).slice(1)).toEqual([
        { type: 'comment.updated', data: { comment_id: ids.by_member, task_id: ids.t1, list_id: ids.l_eng, changes: ['resolved'] }, actor_user_id: ids.admin },
        {
          type: 'comment.updated',
          data: { comment_id: ids.by_member, task_id: ids.t1, list_id: ids.l_eng, changes: ['resolved'] },
          actor_user_id: ids.restricted,
        },
      ]);
    });

    it('both at once: changes ["content", "resolved"]; nothing that changes: 200, no event', async () => {
      const res = await patch(key('member'), ids.by_member, { content: '<p>both</p>', resolved: true } satisfies Schema<'UpdateComment'>);
      expect(res.json()).toEqual(byMember('<p>both</p>', true));
      const count = (await events(ids.by_member)).length;
      expect((await events(ids.by_member))[count - 1]).toMatchObject({ data: { changes: ['content', 'resolved'] } });
      for (const body of [{}, { content: '<p>both</p>' }, { resolved: true }, { content: null, resolved: null }, { other: 1 }]) {
        const same = await patch(key('member'), ids.by_member, body);
        expect([body, same.statusCode, same.json()]).toEqual([body, 200, byMember('<p>both</p>', true)]);
      }
      expect(await events(ids.by_member)).toHaveLength(count);
    });

    it('403 Only the author can edit a comment, only when the content really changes (after trimming and sanitizing)', async () => {
      const other = await patch(key('owner'), ids.by_admin, { content: '<p>owner rewrites</p>' } satisfies Schema<'UpdateComment'>);
      expect([other.statusCode, other.json()]).toEqual([403, { error: 'Only the author can edit a comment' }]);
      const withResolved = await patch(key('member'), ids.by_admin, { content: 'x', resolved: true });
      expect([withResolved.statusCode, withResolved.json()]).toEqual([403, { error: 'Only the author can edit a comment' }]);
      // The same content after D8 trimming and D9 sanitizing is no change: another writer may send it.
      const same = await patch(key('member'), ids.by_admin, {
        content: '  <p>admin says</p><script>1</script>  ',
        resolved: true,
      } satisfies Schema<'UpdateComment'>);
      expect([same.statusCode, same.json()]).toEqual([200, comment('by_admin', 'admin', '2025-03-01T10:00:00.000Z', '<p>admin says</p>', true)]);
      expect(await events(ids.by_admin)).toEqual([
        { type: 'comment.updated', data: { comment_id: ids.by_admin, task_id: ids.t1, list_id: ids.l_eng, changes: ['resolved'] }, actor_user_id: ids.member },
      ]);
    });

    it('a comment loaded with a parent keeps it', async () => {
      const res = await patch(key('owner'), ids.reply, { content: '<p>still threaded</p>' } satisfies Schema<'UpdateComment'>);
      expect([res.statusCode, res.json()]).toEqual([200, comment('reply', 'owner', '2025-03-01T11:00:00.000Z', '<p>still threaded</p>', false, ids.by_admin)]);
    });

    it.each([
      [{ content: '   ' }, 'content cannot be empty'],
      [{ content: '<script>x()</script>' }, 'content cannot be empty'],
      [{ content: 5 }, 'content must be a string'],
      [{ content: 'a'.repeat(100_001) } as object, 'content must be at most 100000 characters'],
      [{ content: 'a\u0000b' }, 'content must not contain NUL characters'],
      [{ resolved: 'true' }, 'resolved must be a boolean'],
      [{ resolved: 1 }, 'resolved must be a boolean'],
      // content before resolved; the body before the author rule
      [{ resolved: 'yes', content: '' }, 'content cannot be empty'],
    ])('400 for case %#: %s (before the author rule)', async (body, message) => {
      const res = await patch(key('owner'), ids.by_member, body);
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    });

    it('the role and the restriction come before the body: viewers, and restricted members outside their lists', async () => {
      const viewer = await patch(key('viewer'), ids.by_member, { content: '' });
      expect([viewer.statusCode, viewer.json()]).toEqual([403, { error: 'Viewers cannot edit comments' }]);
      const restricted = await patch(key('restricted'), ids.c_ops, { content: '' });
      expect([restricted.statusCode, restricted.json()]).toEqual([403, { error: 'Access denied' }]);
    });

    it('404 Comment not found; 400 Invalid comment ID', async () => {
      expect((await patch(key('owner'), 99999999, {})).json()).toEqual({ error: 'Comment not found' });
      expect((await patch(key('owner'), 'abc', {})).json()).toEqual({ error: 'Invalid comment ID' });
    });
  });

  describe('DELETE /api/v1/comments/:id', () => {
    const exists = async (id: number) => (await t.db.ds.query(`SELECT 1 FROM comments WHERE id = $1`, [id])).length === 1;

    it('the author deletes their comment: 204 without a body; comment.deleted; the task is untouched', async () => {
      const before = await taskState();
      const res = await remove(key('member'), ids.del_own);
      expect([res.statusCode, res.body, res.headers['content-type']]).toEqual([204, '', undefined]);
      expect(await exists(ids.del_own)).toBe(false);
      expect(await events(ids.del_own)).toEqual([
        { type: 'comment.deleted', data: { comment_id: ids.del_own, task_id: ids.t1, list_id: ids.l_eng }, actor_user_id: ids.member },
      ]);
      expect(await taskState()).toEqual(before);
      expect((await remove(key('member'), ids.del_own)).json()).toEqual({ error: 'Comment not found' });
    });

    it('403 Only the author or owners and admins can delete a comment for another writer; nothing deleted, no event', async () => {
      for (const role of ['member', 'restricted'] as const) {
        const res = await remove(key(role), ids.del_other);
        expect([role, res.statusCode, res.json()]).toEqual([role, 403, { error: 'Only the author or owners and admins can delete a comment' }]);
      }
      expect(await exists(ids.del_other)).toBe(true);
      expect(await events(ids.del_other)).toEqual([]);
    });

    it('a manager deletes anyone\u2019s comment', async () => {
      expect((await remove(key('admin'), ids.del_by_admin)).statusCode).toBe(204);
      expect(await exists(ids.del_by_admin)).toBe(false);
    });

    it('a restricted author deletes their own comment on a permitted task', async () => {
      expect((await remove(key('restricted'), ids.by_restricted)).statusCode).toBe(204);
    });

    it('viewers get 403 Viewers cannot delete comments', async () => {
      const res = await remove(key('viewer'), ids.del_other);
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'Viewers cannot delete comments' }]);
    });
  });
});
