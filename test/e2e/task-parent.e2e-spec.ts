import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * D45: `parent_id` on update task (check order: 400 at step 7 after the other fields, 404 at step 8
 * after list_id's and status_id's, If-Match, then step 9: own parent, then the one-level rule), the
 * one-level rule under concurrency, `changes` naming `parent_id` and both parents' ETags; malformed
 * `parent_id` on create (D14).
 */

const { key } = roleKeys('tp');
const ROUNDS = 12;

describe('re-parenting tasks (D45)', () => {
  const { t, ids } = useRoleWorld('tp', (b) => ({
    workspaces: [
      b.team(
        'acme',
        {
          statuses: [
            { ref: 'open', name: 'Open', category: 'pending' },
            { ref: 'closed', name: 'Closed', category: 'completed' },
          ],
          folders: [
            {
              ref: 'f1',
              name: 'F1',
              lists: [
                { ref: 'l1', name: 'L1' },
                { ref: 'l2', name: 'L2' },
              ],
            },
            { ref: 'f2', name: 'F2', lists: [{ ref: 'hidden', name: 'Hidden' }] },
          ],
          tasks: [
            { ref: 'p1', list: 'l1', title: 'Parent one' },
            { ref: 'p2', list: 'l1', title: 'Parent two' },
            { ref: 'child', list: 'l2', title: 'Child', parent: 'p1' },
            { ref: 'loner', list: 'l2', title: 'Loner' },
            { ref: 'has_kids', list: 'l1', title: 'Has kids' },
            { ref: 'kid', list: 'l1', title: 'Kid', parent: 'has_kids' },
            { ref: 'secret', list: 'hidden', title: 'In a hidden list' },
            ...Array.from({ length: ROUNDS }, (_, i) => [
              { ref: `a${i}`, list: 'l1', title: `A${i}` },
              { ref: `b${i}`, list: 'l1', title: `B${i}` },
              { ref: `c${i}`, list: 'l1', title: `C${i}` },
            ]).flat(),
          ],
        },
        { restricted: { folders: ['f1'] } },
      ),
    ],
  }));

  const patch = (k: string, id: number, payload: object, headers: Record<string, string> = {}) =>
    t.inject({ method: 'PATCH', url: `/api/v1/tasks/${id}`, headers: { ...auth(k), ...headers }, payload });
  const getTask = (id: number, k = key('owner')) => t.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: auth(k) });
  const parentOf = async (id: number): Promise<number | null> => (await t.db.ds.query(`SELECT parent_id FROM tasks WHERE id = $1`, [id]))[0].parent_id;
  const subtaskIds = async (id: number) => ((await getTask(id)).json().subtasks as { id: number }[]).map((s) => s.id);
  const nested = async () =>
    (
      await t.db.ds.query(`SELECT count(*)::int AS n FROM tasks c JOIN tasks p ON p.id = c.parent_id WHERE p.parent_id IS NOT NULL AND c.workspace_id = $1`, [
        ids.acme,
      ])
    )[0].n;

  describe('on create (D14)', () => {
    it.each([['abc'], [1.5], ['1.0'], ['-1'], [true], [{}], [[]], ['']])('400 parent_id must be a valid numeric ID for %p', async (value) => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(key('member')),
        payload: { list_id: ids.l1, title: 'New', parent_id: value },
      });
      expect([res.statusCode, res.json()]).toEqual([400, { error: 'parent_id must be a valid numeric ID' }]);
    });

    it('after the other body fields; null is top-level', async () => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(key('member')),
        payload: { list_id: ids.l1, title: '', parent_id: 'abc' },
      });
      expect(res.json()).toEqual({ error: 'title is required' });
      const top = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(key('member')),
        payload: { list_id: ids.l1, title: 'Top', parent_id: null },
      });
      expect(top.statusCode).toBe(201);
      expect(await parentOf(top.json().id)).toBeNull();
    });
  });

  describe('on update', () => {
    it('makes a task a subtask: 200, task.updated ["parent_id"], the subtask keeps its list, both parents\u2019 ETags change; null makes it top-level', async () => {
      const tags = async () => [(await getTask(ids.p1)).headers.etag, (await getTask(ids.p2)).headers.etag];
      const before = await tags();
      const res = await patch(key('member'), ids.child, { parent_id: ids.p2 });
      expect(res.statusCode).toBe(200);
      expect(res.json().list_id).toBe(ids.l2);
      expect(await subtaskIds(ids.p2)).toEqual([ids.child]);
      expect(await subtaskIds(ids.p1)).toEqual([]);
      const after = await tags();
      expect(after[0]).not.toBe(before[0]);
      expect(after[1]).not.toBe(before[1]);
      const events = await t.db.ds.query(`SELECT data FROM events WHERE type = 'task.updated' AND data->>'task_id' = $1 ORDER BY id`, [String(ids.child)]);
      expect(events).toEqual([{ data: { task_id: ids.child, list_id: ids.l2, previous_list_id: ids.l2, parent_id: ids.p2, changes: ['parent_id'] } }]);
      // As a string of digits too; the same parent again changes nothing (no event).
      expect((await patch(key('member'), ids.child, { parent_id: String(ids.p2) })).statusCode).toBe(200);
      const top = await patch(key('member'), ids.child, { parent_id: null });
      expect(top.statusCode).toBe(200);
      expect(await parentOf(ids.child)).toBeNull();
      const all = await t.db.ds.query(`SELECT data FROM events WHERE type = 'task.updated' AND data->>'task_id' = $1 ORDER BY id`, [String(ids.child)]);
      expect(all.map((e: { data: { changes: string[]; parent_id: number | null } }) => [e.data.changes, e.data.parent_id])).toEqual([
        [['parent_id'], ids.p2],
        [['parent_id'], null],
      ]);
    });

    it('an update without parent_id leaves a subtask where it is', async () => {
      const res = await patch(key('member'), ids.kid, { title: 'Kid renamed' });
      expect(res.statusCode).toBe(200);
      expect(await parentOf(ids.kid)).toBe(ids.has_kids);
    });

    it.each([['abc'], [1.5], [true], [{}], ['']])('400 parent_id must be a valid numeric ID for %p', async (value) => {
      const res = await patch(key('member'), ids.loner, { parent_id: value });
      expect([res.statusCode, res.json()]).toEqual([400, { error: 'parent_id must be a valid numeric ID' }]);
    });

    it('the 400 comes after the other fields (step 7) and before any 404 (step 8)', async () => {
      expect((await patch(key('member'), ids.loner, { title: 5, parent_id: 'x' })).json()).toEqual({ error: 'title must be a string' });
      expect((await patch(key('member'), ids.loner, { label_ids: 'x', parent_id: 'x' })).json()).toEqual({ error: 'label_ids must be an array' });
      expect((await patch(key('member'), ids.loner, { status_id: 99999999, list_id: 99999999, parent_id: 'x' })).json()).toEqual({
        error: 'parent_id must be a valid numeric ID',
      });
    });

    it('404 Parent task not found after list_id\u2019s and status_id\u2019s 404s; for another workspace\u2019s task; for a restricted member, a task outside their lists', async () => {
      expect((await patch(key('member'), ids.loner, { list_id: 99999999, parent_id: 99999999 })).json()).toEqual({ error: 'List not found in this workspace' });
      expect((await patch(key('member'), ids.loner, { status_id: 99999999, parent_id: 99999999 })).json()).toEqual({
        error: 'Status not found in this workspace',
      });
      for (const parent of [99999999, 0, ids.o_task, ids.t_backlog]) {
        const res = await patch(key('member'), ids.loner, { parent_id: parent });
        expect([parent, res.statusCode, res.json()]).toEqual([parent, 404, { error: 'Parent task not found' }]);
      }
      const restricted = await patch(key('restricted'), ids.loner, { parent_id: ids.secret });
      expect([restricted.statusCode, restricted.json()]).toEqual([404, { error: 'Parent task not found' }]);
      expect((await patch(key('member'), ids.loner, { parent_id: ids.secret })).statusCode).toBe(200);
      expect((await patch(key('member'), ids.loner, { parent_id: null })).statusCode).toBe(200);
    });

    it('step 9: own parent first, then the one-level rule (a parent that is a subtask, a task that has subtasks); nothing changes', async () => {
      expect((await patch(key('member'), ids.has_kids, { parent_id: ids.has_kids })).json()).toEqual({ error: 'A task cannot be its own parent' });
      expect((await patch(key('member'), ids.loner, { parent_id: ids.kid })).json()).toEqual({ error: 'Subtasks cannot have subtasks' });
      expect((await patch(key('member'), ids.has_kids, { parent_id: ids.p1 })).json()).toEqual({ error: 'Subtasks cannot have subtasks' });
      const title = await patch(key('member'), ids.has_kids, { title: 'Renamed', parent_id: ids.p1 });
      expect([title.statusCode, title.json()]).toEqual([400, { error: 'Subtasks cannot have subtasks' }]);
      expect((await getTask(ids.has_kids)).json().title).toBe('Has kids');
      expect(await parentOf(ids.has_kids)).toBeNull();
    });

    it('If-Match is checked after the 404s and before step 9 (D36)', async () => {
      expect((await patch(key('member'), ids.loner, { parent_id: 99999999 }, { 'if-match': '"stale"' })).json()).toEqual({ error: 'Parent task not found' });
      const res = await patch(key('member'), ids.loner, { parent_id: ids.loner }, { 'if-match': '"stale"' });
      expect([res.statusCode, res.json()]).toEqual([412, { error: 'Precondition failed' }]);
      const etag = (await getTask(ids.loner)).headers.etag as string;
      expect((await patch(key('member'), ids.loner, { parent_id: ids.loner }, { 'if-match': etag })).json()).toEqual({
        error: 'A task cannot be its own parent',
      });
    });

    it(`A under B and B under A at once: one succeeds, the other gets 400 (${ROUNDS} rounds); never two levels`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = [ids[`a${i}`], ids[`b${i}`]];
        const answers = await Promise.all([patch(key('member'), a, { parent_id: b }), patch(key('admin'), b, { parent_id: a })]);
        expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 400]);
        expect(answers.find((r) => r.statusCode === 400)!.json()).toEqual({ error: 'Subtasks cannot have subtasks' });
        expect(await nested()).toBe(0);
      }
    });

    it(`a re-parenting racing a new subtask of the same task, and C under A racing A under B (${ROUNDS} rounds): never two levels`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b, c] = [ids[`a${i}`], ids[`b${i}`], ids[`c${i}`]];
        await patch(key('owner'), a, { parent_id: null });
        await patch(key('owner'), b, { parent_id: null });
        const answers = await Promise.all([
          patch(key('member'), a, { parent_id: b }),
          t.inject({ method: 'POST', url: '/api/v1/tasks', headers: auth(key('admin')), payload: { list_id: ids.l1, title: `Sub of A${i}`, parent_id: a } }),
          patch(key('owner'), c, { parent_id: a }),
        ]);
        expect(answers.map((r) => r.statusCode).every((s) => [200, 201, 400].includes(s))).toBe(true);
        expect(await nested()).toBe(0);
      }
    });
  });
});
