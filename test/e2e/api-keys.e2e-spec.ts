import { hashApiKey } from '../../src/common/auth/api-key';
import { LastUsedRecorder } from '../../src/common/auth/last-used';
import { SCOPES } from '../../src/common/auth/scope';
import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';
import { roleKeys, useRoleWorld, WORLD_NAMES, worldEmail } from '../setup/world';

/**
 * Issue 35, D46: API keys through the API: create (scopes a subset of the
 * calling key's, expiry rules, the 100-key cap under concurrency, the plain key
 * shown once and never stored: Idempotency-Key ignored), list, revoke;
 * `last4` and `last_used_at`.
 */

const K = roleKeys('akey');
/** The fields of a key, in the order of the answers. */
const KEY_FIELDS = ['id', 'name', 'last4', 'scopes', 'expires_at', 'created_at', 'last_used_at'] satisfies Array<keyof Schema<'ApiKey'>>;
type CreateKey = Schema<'CreateApiKey'>;
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LIMITED = 'svc_akey_limited_1234';
const EXPIRING = 'svc_akey_expiring';
const EXPIRY = '2099-06-01T00:00:00.000Z';
const CAPPED = 'svc_akey_capped';
const SELF = 'svc_akey_self';

describe('API keys (D46)', () => {
  const { t, ids } = useRoleWorld('akey', (b) => ({
    more: {
      users: [{ ref: 'capper', email: 'capper@keys.test', name: 'Capper' }],
      api_keys: [
        { ref: 'k_limited', user: b.user('member'), key: LIMITED, name: 'limited', scopes: ['api_keys:write', 'api_keys:read', 'tasks:read'] },
        { ref: 'k_expiring', user: b.user('member'), key: EXPIRING, scopes: [...SCOPES], expires_at: EXPIRY },
        { ref: 'k_capped', user: 'capper', key: CAPPED, scopes: [...SCOPES] },
        { ref: 'k_self', user: b.user('viewer'), key: SELF, scopes: [...SCOPES] },
      ],
    },
  }));

  const send = (method: 'POST' | 'GET' | 'DELETE', url: string, key: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.inject({ method, url, headers: { ...auth(key), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const create = (payload: unknown, key = K.key('owner'), headers: Record<string, string> = {}) => send('POST', '/api/v1/api-keys', key, payload, headers);
  const list = (key = K.key('owner')) => send('GET', '/api/v1/api-keys', key);
  const revoke = (id: number | string, key = K.key('owner')) => send('DELETE', `/api/v1/api-keys/${id}`, key);
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => t.db.ds.query(sql, params);
  /** The answer to a create of `name` with `scopes` (sorted) expiring at `expires_at`; the plain key shown once. */
  const created = (name: string, scopes: CreateKey['scopes'], expires_at: string | null) =>
    ({
      id: expect.any(Number),
      name,
      last4: expect.stringMatching(/^[0-9a-f]{4}$/),
      scopes,
      expires_at,
      created_at: expect.stringMatching(TS),
      last_used_at: null,
      key: expect.stringMatching(/^svc_[0-9a-f]{64}$/),
    }) satisfies Schema<'CreatedApiKey'>;
  const answer = async (res: Promise<{ statusCode: number; json(): unknown }>) => {
    const r = await res;
    return { status: r.statusCode, body: r.json() };
  };

  describe('create', () => {
    it('answers 201 with the key object and the plain key; only the hash and last4 are stored; the key works at once', async () => {
      const res = await create({
        name: '  CI  ',
        scopes: ['users:read', 'tasks:read', 'users:read'],
        expires_at: '2090-01-02T03:04:05+01:00',
      } satisfies CreateKey);
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(Object.keys(body)).toEqual([...KEY_FIELDS, 'key'] satisfies Array<keyof Schema<'CreatedApiKey'>>);
      expect(body).toEqual({
        id: expect.any(Number),
        name: 'CI',
        last4: body.key.slice(-4),
        scopes: ['tasks:read', 'users:read'],
        expires_at: '2090-01-02T02:04:05.000Z',
        created_at: expect.stringMatching(TS),
        last_used_at: null,
        key: expect.stringMatching(/^svc_[0-9a-f]{64}$/),
      } satisfies Schema<'CreatedApiKey'>);
      expect(await q(`SELECT key_hash, last4, user_id FROM api_keys WHERE id = $1`, [body.id])).toEqual([
        { key_hash: hashApiKey(body.key), last4: body.key.slice(-4), user_id: ids.owner },
      ]);
      expect(await q(`SELECT count(*)::int AS n FROM api_keys WHERE key_hash = $1 OR last4 = $1`, [body.key])).toEqual([{ n: 0 }]);
      const me = await send('GET', '/api/v1/me', body.key);
      expect(me.json()).toEqual({
        id: ids.owner,
        email: worldEmail('akey', 'owner'),
        name: WORLD_NAMES.owner,
        avatar_url: null,
        created_at: expect.stringMatching(TS),
      } satisfies Schema<'CurrentUser'>);
      expect(await answer(send('GET', '/api/v1/workspaces', body.key))).toEqual({
        status: 403,
        body: { error: "Scope 'workspaces:read' is required for this endpoint" },
      });
    });

    it('ignores Idempotency-Key: not checked, not stored, never replayed', async () => {
      const bad = await create({ name: 'x', scopes: ['users:read'] } satisfies CreateKey, K.key('owner'), { 'idempotency-key': 'not visible ascii é' });
      expect(bad.statusCode).toBe(201);
      const first = await create({ name: 'same', scopes: ['users:read'] } satisfies CreateKey, K.key('owner'), { 'idempotency-key': 'k-1' });
      const second = await create({ name: 'same', scopes: ['users:read'] } satisfies CreateKey, K.key('owner'), { 'idempotency-key': 'k-1' });
      expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
      expect(first.json().key).not.toBe(second.json().key);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(await q(`SELECT count(*)::int AS n FROM idempotency_keys`)).toEqual([{ n: 0 }]);
    });

    it.each([
      [{}, 'name is required'],
      [{ name: ' ', scopes: [] }, 'name is required'],
      [{ name: 5, scopes: 'x' }, 'name is required'],
      [{ name: 'n'.repeat(256), scopes: ['users:read'] }, 'name must be at most 255 characters'],
      [{ name: 'a\u0000', scopes: ['users:read'] }, 'name must not contain NUL characters'],
      [{ name: 'k' }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: null }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: [] }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: 'users:read' }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: ['users:read', 'tasks:*'] }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: ['USERS:READ'] }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: [['users:read']], expires_at: 'x' }, 'scopes must be a non-empty array of known scopes'],
      [{ name: 'k', scopes: ['users:read'], expires_at: '' }, 'Invalid expires_at format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      [{ name: 'k', scopes: ['users:read'], expires_at: 'tomorrow' }, 'Invalid expires_at format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      [{ name: 'k', scopes: ['users:read'], expires_at: '2099-02-30' }, 'Invalid expires_at format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      [{ name: 'k', scopes: ['users:read'], expires_at: 4102444800000 }, 'Invalid expires_at format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      [{ name: 'k', scopes: ['users:read'], expires_at: '2020-01-01' }, 'expires_at must be in the future'],
    ])('400 for %j: %s', async (payload, error) => {
      expect(await answer(create(payload))).toEqual({ status: 400, body: { error } });
    });

    it('a key grants only scopes it has: 403 names the first missing scope in ascending order', async () => {
      expect(await answer(create({ name: 'k', scopes: ['users:read', 'tasks:write', 'tasks:read'] } satisfies CreateKey, LIMITED))).toEqual({
        status: 403,
        body: { error: 'A key cannot grant a scope it does not have: tasks:write' },
      });
      expect(await answer(create({ name: 'k', scopes: ['api_keys:read', 'tasks:read'] } satisfies CreateKey, LIMITED))).toEqual({
        status: 201,
        body: created('k', ['api_keys:read', 'tasks:read'], null),
      });
      // The scope check comes after the body (step 7), before the expiry rule.
      expect(await answer(create({ name: 'k', scopes: ['users:read'], expires_at: '' }, LIMITED))).toMatchObject({ status: 400 });
    });

    it("the expiry: left out, the calling key's; not later than it, nor none while it has one", async () => {
      const inherited = await create({ name: 'k', scopes: ['users:read'] } satisfies CreateKey, EXPIRING);
      expect(inherited.json()).toEqual(created('k', ['users:read'], EXPIRY));
      for (const expires_at of [null, '2099-06-01T00:00:00.001Z', '2100-01-01']) {
        expect(await answer(create({ name: 'k', scopes: ['users:read'], expires_at } satisfies CreateKey, EXPIRING))).toEqual({
          status: 400,
          body: { error: "expires_at cannot be later than this key's expiry" },
        });
      }
      expect((await create({ name: 'k', scopes: ['users:read'], expires_at: EXPIRY } satisfies CreateKey, EXPIRING)).json()).toEqual(
        created('k', ['users:read'], EXPIRY),
      );
      expect((await create({ name: 'k', scopes: ['users:read'], expires_at: '2030-01-01' } satisfies CreateKey, EXPIRING)).json()).toEqual(
        created('k', ['users:read'], '2030-01-01T00:00:00.000Z'),
      );
      // A key that never expires may make keys that never expire.
      expect((await create({ name: 'k', scopes: ['users:read'], expires_at: null } satisfies CreateKey)).json()).toEqual(created('k', ['users:read'], null));
      // The scope rule answers before the expiry rule.
      expect(await answer(create({ name: 'k', scopes: ['webhooks:read'], expires_at: null } satisfies CreateKey, LIMITED))).toEqual({
        status: 403,
        body: { error: 'A key cannot grant a scope it does not have: webhooks:read' },
      });
    });

    it('holds at most 100 active keys per user, also under concurrent creates; revoked and expired keys do not count', async () => {
      // The calling key is active: with 95 more, 96; then 10 at once: 4 succeed.
      await q(`INSERT INTO api_keys (user_id, key_hash, scopes) SELECT $1, 'cap-' || g, '{users:read}' FROM generate_series(1, 95) g`, [ids.capper]);
      await q(
        `INSERT INTO api_keys (user_id, key_hash, scopes, revoked_at) SELECT $1, 'cap-revoked-' || g, '{users:read}', now() FROM generate_series(1, 5) g`,
        [ids.capper],
      );
      await q(
        `INSERT INTO api_keys (user_id, key_hash, scopes, expires_at) SELECT $1, 'cap-expired-' || g, '{users:read}', now() - interval '1 day' FROM generate_series(1, 5) g`,
        [ids.capper],
      );
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `c${i}`, scopes: ['users:read'] } satisfies CreateKey, CAPPED)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 201, 409, 409, 409, 409, 409, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json()).toEqual({ error: 'A user can hold at most 100 active API keys' });
      expect(await q(`SELECT api_keys_active_count($1) AS n`, [ids.capper])).toEqual([{ n: 100 }]);
      // Revoking one makes room for one.
      const [{ id }] = await q<{ id: number }>(`SELECT id FROM api_keys WHERE key_hash = 'cap-1'`);
      expect((await revoke(id, CAPPED)).statusCode).toBe(204);
      expect((await create({ name: 'again', scopes: ['users:read'] } satisfies CreateKey, CAPPED)).statusCode).toBe(201);
      expect((await create({ name: 'over', scopes: ['users:read'] } satisfies CreateKey, CAPPED)).statusCode).toBe(409);
    });
  });

  describe('list', () => {
    it("lists the caller's unrevoked keys, expired ones included, by id, with last4 (null for keys made before it was recorded)", async () => {
      const [old] = await q<{ id: number }>(
        `INSERT INTO api_keys (user_id, key_hash, scopes, expires_at) VALUES ($1, 'old-key', '{users:read,api_keys:read}', '2001-01-01Z') RETURNING id`,
        [ids.member],
      );
      const res = await list(LIMITED);
      expect(res.statusCode).toBe(200);
      const keys = res.json() as Array<Schema<'ApiKey'>>;
      expect(keys.map((k) => k.id)).toEqual([...keys.map((k) => k.id)].sort((a, b) => a - b));
      expect(keys.every((k) => Object.keys(k).join() === KEY_FIELDS.join())).toBe(true);
      expect(keys.find((k) => k.id === ids.k_limited)).toEqual({
        id: ids.k_limited,
        name: 'limited',
        last4: '1234',
        scopes: ['api_keys:read', 'api_keys:write', 'tasks:read'],
        expires_at: null,
        created_at: expect.stringMatching(TS),
        last_used_at: expect.stringMatching(TS),
      } satisfies Schema<'ApiKey'>);
      expect(keys.find((k) => k.id === old.id)).toEqual({
        id: old.id,
        name: null,
        last4: null,
        scopes: ['api_keys:read', 'users:read'],
        expires_at: '2001-01-01T00:00:00.000Z',
        created_at: expect.stringMatching(TS),
        last_used_at: null,
      } satisfies Schema<'ApiKey'>);
      expect(keys.some((k) => k.id === ids.k_capped)).toBe(false);
      // The member's revoked keys are not listed.
      const member = (await q<{ id: number }>(`SELECT id FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id`, [ids.member])).map((r) => r.id);
      expect(keys.map((k) => k.id)).toEqual(member);
    });
  });

  describe('revoke', () => {
    it("revokes one of the caller's keys: 204, then the key is refused; another user's, a revoked or no key: 404", async () => {
      const made: Schema<'CreatedApiKey'> = (await create({ name: 'doomed', scopes: ['users:read'] } satisfies CreateKey)).json();
      expect((await send('GET', '/api/v1/me', made.key)).statusCode).toBe(200);
      expect(await answer(revoke(made.id, K.key('member')))).toEqual({ status: 404, body: { error: 'API key not found' } });
      const res = await revoke(String(made.id));
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
      expect(await answer(send('GET', '/api/v1/me', made.key))).toEqual({ status: 401, body: { error: 'Invalid API key' } });
      expect(await answer(revoke(made.id))).toEqual({ status: 404, body: { error: 'API key not found' } });
      expect(await answer(revoke(99999999))).toEqual({ status: 404, body: { error: 'API key not found' } });
      expect(await answer(revoke('abc'))).toEqual({ status: 400, body: { error: 'Invalid API key ID' } });
      expect((await list()).json().some((k: Schema<'ApiKey'>) => k.id === made.id)).toBe(false);
    });

    it('a key may revoke itself', async () => {
      expect((await revoke(ids.k_self, SELF)).statusCode).toBe(204);
      expect(await answer(list(SELF))).toEqual({ status: 401, body: { error: 'Invalid API key' } });
    });
  });

  describe('last_used_at', () => {
    const counter = new QueryCounter();
    beforeAll(() => counter.install());
    afterAll(() => counter.uninstall());

    it('records the start of a request made with the key without a write per request, at most one flush behind', async () => {
      const key: Schema<'CreatedApiKey'> = (await create({ name: 'used', scopes: ['users:read'] } satisfies CreateKey)).json();

      const recorder = t.app.get(LastUsedRecorder);
      await recorder.flush();
      // The first use looks the key up (and records it); later ones come from the cache: no statement at all.
      const started = Date.now();
      await send('GET', '/api/v1/me', key.key);
      const { statements } = await counter.record(() => send('GET', '/api/v1/me', key.key));
      expect(statements.filter((s) => /api_keys/.test(s))).toEqual([]);
      const later = Date.now();
      await recorder.flush();
      const [row] = await q<{ at: Date }>(`SELECT last_used_at AS at FROM api_keys WHERE id = $1`, [key.id]);
      expect(row.at.getTime()).toBeGreaterThanOrEqual(started - 5);
      expect(row.at.getTime()).toBeLessThanOrEqual(Date.now());
      expect(row.at.getTime()).toBeGreaterThanOrEqual(later - 1000);
      // Never moves back.
      await q(`UPDATE api_keys SET last_used_at = now() + interval '1 hour' WHERE id = $1`, [key.id]);
      await send('GET', '/api/v1/me', key.key);
      await recorder.flush();
      expect((await q<{ ahead: boolean }>(`SELECT last_used_at > now() + interval '50 minutes' AS ahead FROM api_keys WHERE id = $1`, [key.id]))[0].ahead).toBe(
        true,
      );
    });
  });
});
