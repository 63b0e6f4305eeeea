import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WORLD_NAMES, worldEmail, WorldRole } from '../setup/world';

/**
 * Workspaces: GET /api/v1/workspaces (ext), GET /api/v1/workspaces/:id,
 * GET /api/v1/workspaces/:id/members. spec: Get workspace, List workspace
 * members; D1, D23, D29, D30. The checks every route makes (keys, scopes, ids,
 * non-members) are the route matrix's (route-matrix.e2e-spec.ts).
 */

const WORKSPACE_KEYS = ['color', 'created_at', 'description', 'icon', 'id', 'image_url', 'name', 'owner_id', 'role', 'slug'] satisfies Array<
  keyof Schema<'Workspace'>
>;
const MEMBER_KEYS = ['avatar_url', 'email', 'id', 'joined_at', 'name', 'role'] satisfies Array<keyof Schema<'Member'>>;
type Role = Schema<'Workspace'>['role'];
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const AVATAR = 'https://img.test/owner.png';
const { key } = roleKeys('ws');
const NOBODY_KEY = 'svc_ws_nobody';

describe('workspaces', () => {
  const { t, ids } = useRoleWorld('ws', (b) => ({
    users: { owner: { avatar_url: AVATAR } },
    more: {
      users: [{ ref: 'nobody', email: 'nobody@ws.test', name: 'Nobody' }],
      api_keys: [{ user: 'nobody', key: NOBODY_KEY, scopes: ['workspaces:read'] }],
    },
    workspaces: [
      b.team(
        'acme',
        {
          name: 'Acme',
          description: 'Rockets and anvils',
          icon: 'rocket',
          color: 'red',
          image_url: 'https://img.test/acme.png',
          created_at: '2025-01-10T08:00:00.000Z',
        },
        // Joined out of id order: the listing is by joined_at, then user id (D23).
        {
          viewer: { joined_at: '2025-01-12T00:00:00.000Z' },
          member: { joined_at: '2025-01-11T00:00:00.000Z' },
          admin: { joined_at: '2025-01-11T00:00:00.000Z' },
          restricted: { joined_at: '2025-01-13T00:00:00.000Z' },
          restrictedViewer: { joined_at: '2025-01-14T00:00:00.000Z' },
        },
      ),
      // Created before acme: the owner's workspaces list it first (D23: created_at, then id).
      b.solo('beta', 'owner', { name: 'Beta', created_at: '2024-12-01T00:00:00.000Z', members: [{ user: b.user('admin'), role: 'viewer' }] }),
      // Same created_at as acme, higher id.
      b.solo('gamma', 'member', { name: 'Gamma', created_at: '2025-01-10T08:00:00.000Z', members: [{ user: b.user('owner'), role: 'member' }] }),
    ],
  }));

  const get = (key: string | null, url: string) => t.inject({ method: 'GET', url, headers: key ? auth(key) : {} });

  const acme = (role: Role) =>
    ({
      id: ids.acme,
      name: 'Acme',
      slug: 'ws-acme',
      description: 'Rockets and anvils',
      icon: 'rocket',
      color: 'red',
      image_url: 'https://img.test/acme.png',
      owner_id: ids.owner,
      role,
      created_at: '2025-01-10T08:00:00.000Z',
    }) satisfies Schema<'Workspace'>;
  const beta = (role: Role) =>
    ({
      id: ids.beta,
      name: 'Beta',
      slug: 'ws-beta',
      description: null,
      icon: null,
      color: null,
      image_url: null,
      owner_id: ids.owner,
      role,
      created_at: '2024-12-01T00:00:00.000Z',
    }) satisfies Schema<'Workspace'>;
  const gamma = (role: Role) =>
    ({
      id: ids.gamma,
      name: 'Gamma',
      slug: 'ws-gamma',
      description: null,
      icon: null,
      color: null,
      image_url: null,
      owner_id: ids.member,
      role,
      created_at: '2025-01-10T08:00:00.000Z',
    }) satisfies Schema<'Workspace'>;
  /** The role world's own workspace, created as the world was loaded: last by created_at. */
  const world = (role: Role) =>
    ({
      id: ids.ws,
      name: 'World',
      slug: 'ws-ws',
      description: null,
      icon: null,
      color: null,
      image_url: null,
      owner_id: ids.owner,
      role,
      created_at: expect.stringMatching(TS),
    }) satisfies Schema<'Workspace'>;

  describe('GET /api/v1/workspaces (D1 ext: my workspaces)', () => {
    it('lists the workspaces of the key user by created_at then id, each with the caller role', async () => {
      expect(ids.acme).toBeLessThan(ids.gamma);
      const res = await get(key('owner'), '/api/v1/workspaces');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([beta('owner'), acme('owner'), gamma('member'), world('owner')]);
      for (const w of res.json()) expect(Object.keys(w).sort()).toEqual(WORKSPACE_KEYS);
    });

    it.each([
      ['admin', key('admin'), () => [beta('viewer'), acme('admin'), world('admin')]],
      ['member', key('member'), () => [acme('member'), gamma('owner'), world('member')]],
      ['viewer', key('viewer'), () => [acme('viewer'), world('viewer')]],
      ['restricted member (D30)', key('restricted'), () => [acme('member'), world('member')]],
      ['user of no workspace', NOBODY_KEY, () => []],
    ])('lists the %s’s workspaces', async (_who, k, expected) => {
      const res = await get(k, '/api/v1/workspaces');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(expected());
    });
  });

  describe('GET /api/v1/workspaces/:id (spec: Get workspace)', () => {
    it.each([
      ['owner', key('owner')],
      ['admin', key('admin')],
      ['member', key('member')],
      ['viewer', key('viewer')],
      // D30: restricted members read workspace-level data.
      ['member', key('restricted')],
      ['viewer', key('restrictedViewer')],
    ] as Array<[Role, string]>)('answers the workspace with role %s', async (role, k) => {
      const res = await get(k, `/api/v1/workspaces/${ids.acme}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(acme(role));
      expect(Object.keys(res.json()).sort()).toEqual(WORKSPACE_KEYS);
    });

    it('gives null for the optional fields left empty', async () => {
      const res = await get(key('admin'), `/api/v1/workspaces/${ids.beta}`);
      expect(res.json()).toEqual(beta('viewer'));
    });
  });

  describe('GET /api/v1/workspaces/:id/members (spec: List workspace members)', () => {
    /** The members of acme, by joined_at then user id; emails only for the owner. */
    const members = (withEmails: boolean) => {
      const row = (user: WorldRole, role: Schema<'Member'>['role'], joined_at: string) =>
        ({
          id: ids[user],
          email: withEmails ? worldEmail('ws', user) : null,
          name: WORLD_NAMES[user],
          avatar_url: user === 'owner' ? AVATAR : null,
          role,
          joined_at,
        }) satisfies Schema<'Member'>;
      return [
        row('owner', 'owner', '2025-01-10T08:00:00.000Z'),
        row('admin', 'admin', '2025-01-11T00:00:00.000Z'),
        row('member', 'member', '2025-01-11T00:00:00.000Z'),
        row('viewer', 'viewer', '2025-01-12T00:00:00.000Z'),
        row('restricted', 'member', '2025-01-13T00:00:00.000Z'),
        row('restrictedViewer', 'viewer', '2025-01-14T00:00:00.000Z'),
      ];
    };

    it('shows every email to the owner', async () => {
      expect(ids.admin).toBeLessThan(ids.member);
      const res = await get(key('owner'), `/api/v1/workspaces/${ids.acme}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(members(true));
      for (const m of res.json()) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    });

    it.each([
      ['admin', key('admin')],
      ['member', key('member')],
      ['viewer', key('viewer')],
      ['restricted member (D30)', key('restricted')],
      ['restricted viewer (D30)', key('restrictedViewer')],
    ])('shows the %s every member with email null, the owner’s included', async (_who, k) => {
      const res = await get(k, `/api/v1/workspaces/${ids.acme}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(members(false));
    });

    it('decides on emails by the role in this workspace: the owner of gamma sees emails there only', async () => {
      const res = await get(key('member'), `/api/v1/workspaces/${ids.gamma}/members`);
      expect(res.statusCode).toBe(200);
      expect(res.json().map((m: Schema<'Member'>) => [m.role, m.email])).toEqual([
        ['owner', worldEmail('ws', 'member')],
        ['member', worldEmail('ws', 'owner')],
      ]);
      const asMember = await get(key('owner'), `/api/v1/workspaces/${ids.gamma}/members`);
      expect(asMember.json().map((m: Schema<'Member'>) => m.email)).toEqual([null, null]);
    });
  });
});
