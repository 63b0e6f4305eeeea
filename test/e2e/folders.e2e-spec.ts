import type { LightMyRequestResponse } from 'fastify';

import type { FixtureFolder } from '../../src/fixtures/fixture.types';
import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Folders: list, create, update (ext), delete (spec: Folders; D8, D23, D24,
 * D26, D29, D30). Every workspace below has the members of the role world;
 * each group of tests works in a workspace of its own. The checks every route
 * makes (keys, scopes, ids, non-members, the D2 role messages) are the route
 * matrix's (route-matrix.e2e-spec.ts).
 */

const { key: KEY } = roleKeys('folders');
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CREATED = '2025-01-02T00:00:00.000Z';
const FOLDER_KEYS = ['color', 'created_at', 'icon', 'id', 'name', 'position', 'workspace_id'] satisfies Array<keyof Schema<'Folder'>>;

const folder = (ref: string, name: string, position: number, extra: Partial<FixtureFolder> = {}): FixtureFolder => ({
  ref,
  name,
  position,
  created_at: CREATED,
  ...extra,
});

const { t, ids } = useRoleWorld('folders', (b) => ({
  workspaces: [
    // Read only: the listing. Ties on position go by name, then id (D23).
    b.team(
      'acme',
      {
        folders: [
          folder('f_eng', 'Engineering', 1, { icon: 'code', color: 'purple', lists: [{ ref: 'eng_backlog', name: 'Backlog' }] }),
          folder('f_ops', 'Ops', 2),
          folder('arch', 'Archive', 2, { color: null }),
          folder('beta1', 'Beta', 3),
          folder('beta2', 'Beta', 3, { icon: 'folder-2' }),
        ],
      },
      // A granted list does not grant its folder (D29).
      { restricted: { folders: ['f_ops'], lists: ['eng_backlog'] } },
    ),
    b.team(
      'work',
      {
        folders: [folder('w_granted', 'Granted', 1), folder('w_plain', 'Plain', 4), folder('w_edit', 'Editable', 2, { icon: 'chart', color: 'red' })],
      },
      { restricted: { folders: ['w_granted'] } },
    ),
    b.team('empty', { folders: [] }),
    b.team(
      'del',
      {
        folders: [
          folder('d_owner', 'For the owner', 1),
          folder('d_admin', 'For the admin', 2),
          folder('d_keep', 'Kept', 3),
          folder('d_cascade', 'Cascade', 4, {
            lists: [
              { ref: 'c_l1', name: 'One' },
              { ref: 'c_l2', name: 'Two' },
            ],
          }),
          folder('d_other', 'Other', 5, { lists: [{ ref: 'k_l', name: 'Kept list' }] }),
        ],
        lists: [{ ref: 'd_loose', name: 'No folder' }],
        tasks: [
          { ref: 'c_t1', list: 'c_l1', title: 'In one', comments: [{ ref: 'c_c1', content: '<p>hi</p>' }] },
          { ref: 'c_t1a', parent: 'c_t1', list: 'c_l1', title: 'Sub of one' },
          { ref: 'c_t2', list: 'c_l2', title: 'In two' },
          { ref: 'k_t', list: 'k_l', title: 'Kept task', comments: [{ ref: 'k_c', content: '<p>stay</p>' }] },
          { ref: 'n_t', list: 'd_loose', title: 'Loose task' },
        ],
      },
      { restricted: { folders: ['d_keep', 'd_cascade'], lists: ['c_l2'] } },
    ),
  ],
}));

const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string | null, payload?: unknown): Promise<LightMyRequestResponse> =>
  t.inject({ method, url, headers: key ? auth(key) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const list = (workspace: number | string, key: string | null = KEY('owner')) => send('GET', `/api/v1/workspaces/${workspace}/folders`, key);
const create = (body: unknown, key: string | null = KEY('owner')) => send('POST', '/api/v1/folders', key, body);
const update = (id: number | string, body: unknown, key: string | null = KEY('owner')) => send('PATCH', `/api/v1/folders/${id}`, key, body);
const remove = (id: number | string, key: string | null = KEY('owner')) => send('DELETE', `/api/v1/folders/${id}`, key);
const row = async (id: number) =>
  (await t.db.ds.query(`SELECT id, workspace_id, name, icon, color, position, api_ts(created_at) AS created_at FROM folders WHERE id = $1`, [id]))[0];

describe('GET /api/v1/workspaces/:id/folders (spec: List folders)', () => {
  const all = () =>
    [
      { id: ids.f_eng, workspace_id: ids.acme, name: 'Engineering', icon: 'code', color: 'purple', position: 1, created_at: CREATED },
      { id: ids.arch, workspace_id: ids.acme, name: 'Archive', icon: null, color: null, position: 2, created_at: CREATED },
      { id: ids.f_ops, workspace_id: ids.acme, name: 'Ops', icon: null, color: 'blue', position: 2, created_at: CREATED },
      { id: ids.beta1, workspace_id: ids.acme, name: 'Beta', icon: null, color: 'blue', position: 3, created_at: CREATED },
      { id: ids.beta2, workspace_id: ids.acme, name: 'Beta', icon: 'folder-2', color: 'blue', position: 3, created_at: CREATED },
    ] satisfies Array<Schema<'Folder'>>;

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
      id: expect.any(Number),
      workspace_id: ids.work,
      name: `New by ${user}`,
      icon: null,
      color: 'blue',
      position,
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'Folder'>);
    expect(await row(body.id)).toEqual(body);
  });

  it('stores the icon and color sent', async () => {
    const res = await create({ workspace_id: ids.work, name: 'Styled', icon: 'briefcase', color: 'orange' } satisfies Schema<'CreateFolder'>);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      workspace_id: ids.work,
      name: 'Styled',
      icon: 'briefcase',
      color: 'orange',
      position: expect.any(Number),
      created_at: expect.stringMatching(TS),
    } satisfies Schema<'Folder'>);
  });

  it('starts positions at 1 in a workspace without folders (D24)', async () => {
    const first = await create({ workspace_id: ids.empty, name: 'First' } satisfies Schema<'CreateFolder'>);
    expect(first.statusCode).toBe(201);
    expect(first.json().position).toBe(1);
    expect((await create({ workspace_id: ids.empty, name: 'Second' } satisfies Schema<'CreateFolder'>)).json().position).toBe(2);
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
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: { ...auth(KEY('owner')), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid JSON body' });
  });
});

describe('PATCH /api/v1/folders/:id (D1 ext: update folder)', () => {
  it.each(['owner', 'admin', 'member'] as const)('lets the %s change every field and returns the whole folder', async (user) => {
    const res = await update(
      ids.w_edit,
      { name: ` Edited by ${user} `, icon: 'library', color: 'gray', position: 9 } satisfies Schema<'UpdateFolder'>,
      KEY(user),
    );
    expect(res.statusCode).toBe(200);
    const expected = {
      id: ids.w_edit,
      workspace_id: ids.work,
      name: `Edited by ${user}`,
      icon: 'library',
      color: 'gray',
      position: 9,
      created_at: CREATED,
    } satisfies Schema<'Folder'>;
    expect(res.json()).toEqual(expected);
    expect(Object.keys(res.json()).sort()).toEqual(FOLDER_KEYS);
    expect(await row(ids.w_edit)).toEqual(expected);
  });

  it('changes only the fields sent', async () => {
    const before: Schema<'Folder'> = await row(ids.w_edit);
    const res = await update(ids.w_edit, { position: 0 } satisfies Schema<'UpdateFolder'>);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, position: 0 } satisfies Schema<'Folder'>);
    const res2 = await update(ids.w_edit, { name: 'Renamed' } satisfies Schema<'UpdateFolder'>);
    expect(res2.json()).toEqual({ ...before, position: 0, name: 'Renamed' } satisfies Schema<'Folder'>);
  });

  it('clears icon and color sent as null', async () => {
    const before: Schema<'Folder'> = await row(ids.w_edit);
    const res = await update(ids.w_edit, { icon: null, color: null } satisfies Schema<'UpdateFolder'>);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, icon: null, color: null, name: 'Renamed' } satisfies Schema<'Folder'>);
  });

  it('returns the folder unchanged for an empty body', async () => {
    const before = await row(ids.w_edit);
    const res = await update(ids.w_edit, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(before);
  });

  it('lets a restricted member edit a granted folder (D30)', async () => {
    const before: Schema<'Folder'> = await row(ids.w_granted);
    const res = await update(ids.w_granted, { name: 'Granted, edited' } satisfies Schema<'UpdateFolder'>, KEY('restricted'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, name: 'Granted, edited' } satisfies Schema<'Folder'>);
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

  it('answers 404 Folder not found for a folder already deleted', async () => {
    const res = await remove(ids.d_owner);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Folder not found' });
  });

  it('deletes the folder with its lists, their tasks, subtasks, comments and grants, and nothing else (D26)', async () => {
    const q = async (sql: string, params: unknown[]) => (await t.db.ds.query(sql, params)).map((r: { id: number }) => r.id);
    const gone = { lists: [ids.c_l1, ids.c_l2], tasks: [ids.c_t1, ids.c_t1a, ids.c_t2], comments: [ids.c_c1] };
    const kept = { lists: [ids.k_l, ids.d_loose], tasks: [ids.k_t, ids.n_t], comments: [ids.k_c] };

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
