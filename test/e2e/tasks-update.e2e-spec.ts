import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, useTestApp } from '../setup/create-app';
import { FIELDS, KEYS, keys, tasksWorld } from './tasks-world';

/**
 * Update and delete task: PATCH and DELETE /api/v1/tasks/:id.
 * spec: Update task, Delete task; D1-D6, D8-D14, D16, D30.
 * The checks every route makes (keys, scopes, ids, non-members, the D2 role
 * messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */
describe('PATCH and DELETE /api/v1/tasks/:id', () => {
  const { t, ids } = useTestApp((ds) => loadFixture(ds, tasksWorld()));
  const patch = (id: number | string, payload: unknown, key: string = KEYS.member) =>
    t.inject({ method: 'PATCH', url: `/api/v1/tasks/${id}`, headers: auth(key), payload: payload as object });
  const get = (id: number, key: string = KEYS.admin) => t.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: auth(key) });
  const create = async (fields: Record<string, unknown> = {}, key: string = KEYS.owner): Promise<number> => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: auth(key), payload: { list_id: ids.backlog, title: 'Fresh', ...fields } });
    expect(res.statusCode).toBe(201);
    return res.json().id;
  };
  const valueOf = (task: { custom_fields: Array<{ id: number; value: string | null }> }, field: number) =>
    task.custom_fields.find((f) => f.id === field)?.value;
  const fieldIds = (task: { custom_fields: Array<{ id: number }> }) => task.custom_fields.map((f) => f.id);

  describe('PATCH', () => {
    it('changes the fields sent and answers 200 with the update field set (D16)', async () => {
      const id = await create({ description: '<p>old</p>', priority: 'low', due_date: '2025-01-01', assignee_ids: [ids.bob] });
      const before = (await get(id, KEYS.member)).json();
      const res = await patch(id, {
        title: '  Renamed ',
        description: '<p onclick="x()">new <b>text</b></p>',
        priority: 'medium',
        status_id: ids.done,
        start_date: '2025-02-01T10:00:00+01:00',
      } satisfies Schema<'UpdateTask'>);
      expect(res.statusCode).toBe(200);
      expect(keys(res.json())).toEqual(FIELDS.write);
      expect(res.json()).toEqual({
        ...Object.fromEntries(FIELDS.write.map((k) => [k, before[k]])),
        title: 'Renamed',
        description: '<p>new <b>text</b></p>',
        priority: 'medium',
        status: { id: ids.done, name: 'Done', icon: null, color: 'green', category: 'completed' },
        start_date: '2025-02-01T09:00:00.000Z',
      });
    });

    it('changes nothing for an empty body', async () => {
      const id = await create({ description: '<p>d</p>', assignee_ids: [ids.carol], custom_fields: [{ id: ids.cf_open, value: 'v' }] });
      const before = (await get(id, KEYS.member)).json();
      const res = await patch(id, {} satisfies Schema<'UpdateTask'>);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(Object.fromEntries(FIELDS.write.map((k) => [k, before[k]])));
    });

    it.each([[null], ['']])('removes dates and description with %j (D9, D11)', async (empty) => {
      const id = await create({ description: '<p>d</p>', due_date: '2025-01-01', start_date: '2025-01-01' });
      const res = await patch(id, { due_date: empty, start_date: empty, description: empty });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ due_date: null, start_date: null, description: null } satisfies Partial<Schema<'TaskWrite'>>);
    });

    it('replaces the assignees entirely; members only; [] removes all (D12)', async () => {
      const id = await create({ assignee_ids: [ids.bob, ids.carol] });
      let res = await patch(id, { assignee_ids: [ids.carol, ids.dave, ids.olga, 'x', ids.dave] });
      expect(res.json().assignees.map((a: { id: number }) => a.id)).toEqual([ids.carol, ids.dave].sort((a, b) => a - b));
      res = await patch(id, { title: 'Assignees untouched' } satisfies Schema<'UpdateTask'>);
      expect(res.json().assignees).toHaveLength(2);
      res = await patch(id, { assignee_ids: [] } satisfies Schema<'UpdateTask'>);
      expect(res.json().assignees).toEqual([]);
    });

    it('replaces the labels; other workspaces\u2019 ignored; [] removes all (D14)', async () => {
      const id = await create({ label_ids: [ids.bug] });
      expect((await patch(id, { label_ids: [ids.feature, ids.chore, ids.o_label] } satisfies Schema<'UpdateTask'>)).statusCode).toBe(200);
      expect((await get(id)).json().labels.map((l: { id: number }) => l.id)).toEqual([ids.chore, ids.feature]);
      await patch(id, { priority: 'high' } satisfies Schema<'UpdateTask'>);
      expect((await get(id)).json().labels).toHaveLength(2);
      await patch(id, { label_ids: [] } satisfies Schema<'UpdateTask'>);
      expect((await get(id)).json().labels).toEqual([]);
    });

    it('updates only the custom fields listed; null clears; inapplicable and invisible ignored (D13)', async () => {
      const id = await create({
        custom_fields: [
          { id: ids.cf_open, value: 'a' },
          { id: ids.cf_eng, value: '1' },
          { id: ids.cf_stars, value: '2' },
        ],
      });
      const res = await patch(id, {
        custom_fields: [
          { id: ids.cf_open, value: 'b' },
          { id: ids.cf_eng, value: null },
          { id: ids.cf_inbox, value: 'mail' }, // not applying to the backlog
          { id: ids.cf_secret, value: 'true' }, // not visible to carol
          { id: 'bad', value: 'x' },
        ],
      });
      expect(res.statusCode).toBe(200);
      expect(Object.fromEntries(res.json().custom_fields.map((f: { id: number; value: unknown }) => [f.id, f.value]))).toEqual({
        [ids.cf_open]: 'b',
        [ids.cf_eng]: null,
        [ids.cf_stars]: '2',
        [ids.cf_money]: null,
      });
      const stored = await t.db.ds.query(`SELECT field_id, value FROM task_custom_field_values WHERE task_id = $1 ORDER BY field_id`, [id]);
      expect(stored).toEqual([
        { field_id: ids.cf_open, value: 'b' },
        { field_id: ids.cf_stars, value: '2' },
      ]);
    });

    it('ignores an element without value: the stored value stays (D13)', async () => {
      const id = await create({
        custom_fields: [
          { id: ids.cf_open, value: 'kept' },
          { id: ids.cf_eng, value: '1' },
        ],
      });
      const res = await patch(id, { custom_fields: [{ id: ids.cf_open }, { id: ids.cf_eng, val: null }, { id: ids.cf_stars, value: '3' }] });
      expect(res.statusCode).toBe(200);
      expect([valueOf(res.json(), ids.cf_open), valueOf(res.json(), ids.cf_eng), valueOf(res.json(), ids.cf_stars)]).toEqual(['kept', '1', '3']);
      const stored = await t.db.ds.query(`SELECT field_id, value FROM task_custom_field_values WHERE task_id = $1 ORDER BY field_id`, [id]);
      expect(stored).toEqual(
        [
          { field_id: ids.cf_open, value: 'kept' },
          { field_id: ids.cf_eng, value: '1' },
          { field_id: ids.cf_stars, value: '3' },
        ].sort((a, b) => a.field_id - b.field_id),
      );
    });

    it('refuses a value over 10,000 characters and changes nothing; 10,000 is stored (D13)', async () => {
      const id = await create({ title: 'Bounded', custom_fields: [{ id: ids.cf_open, value: 'before' }] });
      const refused = await patch(id, { title: 'Changed', custom_fields: [{ id: ids.cf_open, value: 'x'.repeat(10_001) }] });
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 400,
        body: { error: 'custom_fields value must be at most 10000 characters' },
      });
      expect((await get(id)).json()).toMatchObject({ title: 'Bounded' } satisfies Partial<Schema<'Task'>>);
      expect(valueOf((await get(id)).json(), ids.cf_open)).toBe('before');
      const res = await patch(id, { custom_fields: [{ id: ids.cf_open, value: 'x'.repeat(10_000) }] } satisfies Schema<'UpdateTask'>);
      expect(valueOf(res.json(), ids.cf_open)).toBe('x'.repeat(10_000));
    });

    it('moves a task within the workspace; values of fields that no longer apply are kept but hidden (D13)', async () => {
      const id = await create({ custom_fields: [{ id: ids.cf_eng, value: '5' }] });
      let res = await patch(id, {
        list_id: String(ids.inbox),
        custom_fields: [
          { id: ids.cf_inbox, value: 'phone' },
          { id: ids.cf_eng, value: null },
        ],
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().list_id).toBe(ids.inbox);
      expect(fieldIds(res.json())).toEqual([ids.cf_open, ids.cf_inbox, ids.cf_stars, ids.cf_money]);
      expect(valueOf(res.json(), ids.cf_inbox)).toBe('phone');
      // The clear of cf_eng was ignored: it does not apply to the inbox.
      res = await patch(id, { list_id: ids.backlog } satisfies Schema<'UpdateTask'>);
      expect(valueOf(res.json(), ids.cf_eng)).toBe('5');
      expect(fieldIds(res.json())).not.toContain(ids.cf_inbox);
      res = await patch(id, { list_id: ids.inbox } satisfies Schema<'UpdateTask'>);
      expect(valueOf(res.json(), ids.cf_inbox)).toBe('phone');
    });

    describe('roles and access (D1, D2, D4, D30)', () => {
      it.each([
        ['owner', KEYS.owner, 't_full', {}, 200, null],
        ['admin', KEYS.admin, 't_inbox', {}, 200, null],
        ['member', KEYS.member, 't_nolist', {}, 200, null],
        ['restricted member, task in a granted folder', KEYS.restricted, 't_sprint', { priority: 'low' }, 200, null],
        ['restricted member, move to a granted list', KEYS.restricted, 't_sprint', { list_id: 'ops_granted' }, 200, null],
        ['restricted member, move to a list outside', KEYS.restricted, 't_full', { list_id: 'inbox' }, 403, 'Access denied'],
        ['restricted member, task outside', KEYS.restricted, 't_inbox', { priority: 'low' }, 403, 'Access denied'],
        ['restricted member, task not in a list', KEYS.restricted, 't_nolist', {}, 403, 'Access denied'],
      ] as const)('%s', async (_who, key, task, body, status, error) => {
        const payload = 'list_id' in body ? { list_id: ids[body.list_id] } : body;
        const res = await patch(ids[task], payload, key);
        expect(res.statusCode).toBe(status);
        if (error) expect(res.json()).toEqual({ error });
        else expect(keys(res.json())).toEqual(FIELDS.write);
      });
    });

    describe('errors, in the order of D3', () => {
      it.each([
        ['title empty', { title: '' }, 400, 'title cannot be empty'],
        ['title blank', { title: '   ' }, 400, 'title cannot be empty'],
        ['title a number', { title: 5 }, 400, 'title must be a string'],
        ['title null', { title: null }, 400, 'title must be a string'],
        ['title too long', { title: 'x'.repeat(501) }, 400, 'title must be at most 500 characters'],
        ['description not a string', { description: ['x'] }, 400, 'description must be a string'],
        ['priority unknown', { priority: 'asap' }, 400, 'Invalid priority. Must be one of: urgent, high, medium, low, none'],
        ['status_id malformed', { status_id: 'x' }, 400, 'status_id must be a valid numeric ID'],
        ['status_id null', { status_id: null }, 400, 'status_id must be a valid numeric ID'],
        ['list_id malformed', { list_id: '1.0' }, 400, 'list_id must be a valid numeric ID'],
        ['list_id null (D6)', { list_id: null }, 400, 'list_id must be a valid numeric ID'],
        ['due_date invalid', { due_date: '15/01/2025' }, 400, 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
        ['start_date impossible', { start_date: '2025-04-31' }, 400, 'Invalid start_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
        ['assignee_ids not an array', { assignee_ids: null }, 400, 'assignee_ids must be an array'],
        ['custom_fields not an array', { custom_fields: 'x' }, 400, 'custom_fields must be an array'],
        ['custom_fields value an object', { custom_fields: [{ id: 1, value: {} }] }, 400, 'custom_fields value must be a string or null'],
        [
          'custom_fields value over 10,000 characters (D13)',
          { custom_fields: [{ id: 1, value: 'v'.repeat(10_001) }] },
          400,
          'custom_fields value must be at most 10000 characters',
        ],
        ['label_ids not an array', { label_ids: {} }, 400, 'label_ids must be an array'],
        ['list_id of another workspace', { list_id: 'o_list' }, 404, 'List not found in this workspace'],
        ['list_id unknown', { list_id: 99999999 }, 404, 'List not found in this workspace'],
        ['status_id of another workspace', { status_id: 'o_todo' }, 404, 'Status not found in this workspace'],
        ['status_id unknown', { status_id: 99999999 }, 404, 'Status not found in this workspace'],
        [
          'a bad body field before a foreign list',
          { list_id: 'o_list', priority: 'x' },
          400,
          'Invalid priority. Must be one of: urgent, high, medium, low, none',
        ],
      ])('%s', async (_case, fields, status, error) => {
        const resolved = Object.fromEntries(
          Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' && ['status_id', 'list_id'].includes(k) && ids[v] ? ids[v] : v]),
        );
        const res = await patch(ids.t_full, resolved);
        expect(res.statusCode).toBe(status);
        expect(res.json()).toEqual({ error });
      });

      it('changes nothing when a check fails', async () => {
        const id = await create({ title: 'Stays' });
        expect((await patch(id, { title: 'Changed', status_id: ids.o_todo })).statusCode).toBe(404);
        expect((await get(id)).json().title).toBe('Stays');
      });
    });
  });

  describe('DELETE', () => {
    const del = (id: number | string, key: string = KEYS.member) => t.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: auth(key) });

    it('answers 204 with no body, and subtasks, comments, attachments, values, assignees and labels go with it (D16)', async () => {
      const ds = t.db.ds;
      const related = async (taskIds: number[]) => {
        const [row] = await ds.query(
          `SELECT (SELECT count(*) FROM tasks WHERE id = ANY($1)) AS tasks,
                  (SELECT count(*) FROM comments WHERE task_id = ANY($1)) AS comments,
                  (SELECT count(*) FROM attachments WHERE task_id = ANY($1)) AS attachments,
                  (SELECT count(*) FROM task_custom_field_values WHERE task_id = ANY($1)) AS "values",
                  (SELECT count(*) FROM task_assignees WHERE task_id = ANY($1)) AS assignees,
                  (SELECT count(*) FROM task_labels WHERE task_id = ANY($1)) AS labels`,
          [taskIds],
        );
        return row;
      };
      const all = [ids.t_full, ids.t_sub1, ids.t_sub2];
      expect(await related(all)).toEqual({ tasks: 3, comments: 1, attachments: 3, values: 5, assignees: 3, labels: 2 });
      const res = await del(ids.t_full);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(await related(all)).toEqual({ tasks: 0, comments: 0, attachments: 0, values: 0, assignees: 0, labels: 0 });
      expect((await get(ids.t_full)).json()).toEqual({ error: 'Task not found' });
      expect((await del(ids.t_full)).json()).toEqual({ error: 'Task not found' });
    });

    it.each([
      ['owner', KEYS.owner, 't_loose', 204, null],
      ['admin', KEYS.admin, 't_inbox', 204, null],
      ['member', KEYS.member, null, 204, null],
      ['restricted member, task in a granted list', KEYS.restricted, 't_granted', 204, null],
      ['restricted member, task outside', KEYS.restricted, 't_nolist', 403, 'Access denied'],
    ] as const)('%s', async (_who, key, task, status, error) => {
      const id = task ? ids[task] : await create();
      const res = await del(id, key);
      expect(res.statusCode).toBe(status);
      if (error) expect(res.json()).toEqual({ error });
      else expect((await get(id)).statusCode).toBe(404);
    });
  });
});
