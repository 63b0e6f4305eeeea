import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Labels (issue 2): GET /api/v1/workspaces/:id/labels, POST /api/v1/labels (ext),
 * DELETE /api/v1/labels/:id. spec: List labels, Delete label; D1, D2, D3, D4,
 * D5, D6, D7, D8, D23, D26, D28, D30.
 */

const ALL = [...SCOPES];
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LABEL_KEYS = ['color', 'created_at', 'id', 'name', 'workspace_id'];

const world: FixtureWorld = {
  users: [
    { ref: 'alice', email: 'alice@labels.test', name: 'Alice' },
    { ref: 'bob', email: 'bob@labels.test', name: 'Bob' },
    { ref: 'carol', email: 'carol@labels.test', name: 'Carol' },
    { ref: 'dave', email: 'dave@labels.test', name: 'Dave' },
    { ref: 'erin', email: 'erin@labels.test', name: 'Erin' },
    { ref: 'olga', email: 'olga@labels.test', name: 'Olga' },
  ],
  api_keys: [
    { user: 'alice', key: 'svc_lb_owner', scopes: ALL },
    { user: 'bob', key: 'svc_lb_admin', scopes: ALL },
    { user: 'carol', key: 'svc_lb_member', scopes: ALL },
    { user: 'dave', key: 'svc_lb_viewer', scopes: ALL },
    { user: 'erin', key: 'svc_lb_restricted', scopes: ALL },
    { user: 'olga', key: 'svc_lb_outsider', scopes: ALL },
    { user: 'alice', key: 'svc_lb_read_only', scopes: ['workspaces:read'] },
  ],
  workspaces: [
    {
      ref: 'acme', name: 'Acme', slug: 'lb-acme', owner: 'alice',
      members: [
        { user: 'bob', role: 'admin' },
        { user: 'carol', role: 'member' },
        { user: 'dave', role: 'viewer' },
        { user: 'erin', role: 'member', restricted: true },
      ],
      // Listed out of order: the listing sorts by name ignoring case, then id (D23).
      labels: [
        { ref: 'zeta', name: 'zeta', color: 'gray', created_at: '2025-01-03T00:00:00.000Z' },
        { ref: 'bug', name: 'Bug', color: 'red', created_at: '2025-01-01T00:00:00.000Z' },
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
    },
    {
      ref: 'other', name: 'Other', slug: 'lb-other', owner: 'olga',
      labels: [{ ref: 'o_bug', name: 'Bug', color: 'red', created_at: '2025-01-01T00:00:00.000Z' }],
    },
    { ref: 'empty', name: 'Empty', slug: 'lb-empty', owner: 'alice' },
  ],
};

describe('labels (issue 2)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (key: string | null, ws: string | number) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${ws}/labels`, headers: key ? auth(key) : {} });
  const create = (key: string | null, payload: unknown) =>
    t.inject({ method: 'POST', url: '/api/v1/labels', headers: key ? auth(key) : {}, payload: payload as object });
  const remove = (key: string | null, id: string | number) =>
    t.inject({ method: 'DELETE', url: `/api/v1/labels/${id}`, headers: key ? auth(key) : {} });

  const label = (ref: string, name: string, color: string | null, created_at: string) => ({ id: ids[ref], workspace_id: ids.acme, name, color, created_at });

  describe('GET /api/v1/workspaces/:id/labels (spec: List labels)', () => {
    const initial = () => [
      label('alpha', 'alpha', null, '2025-01-02T00:00:00.000Z'),
      label('Beta', 'Beta', null, '2025-01-04T00:00:00.000Z'),
      label('bug', 'Bug', 'red', '2025-01-01T00:00:00.000Z'),
      label('gone', 'Gone soon', 'orange', '2025-01-05T00:00:00.000Z'),
      label('gone2', 'Gone too', null, '2025-01-05T00:00:00.000Z'),
      label('kept', 'Kept', null, '2025-01-05T00:00:00.000Z'),
      label('zeta', 'zeta', 'gray', '2025-01-03T00:00:00.000Z'),
    ];

    it.each([
      ['owner', 'svc_lb_owner'],
      ['admin', 'svc_lb_admin'],
      ['member', 'svc_lb_member'],
      ['viewer', 'svc_lb_viewer'],
      ['restricted member (D30)', 'svc_lb_restricted'],
      ['key with workspaces:read only', 'svc_lb_read_only'],
    ])('lists the labels by name ignoring case, then id, for the %s (D23)', async (_who, key) => {
      const res = await list(key, ids.acme);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(initial());
      for (const l of res.json()) expect(Object.keys(l).sort()).toEqual(LABEL_KEYS);
    });

    it('returns [] for a workspace without labels', async () => {
      const res = await list('svc_lb_owner', ids.empty);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });

    it('answers 404 Workspace not found to a non-member (D4), both ways round', async () => {
      for (const [key, ws] of [['svc_lb_outsider', ids.acme], ['svc_lb_owner', ids.other]] as const) {
        const res = await list(key, ws);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'Workspace not found' });
      }
    });

    it.each(['0', '99999999999999'])('answers 404 Workspace not found for %p (D5)', async (id) => {
      const res = await list('svc_lb_owner', id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Workspace not found' });
    });

    it.each(['abc', '1.5', '-1'])('answers 400 Invalid workspace ID for %p (D6)', async (id) => {
      const res = await list('svc_lb_owner', id);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid workspace ID' });
    });
  });

  describe('POST /api/v1/labels (D1 ext: create label)', () => {
    it.each([
      ['owner', 'svc_lb_owner', 'Owner made', 'blue'],
      ['admin', 'svc_lb_admin', 'Admin made', null],
    ])('creates a label as the %s', async (_who, key, name, color) => {
      const res = await create(key, { workspace_id: ids.acme, name, color });
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json();
      expect(body).toEqual({ id: expect.any(Number), workspace_id: ids.acme, name, color, created_at: expect.stringMatching(TS) });
      expect(Object.keys(body).sort()).toEqual(LABEL_KEYS);
      expect((await list('svc_lb_viewer', ids.acme)).json()).toContainEqual(body);
    });

    it('accepts workspace_id as a string of digits, trims the name and defaults color to null (D5, D8)', async () => {
      const res = await create('svc_lb_owner', { workspace_id: String(ids.acme), name: '  Trimmed  ', extra: 'ignored' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ workspace_id: ids.acme, name: 'Trimmed', color: null });
    });

    it('accepts a name of 255 characters and refuses 256 (D8)', async () => {
      const ok = await create('svc_lb_owner', { workspace_id: ids.acme, name: 'n'.repeat(255) });
      expect(ok.statusCode).toBe(201);
      expect(ok.json().name).toHaveLength(255);
      const long = await create('svc_lb_owner', { workspace_id: ids.acme, name: 'm'.repeat(256) });
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
      const res = await create('svc_lb_owner', { workspace_id: ids.acme, ...body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'name is required' });
    });

    it.each([
      [12, 'color must be a string'],
      [{ hex: '#f00' }, 'color must be a string'],
      ['c'.repeat(256), 'color must be at most 255 characters'],
    ])('answers 400 for the color %p', async (color, message) => {
      const res = await create('svc_lb_owner', { workspace_id: ids.acme, name: `Colour ${message.length}`, color });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: message });
    });

    it.each([
      ['the same name', 'Bug'],
      ['another case', 'BUG'],
      ['surrounding spaces', '  bug '],
    ])('answers 409 A label with this name already exists for %s (D28)', async (_case, name) => {
      const res = await create('svc_lb_admin', { workspace_id: ids.acme, name });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'A label with this name already exists' });
    });

    it('allows a name that another workspace uses', async () => {
      const res = await create('svc_lb_owner', { workspace_id: ids.empty, name: 'Bug' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ workspace_id: ids.empty, name: 'Bug' });
    });

    it.each([
      ['missing', {}],
      ['null', { workspace_id: null }],
      ['malformed', { workspace_id: 'abc' }],
      ['a decimal', { workspace_id: 1.5 }],
      ['negative', { workspace_id: -1 }],
      ['a decimal string', { workspace_id: `${1}.0` }],
      ['a boolean', { workspace_id: true }],
    ])('answers 400 workspace_id is required when it is %s, before the name (D3 step 4, D6)', async (_case, body) => {
      const res = await create('svc_lb_owner', { ...body, name: '' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'workspace_id is required' });
    });

    it.each([0, '99999999999999'])('answers 404 Workspace not found for the well-formed workspace_id %p', async (workspace_id) => {
      const res = await create('svc_lb_owner', { workspace_id, name: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Workspace not found' });
    });

    it('answers 404 Workspace not found to a non-member, before the body (D4, D3)', async () => {
      for (const name of ['Nope', '']) {
        const res = await create('svc_lb_outsider', { workspace_id: ids.acme, name });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'Workspace not found' });
      }
    });

    it.each([
      ['member', 'svc_lb_member'],
      ['viewer', 'svc_lb_viewer'],
      ['restricted member', 'svc_lb_restricted'],
    ])('answers 403 Only owners and admins can create labels to the %s, even with a bad or duplicate body (D2, D3)', async (_who, key) => {
      for (const name of ['Fresh', '', 'Bug']) {
        const res = await create(key, { workspace_id: ids.acme, name });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'Only owners and admins can create labels' });
      }
    });

    it("answers 403 Scope 'workspaces:write' before everything else (D3)", async () => {
      const res = await create('svc_lb_read_only', {});
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'workspaces:write' is required for this endpoint" });
    });
  });

  describe('DELETE /api/v1/labels/:id (spec: Delete label)', () => {
    it('deletes the label with 204 and no body, and removes it from tasks (D26)', async () => {
      const before = await t.db.ds.query('SELECT task_id FROM task_labels WHERE label_id = $1 ORDER BY task_id', [ids.gone]);
      expect(before).toEqual([{ task_id: ids.t1 }, { task_id: ids.t2 }]);

      const res = await remove('svc_lb_owner', ids.gone);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();

      expect(await t.db.ds.query('SELECT task_id FROM task_labels WHERE label_id = $1', [ids.gone])).toEqual([]);
      // Other labels of the same task stay; the tasks stay.
      expect(await t.db.ds.query('SELECT label_id FROM task_labels WHERE task_id = $1', [ids.t1])).toEqual([{ label_id: ids.kept }]);
      expect(await t.db.ds.query('SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1)', [[ids.t1, ids.t2]])).toEqual([{ n: 2 }]);
      const names = (await list('svc_lb_owner', ids.acme)).json().map((l: { name: string }) => l.name);
      expect(names).not.toContain('Gone soon');
      expect(names).toContain('Kept');
    });

    it('lets an admin delete, and answers 404 Label not found the second time', async () => {
      const res = await remove('svc_lb_admin', ids.gone2);
      expect(res.statusCode).toBe(204);
      const again = await remove('svc_lb_admin', ids.gone2);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ error: 'Label not found' });
    });

    it('frees the name for a new label', async () => {
      const res = await create('svc_lb_owner', { workspace_id: ids.acme, name: 'gone SOON' });
      expect(res.statusCode).toBe(201);
    });

    it.each([
      ['member', 'svc_lb_member'],
      ['viewer', 'svc_lb_viewer'],
      ['restricted member', 'svc_lb_restricted'],
    ])('answers 403 Only owners and admins can delete labels to the %s (D2)', async (_who, key) => {
      const res = await remove(key, ids.kept);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Only owners and admins can delete labels' });
    });

    it('answers 403 Access denied for a label of another workspace (D4), both ways round', async () => {
      for (const [key, label] of [['svc_lb_outsider', ids.kept], ['svc_lb_owner', ids.o_bug]] as const) {
        const res = await remove(key, label);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'Access denied' });
      }
      const left = await t.db.ds.query('SELECT count(*)::int AS n FROM labels WHERE id = ANY($1)', [[ids.kept, ids.o_bug]]);
      expect(left).toEqual([{ n: 2 }]);
    });

    it.each(['0', '99999999', '99999999999999'])('answers 404 Label not found for %p (D5)', async (id) => {
      const res = await remove('svc_lb_owner', id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Label not found' });
    });

    it.each(['abc', '1.5', '-1', '1e3'])('answers 400 Invalid label ID for %p (D6)', async (id) => {
      const res = await remove('svc_lb_owner', id);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid label ID' });
    });

    it("answers 403 Scope 'workspaces:write' before the id (D3)", async () => {
      for (const id of [String(ids.kept), 'abc']) {
        const res = await remove('svc_lb_read_only', id);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: "Scope 'workspaces:write' is required for this endpoint" });
      }
    });

    it('answers 401 without a key', async () => {
      const res = await remove(null, ids.kept);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'API key required' });
    });
  });
});
