import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { FIELDS, KEYS, keys, tasksWorld } from './tasks-world';

/**
 * List tasks: GET /api/v1/workspaces/:id/tasks.
 * spec: List tasks, Limits; D1, D4, D6, D16, D22, D29, D30.
 * The checks every route makes (keys, scopes, ids, non-members, the D2 role
 * messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */
describe('GET /api/v1/workspaces/:id/tasks', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const list = (query = '', key: string = KEYS.owner, workspace: number | string = ids.acme) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/tasks${query}`, headers: auth(key) });
  const idsOf = (body: { data: Array<{ id: number }> }) => body.data.map((x) => x.id);
  /** Top-level tasks of acme, newest first by created_at then id (D22). */
  const NEWEST_FIRST = ['t_full', 't_nolist', 't_loose', 't_granted', 't_inbox', 'tie_b', 'tie_a', 't_sprint'];

  beforeAll(async () => {
    t = await createTestApp();
    const world = tasksWorld();
    // Two tasks created at the same instant: the later id comes first (D22).
    world.workspaces![0].tasks!.push(
      { ref: 'tie_a', list: 'loose', title: 'Tie A', created_at: '2025-01-10T12:00:00.000Z' },
      { ref: 'tie_b', list: 'loose', title: 'Tie B', created_at: '2025-01-10T12:00:00.000Z' },
    );
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists top-level tasks newest first, with the list field set and their direct subtasks (D16, D22)', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(keys(body)).toEqual(['data', 'limit', 'page', 'total', 'total_pages']);
    expect(body).toMatchObject({ page: 1, limit: 50, total: 8, total_pages: 1 } satisfies Partial<Schema<'TaskPage'>>);
    expect(idsOf(body)).toEqual(NEWEST_FIRST.map((ref) => ids[ref]));
    for (const task of body.data) expect(keys(task)).toEqual(FIELDS.listItem);

    const full = (await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t_full}`, headers: auth(KEYS.owner) })).json();
    // The list element is the full task less description, labels and attachments.
    const { description: _d, labels: _l, attachments: _a, ...expected } = full;
    expect(body.data[0]).toEqual(expected);
    expect(body.data[0].subtasks.map((s: { id: number }) => s.id)).toEqual([ids.t_sub1, ids.t_sub2]);
    expect(body.data[0].subtasks.map(keys)).toEqual([FIELDS.subtask, FIELDS.subtask]);
  });

  it('shows each task its own custom fields (D18, D19)', async () => {
    const body = (await list('', KEYS.fay)).json();
    const byRef = (ref: string) => body.data.find((x: { id: number }) => x.id === ids[ref]);
    expect(byRef('t_sprint').custom_fields.map((f: { id: number }) => f.id)).toEqual([ids.cf_open, ids.cf_secret, ids.cf_stars, ids.cf_money]);
    expect(byRef('t_inbox').custom_fields.map((f: { id: number }) => f.id)).toEqual([ids.cf_open, ids.cf_inbox, ids.cf_secret, ids.cf_stars, ids.cf_money]);
    expect(byRef('t_full').custom_fields.find((f: { id: number }) => f.id === ids.cf_eng)).toEqual({
      id: ids.cf_eng,
      name: 'Estimate',
      type: 'number',
      config: null,
      position: 2,
      value: '5',
    });
  });

  describe('pagination (D22)', () => {
    it.each([
      ['?limit=3', 1, 3, [0, 3]],
      ['?limit=3&page=2', 2, 3, [3, 6]],
      ['?limit=3&page=3', 3, 3, [6, 8]],
      ['?page=1&limit=1', 1, 1, [0, 1]],
      ['?limit=100', 1, 100, [0, 8]],
      ['?limit=08&page=01', 1, 8, [0, 8]],
    ] as const)('%s', async (query, page, limit, [from, to]) => {
      const body = (await list(query)).json();
      expect(body).toMatchObject({ page, limit, total: 8, total_pages: Math.ceil(8 / limit) } satisfies Partial<Schema<'TaskPage'>>);
      expect(idsOf(body)).toEqual(NEWEST_FIRST.slice(from, to).map((ref) => ids[ref]));
    });

    it.each([['?page=4&limit=3'], ['?page=999999999999']])('a page past the end (%s) gives data [] with the true total', async (query) => {
      const res = await list(query);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ data: [], total: 8 } satisfies Partial<Schema<'TaskPage'>>);
    });

    it('gives total 0 and total_pages 0 for a workspace without tasks', async () => {
      const res = await list('', KEYS.owner, ids.empty);
      expect(res.json()).toEqual({ data: [], page: 1, limit: 50, total: 0, total_pages: 0 });
    });

    it.each([['0'], ['-1'], ['1.5'], ['abc'], [''], ['1e2'], ['9007199254740993']])('400 for page=%j', async (page) => {
      const res = await list(`?page=${page}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'page must be a positive integer' });
    });

    it('400 for a repeated page (D34: single-valued parameters)', async () => {
      expect((await list('?page=1&page=2')).json()).toEqual({ error: 'page must be given only once' });
    });

    it.each([['0'], ['101'], ['-5'], ['2.5'], ['ten'], ['']])('400 for limit=%j', async (limit) => {
      const res = await list(`?limit=${limit}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'limit must be an integer between 1 and 100' });
    });
  });

  describe('list_id filter (D6, D22)', () => {
    it('lists the tasks of one list', async () => {
      const body = (await list(`?list_id=${ids.loose}`)).json();
      expect(idsOf(body)).toEqual([ids.t_loose, ids.tie_b, ids.tie_a]);
      expect(body).toMatchObject({ total: 3, total_pages: 1 } satisfies Partial<Schema<'TaskPage'>>);
    });

    it('lists only top-level tasks of the list', async () => {
      const body = (await list(`?list_id=${ids.backlog}`)).json();
      expect(idsOf(body)).toEqual([ids.t_full]);
    });

    it.each([
      ['malformed', 'abc', 400, 'list_id must be a valid numeric ID'],
      ['empty', '', 400, 'list_id must be a valid numeric ID'],
      ['negative', '-3', 400, 'list_id must be a valid numeric ID'],
      ['in another workspace', 'o_list', 404, 'List not found in this workspace'],
      ['unknown', '99999999', 404, 'List not found in this workspace'],
    ])('%s list_id', async (_case, value, status, error) => {
      const res = await list(`?list_id=${ids[value] ?? value}`);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error });
    });
  });

  describe('roles and access (D1, D4, D29, D30)', () => {
    it.each([
      ['owner', KEYS.owner],
      ['admin', KEYS.admin],
      ['member', KEYS.member],
      ['viewer', KEYS.viewer],
    ])('%s sees every top-level task', async (_who, key) => {
      const res = await list('', key);
      expect(res.statusCode).toBe(200);
      expect(res.json().total).toBe(8);
    });

    it('a restricted member sees only tasks in permitted lists (granted folders and granted lists)', async () => {
      const body = (await list('', KEYS.restricted)).json();
      expect(idsOf(body)).toEqual([ids.t_full, ids.t_granted, ids.t_sprint]);
      expect(body).toMatchObject({ total: 3, total_pages: 1 } satisfies Partial<Schema<'TaskPage'>>);
    });

    it('a restricted viewer sees only its granted folder', async () => {
      const body = (await list('?limit=1&page=2', KEYS.restrictedViewer)).json();
      expect(body).toMatchObject({ total: 2, total_pages: 2, page: 2, limit: 1 } satisfies Partial<Schema<'TaskPage'>>);
      expect(idsOf(body)).toEqual([ids.t_sprint]);
    });

    it.each([
      ['a permitted list', 'sprint', 200, null],
      ['a granted list', 'ops_granted', 200, null],
      ['a list outside', 'inbox', 403, 'Access denied'],
      ['a list without folder', 'loose', 403, 'Access denied'],
    ])('a restricted member filtering on %s', async (_case, ref, status, error) => {
      const res = await list(`?list_id=${ids[ref]}`, KEYS.restricted);
      expect(res.statusCode).toBe(status);
      if (error) expect(res.json()).toEqual({ error });
    });

    it.each([
      ['a non-member', KEYS.nonMember, String(1), 404, 'Workspace not found'],
      ['an unknown workspace', KEYS.owner, '99999999', 404, 'Workspace not found'],
      ['a malformed workspace id', KEYS.owner, 'abc', 400, 'Invalid workspace ID'],
      ['a non-member with a bad query', KEYS.nonMember, String(1), 404, 'Workspace not found'],
    ])('%s', async (_case, key, workspace, status, error) => {
      const ws = workspace === '1' ? ids.acme : workspace;
      const res = await list('?page=0', key, ws);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error });
    });
  });
});
