import type { LightMyRequestResponse } from 'fastify';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureFolder, FixtureList, FixtureMember, FixtureWorkspace, FixtureWorld } from '../../src/fixtures/fixture.types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Lists: lists of a folder (ext), create, update (ext), delete (ext)
 * (spec: Lists; D1-D4, D6, D8, D23, D24, D26, D27, D29, D30).
 * Every workspace below has the same members; each group of tests works in a workspace of its own.
 */

const USERS = ['owner', 'admin', 'member', 'viewer', 'restricted', 'outsider'] as const;
type User = (typeof USERS)[number];
const KEY = (user: User) => `svc_lists_${user}`;
const NO_SCOPE_KEY = 'svc_lists_noscope';
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CREATED = '2025-01-02T00:00:00.000Z';
const LIST_KEYS = ['color', 'created_at', 'folder_id', 'icon', 'id', 'name', 'position', 'workspace_id'];
const BAD_FOLDER_ID = 'folder_id must be a valid numeric ID';

/** A workspace owned by `owner` with admin, member, viewer and a restricted member granted `grants` (D29). */
function workspace(ref: string, folders: FixtureFolder[], grants: Pick<FixtureMember, 'folders' | 'lists'> = {}, extra: Partial<FixtureWorkspace> = {}): FixtureWorkspace {
  return {
    ref,
    name: ref,
    slug: `lists-${ref}`,
    owner: 'owner',
    members: [
      { user: 'admin', role: 'admin' },
      { user: 'member', role: 'member' },
      { user: 'viewer', role: 'viewer' },
      { user: 'restricted', role: 'member', restricted: true, ...grants },
    ],
    folders,
    ...extra,
  };
}

const folder = (ref: string, lists: FixtureList[] = []): FixtureFolder => ({ ref, name: ref, lists });
const list = (ref: string, name: string, position: number, extra: Partial<FixtureList> = {}): FixtureList => ({
  ref, name, position, created_at: CREATED, ...extra,
});

const WORLD: FixtureWorld = {
  users: USERS.map((u) => ({ ref: u, email: `${u}@lists.test`, name: u })),
  api_keys: [
    ...USERS.map((u) => ({ ref: `${u}_key`, user: u, key: KEY(u), scopes: ['folders:read', 'lists:write'] })),
    { ref: 'noscope_key', user: 'owner', key: NO_SCOPE_KEY, scopes: ['folders:write', 'workspaces:read', 'workspaces:write'] },
  ],
  workspaces: [
    // Read only: lists of a folder. Ties on position go by name, then id (D23).
    workspace(
      'acme',
      [
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
      { folders: ['f_granted'], lists: ['p1'] },
      { lists: [list('a_loose', 'Loose', 1)] },
    ),
    workspace(
      'make',
      [folder('m_granted'), folder('m_plain', [list('m_l', 'Existing', 3)]), folder('m_partial', [list('m_pl', 'Granted list', 4)])],
      { folders: ['m_granted'], lists: ['m_pl'] },
      // D24: positions run over all lists of the workspace, those without a folder too.
      { lists: [list('m_loose', 'Loose', 10)] },
    ),
    workspace('empty', [folder('e_f')]),
    workspace('second', [folder('s_f')]),
    workspace(
      'edit',
      [
        folder('x_a', [list('x_l1', 'L1', 1)]),
        folder('x_b', [list('x_l2', 'L2', 2), list('x_l3', 'L3', 3), list('x_l4', 'L4', 4, { icon: 'code', color: 'blue' })]),
        folder('x_c'),
      ],
      { folders: ['x_a', 'x_c'], lists: ['x_l3'] },
    ),
    workspace(
      'del',
      [
        folder('d_f', [
          list('d_owner_l', 'For the owner', 1),
          list('d_admin_l', 'For the admin', 2),
          list('d_keep_l', 'Kept', 3),
          list('d_cascade_l', 'Cascade', 4),
          list('d_other_l', 'Other', 5),
        ]),
      ],
      { folders: ['d_f'] },
      {
        tasks: [
          { ref: 'c_t1', list: 'd_cascade_l', title: 'Doomed', comments: [{ ref: 'c_c1', content: '<p>bye</p>' }] },
          { ref: 'c_t1a', parent: 'c_t1', list: 'd_cascade_l', title: 'Doomed sub' },
          { ref: 'c_t2', list: 'd_cascade_l', title: 'Doomed too' },
          { ref: 'k_t', list: 'd_other_l', title: 'Kept' },
        ],
      },
    ),
    { ref: 'other', name: 'Other', slug: 'lists-other', owner: 'outsider', folders: [folder('o_f', [list('o_l', 'Theirs', 1)])] },
  ],
};

let t: TestApp;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  ids = await loadFixture(t.db.ds, WORLD);
});
afterAll(async () => {
  await t.close();
});

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
  const main = () => [
    { id: ids.l_1, workspace_id: ids.acme, folder_id: ids.f_main, name: 'First', icon: null, color: null, position: 1, created_at: CREATED },
    { id: ids.l_a, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Alpha', icon: 'chart', color: 'red', position: 2, created_at: CREATED },
    { id: ids.l_b, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Beta', icon: null, color: 'gray', position: 2, created_at: CREATED },
    { id: ids.l_b2, workspace_id: ids.acme, folder_id: ids.f_main, name: 'Beta', icon: null, color: 'gray', position: 2, created_at: CREATED },
  ];

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
    ['a folder with nothing granted: none', 'f_none', []],
    ['another folder with nothing granted: none', 'f_main', []],
  ])('gives a restricted member only permitted lists (D29): %s', async (_case, folderRef, listRefs) => {
    const res = await listsOf(ids[folderRef], KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json().map((l: { id: number }) => l.id)).toEqual(listRefs.map((r) => ids[r]));
  });

  it.each([
    ['a non-member (D4)', () => ids.f_main, KEY('outsider')],
    ['a folder of a workspace the caller is not in (D4)', () => ids.o_f, KEY('owner')],
    ['no such folder', () => 99999999, KEY('owner')],
  ])('answers 404 Folder not found for %s', async (_case, id, key) => {
    expectError(await listsOf(id(), key), 404, 'Folder not found');
  });

  it.each(['abc', '1.5', '-1'])('answers 400 Invalid folder ID for %p (D6)', async (id) => {
    expectError(await listsOf(id), 400, 'Invalid folder ID');
  });

  it('needs the folders:read scope, before the id is parsed (D3)', async () => {
    for (const id of [ids.f_main, 'abc']) expectError(await listsOf(id, NO_SCOPE_KEY), 403, "Scope 'folders:read' is required for this endpoint");
  });

  it('needs an API key', async () => {
    expectError(await listsOf(ids.f_main, null), 401, 'API key required');
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
      id: expect.any(Number), workspace_id: ids.make, folder_id: ids.m_plain, name: `By ${user}`, icon: null, color: 'gray',
      position, created_at: expect.stringMatching(TS),
    });
    expect(await row(body.id)).toEqual(body);
  });

  it('stores the icon and color sent; ids may be numbers (D5)', async () => {
    const res = await create({ workspace_id: ids.make, folder_id: ids.m_plain, name: 'Styled', icon: 'library', color: 'purple' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ folder_id: ids.m_plain, name: 'Styled', icon: 'library', color: 'purple' });
  });

  it('starts positions at 1 in a workspace without lists (D24)', async () => {
    const first = await create({ workspace_id: ids.empty, folder_id: ids.e_f, name: 'First' });
    expect(first.statusCode).toBe(201);
    expect(first.json().position).toBe(1);
    expect((await create({ workspace_id: ids.empty, folder_id: ids.e_f, name: 'Second' })).json().position).toBe(2);
  });

  it('lets a restricted member create a list in a granted folder (D30)', async () => {
    const res = await create({ workspace_id: ids.make, folder_id: ids.m_granted, name: 'Mine' }, KEY('restricted'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ folder_id: ids.m_granted, name: 'Mine' });
  });

  it.each([
    ['a folder not granted', 'm_plain'],
    ['a folder not granted that holds a granted list', 'm_partial'],
  ])('refuses a restricted member in %s: 403 Access denied, before the body (D3, D30)', async (_case, folderRef) => {
    for (const name of ['Nope', '']) {
      expectError(await create({ workspace_id: ids.make, folder_id: ids[folderRef], name }, KEY('restricted')), 403, 'Access denied');
    }
  });

  it('refuses a viewer: 403 Viewers cannot create lists, before the body (D2, D3)', async () => {
    for (const name of ['Nope', '', 5]) {
      expectError(await create({ workspace_id: ids.make, folder_id: ids.m_plain, name }, KEY('viewer')), 403, 'Viewers cannot create lists');
    }
  });

  it('checks the folder before the role (D3 step 5): a viewer naming no folder gets 404', async () => {
    expectError(await create({ workspace_id: ids.make, folder_id: 99999999, name: 'X' }, KEY('viewer')), 404, 'Folder not found');
    expectError(await create({ workspace_id: ids.make, folder_id: ids.s_f, name: 'X' }, KEY('viewer')), 404, 'List not found');
  });

  it.each([
    ['a non-member (D4)', () => ids.make, () => ids.m_plain, KEY('outsider')],
    ['a workspace of which the caller is not a member', () => ids.other, () => ids.o_f, KEY('owner')],
    ['no such workspace', () => 99999999, () => ids.m_plain, KEY('owner')],
    ['no such workspace nor folder', () => 99999999, () => 99999999, KEY('owner')],
  ])('answers 404 Workspace not found for %s (D4)', async (_case, workspaceId, folderId, key) => {
    expectError(await create({ workspace_id: workspaceId(), folder_id: folderId(), name: 'X' }, key), 404, 'Workspace not found');
  });

  it.each([
    ['no such folder', () => 99999999, 'Folder not found'],
    ['a folder of another workspace of the caller', () => ids.s_f, 'List not found'],
    ['a folder of a workspace the caller is not in', () => ids.o_f, 'List not found'],
  ])('answers 404 for %s (D27)', async (_case, folderId, message) => {
    const before = (await t.db.ds.query(`SELECT count(*)::int AS n FROM lists`))[0].n;
    expectError(await create({ workspace_id: ids.make, folder_id: folderId(), name: 'X' }), 404, message);
    expect((await t.db.ds.query(`SELECT count(*)::int AS n FROM lists`))[0].n).toBe(before);
  });

  it.each([undefined, null, 'abc', '1.5', 1.5, -2, '', true])('answers 400 workspace_id is required for workspace_id %p, first of all (D3 step 4, D6)', async (workspaceId) => {
    for (const key of [KEY('owner'), KEY('outsider'), KEY('viewer')]) {
      expectError(await create({ workspace_id: workspaceId, name: '' }, key), 400, 'workspace_id is required');
    }
  });

  it.each([undefined, null, 'abc', '1.5', 1.5, -2, '', {}])('answers 400 folder_id is required for folder_id %p, before membership and role (D3 step 4, D6)', async (folderId) => {
    for (const key of [KEY('owner'), KEY('outsider'), KEY('viewer')]) {
      expectError(await create({ workspace_id: ids.make, folder_id: folderId, name: 'X' }, key), 400, 'folder_id is required');
    }
  });

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

  it('needs the lists:write scope, before the body is read (D3)', async () => {
    expectError(await create({}, NO_SCOPE_KEY), 403, "Scope 'lists:write' is required for this endpoint");
  });

  it('needs an API key', async () => {
    expectError(await create({ workspace_id: ids.make, folder_id: ids.m_plain, name: 'X' }, null), 401, 'API key required');
  });
});

describe('PATCH /api/v1/lists/:id (D1 ext: update list)', () => {
  it.each(['owner', 'admin', 'member'] as const)('lets the %s change every field and returns the whole list', async (user) => {
    const res = await update(ids.x_l4, { name: ` Edited by ${user} `, icon: 'briefcase', color: 'orange', position: 8 }, KEY(user));
    expect(res.statusCode).toBe(200);
    const expected = {
      id: ids.x_l4, workspace_id: ids.edit, folder_id: ids.x_b, name: `Edited by ${user}`, icon: 'briefcase', color: 'orange', position: 8, created_at: CREATED,
    };
    expect(res.json()).toEqual(expected);
    expect(Object.keys(res.json()).sort()).toEqual(LIST_KEYS);
    expect(await row(ids.x_l4)).toEqual(expected);
  });

  it('changes only the fields sent', async () => {
    const before = await row(ids.x_l4);
    const res = await update(ids.x_l4, { color: 'gray' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, color: 'gray' });
  });

  it('clears icon and color sent as null, and returns the list unchanged for an empty body', async () => {
    const res = await update(ids.x_l4, { icon: null, color: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ icon: null, color: null });
    const before = await row(ids.x_l4);
    const same = await update(ids.x_l4, {});
    expect(same.statusCode).toBe(200);
    expect(same.json()).toEqual(before);
  });

  it('moves the list to another folder of its workspace, keeping the rest (D27)', async () => {
    const before = await row(ids.x_l4);
    const res = await update(ids.x_l4, { folder_id: String(ids.x_a) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, folder_id: ids.x_a });
    expect((await listsOf(ids.x_a)).json().map((l: { id: number }) => l.id)).toEqual([ids.x_l1, ids.x_l4]);
    const back = await update(ids.x_l4, { folder_id: ids.x_b, position: 4 });
    expect(back.json()).toEqual({ ...before, folder_id: ids.x_b, position: 4 });
  });

  it.each([
    ['no such folder', () => 99999999, 'Folder not found'],
    ['a folder of another workspace of the caller', () => ids.s_f, 'List not found'],
    ['a folder of a workspace the caller is not in', () => ids.o_f, 'List not found'],
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
      const res = await update(ids[ref], { name: `${ref} edited` }, KEY('restricted'));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: ids[ref], name: `${ref} edited` });
    });

    it('may move a permitted list into a granted folder', async () => {
      const res = await update(ids.x_l1, { folder_id: ids.x_c }, KEY('restricted'));
      expect(res.statusCode).toBe(200);
      expect(res.json().folder_id).toBe(ids.x_c);
    });

    it('gets 403 Access denied for a move into a folder not granted, and nothing changes', async () => {
      const before = await row(ids.x_l1);
      expectError(await update(ids.x_l1, { folder_id: ids.x_b, name: 'Moved' }, KEY('restricted')), 403, 'Access denied');
      expect(await row(ids.x_l1)).toEqual(before);
    });

    it('gets 404 for a move to a folder that does not exist, before the grant (D3 step 8)', async () => {
      expectError(await update(ids.x_l1, { folder_id: 99999999 }, KEY('restricted')), 404, 'Folder not found');
    });

    it('gets 403 Access denied for a list not permitted, before the body (D3)', async () => {
      for (const body of [{ name: 'Nope' }, { name: '', folder_id: 'x' }]) {
        expectError(await update(ids.x_l2, body, KEY('restricted')), 403, 'Access denied');
      }
    });
  });

  it('refuses a viewer: 403 Viewers cannot edit lists, before the body (D2, D3)', async () => {
    for (const body of [{ name: 'Nope' }, { name: '', position: 'x' }]) {
      expectError(await update(ids.x_l4, body, KEY('viewer')), 403, 'Viewers cannot edit lists');
    }
  });

  it.each([
    ['a non-member', () => ids.x_l4, KEY('outsider')],
    ['a list of a workspace the caller is not in', () => ids.o_l, KEY('owner')],
  ])('answers 403 Access denied to %s, before the body (D4)', async (_case, id, key) => {
    expectError(await update(id(), { name: '' }, key), 403, 'Access denied');
  });

  it('answers 404 List not found for no such list', async () => {
    expectError(await update(99999999, { name: 'X' }), 404, 'List not found');
  });

  it.each(['abc', '1.5', '-1', '1e3'])('answers 400 Invalid list ID for %p (D6)', async (id) => {
    expectError(await update(id, { name: 'X' }), 400, 'Invalid list ID');
  });

  it('needs the lists:write scope, before the id is parsed (D3)', async () => {
    for (const id of [ids.x_l4, 'abc']) expectError(await update(id, { name: 'X' }, NO_SCOPE_KEY), 403, "Scope 'lists:write' is required for this endpoint");
  });

  it('needs an API key', async () => {
    expectError(await update(ids.x_l4, { name: 'X' }, null), 401, 'API key required');
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

  it.each(['member', 'viewer', 'restricted'] as const)('refuses the %s: 403 Only owners and admins can delete lists (D2)', async (user) => {
    expectError(await remove(ids.d_keep_l, KEY(user)), 403, 'Only owners and admins can delete lists');
    expect(await row(ids.d_keep_l)).toBeDefined();
  });

  it.each([
    ['a non-member', () => ids.d_keep_l, KEY('outsider')],
    ['a list of a workspace the caller is not in', () => ids.o_l, KEY('owner')],
  ])('answers 403 Access denied to %s (D4)', async (_case, id, key) => {
    expectError(await remove(id(), key), 403, 'Access denied');
  });

  it.each([
    ['no such list', () => 99999999],
    ['a list already deleted', () => ids.d_owner_l],
  ])('answers 404 List not found for %s', async (_case, id) => {
    expectError(await remove(id()), 404, 'List not found');
  });

  it.each(['abc', '2.5', '-4'])('answers 400 Invalid list ID for %p (D6)', async (id) => {
    expectError(await remove(id), 400, 'Invalid list ID');
  });

  it('needs the lists:write scope, before the id is parsed (D3)', async () => {
    for (const id of [ids.d_keep_l, 'abc']) expectError(await remove(id, NO_SCOPE_KEY), 403, "Scope 'lists:write' is required for this endpoint");
  });

  it('needs an API key', async () => {
    expectError(await remove(ids.d_keep_l, null), 401, 'API key required');
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
