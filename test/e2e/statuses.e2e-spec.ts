import type { LightMyRequestResponse } from 'fastify';

import type { FixtureStatus } from '../../src/fixtures/fixture.types';
import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Statuses: list (ext), create, update (spec: Statuses; D8, D23-D25; rule 1
 * of States and transitions). Every workspace below has the members of the
 * role world; each mutating group of tests works in a workspace of its own.
 * The checks every route makes (keys, scopes, ids, non-members, the D2 role
 * messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */

const { key: KEY } = roleKeys('statuses');
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUS_KEYS = ['category', 'color', 'created_at', 'icon', 'id', 'name', 'position', 'workspace_id'] satisfies Array<keyof Schema<'Status'>>;
const INVALID_CATEGORY = 'Invalid category. Must be one of: pending, in_progress, completed, cancelled';
const LAST_COMPLETED = 'At least one completed status must remain in the workspace';
const DUPLICATE = 'A status with this name already exists';

const status = (ref: string, name: string, category: FixtureStatus['category'], position: number, extra: Partial<FixtureStatus> = {}): FixtureStatus => ({
  ref,
  name,
  category,
  position,
  created_at: '2025-01-02T00:00:00.000Z',
  ...extra,
});

const { t, ids } = useRoleWorld('statuses', (b) => {
  const workspace = (ref: string, statuses: FixtureStatus[]) => b.team(ref, { statuses });
  return {
    workspaces: [
      // Read only: the listing. `doing` and `s_done` share a position (D23: then id).
      workspace('acme', [
        status('s_todo', 'To Do', 'pending', 1, { icon: 'folder-1', color: 'blue' }),
        status('doing', 'Doing', 'in_progress', 2),
        status('s_done', 'Done', 'completed', 2, { color: 'purple' }),
        status('wont', "Won't do", 'cancelled', 0, { color: null }),
      ]),
      workspace('lab', [status('lab_todo', 'To Do', 'pending', 7), status('lab_done', 'Done', 'completed', 3)]),
      workspace('empty', []),
      workspace('dup', []),
      workspace('edit', [
        status('e_todo', 'To Do', 'pending', 1, { icon: 'chart', color: 'gray' }),
        status('e_doing', 'Doing', 'in_progress', 2),
        status('e_done', 'Done', 'completed', 3),
      ]),
      workspace('rule', [status('r_todo', 'To Do', 'pending', 1), status('r_done', 'Done', 'completed', 2), status('r_shipped', 'Shipped', 'completed', 3)]),
      workspace('nocompleted', [status('n_todo', 'To Do', 'pending', 1)]),
      workspace('race', [status('race_a', 'A', 'completed', 1), status('race_b', 'B', 'completed', 2)]),
    ],
  };
});

const send = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string | null, payload?: unknown): Promise<LightMyRequestResponse> =>
  t.inject({ method, url, headers: key ? auth(key) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const list = (workspace: number | string, key: string | null = KEY('owner')) => send('GET', `/api/v1/workspaces/${workspace}/statuses`, key);
const create = (body: unknown, key: string | null = KEY('owner')) => send('POST', '/api/v1/statuses', key, body);
const update = (id: number | string, body: unknown, key: string | null = KEY('owner')) => send('PATCH', `/api/v1/statuses/${id}`, key, body);
const row = async (id: number) =>
  (
    await t.db.ds.query(`SELECT id, workspace_id, name, icon, color, category, position, api_ts(created_at) AS created_at FROM statuses WHERE id = $1`, [id])
  )[0];

describe('GET /api/v1/workspaces/:id/statuses (D1 ext)', () => {
  const expected = () =>
    [
      {
        id: ids.wont,
        workspace_id: ids.acme,
        name: "Won't do",
        icon: null,
        color: null,
        category: 'cancelled',
        position: 0,
        created_at: '2025-01-02T00:00:00.000Z',
      },
      {
        id: ids.s_todo,
        workspace_id: ids.acme,
        name: 'To Do',
        icon: 'folder-1',
        color: 'blue',
        category: 'pending',
        position: 1,
        created_at: '2025-01-02T00:00:00.000Z',
      },
      {
        id: ids.doing,
        workspace_id: ids.acme,
        name: 'Doing',
        icon: null,
        color: 'gray',
        category: 'in_progress',
        position: 2,
        created_at: '2025-01-02T00:00:00.000Z',
      },
      {
        id: ids.s_done,
        workspace_id: ids.acme,
        name: 'Done',
        icon: null,
        color: 'purple',
        category: 'completed',
        position: 2,
        created_at: '2025-01-02T00:00:00.000Z',
      },
    ] satisfies Array<Schema<'Status'>>;

  it.each(['owner', 'admin', 'member', 'viewer', 'restricted'] as const)(
    'gives %s every status by position, then id (D23, D30: not restricted)',
    async (user) => {
      const res = await list(ids.acme, KEY(user));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(expected());
      for (const s of res.json()) expect(Object.keys(s).sort()).toEqual(STATUS_KEYS);
    },
  );

  it('gives an empty array for a workspace without statuses', async () => {
    const res = await list(ids.empty);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });
});

describe('POST /api/v1/statuses (spec: Create status)', () => {
  it.each(['owner', 'admin'] as const)('lets the %s create a status at max + 1 with gray and no icon by default (D24)', async (user) => {
    const before = (await list(ids.lab)).json().length;
    // workspace_id as a string of digits: accepted beyond the document's types (D5).
    const res = await create({ workspace_id: String(ids.lab), name: `  Review by ${user}  `, category: 'in_progress' }, KEY(user));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(STATUS_KEYS);
    expect(body).toEqual({
      id: expect.any(Number),
      workspace_id: ids.lab,
      name: `Review by ${user}`,
      icon: null,
      color: 'gray',
      category: 'in_progress',
      position: user === 'owner' ? 8 : 9,
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'Status'>);
    expect(await row(body.id)).toEqual(body);
    expect((await list(ids.lab)).json()).toHaveLength(before + 1);
  });

  it('stores the icon and color sent, and takes workspace_id as a number too (D5)', async () => {
    const res = await create({ workspace_id: ids.lab, name: 'Blocked', category: 'cancelled', icon: 'code', color: 'red' } satisfies Schema<'CreateStatus'>);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      workspace_id: ids.lab,
      name: 'Blocked',
      icon: 'code',
      color: 'red',
      category: 'cancelled',
      position: expect.any(Number),
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'Status'>);
  });

  it('starts positions at 1 in a workspace without statuses (D24)', async () => {
    const res = await create({ workspace_id: ids.empty, name: 'First', category: 'completed' });
    expect(res.statusCode).toBe(201);
    expect(res.json().position).toBe(1);
    const second = await create({ workspace_id: ids.empty, name: 'Second', category: 'pending' });
    expect(second.json().position).toBe(2);
  });

  it.each([
    ['name is required', { category: 'pending' }],
    ['name is required', { name: '   ', category: 'pending' }],
    ['name is required', { name: 12, category: 'pending' }],
    ['name must be at most 255 characters', { name: 'x'.repeat(256), category: 'pending' }],
    [INVALID_CATEGORY, { name: 'X' }],
    [INVALID_CATEGORY, { name: 'X', category: 'done' }],
    [INVALID_CATEGORY, { name: 'X', category: null }],
    [INVALID_CATEGORY, { name: 'X', category: 'Completed' }],
    ['icon must be a string', { name: 'X', category: 'pending', icon: 3 }],
    ['color must be a string', { name: 'X', category: 'pending', color: false }],
    ['color must be at most 255 characters', { name: 'X', category: 'pending', color: 'c'.repeat(256) }],
  ])('answers 400 %s (case %#; D8, D25)', async (message, fields) => {
    const res = await create({ workspace_id: ids.lab, ...fields });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('answers 400 for a body that is not a JSON object (D7)', async () => {
    const res = await create([{ workspace_id: ids.lab }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Request body must be a JSON object' });
  });

  it.each(['To Do', 'to do', '  TO DO ', 'done'])('answers 409 for %p, a name the workspace has ignoring case and spaces (D25)', async (name) => {
    const res = await create({ workspace_id: ids.lab, name, category: 'pending' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: DUPLICATE });
  });

  it('allows a name another workspace uses', async () => {
    const res = await create({ workspace_id: ids.lab, name: 'Doing', category: 'in_progress' });
    expect(res.statusCode).toBe(201);
  });

  it('lets exactly one of several identical concurrent creates win; the others get 409, never 500 (D25)', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ workspace_id: ids.dup, name: 'Racing', category: 'pending' })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json()).toEqual({ error: DUPLICATE });
    expect(await t.db.ds.query(`SELECT name FROM statuses WHERE workspace_id = $1`, [ids.dup])).toEqual([{ name: 'Racing' }]);
  });
});

describe('PATCH /api/v1/statuses/:id (spec: Update status)', () => {
  it.each(['owner', 'admin'] as const)('lets the %s change every field and returns the full status', async (user) => {
    const res = await update(
      ids.e_doing,
      { name: `  Doing (${user}) `, category: 'pending', icon: 'code', color: 'orange', position: 5 } satisfies Schema<'UpdateStatus'>,
      KEY(user),
    );
    expect(res.statusCode).toBe(200);
    const expected = {
      id: ids.e_doing,
      workspace_id: ids.edit,
      name: `Doing (${user})`,
      icon: 'code',
      color: 'orange',
      category: 'pending',
      position: 5,
      created_at: '2025-01-02T00:00:00.000Z',
    } satisfies Schema<'Status'>;
    expect(res.json()).toEqual(expected);
    expect(Object.keys(res.json()).sort()).toEqual(STATUS_KEYS);
    expect(await row(ids.e_doing)).toEqual(expected);
  });

  it('changes only the fields sent', async () => {
    const before = await row(ids.e_todo);
    const res = await update(ids.e_todo, { color: 'red' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, color: 'red' });
    const res2 = await update(ids.e_todo, { position: -2 });
    expect(res2.json()).toEqual({ ...before, color: 'red', position: -2 });
  });

  it('returns the status unchanged for an empty body', async () => {
    const before = await row(ids.e_todo);
    const res = await update(ids.e_todo, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(before);
  });

  it('clears icon and color when sent as null', async () => {
    const res = await update(ids.e_todo, { icon: null, color: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ icon: null, color: null });
  });

  it.each(['To Do', 'to do', ' TO DO '])('allows renaming a status to its own name %p (D25)', async (name) => {
    const res = await update(ids.e_todo, { name });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe(name.trim());
  });

  it.each(['Done', ' done '])('answers 409 for renaming to another status name %p (D25)', async (name) => {
    const res = await update(ids.e_todo, { name });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: DUPLICATE });
    expect((await row(ids.e_todo)).name).not.toBe('Done');
  });

  it.each([
    ['name cannot be empty', { name: '' }],
    ['name cannot be empty', { name: '   ' }],
    ['name must be a string', { name: null }],
    ['name must be a string', { name: 5 }],
    ['name must be at most 255 characters', { name: 'n'.repeat(256) }],
    [INVALID_CATEGORY, { category: 'archived' }],
    [INVALID_CATEGORY, { category: null }],
    [INVALID_CATEGORY, { category: 1 }],
    ['icon must be a string', { icon: 1 }],
    ['color must be a string', { color: [] }],
    ['position must be an integer', { position: 1.5 }],
    ['position must be an integer', { position: '2' }],
    ['position must be an integer', { position: null }],
    ['position must be an integer', { position: 2 ** 31 }],
  ])('answers 400 %s (case %#; D8, D25)', async (message, body) => {
    const before = await row(ids.e_todo);
    const res = await update(ids.e_todo, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    expect(await row(ids.e_todo)).toEqual(before);
  });
});

describe('rule 1: a workspace keeps at least one completed status', () => {
  const completedIn = async (workspace: number) =>
    (await t.db.ds.query(`SELECT id FROM statuses WHERE workspace_id = $1 AND category = 'completed' ORDER BY id`, [workspace])).map(
      (r: { id: number }) => r.id,
    );

  it('lets one of two completed statuses change category', async () => {
    const res = await update(ids.r_shipped, { category: 'cancelled' });
    expect(res.statusCode).toBe(200);
    expect(res.json().category).toBe('cancelled');
    expect(await completedIn(ids.rule)).toEqual([ids.r_done]);
  });

  it.each(['pending', 'in_progress', 'cancelled'])('answers 400 for changing the last completed status to %s, and changes nothing', async (category) => {
    const before = await row(ids.r_done);
    const res = await update(ids.r_done, { category, name: 'Finished', color: 'green' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: LAST_COMPLETED });
    expect(await row(ids.r_done)).toEqual(before);
  });

  it('allows setting completed again on the last completed status (D25)', async () => {
    const res = await update(ids.r_done, { category: 'completed', name: 'Done!' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: ids.r_done, category: 'completed', name: 'Done!' });
  });

  it('allows other changes to the last completed status', async () => {
    const res = await update(ids.r_done, { name: 'Done', position: 9 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ category: 'completed', name: 'Done', position: 9 });
  });

  it('lets other statuses change category freely', async () => {
    const res = await update(ids.r_todo, { category: 'in_progress' });
    expect(res.statusCode).toBe(200);
    expect(res.json().category).toBe('in_progress');
  });

  it('answers the 409 of a duplicate name before the 400 of rule 1 (D3 step 9)', async () => {
    const res = await update(ids.r_done, { name: 'to do', category: 'pending' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: DUPLICATE });
  });

  it('does not apply to a workspace that has no completed status', async () => {
    const res = await update(ids.n_todo, { category: 'cancelled' });
    expect(res.statusCode).toBe(200);
    expect(res.json().category).toBe('cancelled');
  });

  it('holds under concurrency: of two simultaneous changes to the last two completed statuses exactly one passes', async () => {
    for (let round = 0; round < 5; round++) {
      await t.db.ds.query(`UPDATE statuses SET category = 'completed' WHERE workspace_id = $1`, [ids.race]);
      const [a, b] = await Promise.all([
        update(ids.race_a, { category: 'pending' }),
        update(ids.race_b, { category: round % 2 ? 'cancelled' : 'in_progress' }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
      expect((a.statusCode === 400 ? a : b).json()).toEqual({ error: LAST_COMPLETED });
      expect(await completedIn(ids.race)).toHaveLength(1);
    }
  });
});
