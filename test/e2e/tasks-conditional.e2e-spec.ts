import { createHash } from 'crypto';

import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * D36: the ETag of a task is derived from the get-task body the caller would
 * receive now; If-None-Match gives 304 on get task (and HEAD); If-Match on
 * update and delete is checked atomically with the write (412), and with
 * REQUIRE_IF_MATCH=true its absence is 428.
 */

const OWNER = 'svc_cond_owner';
const RESTRICTED = 'svc_cond_restricted';
const VIEWER = 'svc_cond_viewer';
const FAILED = { error: 'Precondition failed' } satisfies Schema<'Error'>;
const REQUIRED = { error: 'If-Match is required' } satisfies Schema<'Error'>;

const tagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url')}"`;

const world = {
  users: [
    { ref: 'owner', email: 'owner@cond.test', name: 'Owner' },
    { ref: 'restricted', email: 'restricted@cond.test', name: 'Restricted' },
    { ref: 'viewer', email: 'viewer@cond.test', name: 'Viewer' },
  ],
  api_keys: [
    { user: 'owner', key: OWNER, scopes: [...SCOPES] },
    { user: 'restricted', key: RESTRICTED, scopes: [...SCOPES] },
    { user: 'viewer', key: VIEWER, scopes: [...SCOPES] },
  ],
  workspaces: [
    {
      ref: 'ws',
      name: 'Cond',
      slug: 'cond',
      owner: 'owner',
      members: [
        { user: 'restricted', role: 'member' as const, restricted: true, lists: ['open'] },
        { user: 'viewer', role: 'viewer' as const },
      ],
      labels: [{ ref: 'bug', name: 'Bug' }],
      folders: [
        {
          ref: 'f',
          name: 'F',
          lists: [
            { ref: 'open', name: 'Open' },
            { ref: 'hidden', name: 'Hidden' },
          ],
        },
      ],
      tasks: [
        { ref: 't1', list: 'open', title: 'Parent', labels: ['bug'] },
        { ref: 's_hidden', list: 'hidden', parent: 't1', title: 'Hidden subtask' },
        { ref: 't2', list: 'open', title: 'Second' },
        { ref: 't3', list: 'open', title: 'Third' },
      ],
    },
  ],
};

describe('ETag and conditional requests on tasks (D36)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world as never);
  });
  afterAll(async () => {
    await t.close();
  });

  // HEAD is Fastify's twin of the GET route, which the document describes (the response checker knows only GET).
  const get = (id: number, key = OWNER, headers: Record<string, string | string[]> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    (method === 'HEAD' ? t.app.inject.bind(t.app) : t.inject)({ method, url: `/api/v1/tasks/${id}`, headers: { ...auth(key), ...headers } });
  const patch = (id: number, payload: Schema<'UpdateTask'>, headers: Record<string, string | string[]> = {}, key = OWNER) =>
    t.inject({ method: 'PATCH', url: `/api/v1/tasks/${id}`, headers: { ...auth(key), ...headers }, payload });
  const title = async (id: number) => (await t.db.ds.query(`SELECT title FROM tasks WHERE id = $1`, [id]))[0]?.title;

  describe('ETag', () => {
    it('get task: the SHA-256 of the body bytes, base64url, quoted; with Cache-Control private, no-cache', async () => {
      const res = await get(ids.t2);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(tagOf(res.body));
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{1,64}"$/);
      expect(res.headers['cache-control']).toBe('private, no-cache');
    });

    it('is the hash of the body as UTF-8 bytes when the task holds non-ASCII text, the same tag its update gave', async () => {
      const updated = await patch(ids.t2, { title: 'Caf\u00e9 \u{1F600} \u2028 \u65e5\u672c' });
      const res = await get(ids.t2);
      expect(res.json().title).toBe('Caf\u00e9 \u{1F600} \u2028 \u65e5\u672c');
      expect(res.headers.etag).toBe(`"${createHash('sha256').update(res.rawPayload).digest('base64url')}"`);
      expect(updated.headers.etag).toBe(res.headers.etag);
    });

    it('differs between callers who see different bodies (a subtask hidden from a restricted member)', async () => {
      const owner = await get(ids.t1);
      const restricted = await get(ids.t1, RESTRICTED);
      expect(owner.json().subtasks).toHaveLength(1);
      expect(restricted.json().subtasks).toHaveLength(0);
      expect(restricted.headers.etag).toBe(tagOf(restricted.body));
      expect(restricted.headers.etag).not.toBe(owner.headers.etag);
    });

    it('changes with an embedded label; comments, no-op PATCHes and A\u2192B\u2192A edits leave it', async () => {
      const before = (await get(ids.t1)).headers.etag;
      await t.inject({
        method: 'POST',
        url: `/api/v1/tasks/${ids.t1}/comments`,
        headers: auth(OWNER),
        payload: { content: 'Hello' } satisfies Schema<'CreateComment'>,
      });
      expect((await get(ids.t1)).headers.etag).toBe(before);
      expect((await patch(ids.t1, { title: 'Parent' })).statusCode).toBe(200);
      expect((await get(ids.t1)).headers.etag).toBe(before);
      await patch(ids.t1, { title: 'B' });
      expect((await get(ids.t1)).headers.etag).not.toBe(before);
      await patch(ids.t1, { title: 'Parent' });
      expect((await get(ids.t1)).headers.etag).toBe(before);
      await t.db.ds.query(`UPDATE labels SET name = 'Defect' WHERE id = $1`, [ids.bug]);
      expect((await get(ids.t1)).headers.etag).not.toBe(before);
      await t.db.ds.query(`UPDATE labels SET name = 'Bug' WHERE id = $1`, [ids.bug]);
    });

    it('create (201) and update (200) carry the tag of the get-task body after the write, not of their own body', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(OWNER),
        payload: { list_id: ids.open, title: 'Tagged', label_ids: [ids.bug] } satisfies Schema<'CreateTask'>,
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id;
      const read = await get(id);
      expect(created.headers.etag).toBe(read.headers.etag);
      expect(created.headers.etag).not.toBe(tagOf(created.body));
      const updated = await patch(id, { title: 'Tagged again' });
      expect(updated.statusCode).toBe(200);
      expect(updated.headers.etag).toBe((await get(id)).headers.etag);
      expect(updated.headers.etag).not.toBe(tagOf(updated.body));
      // A restricted member's update gets the tag of the body they see.
      const mine = await patch(ids.t1, { title: 'Parent' }, {}, RESTRICTED);
      expect(mine.headers.etag).toBe((await get(ids.t1, RESTRICTED)).headers.etag);
    });
  });

  describe('If-None-Match on get task', () => {
    it('a current tag, a list holding it, a weak form of it or `*`: 304 with ETag and Cache-Control, no body, no Content-Type, no Content-Length', async () => {
      const { headers } = await get(ids.t2);
      const etag = headers.etag as string;
      for (const value of [etag, `"nope", ${etag}`, `W/${etag}`, '*', ['"nope"', etag]]) {
        const res = await get(ids.t2, OWNER, { 'if-none-match': value as string });
        expect({ status: res.statusCode, body: res.body, etag: res.headers.etag, cache: res.headers['cache-control'] }).toEqual({
          status: 304,
          body: '',
          etag,
          cache: 'private, no-cache',
        });
        expect(res.headers['content-type']).toBeUndefined();
        expect(res.headers['content-length']).toBeUndefined();
      }
    });

    it('HEAD answers as GET without a body: 304 when current, else 200 with the ETag', async () => {
      const { headers } = await get(ids.t2);
      const notModified = await get(ids.t2, OWNER, { 'if-none-match': headers.etag as string }, 'HEAD');
      expect([notModified.statusCode, notModified.body, notModified.headers.etag]).toEqual([304, '', headers.etag]);
      const ok = await get(ids.t2, OWNER, {}, 'HEAD');
      expect([ok.statusCode, ok.body, ok.headers.etag]).toEqual([200, '', headers.etag]);
    });

    it('another tag, an unparsable value or `w/` (case-sensitive): 200 with the body', async () => {
      const { headers, body } = await get(ids.t2);
      const etag = headers.etag as string;
      for (const value of ['"other"', etag.slice(1, -1), `w/${etag}`, `${etag} junk`, '']) {
        const res = await get(ids.t2, OWNER, { 'if-none-match': value });
        expect([res.statusCode, res.body, res.headers.etag]).toEqual([200, body, etag]);
      }
    });

    it('is evaluated after authentication and access: their 401, 403 and 404 win, without ETag', async () => {
      const anonymous = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t2}`, headers: { 'if-none-match': '*' } });
      expect([anonymous.statusCode, anonymous.json()]).toEqual([401, { error: 'API key required' } satisfies Schema<'Error'>]);
      const denied = await get(ids.s_hidden, RESTRICTED, { 'if-none-match': '*' });
      expect([denied.statusCode, denied.json(), denied.headers.etag]).toEqual([403, { error: 'Access denied' } satisfies Schema<'Error'>, undefined]);
      const missing = await get(99999999, OWNER, { 'if-none-match': '*' });
      expect([missing.statusCode, missing.json(), missing.headers.etag]).toEqual([404, { error: 'Task not found' } satisfies Schema<'Error'>, undefined]);
    });
  });

  describe('If-Match on update and delete task', () => {
    it('update with the current tag (alone, in a list, or `*`) writes; a stale one is 412 and nothing changes, without ETag', async () => {
      const etag = (await get(ids.t3)).headers.etag as string;
      const stale = await patch(ids.t3, { title: 'First change' }, { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"' });
      expect([stale.statusCode, stale.json(), stale.headers.etag]).toEqual([412, FAILED, undefined]);
      expect(await title(ids.t3)).toBe('Third');
      const ok = await patch(ids.t3, { title: 'First change' }, { 'if-match': `"x", ${etag}` });
      expect(ok.statusCode).toBe(200);
      const old = await patch(ids.t3, { title: 'Second change' }, { 'if-match': etag });
      expect([old.statusCode, old.json()]).toEqual([412, FAILED]);
      const star = await patch(ids.t3, { title: 'Second change' }, { 'if-match': '*' });
      expect(star.statusCode).toBe(200);
      expect(await title(ids.t3)).toBe('Second change');
      const fresh = await patch(ids.t3, { title: 'Third' }, { 'if-match': star.headers.etag as string });
      expect(fresh.statusCode).toBe(200);
    });

    it('a weak tag, an unparsable value or a tag in another spelling never match (412); an empty value counts as absent', async () => {
      const etag = (await get(ids.t3)).headers.etag as string;
      for (const value of [`W/${etag}`, etag.slice(1, -1), `${etag} junk`, '**']) {
        const res = await patch(ids.t3, { title: 'Never' }, { 'if-match': value });
        expect([res.statusCode, res.json()]).toEqual([412, FAILED]);
      }
      expect(await title(ids.t3)).toBe('Third');
      expect((await patch(ids.t3, { title: 'Third' }, { 'if-match': '' })).statusCode).toBe(200);
    });

    it('is checked after the body and the ids in it (D3 steps 7 and 8), and a missing task is 404, never 412', async () => {
      const bad = await patch(ids.t3, { title: '' }, { 'if-match': '"stale"' });
      expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'title cannot be empty' }]);
      const status = await patch(ids.t3, { status_id: 99999999 }, { 'if-match': '"stale"' });
      expect([status.statusCode, status.json()]).toEqual([404, { error: 'Status not found in this workspace' }]);
      const viewer = await patch(ids.t3, { title: 'x' }, { 'if-match': '"stale"' }, VIEWER);
      expect([viewer.statusCode, viewer.json()]).toEqual([403, { error: 'Viewers cannot edit tasks' }]);
      const missing = await patch(99999999, { title: 'x' }, { 'if-match': '*' });
      expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'Task not found' }]);
    });

    it('two PATCHes racing with the same tag: one wins, the other gets 412', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(OWNER),
        payload: { list_id: ids.open, title: 'Race' } satisfies Schema<'CreateTask'>,
      });
      const id = created.json().id;
      const etag = created.headers.etag as string;
      // Hold the row so that both requests have read the tag before either writes.
      const runner = t.db.ds.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      let answers: { statusCode: number }[];
      try {
        await runner.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [id]);
        const racing = [patch(id, { title: 'Winner A' }, { 'if-match': etag }), patch(id, { title: 'Winner B' }, { 'if-match': etag })];
        // Both statements are waiting on the row lock once two backends wait for it.
        for (;;) {
          const [{ n }] = await t.db.ds.query(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.datname = current_database()`,
          );
          if (n >= 2) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        await runner.commitTransaction();
        answers = await Promise.all(racing);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 412]);
      const winner = answers.find((a) => a.statusCode === 200) as unknown as { json(): Schema<'TaskWrite'> };
      expect(await title(id)).toBe(winner.json().title);
    });

    it('delete with a stale tag: 412 and the task stays; with the current one: 204', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(OWNER),
        payload: { list_id: ids.open, title: 'Doomed' } satisfies Schema<'CreateTask'>,
      });
      const id = created.json().id;
      const del = (value: string) => t.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: { ...auth(OWNER), 'if-match': value } });
      const stale = await del(`W/${created.headers.etag}`);
      expect([stale.statusCode, stale.json(), stale.headers.etag]).toEqual([412, FAILED, undefined]);
      expect(await title(id)).toBe('Doomed');
      const ok = await del(created.headers.etag as string);
      expect([ok.statusCode, ok.body]).toEqual([204, '']);
      const gone = await del('*');
      expect([gone.statusCode, gone.json()]).toEqual([404, { error: 'Task not found' }]);
    });

    it('is ignored on other routes', async () => {
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/v1/folders/${ids.f}`,
        headers: { ...auth(OWNER), 'if-match': '"stale"' },
        payload: { name: 'F' } satisfies Schema<'UpdateFolder'>,
      });
      expect(res.statusCode).toBe(200);
      const list = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/tasks`, headers: { ...auth(OWNER), 'if-none-match': '*' } });
      expect(list.statusCode).toBe(200);
    });
  });
});

describe('REQUIRE_IF_MATCH=true (D36)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp({ env: { REQUIRE_IF_MATCH: 'true' } });
    ids = await loadFixture(t.db.ds, world as never);
  });
  afterAll(async () => {
    await t.close();
  });

  it('update and delete without If-Match (or with an empty one): 428 without ETag, after the body checks; with it, as usual', async () => {
    for (const headers of [{}, { 'if-match': '' }]) {
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/v1/tasks/${ids.t2}`,
        headers: { ...auth(OWNER), ...headers },
        payload: { title: 'No tag' } satisfies Schema<'UpdateTask'>,
      });
      expect([res.statusCode, res.json(), res.headers.etag]).toEqual([428, REQUIRED, undefined]);
      const del = await t.inject({ method: 'DELETE', url: `/api/v1/tasks/${ids.t2}`, headers: { ...auth(OWNER), ...headers } });
      expect([del.statusCode, del.json()]).toEqual([428, REQUIRED]);
    }
    const bad = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.t2}`, headers: auth(OWNER), payload: { title: 5 } });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'title must be a string' }]);
    const missing = await t.inject({ method: 'DELETE', url: '/api/v1/tasks/99999999', headers: auth(OWNER) });
    expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'Task not found' }]);
    const stale = await t.inject({
      method: 'PATCH',
      url: `/api/v1/tasks/${ids.t2}`,
      headers: { ...auth(OWNER), 'if-match': '"stale"' },
      payload: { title: 'x' } satisfies Schema<'UpdateTask'>,
    });
    expect([stale.statusCode, stale.json()]).toEqual([412, FAILED]);
    const ok = await t.inject({
      method: 'PATCH',
      url: `/api/v1/tasks/${ids.t2}`,
      headers: { ...auth(OWNER), 'if-match': '*' },
      payload: { title: 'Tagged' } satisfies Schema<'UpdateTask'>,
    });
    expect(ok.statusCode).toBe(200);
    // Other routes need no If-Match.
    expect(
      (await t.inject({ method: 'PATCH', url: `/api/v1/folders/${ids.f}`, headers: auth(OWNER), payload: { name: 'F' } satisfies Schema<'UpdateFolder'> }))
        .statusCode,
    ).toBe(200);
  });
});
