import { hashApiKey } from '../../src/common/auth/api-key';
import { API_KEY_LISTENER_NAME, ApiKeyCache } from '../../src/common/auth/api-key.cache';
import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';

/**
 * Issue 9: the guard keeps valid keys in memory, and every process honours a
 * revoke, a scope change, a delete or an expiry within 1 s. Two app instances on
 * ONE database stand for two server processes; changes are made with plain SQL
 * (as the CLI or an operator would), so only the api_keys trigger can tell the apps.
 */

const WITHIN_MS = 1000;
const KEYS = ['svc_cache_revoke', 'svc_cache_scope', 'svc_cache_delete', 'svc_cache_expire', 'svc_cache_down', 'svc_cache_back', 'svc_cache_keys'];

describe('API key cache across processes (issue 9)', () => {
  let a: TestApp;
  let b: TestApp;
  const counter = new QueryCounter();

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ database: a.db });
    await loadFixture(a.db.ds, {
      users: [{ ref: 'owner', email: 'owner@cache.test', name: 'Owner' }],
      api_keys: KEYS.map((key) => ({ user: 'owner', key, scopes: [...SCOPES] })),
      workspaces: [{ ref: 'ws', name: 'Cache', slug: 'cache', owner: 'owner' }],
    });
    counter.install();
  });
  afterAll(async () => {
    counter.uninstall();
    await b.close();
    await a.close();
  });

  const me = (app: TestApp, key: string) => app.inject({ method: 'GET', url: '/api/v1/me', headers: auth(key) });
  const sql = (text: string, params: unknown[] = []) => a.db.ds.query(text, params);
  const byHash = (key: string) => [hashApiKey(key)];

  /** Both apps answer 200 for `key`, the second time from memory (no api_keys statement). */
  const warm = async (key: string) => {
    for (const app of [a, b]) {
      expect((await me(app, key)).statusCode).toBe(200);
      const { result, statements } = await counter.record(() => me(app, key));
      expect(result.statusCode).toBe(200);
      expect(statements.filter((s) => /api_keys/.test(s))).toEqual([]);
    }
  };

  /** Milliseconds until both apps answer `status` with `error` for `key`; fails after WITHIN_MS. */
  const honoured = async (key: string, status: number, error: string): Promise<number> => {
    const started = Date.now();
    const pending = new Set([a, b]);
    while (pending.size && Date.now() - started <= WITHIN_MS) {
      for (const app of [...pending]) {
        const res = await me(app, key);
        if (res.statusCode === status) {
          expect(res.json()).toEqual({ error });
          pending.delete(app);
        } else {
          expect(res.statusCode).toBe(200);
        }
      }
      if (pending.size) await new Promise((done) => setTimeout(done, 20));
    }
    expect(pending.size).toBe(0);
    return Date.now() - started;
  };

  it('a revoke by SQL is honoured by both processes within 1 s', async () => {
    await warm('svc_cache_revoke');
    await sql(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, byHash('svc_cache_revoke'));
    await honoured('svc_cache_revoke', 401, 'Invalid API key');
  });

  it('a scope taken away is honoured within 1 s', async () => {
    await warm('svc_cache_scope');
    await sql(`UPDATE api_keys SET scopes = array_remove(scopes, 'users:read') WHERE key_hash = $1`, byHash('svc_cache_scope'));
    await honoured('svc_cache_scope', 403, "Scope 'users:read' is required for this endpoint");
  });

  it('a deleted key is honoured within 1 s', async () => {
    await warm('svc_cache_delete');
    await sql(`DELETE FROM api_keys WHERE key_hash = $1`, byHash('svc_cache_delete'));
    await honoured('svc_cache_delete', 401, 'Invalid API key');
  });

  it('an expiry is honoured within 1 s of expires_at, without any notification', async () => {
    await sql(`UPDATE api_keys SET expires_at = now() + interval '2 seconds' WHERE key_hash = $1`, byHash('svc_cache_expire'));
    // That update notifies too: let its notification land before the key is cached again.
    await new Promise((done) => setTimeout(done, 250));
    await warm('svc_cache_expire');
    const [{ wait }] = await sql(
      `SELECT GREATEST(0, extract(epoch FROM expires_at - now()) * 1000)::int AS wait FROM api_keys WHERE key_hash = $1`,
      byHash('svc_cache_expire'),
    );
    await new Promise((done) => setTimeout(done, wait));
    await honoured('svc_cache_expire', 401, 'API key has expired');
  });

  it('a revoke through one process answers only once the other dropped the key: the other, slow to hear, refuses it at once (D46)', async () => {
    const made = await a.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: auth('svc_cache_keys'),
      payload: { name: 'slow', scopes: ['users:read'] },
    });
    expect(made.statusCode).toBe(201);
    const { id, key } = made.json();
    await warm(key);
    // b's listener reads nothing for 300 ms, as a busy process or a slow network would.
    const listener = (b.app.get(ApiKeyCache) as unknown as { listener: { connection: { stream: NodeJS.ReadableStream } } }).listener;
    listener.connection.stream.pause();
    const resume = setTimeout(() => listener.connection.stream.resume(), 300);
    const started = Date.now();
    try {
      expect((await a.inject({ method: 'DELETE', url: `/api/v1/api-keys/${id}`, headers: auth('svc_cache_keys') })).statusCode).toBe(204);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      for (const app of [b, a]) expect((await me(app, key)).json()).toEqual({ error: 'Invalid API key' });
    } finally {
      clearTimeout(resume);
      listener.connection.stream.resume();
    }
  });

  it('while the listener connection is down nothing is answered from memory; once back, the cache is used and kept honest again', async () => {
    await warm('svc_cache_down');
    const caches = [a, b].map((app) => app.app.get(ApiKeyCache));
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [API_KEY_LISTENER_NAME]);
    for (let i = 0; i < 100 && caches.some((c) => c.listening); i++) await new Promise((done) => setTimeout(done, 5));
    expect(caches.map((c) => c.listening)).toEqual([false, false]);
    // The revoke's notification reaches no one; the next requests look the key up anyway.
    await sql(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, byHash('svc_cache_down'));
    for (const app of [a, b]) expect((await me(app, 'svc_cache_down')).json()).toEqual({ error: 'Invalid API key' });

    for (let i = 0; i < 400 && caches.some((c) => !c.listening); i++) await new Promise((done) => setTimeout(done, 10));
    expect(caches.map((c) => c.listening)).toEqual([true, true]);
    await warm('svc_cache_back');
    await sql(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, byHash('svc_cache_back'));
    await honoured('svc_cache_back', 401, 'Invalid API key');
  });
});
