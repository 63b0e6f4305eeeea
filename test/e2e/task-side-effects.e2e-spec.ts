import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * D39 side effects: only the task routes (update task, label add and remove) set a task's
 * `updated_at` and record `task.updated`. Writes of other routes that change what get task shows
 * (a status renamed, a label renamed or deleted, a status deleted) change its ETag but leave
 * `updated_at` as it was and record no task event; comments change neither.
 */

const { key } = roleKeys('se');
const STAMP = '2025-01-01 00:00:00+00';

describe('side effects on tasks (D39)', () => {
  const { t, ids } = useRoleWorld('se', (b) => ({
    workspaces: [
      b.team('acme', {
        statuses: [
          { ref: 's_todo', name: 'To Do', category: 'pending' },
          { ref: 's_done', name: 'Done', category: 'completed' },
          { ref: 's_gone', name: 'Going', category: 'in_progress' },
        ],
        labels: [
          { ref: 'l_red', name: 'Red' },
          { ref: 'l_blue', name: 'Blue' },
        ],
        folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
        tasks: [
          { ref: 'task', list: 'l', title: 'Watched', status: 's_gone', labels: ['l_red', 'l_blue'], updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'edited', list: 'l', title: 'Edited', updated_at: '2025-01-01T00:00:00.000Z' },
        ],
      }),
    ],
  }));

  const etag = async (id: number) => (await t.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: auth(key('owner')) })).headers.etag as string;
  const updatedAt = async (id: number): Promise<string> => (await t.db.ds.query(`SELECT updated_at::text AS u FROM tasks WHERE id = $1`, [id]))[0].u;
  const taskEvents = async () =>
    (await t.db.ds.query(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'task.%' AND workspace_id = $1`, [ids.acme]))[0].n as number;
  const stamp = async () => (await t.db.ds.query(`SELECT $1::timestamptz::text AS s`, [STAMP]))[0].s as string;

  it.each([
    ['a status renamed', () => ({ method: 'PATCH' as const, url: `/api/v1/statuses/${ids.s_gone}`, payload: { name: 'Still going' } })],
    ['a label renamed', () => ({ method: 'PATCH' as const, url: `/api/v1/labels/${ids.l_red}`, payload: { name: 'Crimson' } })],
    ['a label deleted', () => ({ method: 'DELETE' as const, url: `/api/v1/labels/${ids.l_blue}` })],
    ['a status deleted', () => ({ method: 'DELETE' as const, url: `/api/v1/statuses/${ids.s_gone}?replacement_status_id=${ids.s_todo}` })],
  ])('%s: the ETag changes; updated_at and the task events do not', async (_case, request) => {
    const before = await etag(ids.task);
    const events = await taskEvents();
    const res = await t.inject({ ...request(), headers: auth(key('owner')) });
    expect(res.statusCode).toBeLessThan(300);
    expect(await etag(ids.task)).not.toBe(before);
    expect(await updatedAt(ids.task)).toBe(await stamp());
    expect(await taskEvents()).toBe(events);
  });

  it('a comment written, edited, resolved and deleted: neither the ETag nor updated_at changes, no task event', async () => {
    const before = await etag(ids.task);
    const events = await taskEvents();
    const created = await t.inject({ method: 'POST', url: `/api/v1/tasks/${ids.task}/comments`, headers: auth(key('member')), payload: { content: 'hi' } });
    const id = created.json().id;
    await t.inject({ method: 'PATCH', url: `/api/v1/comments/${id}`, headers: auth(key('member')), payload: { content: 'edited', resolved: true } });
    await t.inject({ method: 'DELETE', url: `/api/v1/comments/${id}`, headers: auth(key('member')) });
    expect(await etag(ids.task)).toBe(before);
    expect(await updatedAt(ids.task)).toBe(await stamp());
    expect(await taskEvents()).toBe(events);
  });

  it('the task routes set updated_at and record task.updated: update task, label add and remove', async () => {
    let events = await taskEvents();
    for (const request of [
      { method: 'PATCH' as const, url: `/api/v1/tasks/${ids.edited}`, payload: { title: 'Edited again' } },
      { method: 'PUT' as const, url: `/api/v1/tasks/${ids.edited}/labels/${ids.l_red}` },
      { method: 'DELETE' as const, url: `/api/v1/tasks/${ids.edited}/labels/${ids.l_red}` },
    ]) {
      await t.db.ds.query(`UPDATE tasks SET updated_at = $2 WHERE id = $1`, [ids.edited, STAMP]);
      const res = await t.inject({ ...request, headers: auth(key('member')) });
      expect([request.method, res.statusCode]).toEqual([request.method, 200]);
      expect(await updatedAt(ids.edited)).not.toBe(await stamp());
      expect(await taskEvents()).toBe(events + 1);
      events += 1;
    }
  });
});
