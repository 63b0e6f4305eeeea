import type { InjectOptions } from 'fastify';

import { hashApiKey } from '../../src/common/auth/api-key';
import { Scope, SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Authentication (D20, D21) and scopes (spec: Authentication 5; D1, D3) on the
 * foundation routes, and GET /api/v1/me (spec: Get current user).
 */

const ALL = [...SCOPES];

const world: FixtureWorld = {
  users: [
    { ref: 'alice', email: 'Alice@Auth.test', name: 'Alice', avatar_url: 'https://img.test/a.png', created_at: '2024-05-06T07:08:09.123Z' },
    { ref: 'bob', email: 'bob@auth.test', name: 'Bob', created_at: '2024-06-01T00:00:00Z' },
  ],
  api_keys: [
    { ref: 'k_alice', user: 'alice', key: 'svc_auth_alice', scopes: ALL },
    { ref: 'k_bob', user: 'bob', key: 'svc_auth_bob', scopes: ALL },
    { user: 'alice', key: 'svc_auth_revoked', scopes: ALL, revoked: true },
    { user: 'alice', key: 'svc_auth_expired', scopes: ALL, expires_at: '2020-01-01T00:00:00Z' },
    { user: 'alice', key: 'svc_auth_revoked_expired', scopes: ALL, revoked: true, expires_at: '2020-01-01T00:00:00Z' },
    { user: 'alice', key: 'svc_auth_future', scopes: ALL, expires_at: '2999-01-01T00:00:00Z' },
    // One key per scope carrying only it.
    ...SCOPES.map((s) => ({ user: 'alice', key: `svc_auth_only_${s.replace(':', '_')}`, scopes: [s] })),
  ],
  workspaces: [
    {
      ref: 'acme',
      name: 'Acme',
      slug: 'auth-acme',
      owner: 'alice',
      labels: [
        { ref: 'bug', name: 'Bug' },
        { ref: 'l_del', name: 'Delete me' },
      ],
    },
  ],
};

const onlyKey = (s: Scope) => `svc_auth_only_${s.replace(':', '_')}`;

describe('authentication (D20, D21) and scopes', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  const me = (headers: Record<string, string>) => t.inject({ method: 'GET', url: '/api/v1/me', headers });
  const alice = () => ({
    id: ids.alice,
    email: 'Alice@Auth.test',
    name: 'Alice',
    avatar_url: 'https://img.test/a.png',
    created_at: '2024-05-06T07:08:09.123Z',
  });
  const bob = () => ({ id: ids.bob, email: 'bob@auth.test', name: 'Bob', avatar_url: null, created_at: '2024-06-01T00:00:00.000Z' });

  describe('GET /api/v1/me (spec: Get current user)', () => {
    it('answers the key owner, exactly', async () => {
      const res = await me(auth('svc_auth_alice'));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(alice());
      expect(Object.keys(res.json()).sort()).toEqual(['avatar_url', 'created_at', 'email', 'id', 'name']);
      expect((await me(auth('svc_auth_bob'))).json()).toEqual(bob());
    });

    it('needs no workspace: any key with users:read (D1)', async () => {
      const res = await me(auth(onlyKey('users:read')));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(alice());
    });
  });

  describe('where the key is read from (D20)', () => {
    it.each([
      ['Authorization: Bearer', { authorization: 'Bearer svc_auth_alice' }],
      ['Authorization: bearer (lowercase scheme)', { authorization: 'bearer svc_auth_alice' }],
      ['Authorization: BEARER (uppercase scheme)', { authorization: 'BEARER svc_auth_alice' }],
      ['X-API-Key', { 'x-api-key': 'svc_auth_alice' }],
      ['x-api-key in another case', { 'X-Api-Key': 'svc_auth_alice' }],
      ['X-API-Key when Authorization has another scheme', { authorization: 'Basic YWxpY2U6c2VjcmV0', 'x-api-key': 'svc_auth_alice' }],
      ['a key that expires in the future', { authorization: 'Bearer svc_auth_future' }],
    ])('accepts %s', async (_case, headers) => {
      const res = await me(headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(alice());
    });

    it('prefers the Bearer key when both headers are sent', async () => {
      const both = await me({ authorization: 'Bearer svc_auth_bob', 'x-api-key': 'svc_auth_alice' });
      expect(both.statusCode).toBe(200);
      expect(both.json()).toEqual(bob());
      // The X-API-Key is not even looked at: a bad one does not matter, a good one does not rescue a bad bearer.
      const badHeader = await me({ authorization: 'Bearer svc_auth_alice', 'x-api-key': 'svc_unknown' });
      expect(badHeader.statusCode).toBe(200);
      const badBearer = await me({ authorization: 'Bearer svc_unknown', 'x-api-key': 'svc_auth_alice' });
      expect(badBearer.statusCode).toBe(401);
      expect(badBearer.json()).toEqual({ error: 'Invalid API key' });
    });

    it.each([
      ['no key at all', {}],
      ['the Basic scheme', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
      ['another scheme with a good key', { authorization: 'Token svc_auth_alice' }],
      ['a bare key in Authorization', { authorization: 'svc_auth_alice' }],
      ['Bearer without a key', { authorization: 'Bearer' }],
      ['a Bearer key without the svc_ prefix', { authorization: 'Bearer auth_alice' }],
      ['a Bearer key with the prefix in capitals', { authorization: 'Bearer SVC_auth_alice' }],
      ['an X-API-Key without the svc_ prefix', { 'x-api-key': 'auth_alice' }],
      ['the prefix alone', { 'x-api-key': 'svc_' }],
      ['an empty X-API-Key', { 'x-api-key': '' }],
    ])('answers 401 API key required for %s', async (_case, headers) => {
      const res = await me(headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ error: 'API key required' });
    });

    it.each([
      ['an unknown key (Bearer)', { authorization: 'Bearer svc_unknown' }],
      ['an unknown key (X-API-Key)', { 'x-api-key': 'svc_unknown' }],
      ['a known key with a character more', { authorization: 'Bearer svc_auth_alicex' }],
      ['a revoked key', { authorization: 'Bearer svc_auth_revoked' }],
      ['a revoked key sent as X-API-Key', { 'x-api-key': 'svc_auth_revoked' }],
      ['a revoked key that has also expired', { authorization: 'Bearer svc_auth_revoked_expired' }],
    ])('answers 401 Invalid API key for %s', async (_case, headers) => {
      const res = await me(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Invalid API key' });
    });

    it('answers 401 API key has expired past expires_at, however sent', async () => {
      for (const headers of [{ authorization: 'Bearer svc_auth_expired' }, { 'x-api-key': 'svc_auth_expired' }] as Array<Record<string, string>>) {
        const res = await me(headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'API key has expired' });
      }
    });

    it('stores keys only as their SHA-256 hash (D20)', async () => {
      const rows = await t.db.ds.query('SELECT key_hash FROM api_keys WHERE id = $1', [ids.k_alice]);
      expect(rows).toEqual([{ key_hash: hashApiKey('svc_auth_alice') }]);
      const clear = await t.db.ds.query(`SELECT count(*)::int AS n FROM api_keys WHERE key_hash LIKE 'svc_%'`);
      expect(clear).toEqual([{ n: 0 }]);
    });

    it('records when a key was last used, and not for refused keys', async () => {
      await me(auth('svc_auth_bob'));
      await me(auth('svc_auth_expired'));
      const rows: Array<{ id: number; used: boolean }> = await t.db.ds.query(
        `SELECT id, last_used_at IS NOT NULL AS used FROM api_keys WHERE key_hash = ANY($1) ORDER BY id`,
        [[hashApiKey('svc_auth_bob'), hashApiKey('svc_auth_expired')]],
      );
      expect(rows.map((r) => r.used)).toEqual([true, false]);
    });
  });

  describe('authentication comes before scope (D3 steps 2, 3)', () => {
    it('an expired key with no scopes still gets 401, not 403', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/v1/workspaces', headers: auth('svc_auth_expired') });
      expect(res.statusCode).toBe(401);
    });
  });

  /**
   * The foundation routes, the scope D1 gives each, and a request that succeeds
   * with the scope. A key lacking it is refused on every route by the route
   * matrix (route-matrix.e2e-spec.ts), wildcard and miscased scopes too.
   */
  const ROUTES: Array<{ name: string; scope: Scope; request: () => InjectOptions; status: number }> = [
    { name: 'GET /api/v1/me', scope: 'users:read', request: () => ({ method: 'GET', url: '/api/v1/me' }), status: 200 },
    { name: 'GET /api/v1/workspaces', scope: 'workspaces:read', request: () => ({ method: 'GET', url: '/api/v1/workspaces' }), status: 200 },
    {
      name: 'GET /api/v1/workspaces/:id',
      scope: 'workspaces:read',
      status: 200,
      request: () => ({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}` }),
    },
    {
      name: 'GET /api/v1/workspaces/:id/members',
      scope: 'workspaces:read',
      status: 200,
      request: () => ({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/members` }),
    },
    {
      name: 'GET /api/v1/workspaces/:id/labels',
      scope: 'workspaces:read',
      status: 200,
      request: () => ({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/labels` }),
    },
    {
      name: 'POST /api/v1/labels',
      scope: 'workspaces:write',
      status: 201,
      request: () => ({ method: 'POST', url: '/api/v1/labels', payload: { workspace_id: ids.acme, name: `Scoped ${Math.random()}` } }),
    },
    {
      name: 'DELETE /api/v1/labels/:id',
      scope: 'workspaces:write',
      status: 204,
      request: () => ({ method: 'DELETE', url: `/api/v1/labels/${ids.l_del}` }),
    },
    // D38: the webhook scopes, granted like any other.
    {
      name: 'POST /api/v1/webhooks',
      scope: 'webhooks:write',
      status: 201,
      request: () => ({ method: 'POST', url: '/api/v1/webhooks', payload: { workspace_id: ids.acme, url: 'https://localhost/hook' } }),
    },
    {
      name: 'GET /api/v1/workspaces/:id/webhooks',
      scope: 'webhooks:read',
      status: 200,
      request: () => ({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/webhooks` }),
    },
  ];

  describe.each(ROUTES)('$name needs $scope', ({ scope, request, status }) => {
    it('succeeds with a key carrying that scope only', async () => {
      const res = await t.inject({ ...request(), headers: auth(onlyKey(scope)) });
      expect(res.statusCode).toBe(status);
    });
  });
});
