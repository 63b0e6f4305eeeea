import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';
import { FIELDS } from './tasks-world';

/**
 * D43: PUT / DELETE /api/v1/tasks/:id/labels/:label_id (one label at a time), and PATCH
 * /api/v1/labels/:id (update label). The checks every route makes (keys, scopes, the task id,
 * non-members, the role messages, restriction) are the route matrix's.
 */

const { key } = roleKeys('tl');
const LABELS = Array.from({ length: 10 }, (_, i) => `many${i}`);

describe('task labels and label updates (D43)', () => {
  const { t, ids } = useRoleWorld('tl', (b) => ({
    workspaces: [
      b.team('acme', {
        labels: [
          { ref: 'red', name: 'Red', color: 'red' },
          { ref: 'blue', name: 'Blue', color: 'blue' },
          { ref: 'renamed', name: 'Renamed', color: 'gray' },
          { ref: 'taken', name: 'Taken' },
          ...LABELS.map((ref) => ({ ref, name: ref })),
        ],
        folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
        tasks: [
          { ref: 'task', list: 'l', title: 'Labelled', labels: ['blue'], updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'crowd', list: 'l', title: 'Crowd', updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'cond', list: 'l', title: 'Conditional', updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'shown', list: 'l', title: 'Shows the renamed label', labels: ['renamed'], updated_at: '2025-01-01T00:00:00.000Z' },
        ],
      }),
    ],
  }));

  const put = (k: string, task: number | string, label: number | string, extra: Record<string, unknown> = {}) =>
    t.inject({
      method: 'PUT',
      url: `/api/v1/tasks/${task}/labels/${label}`,
      headers: { ...auth(k), ...(extra.headers as object) },
      ...(extra.payload !== undefined ? { payload: extra.payload as string } : {}),
    });
  const del = (k: string, task: number | string, label: number | string, headers: Record<string, string> = {}) =>
    t.inject({ method: 'DELETE', url: `/api/v1/tasks/${task}/labels/${label}`, headers: { ...auth(k), ...headers } });
  const getTask = (id: number) => t.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: auth(key('owner')) });
  const labelIds = async (id: number) => ((await getTask(id)).json().labels as { id: number }[]).map((l) => l.id);
  const updatedAt = async (id: number): Promise<string> => (await t.db.ds.query(`SELECT updated_at::text AS u FROM tasks WHERE id = $1`, [id]))[0].u;
  const events = async (taskId: number) =>
    (await t.db.ds.query(`SELECT type, data FROM events WHERE data->>'task_id' = $1 ORDER BY id`, [String(taskId)])) as {
      type: string;
      data: Record<string, unknown>;
    }[];

  describe('PUT /api/v1/tasks/:id/labels/:label_id', () => {
    it('adds the label: 200 with the update-task answer (no labels) and the ETag of the get-task body; task.updated with changes ["label_ids"]; updated_at set', async () => {
      const before = await updatedAt(ids.task);
      const res = await put(key('member'), ids.task, ids.red);
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(FIELDS.write);
      expect(res.json().id).toBe(ids.task);
      const after = await getTask(ids.task);
      expect(res.headers.etag).toBe(after.headers.etag);
      expect(
        after
          .json()
          .labels.map((l: { id: number }) => l.id)
          .sort(),
      ).toEqual([ids.blue, ids.red].sort());
      expect(await updatedAt(ids.task)).not.toBe(before);
      expect(await events(ids.task)).toEqual([
        { type: 'task.updated', data: { task_id: ids.task, list_id: ids.l, previous_list_id: ids.l, parent_id: null, changes: ['label_ids'] } },
      ]);
    });

    it('adding a label the task has: 200, the same ETag, no event, updated_at unchanged', async () => {
      const etag = (await getTask(ids.task)).headers.etag;
      const before = await updatedAt(ids.task);
      const count = (await events(ids.task)).length;
      const res = await put(key('member'), ids.task, ids.red);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(etag);
      expect(await updatedAt(ids.task)).toBe(before);
      expect(await events(ids.task)).toHaveLength(count);
    });

    it('never reads a body: invalid JSON, a JSON array and text/plain are ignored', async () => {
      for (const [type, payload] of [
        ['application/json', '{not json'],
        ['application/json', '[1]'],
        ['text/plain', 'hello'],
      ]) {
        const res = await put(key('member'), ids.task, ids.red, { headers: { 'content-type': type }, payload });
        expect([type, payload, res.statusCode]).toEqual([type, payload, 200]);
      }
    });

    it('a body over 1 MiB is still 413 (before authentication)', async () => {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/v1/tasks/${ids.task}/labels/${ids.red}`,
        headers: { 'content-type': 'application/json' },
        payload: `{"x":"${'a'.repeat(1024 * 1024)}"}`,
      });
      expect([res.statusCode, res.json()]).toEqual([413, { error: 'Request body is too large' }]);
    });

    it('400 Invalid label ID for a malformed label id; the task id is checked first', async () => {
      for (const bad of ['abc', '1.5', '-1', '0x1']) {
        const res = await put(key('member'), ids.task, bad);
        expect([bad, res.statusCode, res.json()]).toEqual([bad, 400, { error: 'Invalid label ID' }]);
      }
      const both = await put(key('member'), 'abc', 'abc');
      expect([both.statusCode, both.json()]).toEqual([400, { error: 'Invalid task ID' }]);
      const removeBoth = await del(key('member'), 'abc', 'abc');
      expect([removeBoth.statusCode, removeBoth.json()]).toEqual([400, { error: 'Invalid task ID' }]);
    });

    it('404 Label not found for a label of another workspace or none, after the task and the role (step 8)', async () => {
      for (const label of [ids.bug, ids.o_bug, 99999999, 0]) {
        expect((await put(key('member'), ids.task, label)).json()).toEqual({ error: 'Label not found' });
        expect((await del(key('member'), ids.task, label)).json()).toEqual({ error: 'Label not found' });
      }
      const viewer = await put(key('viewer'), ids.task, 99999999);
      expect([viewer.statusCode, viewer.json()]).toEqual([403, { error: 'Viewers cannot edit tasks' }]);
      const noTask = await put(key('member'), 99999999, 99999999);
      expect([noTask.statusCode, noTask.json()]).toEqual([404, { error: 'Task not found' }]);
    });

    it('keeps every label of concurrent adds of different labels (each request writes its own link under the task row lock)', async () => {
      const answers = await Promise.all(LABELS.map((ref) => put(key('member'), ids.crowd, ids[ref])));
      expect(answers.map((a) => a.statusCode)).toEqual(LABELS.map(() => 200));
      expect((await labelIds(ids.crowd)).sort()).toEqual(LABELS.map((ref) => ids[ref]).sort());
      expect((await events(ids.crowd)).map((e) => e.data.changes)).toEqual(LABELS.map(() => ['label_ids']));
      // And concurrent removes of all of them: none left, one event each.
      const removed = await Promise.all(LABELS.map((ref) => del(key('member'), ids.crowd, ids[ref])));
      expect(removed.map((a) => a.statusCode)).toEqual(LABELS.map(() => 200));
      expect(await labelIds(ids.crowd)).toEqual([]);
      expect(await events(ids.crowd)).toHaveLength(2 * LABELS.length);
    });
  });

  describe('DELETE /api/v1/tasks/:id/labels/:label_id', () => {
    it('removes the label: 200, the ETag of the get-task body, task.updated ["label_ids"]; removing it again changes nothing', async () => {
      const count = (await events(ids.task)).length;
      const res = await del(key('admin'), ids.task, ids.blue);
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(FIELDS.write);
      const after = await getTask(ids.task);
      expect(res.headers.etag).toBe(after.headers.etag);
      expect(after.json().labels.map((l: { id: number }) => l.id)).not.toContain(ids.blue);
      const evs = await events(ids.task);
      expect(evs).toHaveLength(count + 1);
      expect(evs[count].data.changes).toEqual(['label_ids']);
      const before = await updatedAt(ids.task);
      const again = await del(key('admin'), ids.task, ids.blue);
      expect([again.statusCode, again.headers.etag]).toEqual([200, after.headers.etag]);
      expect(await updatedAt(ids.task)).toBe(before);
      expect(await events(ids.task)).toHaveLength(count + 1);
    });
  });

  describe('If-Match (as update task, D36)', () => {
    it('412 Precondition failed and nothing changes for a stale or weak tag; 200 for the current tag or *', async () => {
      const etag = (await getTask(ids.cond)).headers.etag as string;
      await put(key('owner'), ids.cond, ids.red);
      const stale = await put(key('owner'), ids.cond, ids.blue, { headers: { 'if-match': etag } });
      expect([stale.statusCode, stale.json(), stale.headers.etag]).toEqual([412, { error: 'Precondition failed' }, undefined]);
      expect(await labelIds(ids.cond)).toEqual([ids.red]);
      const current = (await getTask(ids.cond)).headers.etag as string;
      const weak = await del(key('owner'), ids.cond, ids.red, { 'if-match': `W/${current}` });
      expect(weak.statusCode).toBe(412);
      const ok = await del(key('owner'), ids.cond, ids.red, { 'if-match': current });
      expect(ok.statusCode).toBe(200);
      expect(await labelIds(ids.cond)).toEqual([]);
      const any = await put(key('owner'), ids.cond, ids.blue, { headers: { 'if-match': '*' } });
      expect(any.statusCode).toBe(200);
    });

    it('a no-op under a matching If-Match answers 200; the label 404 comes before the 412', async () => {
      const current = (await getTask(ids.cond)).headers.etag as string;
      const noop = await put(key('owner'), ids.cond, ids.blue, { headers: { 'if-match': current } });
      expect([noop.statusCode, noop.headers.etag]).toEqual([200, current]);
      const missing = await put(key('owner'), ids.cond, 99999999, { headers: { 'if-match': '"stale"' } });
      expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'Label not found' }]);
    });

    it('of two requests with the same If-Match, the second gets 412', async () => {
      const current = (await getTask(ids.cond)).headers.etag as string;
      const answers = await Promise.all([ids.many0, ids.many1].map((label) => put(key('owner'), ids.cond, label, { headers: { 'if-match': current } })));
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 412]);
    });
  });

  describe('PATCH /api/v1/labels/:id', () => {
    const patch = (k: string, id: number | string, payload: unknown) =>
      t.inject({ method: 'PATCH', url: `/api/v1/labels/${id}`, headers: auth(k), payload: payload as object });
    const labelEvents = async (id: number) =>
      (await t.db.ds.query(`SELECT type, data FROM events WHERE type LIKE 'label.%' AND data->>'label_id' = $1 ORDER BY id`, [String(id)])) as object[];

    it('updates name and color: 200 with the label; label.updated with the changed names; a task shows the new name, its ETag changes, its updated_at does not (D39)', async () => {
      const etag = (await getTask(ids.shown)).headers.etag;
      const before = await updatedAt(ids.shown);
      const res = await patch(key('admin'), ids.renamed, { name: '  Renamed again ', color: '' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id: ids.renamed, workspace_id: ids.acme, name: 'Renamed again', color: '', created_at: expect.any(String) });
      expect(await labelEvents(ids.renamed)).toEqual([{ type: 'label.updated', data: { label_id: ids.renamed, changes: ['color', 'name'] } }]);
      const after = await getTask(ids.shown);
      expect(after.json().labels).toEqual([{ id: ids.renamed, name: 'Renamed again', color: '' }]);
      expect(after.headers.etag).not.toBe(etag);
      expect(await updatedAt(ids.shown)).toBe(before);
      expect(await t.db.ds.query(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'task.%' AND data->>'task_id' = $1`, [String(ids.shown)])).toEqual([
        { n: 0 },
      ]);
    });

    it('no event when nothing changes; null name counts as not sent; null color clears; its own name in another case is allowed', async () => {
      const count = (await labelEvents(ids.renamed)).length;
      expect((await patch(key('owner'), ids.renamed, { name: 'Renamed again' })).statusCode).toBe(200);
      expect((await patch(key('owner'), ids.renamed, {})).statusCode).toBe(200);
      expect((await patch(key('owner'), ids.renamed, { name: null })).json().name).toBe('Renamed again');
      expect(await labelEvents(ids.renamed)).toHaveLength(count);
      expect((await patch(key('owner'), ids.renamed, { color: null })).json().color).toBeNull();
      expect((await patch(key('owner'), ids.renamed, { name: 'RENAMED AGAIN' })).json().name).toBe('RENAMED AGAIN');
      expect((await labelEvents(ids.renamed)).slice(count)).toEqual([
        { type: 'label.updated', data: { label_id: ids.renamed, changes: ['color'] } },
        { type: 'label.updated', data: { label_id: ids.renamed, changes: ['name'] } },
      ]);
    });

    it.each([
      [{ name: '   ' }, 'name cannot be empty'],
      [{ name: 5 }, 'name must be a string'],
      [{ name: 'x'.repeat(256) }, 'name must be at most 255 characters'],
      [{ color: 5 }, 'color must be a string or null'],
      [{ color: ['red'] }, 'color must be a string or null'],
      [{ color: 'x'.repeat(65) }, 'color must be at most 64 characters'],
      // name before color
      [{ color: 5, name: '' }, 'name cannot be empty'],
    ])('400 for %p: %s', async (body, message) => {
      const res = await patch(key('owner'), ids.renamed, body);
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    });

    it('a color of 64 code points is accepted (astral characters count once)', async () => {
      const res = await patch(key('owner'), ids.renamed, { color: '😀'.repeat(64) });
      expect([res.statusCode, res.json().color]).toEqual([200, '😀'.repeat(64)]);
    });

    it('409 A label with this name already exists (ignoring case), after the body', async () => {
      const res = await patch(key('owner'), ids.renamed, { name: 'taken' });
      expect([res.statusCode, res.json()]).toEqual([409, { error: 'A label with this name already exists' }]);
      const bad = await patch(key('owner'), ids.renamed, { name: 'taken', color: 1 });
      expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'color must be a string or null' }]);
    });

    it('403 Only owners and admins can edit labels before the body, for members and viewers', async () => {
      for (const role of ['member', 'viewer', 'restricted'] as const) {
        const res = await patch(key(role), ids.renamed, { name: '' });
        expect([role, res.statusCode, res.json()]).toEqual([role, 403, { error: 'Only owners and admins can edit labels' }]);
      }
    });
  });
});

describe('task labels with REQUIRE_IF_MATCH=true (D36, D43)', () => {
  const required = roleKeys('tq');
  const { t, ids } = useRoleWorld('tq', undefined, { env: { REQUIRE_IF_MATCH: 'true' } });

  it('428 If-Match is required without If-Match, after the label 404; with it, 200', async () => {
    const url = `/api/v1/tasks/${ids.t_backlog}/labels/${ids.bug}`;
    const missing = await t.inject({ method: 'PUT', url, headers: auth(required.key('member')) });
    expect([missing.statusCode, missing.json(), missing.headers.etag]).toEqual([428, { error: 'If-Match is required' }, undefined]);
    const unknown = await t.inject({ method: 'PUT', url: `/api/v1/tasks/${ids.t_backlog}/labels/99999999`, headers: auth(required.key('member')) });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'Label not found' }]);
    const removed = await t.inject({ method: 'DELETE', url, headers: auth(required.key('member')) });
    expect(removed.statusCode).toBe(428);
    const ok = await t.inject({ method: 'PUT', url, headers: { ...auth(required.key('member')), 'if-match': '*' } });
    expect(ok.statusCode).toBe(200);
  });
});
