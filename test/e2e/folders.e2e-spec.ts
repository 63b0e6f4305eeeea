import type { LightMyRequestResponse } from 'fastify';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureFolder, FixtureMember, FixtureWorkspace, FixtureWorld } from '../../src/fixtures/fixture.types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Folders: list, create, update (ext), delete (spec: Folders; D1-D4, D8, D23, D24, D26, D29, D30).
 * Every workspace below has the same members; each group of tests works in a workspace of its own.
 */

const USERS = ['owner', 'admin', 'member', 'viewer', 'restricted', 'outsider'] as const;
type User = (typeof USERS)[number];
const KEY = (user: User) => `svc_folders_${user}`;
const NO_SCOPE_KEY = 'svc_folders_noscope';
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CREATED = '2025-01-02T00:00:00.000Z';
const FOLDER_KEYS = ['color', 'created_at', 'icon', 'id', 'name', 'position', 'workspace_id'];

/** A workspace owned by `owner` with admin, member, viewer and a restricted member granted `grants` (D29). */
function workspace(ref: string, folders: FixtureFolder[], grants: Pick<FixtureMember, 'folders' | 'lists'> = {}, extra: Partial<FixtureWorkspace> = {}): FixtureWorkspace {
  return {
    ref,
    name: ref,
    slug: `folders-${ref}`,
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

const folder = (ref: string, name: string, position: number, extra: Partial<FixtureFolder> = {}): FixtureFolder => ({
  ref, name, position, created_at: CREATED, ...extra,
});

const WORLD: FixtureWorld = {
  users: USERS.map((u) => ({ ref: u, email: `${u}@folders.test`, name: u })),
  api_keys: [
    ...USERS.map((u) => ({ ref: `${u}_key`, user: u, key: KEY(u), scopes: ['folders:read', 'folders:write'] })),
    { ref: 'noscope_key', user: 'owner', key: NO_SCOPE_KEY, scopes: ['workspaces:read', 'workspaces:write', 'lists:write'] },
  ],
  workspaces: [
    // Read only: the listing. Ties on position go by name, then id (D23).
    workspace(
      'acme',
      [
        folder('eng', 'Engineering', 1, { icon: 'code', color: 'purple', lists: [{ ref: 'eng_backlog', name: 'Backlog' }] }),
        folder('ops', 'Ops', 2),
        folder('arch', 'Archive', 2, { color: null }),
        folder('beta1', 'Beta', 3),
        folder('beta2', 'Beta', 3, { icon: 'folder-2' }),
      ],
      // A granted list does not grant its folder (D29).
      { folders: ['ops'], lists: ['eng_backlog'] },
    ),
    workspace('work', [
      folder('w_granted', 'Granted', 1),
      folder('w_plain', 'Plain', 4),
      folder('w_edit', 'Editable', 2, { icon: 'chart', color: 'red' }),
    ], { folders: ['w_granted'] }),
    workspace('empty', []),
    workspace(
      'del',
      [
        folder('d_owner', 'For the owner', 1),
        folder('d_admin', 'For the admin', 2),
        folder('d_keep', 'Kept', 3),
        folder('d_cascade', 'Cascade', 4, { lists: [{ ref: 'c_l1', name: 'One' }, { ref: 'c_l2', name: 'Two' }] }),
        folder('d_other', 'Other', 5, { lists: [{ ref: 'k_l', name: 'Kept list' }] }),
      ],
      { folders: ['d_keep', 'd_cascade'], lists: ['c_l2'] },
      {
        lists: [{ ref: 'loose', name: 'No folder' }],
        tasks: [
          { ref: 'c_t1', list: 'c_l1', title: 'In one', comments: [{ ref: 'c_c1', content: '<p>hi</p>' }] },
          { ref: 'c_t1a', parent: 'c_t1', list: 'c_l1', title: 'Sub of one' },
          { ref: 'c_t2', list: 'c_l2', title: 'In two' },
          { ref: 'k_t', list: 'k_l', title: 'Kept task', comments: [{ ref: 'k_c', content: '<p>stay</p>' }] },
          { ref: 'n_t', list: 'loose', title: 'Loose task' },
        ],
      },
    ),
    { ref: 'other', name: 'Other', slug: 'folders-other', owner: 'outsider', folders: [folder('o_folder', 'Theirs', 1)] },
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
const list = (workspace: number | string, key: string | null = KEY('owner')) => send('GET', `/api/v1/workspaces/${workspace}/folders`, key);
const create = (body: unknown, key: string | null = KEY('owner')) => send('POST', '/api/v1/folders', key, body);
const update = (id: number | string, body: unknown, key: string | null = KEY('owner')) => send('PATCH', `/api/v1/folders/${id}`, key, body);
const remove = (id: number | string, key: string | null = KEY('owner')) => send('DELETE', `/api/v1/folders/${id}`, key);
const row = async (id: number) =>
  (await t.db.ds.query(`SELECT id, workspace_id, name, icon, color, position, api_ts(created_at) AS created_at FROM folders WHERE id = $1`, [id]))[0];

describe('GET /api/v1/workspaces/:id/folders (spec: List folders)', () => {
  const all = () => [
    { id: ids.eng, workspace_id: ids.acme, name: 'Engineering', icon: 'code', color: 'purple', position: 1, created_at: CREATED },
    { id: ids.arch, workspace_id: ids.acme, name: 'Archive', icon: null, color: null, position: 2, created_at: CREATED },
    { id: ids.ops, workspace_id: ids.acme, name: 'Ops', icon: null, color: 'blue', position: 2, created_at: CREATED },
    { id: ids.beta1, workspace_id: ids.acme, name: 'Beta', icon: null, color: 'blue', position: 3, created_at: CREATED },
    { id: ids.beta2, workspace_id: ids.acme, name: 'Beta', icon: 'folder-2', color: 'blue', position: 3, created_at: CREATED },
  ];

  it.each(['owner', 'admin', 'member', 'viewer'] as const)('gives %s every folder by position, name, id (D23)', async (user) => {
    const res = await list(ids.acme, KEY(user));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(all());
    for (const f of res.json()) expect(Object.keys(f).sort()).toEqual(FOLDER_KEYS);
  });

  it('gives a restricted member only the folders granted, not the folder of a granted list (D29)', async () => {
    const res = await list(ids.acme, KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([all()[2]]);
  });

  it('gives a restricted member without folder grants an empty array', async () => {
    const res = await list(ids.empty, KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it.each([
    ['a non-member (D4)', () => ids.acme, KEY('outsider')],
    ['a workspace of which the caller is not a member', () => ids.other, KEY('owner')],
    ['no such workspace', () => 99999999, KEY('owner')],
  ])('answers 404 Workspace not found for %s', async (_case, workspace, key) => {
    const res = await list(workspace(), key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Workspace not found' });
  });

  it.each(['abc', '2.0', '-2', ' 1'])('answers 400 Invalid workspace ID for %p (D6)', async (bad) => {
    const res = await list(encodeURIComponent(bad));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid workspace ID' });
  });

  it('needs the folders:read scope, before the id is parsed (D3)', async () => {
    for (const workspace of [ids.acme, 'abc']) {
      const res = await list(workspace, NO_SCOPE_KEY);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'folders:read' is required for this endpoint" });
    }
  });

  it('needs an API key', async () => {
    const res = await list(ids.acme, null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API key required' });
  });
});

describe('POST /api/v1/folders (spec: Create folder)', () => {
  it.each([
    ['owner', 5],
    ['admin', 6],
    ['member', 7],
  ] as const)('lets the %s create a folder at max + 1 (%i), blue with no icon by default (D24)', async (user, position) => {
    const res = await create({ workspace_id: String(ids.work), name: `  New by ${user} ` }, KEY(user));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(FOLDER_KEYS);
    expect(body).toEqual({
      id: expect.any(Number), workspace_id: ids.work, name: `New by ${user}`, icon: null, color: 'blue',
      position, created_at: expect.stringMatching(TS),
    });
    expect(await row(body.id)).toEqual(body);
  });

  it('stores the icon and color sent', async () => {
    const res = await create({ workspace_id: ids.work, name: 'Styled', icon: 'briefcase', color: 'orange' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Styled', icon: 'briefcase', color: 'orange' });
  });

  it('starts positions at 1 in a workspace without folders (D24)', async () => {
    const first = await create({ workspace_id: ids.empty, name: 'First' });
    expect(first.statusCode).toBe(201);
    expect(first.json().position).toBe(1);
    expect((await create({ workspace_id: ids.empty, name: 'Second' })).json().position).toBe(2);
  });

  it.each([
    ['viewer', 'Viewers cannot create folders'],
    ['restricted', 'Access denied'],
  ] as const)('refuses the %s: 403 %s (D2, D30), before the body (D3)', async (user, message) => {
    for (const body of [{ workspace_id: ids.work, name: 'Nope' }, { workspace_id: ids.work, name: '  ', icon: 5 }]) {
      const res = await create(body, KEY(user));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: message });
    }
  });

  it.each([
    ['a non-member (D4)', () => ids.work, KEY('outsider')],
    ['a workspace of which the caller is not a member', () => ids.other, KEY('owner')],
    ['no such workspace', () => 99999999, KEY('owner')],
  ])('answers 404 Workspace not found for %s', async (_case, workspace, key) => {
    const res = await create({ workspace_id: workspace(), name: 'X' }, key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Workspace not found' });
  });

  it.each([undefined, null, 'abc', '3.0', 2.5, -4, '', false, []])('answers 400 workspace_id is required for workspace_id %p, before the role (D3, D6)', async (workspaceId) => {
    for (const key of [KEY('owner'), KEY('viewer')]) {
      const res = await create({ workspace_id: workspaceId, name: 'X' }, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'workspace_id is required' });
    }
  });

  it.each([
    ['name is required', {}],
    ['name is required', { name: '' }],
    ['name is required', { name: ' \t ' }],
    ['name is required', { name: 7 }],
    ['name is required', { name: null }],
    ['name must be at most 255 characters', { name: 'f'.repeat(256) }],
    ['icon must be a string', { name: 'X', icon: 1 }],
    ['icon must be at most 255 characters', { name: 'X', icon: 'i'.repeat(256) }],
    ['color must be a string', { name: 'X', color: {} }],
  ])('answers 400 %s (case %#; D8)', async (message, fields) => {
    const res = await create({ workspace_id: ids.work, ...fields });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('answers 400 for malformed JSON (D7)', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/folders', headers: { ...auth(KEY('owner')), 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid JSON body' });
  });

  it('needs the folders:write scope, before the body is read (D3)', async () => {
    const res = await create({}, NO_SCOPE_KEY);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: "Scope 'folders:write' is required for this endpoint" });
  });

  it('needs an API key', async () => {
    const res = await create({ workspace_id: ids.work, name: 'X' }, null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API key required' });
  });
});

describe('PATCH /api/v1/folders/:id (D1 ext: update folder)', () => {
  it.each(['owner', 'admin', 'member'] as const)('lets the %s change every field and returns the whole folder', async (user) => {
    const res = await update(ids.w_edit, { name: ` Edited by ${user} `, icon: 'library', color: 'gray', position: 9 }, KEY(user));
    expect(res.statusCode).toBe(200);
    const expected = { id: ids.w_edit, workspace_id: ids.work, name: `Edited by ${user}`, icon: 'library', color: 'gray', position: 9, created_at: CREATED };
    expect(res.json()).toEqual(expected);
    expect(Object.keys(res.json()).sort()).toEqual(FOLDER_KEYS);
    expect(await row(ids.w_edit)).toEqual(expected);
  });

  it('changes only the fields sent', async () => {
    const before = await row(ids.w_edit);
    const res = await update(ids.w_edit, { position: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, position: 0 });
    const res2 = await update(ids.w_edit, { name: 'Renamed' });
    expect(res2.json()).toEqual({ ...before, position: 0, name: 'Renamed' });
  });

  it('clears icon and color sent as null', async () => {
    const res = await update(ids.w_edit, { icon: null, color: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ icon: null, color: null, name: 'Renamed' });
  });

  it('returns the folder unchanged for an empty body', async () => {
    const before = await row(ids.w_edit);
    const res = await update(ids.w_edit, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(before);
  });

  it('lets a restricted member edit a granted folder (D30)', async () => {
    const res = await update(ids.w_granted, { name: 'Granted, edited' }, KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: ids.w_granted, name: 'Granted, edited' });
  });

  it.each([
    ['viewer', () => ids.w_edit, 'Viewers cannot edit folders'],
    ['restricted', () => ids.w_plain, 'Access denied'],
  ] as const)('refuses the %s: 403 %s (D2, D30), before the body (D3)', async (user, id, message) => {
    for (const body of [{ name: 'Nope' }, { name: '', position: 'x' }]) {
      const res = await update(id(), body, KEY(user));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: message });
    }
    expect((await row(id())).name).not.toBe('Nope');
  });

  it.each([
    ['a non-member (D4)', () => ids.w_plain, KEY('outsider')],
    ['a folder of a workspace the caller is not in (D4)', () => ids.o_folder, KEY('owner')],
    ['no such folder', () => 99999999, KEY('owner')],
  ])('answers 404 Folder not found for %s, before the body', async (_case, id, key) => {
    const res = await update(id(), { name: '' }, key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Folder not found' });
  });

  it.each(['abc', '1.5', '-1', '1e2'])('answers 400 Invalid folder ID for %p (D6)', async (id) => {
    const res = await update(id, { name: 'X' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid folder ID' });
  });

  it.each([
    ['name cannot be empty', { name: '' }],
    ['name cannot be empty', { name: '   ' }],
    ['name must be a string', { name: 3 }],
    ['name must be a string', { name: null }],
    ['name must be at most 255 characters', { name: 'n'.repeat(256) }],
    ['icon must be a string', { icon: true }],
    ['color must be a string', { color: 3 }],
    ['color must be at most 255 characters', { color: 'c'.repeat(256) }],
    ['position must be an integer', { position: 2.5 }],
    ['position must be an integer', { position: '3' }],
    ['position must be an integer', { position: null }],
  ])('answers 400 %s (case %#; D8)', async (message, body) => {
    const before = await row(ids.w_plain);
    const res = await update(ids.w_plain, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    expect(await row(ids.w_plain)).toEqual(before);
  });

  it('needs the folders:write scope, before the id is parsed (D3)', async () => {
    for (const id of [ids.w_plain, 'abc']) {
      const res = await update(id, { name: 'X' }, NO_SCOPE_KEY);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'folders:write' is required for this endpoint" });
    }
  });

  it('needs an API key', async () => {
    const res = await update(ids.w_plain, { name: 'X' }, null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API key required' });
  });
});

describe('DELETE /api/v1/folders/:id (spec: Delete folder)', () => {
  it.each([
    ['owner', 'd_owner'],
    ['admin', 'd_admin'],
  ] as const)('lets the %s delete a folder: 204 with no body (convention 4, D31)', async (user, ref) => {
    const res = await remove(ids[ref], KEY(user));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(await row(ids[ref])).toBeUndefined();
  });

  it.each(['member', 'viewer', 'restricted'] as const)('refuses the %s: 403 Only owners and admins can delete folders (D2)', async (user) => {
    const res = await remove(ids.d_keep, KEY(user));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Only owners and admins can delete folders' });
    expect(await row(ids.d_keep)).toBeDefined();
  });

  it.each([
    ['a non-member (D4)', () => ids.d_keep, KEY('outsider')],
    ['a folder of a workspace the caller is not in (D4)', () => ids.o_folder, KEY('owner')],
    ['no such folder', () => 99999999, KEY('owner')],
    ['a folder already deleted', () => ids.d_owner, KEY('owner')],
  ])('answers 404 Folder not found for %s', async (_case, id, key) => {
    const res = await remove(id(), key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Folder not found' });
  });

  it.each(['abc', '0.5', '-9'])('answers 400 Invalid folder ID for %p (D6)', async (id) => {
    const res = await remove(id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid folder ID' });
  });

  it('needs the folders:write scope, before the id is parsed (D3)', async () => {
    for (const id of [ids.d_keep, 'abc']) {
      const res = await remove(id, NO_SCOPE_KEY);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'folders:write' is required for this endpoint" });
    }
  });

  it('needs an API key', async () => {
    const res = await remove(ids.d_keep, null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API key required' });
  });

  it('deletes the folder with its lists, their tasks, subtasks, comments and grants, and nothing else (D26)', async () => {
    const q = async (sql: string, params: unknown[]) => (await t.db.ds.query(sql, params)).map((r: { id: number }) => r.id);
    const gone = { lists: [ids.c_l1, ids.c_l2], tasks: [ids.c_t1, ids.c_t1a, ids.c_t2], comments: [ids.c_c1] };
    const kept = { lists: [ids.k_l, ids.loose], tasks: [ids.k_t, ids.n_t], comments: [ids.k_c] };

    const res = await remove(ids.d_cascade);
    expect(res.statusCode).toBe(204);

    expect(await row(ids.d_cascade)).toBeUndefined();
    expect(await q(`SELECT id FROM lists WHERE id = ANY($1) ORDER BY id`, [[...gone.lists, ...kept.lists]])).toEqual(kept.lists.sort((a, b) => a - b));
    expect(await q(`SELECT id FROM tasks WHERE id = ANY($1) ORDER BY id`, [[...gone.tasks, ...kept.tasks]])).toEqual(kept.tasks.sort((a, b) => a - b));
    expect(await q(`SELECT id FROM comments WHERE id = ANY($1) ORDER BY id`, [[...gone.comments, ...kept.comments]])).toEqual(kept.comments);
    expect(await t.db.ds.query(`SELECT folder_id FROM member_folder_grants WHERE workspace_id = $1`, [ids.del])).toEqual([{ folder_id: ids.d_keep }]);
    expect(await t.db.ds.query(`SELECT list_id FROM member_list_grants WHERE workspace_id = $1`, [ids.del])).toEqual([]);
    expect((await list(ids.del)).json().map((f: { id: number }) => f.id)).toEqual([ids.d_keep, ids.d_other]);
  });
});
