import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * D43: DELETE /api/v1/statuses/:id with `replacement_status_id`, the default-status fallback, the
 * last-completed rule (also under concurrency: a delete racing a delete or a category change),
 * `status.deleted`, and D39's side effects (tasks' ETags change, their updated_at does not, no
 * task event). The checks every route makes are the route matrix's.
 */

const { key } = roleKeys('sd');
const ROUNDS = 20;
const STAMP = '2025-01-01 00:00:00+00';

describe('delete status (D43)', () => {
  const { t, ids } = useRoleWorld('sd', (b) => ({
    workspaces: [
      b.team('acme', {
        statuses: [
          { ref: 'a_todo', name: 'To Do', category: 'pending', position: 1 },
          { ref: 'a_later', name: 'Later', category: 'pending', position: 2 },
          { ref: 'a_doing', name: 'Doing', category: 'in_progress', position: 3 },
          { ref: 'a_old', name: 'Old', category: 'in_progress', position: 4 },
          { ref: 'a_done', name: 'Done', category: 'completed', position: 5 },
          { ref: 'a_shipped', name: 'Shipped', category: 'completed', position: 6 },
          { ref: 'a_dropped', name: 'Dropped', category: 'cancelled', position: 7 },
        ],
        folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
        tasks: [
          { ref: 'on_old', list: 'l', title: 'On old', status: 'a_old', updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'on_old2', list: 'l', title: 'On old too', status: 'a_old', updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'on_doing', list: 'l', title: 'On doing', status: 'a_doing', updated_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'on_todo', list: 'l', title: 'On todo', status: 'a_todo', updated_at: '2025-01-01T00:00:00.000Z' },
        ],
      }),
      b.team('bare', {
        statuses: [
          { ref: 'b_doing', name: 'Doing', category: 'in_progress' },
          { ref: 'b_done', name: 'Done', category: 'completed' },
        ],
        folders: [{ ref: 'bf', name: 'F', lists: [{ ref: 'bl', name: 'L' }] }],
        tasks: [{ ref: 'on_b_doing', list: 'bl', title: 'x', status: 'b_doing' }],
      }),
      b.team('race', { statuses: [{ ref: 'r_todo', name: 'To Do', category: 'pending' }] }),
    ],
  }));

  const del = (k: string, id: number | string, query = '', extra: { payload?: string; headers?: Record<string, string> } = {}) =>
    t.inject({
      method: 'DELETE',
      url: `/api/v1/statuses/${id}${query}`,
      headers: { ...auth(k), ...extra.headers },
      ...(extra.payload !== undefined ? { payload: extra.payload } : {}),
    });
  const statusOf = async (task: number): Promise<number | null> => (await t.db.ds.query(`SELECT status_id FROM tasks WHERE id = $1`, [task]))[0].status_id;
  const exists = async (id: number) => (await t.db.ds.query(`SELECT 1 FROM statuses WHERE id = $1`, [id])).length === 1;
  const etag = async (task: number) => (await t.inject({ method: 'GET', url: `/api/v1/tasks/${task}`, headers: auth(key('owner')) })).headers.etag;

  it('204 without a body; the tasks take the replacement; their ETags change, their updated_at and events do not (D39); status.deleted', async () => {
    const before = await etag(ids.on_old);
    const res = await del(key('admin'), ids.a_old, `?replacement_status_id=${ids.a_doing}&other=1`);
    expect([res.statusCode, res.body]).toEqual([204, '']);
    expect(await exists(ids.a_old)).toBe(false);
    expect([await statusOf(ids.on_old), await statusOf(ids.on_old2)]).toEqual([ids.a_doing, ids.a_doing]);
    expect(await etag(ids.on_old)).not.toBe(before);
    expect(await t.db.ds.query(`SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND updated_at <> $2`, [[ids.on_old, ids.on_old2], STAMP])).toEqual([
      { n: 0 },
    ]);
    expect(await t.db.ds.query(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'task.%' AND workspace_id = $1`, [ids.acme])).toEqual([{ n: 0 }]);
    expect(await t.db.ds.query(`SELECT type, data, actor_user_id FROM events WHERE type = 'status.deleted'`)).toEqual([
      { type: 'status.deleted', data: { status_id: ids.a_old }, actor_user_id: ids.admin },
    ]);
  });

  it('without a replacement, the tasks take the default status (first pending by position, the deleted one excluded)', async () => {
    expect((await del(key('owner'), ids.a_doing)).statusCode).toBe(204);
    expect([await statusOf(ids.on_old), await statusOf(ids.on_doing)]).toEqual([ids.a_todo, ids.a_todo]);
    expect((await del(key('owner'), ids.a_todo)).statusCode).toBe(204);
    expect([await statusOf(ids.on_todo), await statusOf(ids.on_old)]).toEqual([ids.a_later, ids.a_later]);
  });

  it('with no pending status left, the tasks have none', async () => {
    expect((await del(key('owner'), ids.b_doing)).statusCode).toBe(204);
    expect(await statusOf(ids.on_b_doing)).toBeNull();
    const task = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.on_b_doing}`, headers: auth(key('owner')) });
    expect(task.json().status).toBeNull();
  });

  it.each([
    ['?replacement_status_id=1&replacement_status_id=2', 'replacement_status_id must be given only once'],
    ['?replacement_status_id=abc', 'replacement_status_id must be a valid numeric ID'],
    ['?replacement_status_id=', 'replacement_status_id must be a valid numeric ID'],
    ['?replacement_status_id', 'replacement_status_id must be a valid numeric ID'],
    ['?replacement_status_id=1.5', 'replacement_status_id must be a valid numeric ID'],
    ['?replacement_status_id=-1', 'replacement_status_id must be a valid numeric ID'],
    ['?replacement_status_id=%201', 'replacement_status_id must be a valid numeric ID'],
  ])('400 for %s: %s (step 7, before the replacement is looked up)', async (query, message) => {
    const res = await del(key('owner'), ids.a_dropped, query);
    expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    expect(await exists(ids.a_dropped)).toBe(true);
  });

  it('404 Status not found in this workspace for a replacement of another workspace or none (step 8)', async () => {
    for (const other of [ids.b_done, ids.done, ids.o_todo, 99999999, 0]) {
      const res = await del(key('owner'), ids.a_dropped, `?replacement_status_id=${other}`);
      expect([res.statusCode, res.json()]).toEqual([404, { error: 'Status not found in this workspace' }]);
    }
    expect(await exists(ids.a_dropped)).toBe(true);
  });

  it('step 9 in order: the deleted status itself, then the last completed status', async () => {
    const self = await del(key('owner'), ids.b_done, `?replacement_status_id=${ids.b_done}`);
    expect([self.statusCode, self.json()]).toEqual([400, { error: 'replacement_status_id cannot be the deleted status' }]);
    const last = await del(key('owner'), ids.b_done);
    expect([last.statusCode, last.json()]).toEqual([400, { error: 'At least one completed status must remain in the workspace' }]);
    expect(await exists(ids.b_done)).toBe(true);
    // One of two completed statuses may go.
    expect((await del(key('owner'), ids.a_shipped)).statusCode).toBe(204);
    expect((await del(key('owner'), ids.a_done)).json()).toEqual({ error: 'At least one completed status must remain in the workspace' });
  });

  it('the role comes before the query; any body is ignored (no 400 or 415)', async () => {
    const member = await del(key('member'), ids.a_dropped, '?replacement_status_id=abc');
    expect([member.statusCode, member.json()]).toEqual([403, { error: 'Only owners and admins can delete statuses' }]);
    const res = await del(key('owner'), ids.a_dropped, '', { payload: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(204);
  });

  describe('the last completed status under concurrency', () => {
    const create = async (name: string, category: string) => {
      const res = await t.inject({ method: 'POST', url: '/api/v1/statuses', headers: auth(key('owner')), payload: { workspace_id: ids.race, name, category } });
      expect(res.statusCode).toBe(201);
      return res.json().id as number;
    };
    const completedLeft = async () =>
      (await t.db.ds.query(`SELECT count(*)::int AS n FROM statuses WHERE workspace_id = $1 AND category = 'completed'`, [ids.race]))[0].n as number;

    it(`two deletes of the last two completed statuses at once: one 204, one 400, one left (${ROUNDS} rounds)`, async () => {
      let kept = await create('Seed done', 'completed');
      for (let i = 0; i < ROUNDS; i++) {
        const added = await create(`Done ${i}`, 'completed');
        const answers = await Promise.all([del(key('owner'), kept), del(key('admin'), added)]);
        expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 400]);
        expect(answers.find((a) => a.statusCode === 400)!.json()).toEqual({ error: 'At least one completed status must remain in the workspace' });
        expect(await completedLeft()).toBe(1);
        kept = (await exists(kept)) ? kept : added;
      }
    });

    it(`a delete racing a category change of the other completed status: one succeeds, one left (${ROUNDS} rounds)`, async () => {
      let kept = (await t.db.ds.query(`SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'completed'`, [ids.race]))[0].id as number;
      for (let i = 0; i < ROUNDS; i++) {
        const added = await create(`Finished ${i}`, 'completed');
        const [first, second] = i % 2 ? [kept, added] : [added, kept];
        const answers = await Promise.all([
          del(key('owner'), first),
          t.inject({ method: 'PATCH', url: `/api/v1/statuses/${second}`, headers: auth(key('admin')), payload: { category: 'in_progress' } }),
        ]);
        // Exactly one of the two went through (204 for the delete, 200 for the change).
        expect([answers[0].statusCode === 204, answers[1].statusCode === 200].filter(Boolean)).toHaveLength(1);
        expect(answers.filter((a) => a.statusCode === 400).map((a) => a.json())).toEqual([
          { error: 'At least one completed status must remain in the workspace' },
        ]);
        expect(await completedLeft()).toBe(1);
        kept = (await t.db.ds.query(`SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'completed'`, [ids.race]))[0].id;
      }
    });
  });
});
