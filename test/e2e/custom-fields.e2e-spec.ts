import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';

/**
 * Custom-field listing: GET /api/v1/workspaces/:id/custom-fields.
 * spec: List custom fields, Custom-field definition; D1, D3, D4, D5, D6, D18, D19, D23, D30.
 */

const ALL = [...SCOPES];
const DEFINITION_KEYS = ['config', 'granted_folder_ids', 'id', 'is_scope_restricted', 'list_overrides', 'name', 'position', 'type'];

const world: FixtureWorld = {
  users: [
    { ref: 'alice', email: 'alice@cf.test', name: 'Alice' },
    { ref: 'bob', email: 'bob@cf.test', name: 'Bob' },
    { ref: 'carol', email: 'carol@cf.test', name: 'Carol' },
    { ref: 'dave', email: 'dave@cf.test', name: 'Dave' },
    { ref: 'erin', email: 'erin@cf.test', name: 'Erin' },
    { ref: 'olga', email: 'olga@cf.test', name: 'Olga' },
  ],
  api_keys: [
    { user: 'alice', key: 'svc_cf_owner', scopes: ALL },
    { user: 'bob', key: 'svc_cf_admin', scopes: ALL },
    { user: 'carol', key: 'svc_cf_member', scopes: ALL },
    { user: 'dave', key: 'svc_cf_viewer', scopes: ALL },
    { user: 'erin', key: 'svc_cf_restricted', scopes: ['tasks:read'] },
    { user: 'olga', key: 'svc_cf_outsider', scopes: ALL },
    { user: 'alice', key: 'svc_cf_no_tasks_read', scopes: ALL.filter((s) => s !== 'tasks:read') },
  ],
  workspaces: [
    {
      ref: 'acme', name: 'Acme', slug: 'cf-acme', owner: 'alice',
      members: [
        { user: 'bob', role: 'admin' },
        { user: 'carol', role: 'member' },
        { user: 'dave', role: 'viewer' },
        // D30: the definitions are workspace-level data; a restricted member with no grants sees them all.
        { user: 'erin', role: 'member', restricted: true },
      ],
      // Folder "zeta" is created first so that its id is lower though it is listed second in grants.
      folders: [
        { ref: 'zeta', name: 'Zeta', lists: [{ ref: 'z1', name: 'Z1' }] },
        { ref: 'eng', name: 'Engineering', lists: [{ ref: 'backlog', name: 'Backlog' }, { ref: 'sprint', name: 'Sprint' }] },
      ],
      lists: [{ ref: 'loose', name: 'No folder' }],
      custom_fields: [
        // Listed out of position order; the listing sorts by position, then id (D23).
        { ref: 'price', name: 'Price', type: 'money', config: { currency: 'EUR', decimals: 2 }, position: 5 },
        {
          ref: 'est', name: 'Estimate', type: 'number', config: null, position: 1,
          is_scope_restricted: true, granted_folders: ['eng', 'zeta'],
          list_overrides: [{ list: 'sprint', access: 'denied' }, { list: 'loose', access: 'granted' }, { list: 'backlog', access: 'granted' }],
        },
        { ref: 'stars', name: 'Stars', type: 'rating', config: { iconName: 'star', color: 'orange' }, position: 2 },
        { ref: 'pick', name: 'Pick', type: 'dropdown', config: { options: ['a', 'b', 'c'] }, position: 3 },
        { ref: 'note', name: 'Note', type: 'text', position: 4 },
        { ref: 'when', name: 'When', type: 'date', position: 4 },
        { ref: 'done', name: 'Done?', type: 'checkbox', position: 6, is_scope_restricted: true },
        { ref: 'who', name: 'Who', type: 'people', position: 7, is_scope_restricted: true, list_overrides: [{ list: 'z1', access: 'denied' }] },
        // D19: an allowed-users list limits who sees the field, owners included.
        { ref: 'secret', name: 'Secret', type: 'text', position: 8, allowed_users: ['carol', 'dave'] },
        { ref: 'nobody', name: 'Nobody', type: 'text', position: 9, allowed_users: [] },
      ],
    },
    {
      ref: 'other', name: 'Other', slug: 'cf-other', owner: 'olga',
      custom_fields: [{ ref: 'o_field', name: 'Elsewhere', type: 'text', position: 1 }],
    },
    { ref: 'bare', name: 'Bare', slug: 'cf-bare', owner: 'alice' },
  ],
};

describe('custom fields: GET /api/v1/workspaces/:id/custom-fields', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (key: string | null, workspace: string | number) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/custom-fields`, headers: key ? auth(key) : {} });

  /** The definitions every member sees, by position then id. */
  const common = () => [
    {
      id: ids.est, name: 'Estimate', type: 'number', config: null, position: 1, is_scope_restricted: true,
      granted_folder_ids: [ids.zeta, ids.eng].sort((a, b) => a - b),
      list_overrides: [
        { list_id: ids.backlog, access: 'granted' },
        { list_id: ids.sprint, access: 'denied' },
        { list_id: ids.loose, access: 'granted' },
      ].sort((a, b) => a.list_id - b.list_id),
    },
    { id: ids.stars, name: 'Stars', type: 'rating', config: { iconName: 'star', color: 'orange' }, position: 2, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    { id: ids.pick, name: 'Pick', type: 'dropdown', config: { options: ['a', 'b', 'c'] }, position: 3, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    { id: ids.note, name: 'Note', type: 'text', config: null, position: 4, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    { id: ids.when, name: 'When', type: 'date', config: null, position: 4, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    { id: ids.price, name: 'Price', type: 'money', config: { currency: 'EUR', decimals: 2 }, position: 5, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    { id: ids.done, name: 'Done?', type: 'checkbox', config: null, position: 6, is_scope_restricted: true, granted_folder_ids: [], list_overrides: [] },
    { id: ids.who, name: 'Who', type: 'people', config: null, position: 7, is_scope_restricted: true, granted_folder_ids: [], list_overrides: [{ list_id: ids.z1, access: 'denied' }] },
  ];
  const secret = () => ({ id: ids.secret, name: 'Secret', type: 'text', config: null, position: 8, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] });

  it('fixture sanity: the ids the ordering assertions rely on', () => {
    expect(ids.zeta).toBeLessThan(ids.eng);
    expect(ids.note).toBeLessThan(ids.when);
  });

  it.each([
    ['owner (not on the allowed-users list)', 'svc_cf_owner', false],
    ['admin', 'svc_cf_admin', false],
    ['member on the allowed-users list', 'svc_cf_member', true],
    ['viewer on the allowed-users list', 'svc_cf_viewer', true],
    ['restricted member without grants (D30)', 'svc_cf_restricted', false],
  ])('lists the definitions visible to the %s, by position then id, with exact keys', async (_who, key, seesSecret) => {
    const res = await list(key, ids.acme);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual(seesSecret ? [...common(), secret()] : common());
    for (const field of res.json()) expect(Object.keys(field).sort()).toEqual(DEFINITION_KEYS);
  });

  it('never lists a field whose allowed-users list is empty (D19)', async () => {
    for (const key of ['svc_cf_owner', 'svc_cf_member']) {
      const names = (await list(key, ids.acme)).json().map((f: { name: string }) => f.name);
      expect(names).not.toContain('Nobody');
    }
  });

  it('lists only the fields of the workspace asked for', async () => {
    const res = await list('svc_cf_outsider', ids.other);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: ids.o_field, name: 'Elsewhere', type: 'text', config: null, position: 1, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    ]);
  });

  it('returns [] for a workspace without custom fields', async () => {
    const res = await list('svc_cf_owner', ids.bare);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('answers 404 Workspace not found to a non-member (D4), both ways round', async () => {
    for (const [key, ws] of [['svc_cf_outsider', ids.acme], ['svc_cf_owner', ids.other]] as const) {
      const res = await list(key, ws);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Workspace not found' });
    }
  });

  it.each(['0', '99999999', '99999999999999'])('answers 404 Workspace not found for the well-formed id %p (D5)', async (id) => {
    const res = await list('svc_cf_owner', id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Workspace not found' });
  });

  it.each(['abc', '1.5', '-1', '1e3'])('answers 400 Invalid workspace ID for %p (D5, D6)', async (id) => {
    const res = await list('svc_cf_owner', id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid workspace ID' });
  });

  it("answers 403 Scope 'tasks:read' before the id (D1, D3)", async () => {
    for (const id of [String(ids.acme), 'abc']) {
      const res = await list('svc_cf_no_tasks_read', id);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'tasks:read' is required for this endpoint" });
    }
  });

  it('answers 401 API key required without a key', async () => {
    const res = await list(null, ids.acme);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API key required' });
  });

  it('costs a fixed number of SQL round trips, whatever the number of fields (no N+1)', async () => {
    // A second world: 60 fields, each with folder grants and list overrides.
    const big = await loadFixture(t.db.ds, {
      users: [{ ref: 'big_owner', email: 'big@cf.test', name: 'Big' }],
      api_keys: [{ user: 'big_owner', key: 'svc_cf_big', scopes: ['tasks:read'] }],
      workspaces: [{
        ref: 'big', name: 'Big', slug: 'cf-big', owner: 'big_owner',
        folders: [{ ref: 'bf1', name: 'F1', lists: [{ ref: 'bl1', name: 'L1' }] }, { ref: 'bf2', name: 'F2', lists: [{ ref: 'bl2', name: 'L2' }] }],
        custom_fields: Array.from({ length: 60 }, (_, i) => ({
          name: `Field ${i}`, type: 'number' as const, position: i + 1, is_scope_restricted: true, granted_folders: ['bf1', 'bf2'],
          list_overrides: [{ list: 'bl1', access: 'denied' as const }, { list: 'bl2', access: 'granted' as const }],
        })),
      }],
    });
    // Counted at the pg driver (test/setup/query-counter.ts, a pass-through spy).
    const counter = new QueryCounter().install();
    const roundTrips = async (key: string, workspace: number) => {
      const { result, statements } = await counter.record(() => list(key, workspace));
      expect(result.statusCode).toBe(200);
      return { fields: result.json().length, statements: statements.length };
    };
    try {
      // Both keys used once first: later requests find them in the guard's cache (issue 9).
      expect((await list('svc_cf_owner', ids.acme)).statusCode).toBe(200);
      expect((await list('svc_cf_big', big.big)).statusCode).toBe(200);
      const small = await roundTrips('svc_cf_owner', ids.acme);
      const large = await roundTrips('svc_cf_big', big.big);
      expect(small.fields).toBe(8);
      expect(large.fields).toBe(60);
      expect(large.statements).toBe(small.statements);
      // Access check, listing: each one round trip.
      expect(large.statements).toBe(2);
    } finally {
      counter.uninstall();
    }
  });
});
