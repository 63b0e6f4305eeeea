import type { LightMyRequestResponse } from 'fastify';

import type { FixtureFolder, FixtureList } from '../../src/fixtures/fixture.types';
import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Lists: lists of a folder (ext), create, update (ext), delete (ext)
 * (spec: Lists; D8, D23, D24, D26, D27, D29, D30). Every workspace below has
 * the members of the role world; each group of tests works in a workspace of
 * its own. The checks every route makes (keys, scopes, ids, non-members, the
 * D2 role messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */

const { key: KEY } = roleKeys('lists');
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CREATED = '2025-01-02T00:00:00.000Z';
const LIST_KEYS = ['color', 'created_at', 'folder_id', 'icon', 'id', 'name', 'position', 'workspace_id'] satisfies Array<keyof Schema<'List'>>;
const BAD_FOLDER_ID = 'folder_id must be a valid numeric ID';

const folder = (ref: string, lists: FixtureList[] = []): FixtureFolder => ({ ref, name: ref, lists });
const list = (ref: string, name: string, position: number, extra: Partial<FixtureList> = {}): FixtureList => ({
  ref,
  name,
  position,
  created_at: CREATED,
  ...extra,
});

const { t, ids } = useRoleWorld('lists', (b) => ({
  workspaces: [
    // Read only: lists of a folder. Ties on position go by name, then id (D23).
    b.team(
      'acme',
      {
        folders: [
          folder('f_main', [
            list('l_b', 'Beta', 2),
            list('l_a', 'Alpha', 2, { icon: 'chart', color: 'red' }),
            list('l_1', 'First', 1, { color: null }),
            list('l_b2', 'Beta', 2),
          ]),
          folder('f_granted', [list('g1', 'G1', 1), list('g2', 'G2', 2)]),
          folder('f_partial', [list('p1', 'P1', 1), list('p2', 'P2', 2)]),
          folder('f_none', [list('n1', 'N1', 1)]),
          folder('f_empty'),
        ],
        lists: [list('a_loose', 'Loose', 1)],
      },
      { restricted: { folders: ['f_granted'], lists: ['p1'] } },
    ),
    b.team(
      'make',
      // D24: positions run over all lists of the workspace, those without a folder too.
      {
        folders: [folder('m_granted'), folder('m_plain', [list('m_l', 'Existing', 3)]), folder('m_partial', [list('m_pl', 'Granted list', 4)])],
        lists: [list('m_loose', 'Loose', 10)],
      },
      { restricted: { folders: ['m_granted'], lists: ['m_pl'] } },
    ),
    b.team('empty', { folders: [folder('e_f')] }),
    b.team('second', { folders: [folder('s_f')] }),
    b.team(
      'edit',
      {
        folders: [
          folder('x_a', [list('x_l1', 'L1', 1)]),
          folder('x_b', [list('x_l2', 'L2', 2), list('x_l3', 'L3', 3), list('x_l4', 'L4', 4, { icon: 'code', color: 'blue' })]),
          folder('x_c'),
        ],
      },
      { restricted: { folders: ['x_a', 'x_c'], lists: ['x_l3'] } },
    ),
    b.team(
      'del',
      {
        folders: [
          folder('d_f', [
            list('d_owner_l', 'For the owner', 1),
            list('d_admin_l', 'For the admin', 2),
            list('d_keep_l', 'Kept', 3),
            list('d_cascade_l', 'Cascade', 4),
            list('d_other_l', 'Other', 5),
          ]),
        ],
        tasks: [
          { ref: 'c_t1', list: 'd_cascade_l', title: 'Doomed', comments: [{ ref: 'c_c1', content: '<p>bye</p>' }] },
          { ref: 'c_t1a', parent: 'c_t1', list: 'd_cascade_l', title: 'Doomed sub' },
          { ref: 'c_t2', list: 'd_cascade_l', title: 'Doomed too' },
          { ref: 'k_t', list: 'd_other_l', title: 'Kept' },
        ],
      },
      { restricted: { folders: ['d_f'] } },
    ),
  ],
}));

const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string | null, payload?: unknown): Promise<LightMyRequestResponse> =>
  t.inject({ method, url, headers: key ? auth(key) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const listsOf = (folderId: number | string, key: string | null = KEY('owner')) => send('GET', `/api/v1/folders/${folderId}/lists`, key);
const create = (body: unknown, key: string | null = KEY('owner')) => send('POST', '/api/v1/lists', key, body);
const update = (id: number | string, body: unknown, key: string | null = KEY('owner')) => send('PATCH', `/api/v1/lists/${id}`, key, body);
const remove = (id: number | string, key: string | null = KEY('owner')) => send('DELETE', `/api/v1/lists/${id}`, key);
const row = async (id: number) =>
  (await t.db.ds.query(`SELECT id, workspace_id, folder_id, name, icon, color, position, api_ts(created_at) AS created_at FROM lists WHERE id = $1`, [id]))[0];
const expectError = (res: LightMyRequestResponse, status: number, error: string) => {
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body: { error } });
};

describe('GET /api/v1/folders/:id/lists (D1 ext: lists of a folder)', () => {
  const main = () =>
    [
      { id: ids.l_1, workspace_id: ids.acme, folder_id: ids.f_main, name: 'First', icon: null, color: null, position: 1, created_at: CREATED },
      { id: ids.l_a, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Alpha', icon: 'chart', color: 'red', position: 2, created_at: CREATED },
      { id: ids.l_b, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Beta', icon: null, color: 'gray', position: 2, created_at: CREATED },
      { id: ids.l_b2, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Beta', icon: null, color: 'gray', position: 2, created_at: CREATED },
    ] satisfies Array<Schema<'List'>>;

  it.each(['owner', 'admin', 'member', 'viewer'] as const)('gives %s the lists of the folder by position, name, id (D23)', async (user) => {
    const res = await listsOf(ids.f_main, KEY(user));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(main());
    for (const l of res.json()) expect(Object.keys(l).sort()).toEqual(LIST_KEYS);
  });

  it('gives an empty array for a folder without lists', async () => {
    const res = await listsOf(ids.f_empty);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it.each([
    ['a granted folder: all its lists', 'f_granted', ['g1', 'g2']],
    ['a folder with one granted list: that list', 'f_partial', ['p1']],
  ])('gives a restricted member only permitted lists (D29): %s', async (_case, folderRef, listRefs) => {
    const res = await listsOf(ids[folderRef], KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json().map((l: { id: number }) => l.id)).toEqual(listRefs.map((r) => ids[r]));
  });

  it.each([
    ['a folder with nothing granted', 'f_none'],
    ['another folder with nothing granted', 'f_main'],
  ])('403 Access denied to a restricted member for %s (D39: neither granted nor holding a permitted list)', async (_case, folderRef) => {
    const res = await listsOf(ids[folderRef], KEY('restricted'));
    expect([res.statusCode, res.json()]).toEqual([403, { error: 'Access denied' }]);
  });
});

describe('POST /api/v1/lists (spec: Create list)', () => {
  it.each([
    ['owner', 11],
    ['admin', 12],
    ['member', 13],
  ] as const)('lets the %s create a list at max + 1 over the workspace (%i), gray with no icon by default (D24)', async (user, position) => {
    const res = await create({ workspace_id: String(ids.make), folder_id: String(ids.m_plain), name: ` By ${user}  ` }, KEY(user));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(LIST_KEYS);
    expect(body).toEqual({
      id: expect.any(Number),
      workspace_id: ids.make,
      folder_id: ids.m_plain,
      name: `By ${user}`,
      icon: null,
      color: 'gray',
      position,
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'List'>);
    expect(await row(body.id)).toEqual(body);
  });

  it('stores the icon and color sent; ids may be numbers (D5)', async () => {
    const res = await create({
      workspace_id: ids.make,
      folder_id: ids.m_plain,
      name: 'Styled',
      icon: 'library',
      color: 'purple',
    } satisfies Schema<'CreateList'>);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      workspace_id: ids.make,
      folder_id: ids.m_plain,
      name: 'Styled',
      icon: 'library',
      color: 'purple',
      position: expect.any(Number),
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'List'>);
  });

  it('starts positions at 1 in a workspace without lists (D24)', async () => {
    const first = await create({ workspace_id: ids.empty, folder_id: ids.e_f, name: 'First' } satisfies Schema<'CreateList'>);
    expect(first.statusCode).toBe(201);
    expect(first.json().position).toBe(1);
    expect((await create({ workspace_id: ids.empty, folder_id: ids.e_f, name: 'Second' } satisfies Schema<'CreateList'>)).json().position).toBe(2);
  });

  it('lets a restricted member create a list in a granted folder (D30)', async () => {
    const res = await create({ workspace_id: ids.make, folder_id: ids.m_granted, name: 'Mine' } satisfies Schema<'CreateList'>, KEY('restricted'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      workspace_id: ids.make,
      folder_id: ids.m_granted,
      name: 'Mine',
      icon: null,
      color: 'gray',
      position: expect.any(Number),
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'List'>);
  });

  it('refuses a restricted member in a folder not granted that holds a granted list: 403 Access denied, before the body (D29, D30)', async () => {
    for (const name of ['Nope', '']) {
      expectError(await create({ workspace_id: ids.make, folder_id: ids.m_partial, name }, KEY('restricted')), 403, 'Access denied');
    }
  });

  it('checks the folder before the role (D3 step 5): a viewer naming no folder gets 404', async () => {
    expectError(await create({ workspace_id: ids.make, folder_id: 99999999, name: 'X' }, KEY('viewer')), 404, 'Folder not found');
    expectError(await create({ workspace_id: ids.make, folder_id: ids.s_f, name: 'X' }, KEY('viewer')), 404, 'List not found');
  });

  it('answers 404 Workspace not found for no such workspace nor folder: the workspace first (D3)', async () => {
    expectError(await create({ workspace_id: 99999999, folder_id: 99999999, name: 'X' }), 404, 'Workspace not found');
  });

  it.each([
    ['no such folder', () => 99999999, 'Folder not found'],
    ['a folder of another workspace of the caller', () => ids.s_f, 'List not found'],
    ['a folder of a workspace the caller is not in', () => ids.o_folder, 'List not found'],
  ])('answers 404 for %s (D27)', async (_case, folderId, message) => {
    const before = (await t.db.ds.query(`SELECT count(*)::int AS n FROM lists`))[0].n;
    expectError(await create({ workspace_id: ids.make, folder_id: folderId(), name: 'X' }), 404, message);
    expect((await t.db.ds.query(`SELECT count(*)::int AS n FROM lists`))[0].n).toBe(before);
  });

  it.each([undefined, null, 'abc', '1.5', 1.5, -2, '', {}])(
    'answers 400 folder_id is required for folder_id %p, before membership and role (D3 step 4, D6)',
    async (folderId) => {
      for (const key of [KEY('owner'), KEY('outsider'), KEY('viewer')]) {
        expectError(await create({ workspace_id: ids.make, folder_id: folderId, name: 'X' }, key), 400, 'folder_id is required');
      }
    },
  );

  it.each([
    ['name is required', {}],
    ['name is required', { name: '  ' }],
    ['name is required', { name: 1 }],
    ['name must be at most 255 characters', { name: 'l'.repeat(256) }],
    ['icon must be a string', { name: 'X', icon: 9 }],
    ['color must be a string', { name: 'X', color: ['red'] }],
    ['color must be at most 255 characters', { name: 'X', color: 'c'.repeat(256) }],
  ])('answers 400 %s (case %#; D8)', async (message, fields) => {
    expectError(await create({ workspace_id: ids.make, folder_id: ids.m_plain, ...fields }), 400, message);
  });

  it('answers 400 Request body must be a JSON object for a scalar body (D7)', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/lists', headers: { ...auth(KEY('owner')), 'content-type': 'application/json' }, payload: '42' });
    expectError(res, 400, 'Request body must be a JSON object');
  });
});

describe('PATCH /api/v1/lists/:id (D1 ext: update list)', () => {
  it.each(['owner', 'admin', 'member'] as const)('lets the %s change every field and returns the whole list', async (user) => {
    const res = await update(
      ids.x_l4,
      { name: ` Edited by ${user} `, icon: 'briefcase', color: 'orange', position: 8 } satisfies Schema<'UpdateList'>,
      KEY(user),
    );
    expect(res.statusCode).toBe(200);
    const expected = {
      id: ids.x_l4,
      workspace_id: ids.edit,
      folder_id: ids.x_b,
      name: `Edited by ${user}`,
      icon: 'briefcase',
      color: 'orange',
      position: 8,
      created_at: CREATED,
    } satisfies Schema<'List'>;
    expect(res.json()).toEqual(expected);
    expect(Object.keys(res.json()).sort()).toEqual(LIST_KEYS);
    expect(await row(ids.x_l4)).toEqual(expected);
  });

  it('changes only the fields sent', async () => {
    const before: Schema<'List'> = await row(ids.x_l4);
    const res = await update(ids.x_l4, { color: 'gray' } satisfies Schema<'UpdateList'>);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, color: 'gray' } satisfies Schema<'List'>);
  });

  it('clears icon and color sent as null, and returns the list unchanged for an empty body', async () => {
    const cleared: Schema<'List'> = await row(ids.x_l4);
    const res = await update(ids.x_l4, { icon: null, color: null } satisfies Schema<'UpdateList'>);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...cleared, icon: null, color: null } satisfies Schema<'List'>);
    const before = await row(ids.x_l4);
    const same = await update(ids.x_l4, {});
    expect(same.statusCode).toBe(200);
    expect(same.json()).toEqual(before);
  });

  it('moves the list to another folder of its workspace, keeping the rest (D27)', async () => {
    const before: Schema<'List'> = await row(ids.x_l4);
    const res = await update(ids.x_l4, { folder_id: String(ids.x_a) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, folder_id: ids.x_a } satisfies Schema<'List'>);
    expect((await listsOf(ids.x_a)).json().map((l: { id: number }) => l.id)).toEqual([ids.x_l1, ids.x_l4]);
    const back = await update(ids.x_l4, { folder_id: ids.x_b, position: 4 } satisfies Schema<'UpdateList'>);
    expect(back.json()).toEqual({ ...before, folder_id: ids.x_b, position: 4 } satisfies Schema<'List'>);
  });

  it.each([
    ['no such folder', () => 99999999, 'Folder not found'],
    ['a folder of another workspace of the caller', () => ids.s_f, 'List not found'],
    ['a folder of a workspace the caller is not in', () => ids.o_folder, 'List not found'],
  ])('answers 404 for a move to %s, and changes nothing (D27)', async (_case, folderId, message) => {
    const before = await row(ids.x_l4);
    expectError(await update(ids.x_l4, { folder_id: folderId(), name: 'Moved' }), 404, message);
    expect(await row(ids.x_l4)).toEqual(before);
  });

  it.each([null, 'abc', '2.0', 2.5, -1, '', false, {}])('answers 400 folder_id must be a valid numeric ID for %p', async (folderId) => {
    expectError(await update(ids.x_l4, { folder_id: folderId }), 400, BAD_FOLDER_ID);
  });

  it('parses the body before looking the target folder up (D3 steps 7, 8)', async () => {
    expectError(await update(ids.x_l4, { name: '', folder_id: 99999999 }), 400, 'name cannot be empty');
  });

  it.each([
    ['name cannot be empty', { name: '' }],
    ['name cannot be empty', { name: '  ' }],
    ['name must be a string', { name: 2 }],
    ['name must be a string', { name: null }],
    ['name must be at most 255 characters', { name: 'n'.repeat(256) }],
    ['icon must be a string', { icon: {} }],
    ['color must be a string', { color: 1 }],
    ['position must be an integer', { position: 0.5 }],
    ['position must be an integer', { position: '1' }],
  ])('answers 400 %s (case %#; D8)', async (message, body) => {
    const before = await row(ids.x_l4);
    expectError(await update(ids.x_l4, body), 400, message);
    expect(await row(ids.x_l4)).toEqual(before);
  });

  describe('a restricted member (D29, D30)', () => {
    it.each([
      ['a list of a granted folder', 'x_l1'],
      ['a granted list in a folder not granted', 'x_l3'],
    ])('may edit %s', async (_case, ref) => {
      const before: Schema<'List'> = await row(ids[ref]);
      const res = await update(ids[ref], { name: `${ref} edited` } satisfies Schema<'UpdateList'>, KEY('restricted'));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...before, name: `${ref} edited` } satisfies Schema<'List'>);
    });

    it('may move a permitted list into a granted folder', async () => {
      const before: Schema<'List'> = await row(ids.x_l1);
      const res = await update(ids.x_l1, { folder_id: ids.x_c } satisfies Schema<'UpdateList'>, KEY('restricted'));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...before, folder_id: ids.x_c } satisfies Schema<'List'>);
    });

    it('gets 403 Access denied for a move into a folder not granted, and nothing changes', async () => {
      const before = await row(ids.x_l1);
      expectError(await update(ids.x_l1, { folder_id: ids.x_b, name: 'Moved' }, KEY('restricted')), 403, 'Access denied');
      expect(await row(ids.x_l1)).toEqual(before);
    });

    it('gets 404 for a move to a folder that does not exist, before the grant (D3 step 8)', async () => {
      expectError(await update(ids.x_l1, { folder_id: 99999999 }, KEY('restricted')), 404, 'Folder not found');
    });
  });
});

describe('DELETE /api/v1/lists/:id (D1 ext: delete list)', () => {
  it.each([
    ['owner', 'd_owner_l'],
    ['admin', 'd_admin_l'],
  ] as const)('lets the %s delete a list: 204 with no body (convention 4, D31)', async (user, ref) => {
    const res = await remove(ids[ref], KEY(user));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(await row(ids[ref])).toBeUndefined();
  });

  it('answers 404 List not found for a list already deleted', async () => {
    expectError(await remove(ids.d_owner_l), 404, 'List not found');
  });

  it('deletes the list with its tasks, their subtasks and comments, and nothing else (D26)', async () => {
    const q = async (sql: string, params: unknown[]) => (await t.db.ds.query(sql, params)).map((r: { id: number }) => r.id);
    const res = await remove(ids.d_cascade_l);
    expect(res.statusCode).toBe(204);
    expect(await row(ids.d_cascade_l)).toBeUndefined();
    expect(await q(`SELECT id FROM tasks WHERE id = ANY($1) ORDER BY id`, [[ids.c_t1, ids.c_t1a, ids.c_t2, ids.k_t]])).toEqual([ids.k_t]);
    expect(await q(`SELECT id FROM comments WHERE id = ANY($1)`, [[ids.c_c1]])).toEqual([]);
    expect((await listsOf(ids.d_f)).json().map((l: { id: number }) => l.id)).toEqual([ids.d_keep_l, ids.d_other_l]);
  });
});
