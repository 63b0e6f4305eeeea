import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, useTestApp } from '../setup/create-app';
import { FIELDS, KEYS, keys, tasksWorld, TS } from './tasks-world';

/**
 * Create task: POST /api/v1/tasks.
 * spec: Create task, States and transitions (task rows); D1-D6, D8-D17, D30.
 * The checks every route makes (keys, scopes, ids, non-members, the D2 role
 * messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */
describe('POST /api/v1/tasks', () => {
  const { t, ids } = useTestApp((ds) => loadFixture(ds, tasksWorld()));
  const create = (payload: unknown, key: string = KEYS.member) =>
    t.inject({ method: 'POST', url: '/api/v1/tasks', headers: auth(key), payload: payload as object });
  const get = (id: number, key: string = KEYS.admin) => t.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: auth(key) });
  const cfValues = (task: { custom_fields: Array<{ id: number; value: string | null }> }) => Object.fromEntries(task.custom_fields.map((f) => [f.id, f.value]));

  it('creates a task with every field and answers 201 with the create field set (D16)', async () => {
    const res = await create({
      list_id: String(ids.backlog),
      title: '  Write the spec  ',
      description: '<p>Some <em>words</em></p>',
      priority: 'urgent',
      status_id: String(ids.review),
      due_date: '2025-01-15T09:30:00.000Z',
      start_date: '2025-01-10',
      assignee_ids: [ids.fay, String(ids.bob)],
      custom_fields: [
        { id: ids.cf_open, value: 'note' },
        { id: String(ids.cf_eng), value: 3 },
      ],
      label_ids: [ids.bug],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(keys(body)).toEqual(FIELDS.write);
    const [bob, fay] = [
      { id: ids.bob, name: 'Bob', avatar_url: null },
      { id: ids.fay, name: 'Fay', avatar_url: null },
    ];
    expect(body).toEqual({
      id: expect.any(Number),
      workspace_id: ids.acme,
      list_id: ids.backlog,
      title: 'Write the spec',
      description: '<p>Some <em>words</em></p>',
      priority: 'urgent',
      identifier: expect.any(Number),
      due_date: '2025-01-15T09:30:00.000Z',
      start_date: '2025-01-10T00:00:00.000Z',
      creator_id: ids.carol,
      created_at: expect.stringMatching(TS),
      status: { id: ids.review, name: 'Review', icon: null, color: 'gray', category: 'in_progress' },
      assignees: [bob, fay].sort((a, b) => a.id - b.id),
      // carol does not see cf_secret; cf_inbox does not apply to the backlog.
      custom_fields: [
        { id: ids.cf_open, name: 'Notes', type: 'text', config: null, position: 1, value: 'note' },
        { id: ids.cf_eng, name: 'Estimate', type: 'number', config: null, position: 2, value: '3' },
        { id: ids.cf_stars, name: 'Stars', type: 'rating', config: { icon: 'star', color: 'orange' }, position: 5, value: null },
        { id: ids.cf_money, name: 'Budget', type: 'money', config: { currency: 'EUR', decimals: 2 }, position: 5, value: null },
      ],
    } satisfies Schema<'TaskWrite'>);
    const read = await get(body.id, KEYS.member);
    const full = read.json();
    expect(full.labels).toEqual([{ id: ids.bug, name: 'bug', color: 'red' }]);
    expect(full.subtasks).toEqual([]);
    expect(full.attachments).toEqual([]);
    // D36: the create's ETag is that of the get-task body, which the insert statement builds from the rows it writes.
    expect(res.headers.etag).toBe(read.headers.etag);
  });

  it('applies the defaults: no description, priority none, the D17 status, no dates, no assignees, creator = key owner', async () => {
    const res = await create({ list_id: ids.loose, title: 'Minimal' } satisfies Schema<'CreateTask'>, KEYS.admin);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      list_id: ids.loose,
      description: null,
      priority: 'none',
      due_date: null,
      start_date: null,
      assignees: [],
      creator_id: ids.bob,
      // D17: the pending status with the lowest position (To Do at 2), not the one with the lowest id (Later).
      status: { id: ids.todo, name: 'To Do', icon: 'circle', color: 'gray', category: 'pending' },
    } satisfies Partial<Schema<'TaskWrite'>>);
  });

  it.each([
    ['statuses but none pending', 'np_list'],
    ['no statuses at all', 'ns_list'],
  ])('gives status null when the workspace has %s (D17)', async (_case, list) => {
    const res = await create({ list_id: ids[list], title: 'No status' } satisfies Schema<'CreateTask'>, KEYS.owner);
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBeNull();
  });

  describe('roles and access (D1, D2, D4, D30)', () => {
    it.each([
      ['owner', KEYS.owner, 'backlog', 201, null],
      ['admin', KEYS.admin, 'inbox', 201, null],
      ['member', KEYS.member, 'loose', 201, null],
      ['restricted member, list of a granted folder', KEYS.restricted, 'sprint', 201, null],
      ['restricted member, granted list', KEYS.restricted, 'ops_granted', 201, null],
      ['restricted member, list outside', KEYS.restricted, 'inbox', 403, 'Access denied'],
      ['restricted member, list without folder', KEYS.restricted, 'loose', 403, 'Access denied'],
    ] as const)('%s', async (_who, key, list, status, error) => {
      const res = await create({ list_id: ids[list], title: 'By role' }, key);
      expect(res.statusCode).toBe(status);
      if (error) expect(res.json()).toEqual({ error });
      else expect(res.json()).toMatchObject({ list_id: ids[list], workspace_id: ids.acme } satisfies Partial<Schema<'TaskWrite'>>);
    });
  });

  describe('errors, in the order of D3', () => {
    it.each([
      ['list_id missing', { list_id: undefined, title: 'x' }, 400, 'list_id is required'],
      ['list_id null', { list_id: null, title: 'x' }, 400, 'list_id is required'],
      ['list_id malformed', { list_id: 'abc', title: 'x' }, 400, 'list_id must be a valid numeric ID'],
      ['list_id a fraction', { list_id: 1.5, title: 'x' }, 400, 'list_id must be a valid numeric ID'],
      ['list_id empty', { list_id: '', title: 'x' }, 400, 'list_id must be a valid numeric ID'],
      ['list_id unknown', { list_id: 99999999, title: 'x' }, 404, 'List not found in this workspace'],
      ['list_id 0', { list_id: '0', title: 'x' }, 404, 'List not found in this workspace'],
      ['title missing', {}, 400, 'title is required'],
      ['title blank', { title: '   ' }, 400, 'title is required'],
      ['title a number (D8)', { title: 12 }, 400, 'title is required'],
      ['title too long', { title: 'x'.repeat(501) }, 400, 'title must be at most 500 characters'],
      ['description not a string', { title: 'x', description: 5 }, 400, 'description must be a string'],
      ['description too long', { title: 'x', description: 'x'.repeat(100_001) }, 400, 'description must be at most 100000 characters'],
      ['priority unknown', { title: 'x', priority: 'critical' }, 400, 'Invalid priority. Must be one of: urgent, high, medium, low, none'],
      ['priority null (D10)', { title: 'x', priority: null }, 400, 'Invalid priority. Must be one of: urgent, high, medium, low, none'],
      ['status_id malformed', { title: 'x', status_id: 'to do' }, 400, 'status_id must be a valid numeric ID'],
      ['status_id null (D5)', { title: 'x', status_id: null }, 400, 'status_id must be a valid numeric ID'],
      ['due_date unparsable', { title: 'x', due_date: 'tomorrow' }, 400, 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['due_date impossible', { title: 'x', due_date: '2025-02-30' }, 400, 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['due_date a number', { title: 'x', due_date: 1736933400000 }, 400, 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      [
        'start_date impossible hour',
        { title: 'x', start_date: '2025-01-15T25:00' },
        400,
        'Invalid start_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z',
      ],
      ['assignee_ids not an array', { title: 'x', assignee_ids: '5' }, 400, 'assignee_ids must be an array'],
      ['custom_fields not an array', { title: 'x', custom_fields: { id: 1 } }, 400, 'custom_fields must be an array'],
      ['custom_fields value an object', { title: 'x', custom_fields: [{ id: 1, value: { a: 1 } }] }, 400, 'custom_fields value must be a string or null'],
      ['custom_fields value an array', { title: 'x', custom_fields: [{ id: 1, value: ['a'] }] }, 400, 'custom_fields value must be a string or null'],
      [
        'custom_fields value over 10,000 characters (D13)',
        { title: 'x', custom_fields: [{ id: 1, value: 'v'.repeat(10_001) }] },
        400,
        'custom_fields value must be at most 10000 characters',
      ],
      [
        'custom_fields value too long, beside a malformed value later',
        {
          title: 'x',
          custom_fields: [
            { id: 1, value: 'v'.repeat(10_001) },
            { id: 2, value: {} },
          ],
        },
        400,
        'custom_fields value must be at most 10000 characters',
      ],
      ['label_ids not an array', { title: 'x', label_ids: 3 }, 400, 'label_ids must be an array'],
      ['parent_id malformed', { title: 'x', parent_id: 'p' }, 400, 'parent_id must be a valid numeric ID'],
      ['status_id of another workspace', { title: 'x', status_id: 'o_todo' }, 404, 'Status not found in this workspace'],
      ['status_id unknown', { title: 'x', status_id: 99999999 }, 404, 'Status not found in this workspace'],
      ['parent in another workspace (D14)', { title: 'x', parent_id: 'o_task' }, 404, 'Parent task not found'],
      ['parent unknown', { title: 'x', parent_id: 99999999 }, 404, 'Parent task not found'],
      ['parent is a subtask (D14)', { title: 'x', parent_id: 't_sub1' }, 400, 'Subtasks cannot have subtasks'],
      // D42: custom-field values are judged after the other ids (step 8).
      [
        'a foreign status before a too long custom_fields value (D3 step 8, then the values)',
        { title: 'x', status_id: 'o_todo', custom_fields: [{ id: 1, value: 'v'.repeat(10_001) }] },
        404,
        'Status not found in this workspace',
      ],
      [
        'a bad body field before a foreign status',
        { title: 'x', status_id: 'o_todo', due_date: 'soon' },
        400,
        'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z',
      ],
    ])('%s', async (_case, fields, status, error) => {
      // Refs stand for ids of the world.
      const resolved = Object.fromEntries(
        Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' && ['status_id', 'parent_id'].includes(k) && ids[v] ? ids[v] : v]),
      );
      const res = await create({ list_id: ids.backlog, ...resolved });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error });
    });

    it.each([
      ['a viewer with a bad body gets the role error (step 6 before 7)', KEYS.viewer, { list_id: 'backlog', title: '' }, 403, 'Viewers cannot create tasks'],
      ['a non-member with a bad body gets Access denied', KEYS.nonMember, { list_id: 'backlog', priority: 'x' }, 403, 'Access denied'],
      ['a restricted member outside with a bad body gets Access denied', KEYS.restricted, { list_id: 'inbox' }, 403, 'Access denied'],
      ['a malformed list_id comes before the role (step 4)', KEYS.viewer, { list_id: 'x' }, 400, 'list_id must be a valid numeric ID'],
      ['a list of another workspace answers Access denied to a non-member of it (D4)', KEYS.owner, { list_id: 'o_list', title: 'x' }, 403, 'Access denied'],
    ])('%s', async (_case, key, fields, status, error) => {
      const res = await create({ ...fields, list_id: ids[fields.list_id] ?? fields.list_id }, key);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error });
    });
  });

  it('keeps member assignees only: non-members, unknown and malformed ids ignored, duplicates collapsed, viewers allowed (D12)', async () => {
    const res = await create({
      list_id: ids.backlog,
      title: 'Assignees',
      assignee_ids: [ids.dave, ids.olga, 99999999, 'x', null, 1.5, String(ids.dave), ids.alice],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().assignees.map((a: { id: number }) => a.id)).toEqual([ids.alice, ids.dave].sort((a, b) => a - b));
  });

  it('keeps the workspace labels only (D14)', async () => {
    const res = await create({ list_id: ids.backlog, title: 'Labels', label_ids: [ids.o_label, ids.chore, 'x', ids.chore, ids.bug] });
    expect(res.statusCode).toBe(201);
    expect(keys(res.json())).toEqual(FIELDS.write);
    const full = (await get(res.json().id)).json();
    expect(full.labels).toEqual([
      { id: ids.bug, name: 'bug', color: 'red' },
      { id: ids.chore, name: 'Chore', color: null },
    ]);
  });

  it('stores custom-field values per D13 and D42: numbers and booleans as their text; inapplicable, invisible and malformed ignored', async () => {
    const res = await create(
      {
        list_id: ids.inbox,
        title: 'Values',
        custom_fields: [
          { id: ids.cf_open, value: 'first' },
          { id: ids.cf_inbox, value: 'phone' },
          { id: ids.cf_stars, value: 4.0 },
          { id: ids.cf_money, value: 12.5 },
          { id: ids.cf_eng, value: { not: 'judged' } }, // does not apply to the inbox: never validated (D42)
          { id: ids.cf_secret, value: 'x' }, // not visible to the caller (carol)
          { id: ids.o_label, value: 'x' }, // not a field of this workspace
          { id: 'abc', value: 'x' },
          'not an object',
          null,
          { value: 'no id' },
          { id: ids.cf_open, value: 'last wins' },
          { id: ids.cf_open }, // no value: ignored (D13), the value before it stays
          { id: ids.cf_inbox, val: 'typo' },
        ],
      },
      KEYS.member,
    );
    expect(res.statusCode).toBe(201);
    expect(cfValues(res.json())).toEqual({ [ids.cf_open]: 'last wins', [ids.cf_inbox]: 'phone', [ids.cf_stars]: '4', [ids.cf_money]: '12.5' });
    const stored = await t.db.ds.query(`SELECT field_id FROM task_custom_field_values WHERE task_id = $1 ORDER BY field_id`, [res.json().id]);
    expect(stored.map((r: { field_id: number }) => r.field_id)).toEqual([ids.cf_open, ids.cf_inbox, ids.cf_stars, ids.cf_money].sort((a, b) => a - b));
  });

  it('stores a value of exactly 10,000 characters (D13)', async () => {
    const value = '€'.repeat(10_000);
    const res = await create({ list_id: ids.backlog, title: 'Long value', custom_fields: [{ id: ids.cf_open, value }] });
    expect(res.statusCode).toBe(201);
    expect(cfValues(res.json())[ids.cf_open]).toBe(value);
  });

  it('lets an allowed user write an allowed-users field; null leaves it unset', async () => {
    const res = await create(
      {
        list_id: ids.backlog,
        title: 'Secret',
        custom_fields: [
          { id: ids.cf_secret, value: false },
          { id: ids.cf_open, value: null },
        ],
      },
      KEYS.fay,
    );
    expect(res.statusCode).toBe(201);
    expect(cfValues(res.json())).toMatchObject({ [ids.cf_secret]: 'false', [ids.cf_open]: null });
  });

  describe('description sanitizing (D9)', () => {
    it.each([
      ['<p onclick="steal()"><strong>Hi</strong><script>alert(1)</script></p>', '<p><strong>Hi</strong></p>'],
      ['<a href="javascript:alert(1)">x</a><iframe src="https://x.test"></iframe>', '<a>x</a>'],
      ['<p>kept <em>as is</em></p>', '<p>kept <em>as is</em></p>'],
      ['', null],
      [null, null],
      ['<script>only()</script>', null],
    ])('%j is stored as %j', async (description, expected) => {
      const res = await create({ list_id: ids.backlog, title: 'Html', description });
      expect(res.statusCode).toBe(201);
      expect(res.json().description).toBe(expected);
    });
  });

  describe('dates (D11)', () => {
    it.each([
      ['with Z', '2025-01-15T09:30:00.000Z', '2025-01-15T09:30:00.000Z'],
      ['with an offset', '2025-01-15T09:30:00+02:00', '2025-01-15T07:30:00.000Z'],
      ['with a negative offset and micros', '2025-01-15T09:30:00.123456-01:30', '2025-01-15T11:00:00.123Z'],
      ['without zone (UTC)', '2025-01-15T09:30', '2025-01-15T09:30:00.000Z'],
      ['date only', '2025-01-15', '2025-01-15T00:00:00.000Z'],
      ['leap day', '2024-02-29T23:59:59', '2024-02-29T23:59:59.000Z'],
      ['null', null, null],
      ['empty string', '', null],
    ])('due_date and start_date %s', async (_case, value, expected) => {
      const res = await create({ list_id: ids.backlog, title: 'Dates', due_date: value, start_date: value });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ due_date: expected, start_date: expected } satisfies Partial<Schema<'TaskWrite'>>);
    });
  });

  it('creates a subtask under a task of the same workspace (D14); it shows in the parent, not at the top level', async () => {
    const res = await create({ list_id: ids.backlog, title: 'Child', parent_id: String(ids.t_inbox) });
    expect(res.statusCode).toBe(201);
    expect(keys(res.json())).toEqual(FIELDS.write);
    const parent = (await get(ids.t_inbox)).json();
    expect(parent.subtasks.map((s: { id: number }) => s.id)).toEqual([res.json().id]);
    const page = (await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/tasks?limit=100`, headers: auth(KEYS.owner) })).json();
    expect(page.data.map((x: { id: number }) => x.id)).not.toContain(res.json().id);
  });

  describe('identifier (D15)', () => {
    it('is unique and gap-free under 50 concurrent creates, and never reused after deleting the newest', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => create({ list_id: ids.empty_list, title: `Burst ${i}` } satisfies Schema<'CreateTask'>, KEYS.owner)),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
      const identifiers = results.map((r) => r.json().identifier).sort((a, b) => a - b);
      expect(identifiers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

      const newest = results.find((r) => r.json().identifier === 50)!.json();
      const del = await t.inject({ method: 'DELETE', url: `/api/v1/tasks/${newest.id}`, headers: auth(KEYS.owner) });
      expect(del.statusCode).toBe(204);
      const next = await create({ list_id: ids.empty_list, title: 'After delete' } satisfies Schema<'CreateTask'>, KEYS.owner);
      expect(next.json().identifier).toBe(51);
    });

    it('is drawn only by a create that passes its checks: a refused create leaves no gap', async () => {
      const before = await create({ list_id: ids.empty_list, title: 'Before' } satisfies Schema<'CreateTask'>, KEYS.owner);
      const refused = await create({ list_id: ids.empty_list, title: 'Refused', status_id: 999999 }, KEYS.owner);
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toEqual({ error: 'Status not found in this workspace' });
      const after = await create({ list_id: ids.empty_list, title: 'After' } satisfies Schema<'CreateTask'>, KEYS.owner);
      expect(after.json().identifier).toBe(before.json().identifier + 1);
    });

    it('continues after the identifiers of the workspace the fixture loader filled', async () => {
      const [{ last }] = await t.db.ds.query(`SELECT max(identifier) AS last FROM tasks WHERE workspace_id = $1`, [ids.other]);
      expect(last).toBeGreaterThan(0);
      const res = await create({ list_id: ids.o_list, title: 'Next' }, KEYS.nonMember);
      expect(res.json().identifier).toBe(last + 1);
    });
  });
});
