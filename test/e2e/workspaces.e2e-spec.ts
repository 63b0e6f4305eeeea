import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Workspaces (issue 2): GET /api/v1/workspaces (ext), GET /api/v1/workspaces/:id,
 * GET /api/v1/workspaces/:id/members. spec: Get workspace, List workspace members;
 * D1, D3, D4, D5, D6, D23, D29, D30.
 */

const ALL = [...SCOPES];
const WORKSPACE_KEYS = ['color', 'created_at', 'description', 'icon', 'id', 'image_url', 'name', 'owner_id', 'role', 'slug'];
const MEMBER_KEYS = ['avatar_url', 'email', 'id', 'joined_at', 'name', 'role'];

const world: FixtureWorld = {
  users: [
    { ref: 'alice', email: 'alice@ws.test', name: 'Alice', avatar_url: 'https://img.test/alice.png' },
    { ref: 'bob', email: 'bob@ws.test', name: 'Bob' },
    { ref: 'carol', email: 'carol@ws.test', name: 'Carol' },
    { ref: 'dave', email: 'dave@ws.test', name: 'Dave' },
    { ref: 'erin', email: 'erin@ws.test', name: 'Erin' },
    { ref: 'olga', email: 'olga@ws.test', name: 'Olga' },
    { ref: 'nobody', email: 'nobody@ws.test', name: 'Nobody' },
  ],
  api_keys: [
    { user: 'alice', key: 'svc_ws_owner', scopes: ALL },
    { user: 'bob', key: 'svc_ws_admin', scopes: ALL },
    { user: 'carol', key: 'svc_ws_member', scopes: ALL },
    { user: 'dave', key: 'svc_ws_viewer', scopes: ALL },
    { user: 'erin', key: 'svc_ws_restricted', scopes: ['workspaces:read'] },
    { user: 'olga', key: 'svc_ws_outsider', scopes: ALL },
    { user: 'nobody', key: 'svc_ws_nobody', scopes: ALL },
    { user: 'alice', key: 'svc_ws_no_read', scopes: ALL.filter((s) => s !== 'workspaces:read') },
  ],
  workspaces: [
    {
      ref: 'acme', name: 'Acme', slug: 'ws-acme', owner: 'alice', description: 'Rockets and anvils', icon: 'rocket',
      color: 'red', image_url: 'https://img.test/acme.png', created_at: '2025-01-10T08:00:00.000Z',
      members: [
        // Joined out of id order: the listing is by joined_at, then user id (D23).
        { user: 'dave', role: 'viewer', joined_at: '2025-01-12T00:00:00.000Z' },
        { user: 'carol', role: 'member', joined_at: '2025-01-11T00:00:00.000Z' },
        { user: 'bob', role: 'admin', joined_at: '2025-01-11T00:00:00.000Z' },
        { user: 'erin', role: 'member', restricted: true, joined_at: '2025-01-13T00:00:00.000Z' },
      ],
    },
    // Created before acme: alice's workspaces list it first (D23: created_at, then id).
    { ref: 'beta', name: 'Beta', slug: 'ws-beta', owner: 'alice', created_at: '2024-12-01T00:00:00.000Z', members: [{ user: 'bob', role: 'viewer' }] },
    // Same created_at as acme, higher id.
    { ref: 'gamma', name: 'Gamma', slug: 'ws-gamma', owner: 'carol', created_at: '2025-01-10T08:00:00.000Z', members: [{ user: 'alice', role: 'member' }] },
    { ref: 'other', name: 'Other', slug: 'ws-other', owner: 'olga', created_at: '2025-02-01T00:00:00.000Z' },
  ],
};

describe('workspaces (issue 2)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (key: string | null, url: string) => t.inject({ method: 'GET', url, headers: key ? auth(key) : {} });

  const acme = (role: string) => ({
    id: ids.acme, name: 'Acme', slug: 'ws-acme', description: 'Rockets and anvils', icon: 'rocket', color: 'red',
    image_url: 'https://img.test/acme.png', owner_id: ids.alice, role, created_at: '2025-01-10T08:00:00.000Z',
  });
  const beta = (role: string) => ({
    id: ids.beta, name: 'Beta', slug: 'ws-beta', description: null, icon: null, color: null, image_url: null,
    owner_id: ids.alice, role, created_at: '2024-12-01T00:00:00.000Z',
  });
  const gamma = (role: string) => ({
    id: ids.gamma, name: 'Gamma', slug: 'ws-gamma', description: null, icon: null, color: null, image_url: null,
    owner_id: ids.carol, role, created_at: '2025-01-10T08:00:00.000Z',
  });

  describe('GET /api/v1/workspaces (D1 ext: my workspaces)', () => {
    it('lists the workspaces of the key user by created_at then id, each with the caller role', async () => {
      expect(ids.acme).toBeLessThan(ids.gamma);
      const res = await get('svc_ws_owner', '/api/v1/workspaces');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([beta('owner'), acme('owner'), gamma('member')]);
      for (const w of res.json()) expect(Object.keys(w).sort()).toEqual(WORKSPACE_KEYS);
    });

    it.each([
      ['admin', 'svc_ws_admin', () => [beta('viewer'), acme('admin')]],
      ['member', 'svc_ws_member', () => [acme('member'), gamma('owner')]],
      ['viewer', 'svc_ws_viewer', () => [acme('viewer')]],
      ['restricted member (D30)', 'svc_ws_restricted', () => [acme('member')]],
      ['user of no workspace', 'svc_ws_nobody', () => []],
    ])('lists the %s’s workspaces', async (_who, key, expected) => {
      const res = await get(key, '/api/v1/workspaces');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(expected());
    });

    it("answers 403 Scope 'workspaces:read' without the scope", async () => {
      const res = await get('svc_ws_no_read', '/api/v1/workspaces');
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'workspaces:read' is required for this endpoint" });
    });

    it('answers 401 without a key', async () => {
      const res = await get(null, '/api/v1/workspaces');
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'API key required' });
    });
  });

  describe('GET /api/v1/workspaces/:id (spec: Get workspace)', () => {
    it.each([
      ['owner', 'svc_ws_owner'],
      ['admin', 'svc_ws_admin'],
      ['member', 'svc_ws_member'],
      ['viewer', 'svc_ws_viewer'],
      ['member', 'svc_ws_restricted'], // D30: a restricted member reads workspace-level data
    ])('answers the workspace with role %s', async (role, key) => {
      const res = await get(key, `/api/v1/workspaces/${ids.acme}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(acme(role));
      expect(Object.keys(res.json()).sort()).toEqual(WORKSPACE_KEYS);
    });

    it('gives null for the optional fields left empty', async () => {
      const res = await get('svc_ws_admin', `/api/v1/workspaces/${ids.beta}`);
      expect(res.json()).toEqual(beta('viewer'));
    });

    it('answers 404 Workspace not found to a non-member (D4), both ways round', async () => {
      for (const [key, ws] of [['svc_ws_outsider', ids.acme], ['svc_ws_owner', ids.other], ['svc_ws_nobody', ids.acme]] as const) {
        const res = await get(key, `/api/v1/workspaces/${ws}`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'Workspace not found' });
      }
    });

    it.each(['0', '99999999', '99999999999999'])('answers 404 Workspace not found for the well-formed id %p (D5)', async (id) => {
      const res = await get('svc_ws_owner', `/api/v1/workspaces/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Workspace not found' });
    });

    it.each(['abc', '1.5', '-1', '1e3', '0x10', '%201'])('answers 400 Invalid workspace ID for %p (D5, D6)', async (id) => {
      const res = await get('svc_ws_owner', `/api/v1/workspaces/${id}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid workspace ID' });
    });

    it("answers 403 Scope 'workspaces:read' before the id (D3)", async () => {
      for (const id of [String(ids.acme), 'abc']) {
        const res = await get('svc_ws_no_read', `/api/v1/workspaces/${id}`);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: "Scope 'workspaces:read' is required for this endpoint" });
      }
    });
  });

  describe('GET /api/v1/workspaces/:id/members (spec: List workspace members)', () => {
    /** The members of acme, by joined_at then user id; emails only for the owner. */
    const members = (withEmails: boolean) => {
      const email = (e: string) => (withEmails ? e : null);
      const rows = [
        { id: ids.alice, email: email('alice@ws.test'), name: 'Alice', avatar_url: 'https://img.test/alice.png', role: 'owner', joined_at: '2025-01-10T08:00:00.000Z' },
        { id: ids.bob, email: email('bob@ws.test'), name: 'Bob', avatar_url: null, role: 'admin', joined_at: '2025-01-11T00:00:00.000Z' },
        { id: ids.carol, email: email('carol@ws.test'), name: 'Carol', avatar_url: null, role: 'member', joined_at: '2025-01-11T00:00:00.000Z' },
        { id: ids.dave, email: email('dave@ws.test'), name: 'Dave', avatar_url: null, role: 'viewer', joined_at: '2025-01-12T00:00:00.000Z' },
        { id: ids.erin, email: email('erin@ws.test'), name: 'Erin', avatar_url: null, role: 'member', joined_at: '2025-01-13T00:00:00.000Z' },
      ];
      return rows;
    };

    it('shows every email to the owner', async () => {
      expect(ids.bob).toBeLessThan(ids.carol);
      const res = await get('svc_ws_owner', `/api/v1/workspaces/${ids.acme}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(members(true));
      for (const m of res.json()) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    });

    it.each([
      ['admin', 'svc_ws_admin'],
      ['member', 'svc_ws_member'],
      ['viewer', 'svc_ws_viewer'],
      ['restricted member (D30)', 'svc_ws_restricted'],
    ])('shows the %s every member with email null, the owner’s included', async (_who, key) => {
      const res = await get(key, `/api/v1/workspaces/${ids.acme}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(members(false));
    });

    it('decides on emails by the role in this workspace: the owner of gamma sees emails there only', async () => {
      const res = await get('svc_ws_member', `/api/v1/workspaces/${ids.gamma}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json().map((m: { email: string | null; role: string }) => [m.role, m.email])).toEqual([
        ['owner', 'carol@ws.test'],
        ['member', 'alice@ws.test'],
      ]);
      const asMember = await get('svc_ws_owner', `/api/v1/workspaces/${ids.gamma}/members`);
      expect(asMember.json().map((m: { email: string | null }) => m.email)).toEqual([null, null]);
    });

    it('answers 404 Workspace not found to a non-member (D4)', async () => {
      for (const [key, ws] of [['svc_ws_outsider', ids.acme], ['svc_ws_viewer', ids.other]] as const) {
        const res = await get(key, `/api/v1/workspaces/${ws}/members`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'Workspace not found' });
      }
    });

    it.each(['0', '99999999999999'])('answers 404 Workspace not found for %p (D5)', async (id) => {
      const res = await get('svc_ws_owner', `/api/v1/workspaces/${id}/members`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Workspace not found' });
    });

    it.each(['abc', '1.5', '-1'])('answers 400 Invalid workspace ID for %p (D6)', async (id) => {
      const res = await get('svc_ws_owner', `/api/v1/workspaces/${id}/members`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid workspace ID' });
    });

    it("answers 403 Scope 'workspaces:read' before the id (D3)", async () => {
      for (const id of [String(ids.acme), 'abc']) {
        const res = await get('svc_ws_no_read', `/api/v1/workspaces/${id}/members`);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: "Scope 'workspaces:read' is required for this endpoint" });
      }
    });
  });
});
