import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Labels: GET /api/v1/workspaces/:id/labels, POST /api/v1/labels (ext),
 * DELETE /api/v1/labels/:id. spec: List labels, Delete label; D1, D8, D23,
 * D26, D28, D30. The checks every route makes (keys, scopes, ids, non-members,
 * the D2 role messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LABEL_KEYS = ['color', 'created_at', 'id', 'name', 'workspace_id'] satisfies Array<keyof Schema<'Label'>>;
const { key, keyOnly } = roleKeys('lb');

describe('labels', () => {
  const { t, ids } = useRoleWorld('lb', (b) => ({
    workspaces: [
      b.team('acme', {
        // Listed out of order: the listing sorts by name ignoring case, then id (D23).
        labels: [
          { ref: 'zeta', name: 'zeta', color: 'gray', created_at: '2025-01-03T00:00:00.000Z' },
          { ref: 'l_bug', name: 'Bug', color: 'red', created_at: '2025-01-01T00:00:00.000Z' },
          { ref: 'alpha', name: 'alpha', color: null, created_at: '2025-01-02T00:00:00.000Z' },
          { ref: 'Beta', name: 'Beta', created_at: '2025-01-04T00:00:00.000Z' },
          { ref: 'gone', name: 'Gone soon', color: 'orange', created_at: '2025-01-05T00:00:00.000Z' },
          { ref: 'gone2', name: 'Gone too', created_at: '2025-01-05T00:00:00.000Z' },
          { ref: 'kept', name: 'Kept', created_at: '2025-01-05T00:00:00.000Z' },
        ],
        folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
        tasks: [
          { ref: 't1', list: 'l', title: 'Labelled', labels: ['gone', 'kept'] },
          { ref: 't2', list: 'l', title: 'Also labelled', labels: ['gone'] },
        ],
      }),
      b.team('empty'),
    ],
  }));

  const list = (key: string | null, ws: string | number) => t.inject({ method: 'GET', url: `/api/v1/workspaces/${ws}/labels`, headers: key ? auth(key) : {} });
  const create = (key: string | null, payload: unknown) =>
    t.inject({ method: 'POST', url: '/api/v1/labels', headers: key ? auth(key) : {}, payload: payload as object });
  const remove = (key: string | null, id: string | number) => t.inject({ method: 'DELETE', url: `/api/v1/labels/${id}`, headers: key ? auth(key) : {} });

  const label = (ref: string, name: string, color: Schema<'Label'>['color'], created_at: string) =>
    ({ id: ids[ref], workspace_id: ids.acme, name, color, created_at }) satisfies Schema<'Label'>;

  describe('GET /api/v1/workspaces/:id/labels (spec: List labels)', () => {
    const initial = () => [
      label('alpha', 'alpha', null, '2025-01-02T00:00:00.000Z'),
      label('Beta', 'Beta', null, '2025-01-04T00:00:00.000Z'),
      label('l_bug', 'Bug', 'red', '2025-01-01T00:00:00.000Z'),
      label('gone', 'Gone soon', 'orange', '2025-01-05T00:00:00.000Z'),
      label('gone2', 'Gone too', null, '2025-01-05T00:00:00.000Z'),
      label('kept', 'Kept', null, '2025-01-05T00:00:00.000Z'),
      label('zeta', 'zeta', 'gray', '2025-01-03T00:00:00.000Z'),
    ];

    it.each([
      ['owner', key('owner')],
      ['admin', key('admin')],
      ['member', key('member')],
      ['viewer', key('viewer')],
      ['restricted member (D30)', key('restricted')],
      ['restricted viewer (D30)', key('restrictedViewer')],
      ['key with workspaces:read only', keyOnly('workspaces:read')],
    ])('lists the labels by name ignoring case, then id, for the %s (D23)', async (_who, k) => {
      const res = await list(k, ids.acme);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(initial());
      for (const l of res.json()) expect(Object.keys(l).sort()).toEqual(LABEL_KEYS);
    });

    it('returns [] for a workspace without labels', async () => {
      const res = await list(key('owner'), ids.empty);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });
  });

  describe('POST /api/v1/labels (D1 ext: create label)', () => {
    it.each([
      ['owner', key('owner'), 'Owner made', 'blue'],
      ['admin', key('admin'), 'Admin made', null],
    ] as Array<[string, string, string, Schema<'Label'>['color']]>)('creates a label as the %s', async (_who, k, name, color) => {
      const res = await create(k, { workspace_id: ids.acme, name, color } satisfies Schema<'CreateLabel'>);
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json();
      expect(body).toEqual({ id: expect.any(Number), workspace_id: ids.acme, name, color, created_at: expect.stringMatching(TS) } satisfies Schema<'Label'>);
      expect(Object.keys(body).sort()).toEqual(LABEL_KEYS);
      expect((await list(key('viewer'), ids.acme)).json()).toContainEqual(body);
    });

    it('accepts workspace_id as a string of digits, trims the name and defaults color to null (D5, D8)', async () => {
      const res = await create(key('owner'), { workspace_id: String(ids.acme), name: '  Trimmed  ', extra: 'ignored' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ workspace_id: ids.acme, name: 'Trimmed', color: null });
    });

    it('accepts a name of 255 characters and refuses 256 (D8)', async () => {
      const ok = await create(key('owner'), { workspace_id: ids.acme, name: 'n'.repeat(255) } satisfies Schema<'CreateLabel'>);
      expect(ok.statusCode).toBe(201);
      expect(ok.json().name).toHaveLength(255);
      const long = await create(key('owner'), { workspace_id: ids.acme, name: 'm'.repeat(256) });
      expect(long.statusCode).toBe(400);
      expect(long.json()).toEqual({ error: 'name must be at most 255 characters' });
    });

    it.each([
      ['missing', {}],
      ['null', { name: null }],
      ['a number', { name: 7 }],
      ['empty', { name: '' }],
      ['blank', { name: '   ' }],
    ])('answers 400 name is required when the name is %s (D8)', async (_case, body) => {
      const res = await create(key('owner'), { workspace_id: ids.acme, ...body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'name is required' });
    });

    it.each([
      [12, 'color must be a string'],
      [{ hex: '#f00' }, 'color must be a string'],
      ['c'.repeat(256), 'color must be at most 255 characters'],
    ])('answers 400 for the color %p', async (color, message) => {
      const res = await create(key('owner'), { workspace_id: ids.acme, name: `Colour ${message.length}`, color });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: message });
    });

    it.each([
      ['the same name', 'Bug'],
      ['another case', 'BUG'],
      ['surrounding spaces', '  bug '],
    ])('answers 409 A label with this name already exists for %s (D28)', async (_case, name) => {
      const res = await create(key('admin'), { workspace_id: ids.acme, name });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'A label with this name already exists' });
    });

    it('allows a name that another workspace uses', async () => {
      const res = await create(key('owner'), { workspace_id: ids.empty, name: 'Bug' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ workspace_id: ids.empty, name: 'Bug' });
    });

    it('answers the role 403 before the 409 of a duplicate name (D3 steps 6, 9)', async () => {
      const res = await create(key('member'), { workspace_id: ids.acme, name: 'Bug' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Only owners and admins can create labels' });
    });
  });

  describe('DELETE /api/v1/labels/:id (spec: Delete label)', () => {
    it('deletes the label with 204 and no body, and removes it from tasks (D26)', async () => {
      const before = await t.db.ds.query('SELECT task_id FROM task_labels WHERE label_id = $1 ORDER BY task_id', [ids.gone]);
      expect(before).toEqual([{ task_id: ids.t1 }, { task_id: ids.t2 }]);

      const res = await remove(key('owner'), ids.gone);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();

      expect(await t.db.ds.query('SELECT task_id FROM task_labels WHERE label_id = $1', [ids.gone])).toEqual([]);
      // Other labels of the same task stay; the tasks stay.
      expect(await t.db.ds.query('SELECT label_id FROM task_labels WHERE task_id = $1', [ids.t1])).toEqual([{ label_id: ids.kept }]);
      expect(await t.db.ds.query('SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1)', [[ids.t1, ids.t2]])).toEqual([{ n: 2 }]);
      const names = (await list(key('owner'), ids.acme)).json().map((l: { name: string }) => l.name);
      expect(names).not.toContain('Gone soon');
      expect(names).toContain('Kept');
    });

    it('lets an admin delete, and answers 404 Label not found the second time', async () => {
      const res = await remove(key('admin'), ids.gone2);
      expect(res.statusCode).toBe(204);
      const again = await remove(key('admin'), ids.gone2);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ error: 'Label not found' });
    });

    it('frees the name for a new label', async () => {
      const res = await create(key('owner'), { workspace_id: ids.acme, name: 'gone SOON' });
      expect(res.statusCode).toBe(201);
    });
  });
});
