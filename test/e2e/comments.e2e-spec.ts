import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';
import { roleKeys, useRoleWorld, WORLD_NAMES } from '../setup/world';

/**
 * Comments: GET and POST /api/v1/tasks/:id/comments.
 * spec: List comments, Create comment; D1, D5, D8, D9, D23, D30. The checks
 * every route makes (keys, scopes, ids, non-members, the D2 role messages)
 * are the route matrix's (route-matrix.e2e-spec.ts).
 */

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const COMMENT_KEYS = ['avatar_url', 'content', 'created_at', 'id', 'name', 'parent_comment_id', 'resolved', 'task_id', 'user_id'] satisfies Array<
  keyof Schema<'Comment'>
>;
const { key, keyOnly } = roleKeys('cm');
const OWNER_AVATAR = 'https://img.test/owner.png';
const MEMBER_AVATAR = 'https://img.test/member.png';

describe('comments', () => {
  const { t, ids } = useRoleWorld('cm', (b) => ({
    users: { owner: { avatar_url: OWNER_AVATAR }, member: { avatar_url: MEMBER_AVATAR } },
    workspaces: [
      b.team(
        'acme',
        {
          folders: [
            { ref: 'c_eng', name: 'Engineering', lists: [{ ref: 'c_backlog', name: 'Backlog' }] },
            {
              ref: 'c_ops',
              name: 'Ops',
              lists: [
                { ref: 'c_inbox', name: 'Inbox' },
                { ref: 'granted_inbox', name: 'Granted inbox' },
              ],
            },
          ],
          lists: [{ ref: 'c_loose', name: 'No folder' }],
          tasks: [
            {
              ref: 't1',
              list: 'c_backlog',
              title: 'Ship it',
              comments: [
                // created_at decides the order (D23), not insertion order; c2 and c3 tie and go by id.
                { ref: 'c1', user: b.user('admin'), content: '<p>on it</p>', resolved: true, created_at: '2025-03-02T10:00:00.000Z' },
                { ref: 'c2', user: b.user('member'), content: '<p>first</p>', created_at: '2025-03-01T09:00:00.000Z' },
                { ref: 'c3', user: b.user('owner'), content: 'same time', created_at: '2025-03-01T09:00:00.000Z', parent: 'c2' },
              ],
            },
            { ref: 't_out', list: 'c_inbox', title: 'In a list of a folder not granted' },
            { ref: 't_granted', list: 'granted_inbox', title: 'In a granted list' },
            { ref: 't_loose', list: 'c_loose', title: 'In a list without folder' },
            { ref: 't_nolist', title: 'Not in a list' },
            { ref: 't_empty', list: 'c_backlog', title: 'No comments yet' },
            { ref: 't_post', list: 'c_backlog', title: 'Posted on' },
            { ref: 't_bulk', list: 'c_backlog', title: 'Many comments' },
          ],
        },
        { restricted: { folders: ['c_eng'], lists: ['granted_inbox'] }, restrictedViewer: { folders: ['c_eng'] } },
      ),
    ],
  }));

  const get = (key: string | null, taskId: string | number) =>
    t.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}/comments`, headers: key ? auth(key) : {} });
  const post = (key: string | null, taskId: string | number, payload: unknown) =>
    t.inject({ method: 'POST', url: `/api/v1/tasks/${taskId}/comments`, headers: key ? auth(key) : {}, payload: payload as object });

  /** The fixture's comments of t1 as the listing shows them, oldest first. */
  const t1Comments = () =>
    [
      {
        id: ids.c2,
        task_id: ids.t1,
        user_id: ids.member,
        name: WORLD_NAMES.member,
        avatar_url: MEMBER_AVATAR,
        content: '<p>first</p>',
        parent_comment_id: null,
        resolved: false,
        created_at: '2025-03-01T09:00:00.000Z',
      },
      {
        id: ids.c3,
        task_id: ids.t1,
        user_id: ids.owner,
        name: WORLD_NAMES.owner,
        avatar_url: OWNER_AVATAR,
        content: 'same time',
        parent_comment_id: ids.c2,
        resolved: false,
        created_at: '2025-03-01T09:00:00.000Z',
      },
      {
        id: ids.c1,
        task_id: ids.t1,
        user_id: ids.admin,
        name: WORLD_NAMES.admin,
        avatar_url: null,
        content: '<p>on it</p>',
        parent_comment_id: null,
        resolved: true,
        created_at: '2025-03-02T10:00:00.000Z',
      },
    ] satisfies Array<Schema<'Comment'>>;

  describe('GET /api/v1/tasks/:id/comments', () => {
    it.each([
      ['owner', key('owner')],
      ['admin', key('admin')],
      ['member', key('member')],
      ['viewer', key('viewer')],
      ['restricted member, task in a granted folder', key('restricted')],
      ['restricted viewer, task in a granted folder', key('restrictedViewer')],
      ['key with comments:read only', keyOnly('comments:read')],
    ])('lists every comment, oldest first by created_at then id, for the %s (D1, D23)', async (_role, k) => {
      const res = await get(k, ids.t1);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(t1Comments());
      for (const c of res.json()) expect(Object.keys(c).sort()).toEqual(COMMENT_KEYS);
    });

    it('returns [] for a task without comments', async () => {
      const res = await get(key('member'), ids.t_empty);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });

    it('accepts the id as written digits of a number with leading zeros (D5)', async () => {
      const res = await get(key('owner'), `000${ids.t1}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toHaveLength(3);
    });

    it('shows a task in a granted list to a restricted member (D29)', async () => {
      const res = await get(key('restricted'), ids.t_granted);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });

    it.each([
      ['a list of a folder not granted', 't_out'],
      ['a list without folder, not granted', 't_loose'],
      ['no list', 't_nolist'],
    ])('answers 403 Access denied to a restricted member for a task in %s (D30)', async (_case, task) => {
      for (const k of [key('restricted'), key('restrictedViewer')]) {
        const res = await get(k, ids[task]);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'Access denied' });
      }
    });

    it('lets unrestricted members read tasks with no list', async () => {
      const res = await get(key('viewer'), ids.t_nolist);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });
  });

  describe('POST /api/v1/tasks/:id/comments', () => {
    it.each([
      ['owner', 'owner', OWNER_AVATAR],
      ['admin', 'admin', null],
      ['member', 'member', MEMBER_AVATAR],
      ['restricted member, task in a granted folder', 'restricted', null],
    ] as const)('creates a comment as the %s, authored by the key user (spec: Create comment)', async (_role, user, avatar) => {
      const name = WORLD_NAMES[user];
      const res = await post(key(user), ids.t_post, { content: `<p>from ${user}</p>` } satisfies Schema<'CreateComment'>);
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(COMMENT_KEYS);
      expect(body).toEqual({
        id: expect.any(Number),
        task_id: ids.t_post,
        user_id: ids[user],
        name,
        avatar_url: avatar,
        content: `<p>from ${user}</p>`,
        parent_comment_id: null,
        resolved: false,
        created_at: expect.stringMatching(TS),
      } satisfies Schema<'Comment'>);
      // It is stored: the listing shows it, last (newest).
      const list = (await get(key('owner'), ids.t_post)).json();
      expect(list[list.length - 1]).toEqual(body);
    });

    it('creates on a task in a granted list for a restricted member, and on a task with no list for others', async () => {
      const created = (task: number, user: 'restricted' | 'member', avatar: string | null) =>
        ({
          id: expect.any(Number),
          task_id: task,
          user_id: ids[user],
          name: WORLD_NAMES[user],
          avatar_url: avatar,
          content: 'ok',
          parent_comment_id: null,
          resolved: false,
          created_at: expect.stringMatching(TS),
        }) satisfies Schema<'Comment'>;
      const granted = await post(key('restricted'), ids.t_granted, { content: 'ok' } satisfies Schema<'CreateComment'>);
      expect(granted.statusCode).toBe(201);
      expect(granted.json()).toEqual(created(ids.t_granted, 'restricted', null));
      const noList = await post(key('member'), ids.t_nolist, { content: 'ok' } satisfies Schema<'CreateComment'>);
      expect(noList.statusCode).toBe(201);
      expect(noList.json()).toEqual(created(ids.t_nolist, 'member', MEMBER_AVATAR));
    });

    it('always creates a top-level, unresolved comment, whatever the body says (spec; D7 unknown fields ignored)', async () => {
      const res = await post(key('member'), ids.t_post, { content: 'x', resolved: true, parent_comment_id: ids.c1, user_id: ids.owner, task_id: ids.t1 });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        id: expect.any(Number),
        task_id: ids.t_post,
        user_id: ids.member,
        name: WORLD_NAMES.member,
        avatar_url: MEMBER_AVATAR,
        content: 'x',
        parent_comment_id: null,
        resolved: false,
        created_at: expect.stringMatching(TS),
      } satisfies Schema<'Comment'>);
    });

    it('orders new comments after older ones in the listing (D23)', async () => {
      const first = (await post(key('member'), ids.t_empty, { content: 'one' })).json();
      const second = (await post(key('admin'), ids.t_empty, { content: 'two' })).json();
      const list = await get(key('viewer'), ids.t_empty);
      expect(list.json()).toEqual([first, second]);
      expect(second.id).toBeGreaterThan(first.id);
    });

    it('trims the content (D8)', async () => {
      const res = await post(key('member'), ids.t_post, { content: '  \n <p>trimmed</p>\t ' });
      expect(res.statusCode).toBe(201);
      expect(res.json().content).toBe('<p>trimmed</p>');
    });

    it('sanitizes the content: scripts, styles, iframes, handlers and javascript: URLs go (D9)', async () => {
      const res = await post(key('member'), ids.t_post, {
        content:
          '<p onclick="steal()">Hi <b>there</b> <a href="javascript:alert(1)">bad</a> <a href="https://ok.test/">good</a></p>' +
          '<script>alert(1)</script><style>p{}</style><iframe src="https://evil.test"></iframe><img src="https://img.test/x.png" onerror="x()">',
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().content).toBe('<p>Hi <b>there</b> <a>bad</a> <a href="https://ok.test/">good</a></p><img src="https://img.test/x.png" />');
    });

    it('keeps the allowlisted tags of D9', async () => {
      const html =
        '<h1>T</h1><p>a<br />b <strong>s</strong> <em>e</em> <i>i</i> <u>u</u> <s>x</s> <span>sp</span></p>' +
        '<ul><li>1</li></ul><ol><li>2</li></ol><blockquote>q</blockquote><pre><code>c</code></pre><a href="mailto:a@b.test">m</a>';
      const res = await post(key('member'), ids.t_post, { content: html });
      expect(res.statusCode).toBe(201);
      expect(res.json().content).toBe(html);
    });

    it.each([
      ['missing', {}],
      ['null', { content: null }],
      ['a number', { content: 42 }],
      ['an object', { content: { html: '<p>x</p>' } }],
      ['an array', { content: ['x'] }],
      ['empty', { content: '' }],
      ['whitespace only', { content: ' \n\t ' }],
      ['empty after sanitizing', { content: '<script>alert(1)</script>' }],
      ['whitespace after sanitizing', { content: ' <style>p{}</style>  <iframe></iframe> ' }],
    ])('answers 400 content is required when content is %s (spec; D8, D9)', async (_case, payload) => {
      const res = await post(key('member'), ids.t_post, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'content is required' });
    });

    it('answers 400 content is required for a POST without a body', async () => {
      const res = await t.inject({ method: 'POST', url: `/api/v1/tasks/${ids.t_post}/comments`, headers: auth(key('member')) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'content is required' });
    });

    it('accepts 100,000 characters and refuses 100,001 (D8)', async () => {
      const ok = await post(key('member'), ids.t_post, { content: '  ' + 'a'.repeat(100_000) + '  ' });
      expect(ok.statusCode).toBe(201);
      expect(ok.json().content).toHaveLength(100_000);
      const tooLong = await post(key('member'), ids.t_post, { content: 'a'.repeat(100_001) });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.json()).toEqual({ error: 'content must be at most 100000 characters' });
    });

    it.each([
      ['a list of a folder not granted', 't_out'],
      ['a list without folder, not granted', 't_loose'],
      ['no list', 't_nolist'],
    ])('answers 403 Access denied to a restricted member for a task in %s, even with a bad body (D30, D3)', async (_case, task) => {
      for (const payload of [{ content: 'x' }, {}]) {
        const res = await post(key('restricted'), ids[task], payload);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'Access denied' });
      }
    });

    it('answers the body errors of D7 (bad JSON, array, wrong content type)', async () => {
      const url = `/api/v1/tasks/${ids.t_post}/comments`;
      const bad = await t.inject({ method: 'POST', url, headers: { ...auth(key('member')), 'content-type': 'application/json' }, payload: '{"content":' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: 'Invalid JSON body' });
      const array = await t.inject({ method: 'POST', url, headers: { ...auth(key('member')), 'content-type': 'application/json' }, payload: '["x"]' });
      expect(array.statusCode).toBe(400);
      expect(array.json()).toEqual({ error: 'Request body must be a JSON object' });
      const text = await t.inject({ method: 'POST', url, headers: { ...auth(key('member')), 'content-type': 'text/plain' }, payload: 'hello' });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toEqual({ error: 'Content-Type must be application/json' });
    });
  });

  describe('SQL round trips (no N+1)', () => {
    it('lists 3 or 40 comments with the same statements, and creates one in a single statement after the access check', async () => {
      await t.db.ds.query(
        `INSERT INTO comments (workspace_id, task_id, user_id, content)
         SELECT $1, $2, $3, 'bulk ' || g FROM generate_series(1, 40) g`,
        [ids.acme, ids.t_bulk, ids.member],
      );
      // Counted at the pg driver (test/setup/query-counter.ts, a pass-through spy).
      const counter = new QueryCounter().install();
      const statements = async (send: () => Promise<{ statusCode: number }>, status: number) => {
        const { result, statements: sent } = await counter.record(send);
        expect(result.statusCode).toBe(status);
        return sent.length;
      };
      try {
        const few = await statements(() => get(key('owner'), ids.t1), 200);
        const lots = await statements(() => get(key('owner'), ids.t_bulk), 200);
        expect(lots).toBe(few);
        // The key is in the guard's cache by now. Listing: the access check and the listing in one
        // statement; creating: the access check, then the insert returning the comment with its author.
        expect(few).toBe(1);
        expect(await statements(() => post(key('owner'), ids.t_bulk, { content: 'counted' }), 201)).toBe(2);
      } finally {
        counter.uninstall();
      }
    });
  });

  describe('deleting a task (D16)', () => {
    it('deletes its comments with it', async () => {
      const task = ids.t_loose;
      expect((await post(key('owner'), task, { content: 'soon gone' })).statusCode).toBe(201);
      await t.db.ds.query('DELETE FROM tasks WHERE id = $1', [task]);
      expect(await t.db.ds.query('SELECT id FROM comments WHERE task_id = $1', [task])).toEqual([]);
      const res = await post(key('owner'), task, { content: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Task not found' });
    });
  });
});
