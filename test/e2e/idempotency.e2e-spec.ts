import { SCOPES } from '../../src/common/auth/scope';
import { IdempotencyRepository } from '../../src/common/idempotency/idempotency.repository';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * D35 Idempotency-Key on every POST route: claimed before the request runs,
 * stored with its answer, replayed byte for byte with `Idempotent-Replayed: true`;
 * 422 for another request under the key, 409 while the first runs; the format's
 * 400 after the scope and before the body errors (D3). Two server processes:
 * idempotency-processes.e2e-spec.ts; cut by the deadline: request-cut.e2e-spec.ts.
 */

const OWNER = 'svc_idem_owner';
const OTHER_KEY = 'svc_idem_owner_2';
const NO_SCOPE = 'svc_idem_noscope';
const VIEWER = 'svc_idem_viewer';
const FORMAT = { error: 'Idempotency-Key must be 1 to 255 visible ASCII characters' };
const OTHER_REQUEST = { error: 'Idempotency-Key was already used with a different request' };
const IN_PROGRESS = { error: 'A request with this Idempotency-Key is in progress' };

describe('Idempotency-Key (D35)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let n = 0;
  /** A fresh key value for each test. */
  const fresh = () => `key-${Date.now()}-${++n}`;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, {
      users: [
        { ref: 'owner', email: 'owner@idem.test', name: 'Owner' },
        { ref: 'viewer', email: 'viewer@idem.test', name: 'Viewer' },
      ],
      api_keys: [
        { ref: 'k_owner', user: 'owner', key: OWNER, scopes: [...SCOPES] },
        { ref: 'k_owner2', user: 'owner', key: OTHER_KEY, scopes: [...SCOPES] },
        { user: 'owner', key: NO_SCOPE, scopes: ['tasks:read'] },
        { user: 'viewer', key: VIEWER, scopes: [...SCOPES] },
      ],
      workspaces: [
        {
          ref: 'ws',
          name: 'Idem',
          slug: 'idem',
          owner: 'owner',
          members: [{ user: 'viewer', role: 'viewer' }],
          folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
          tasks: [{ ref: 't1', list: 'l', title: 'First' }],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, payload: unknown, key?: string, apiKey = OWNER, extra: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url,
      headers: { ...auth(apiKey), 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }), ...extra },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const count = async (table: string, where: string, values: unknown[]) =>
    Number((await t.db.ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, values))[0].n);

  it.each([
    ['create label', '/api/v1/labels', () => ({ workspace_id: ids.ws, name: `Label ${fresh()}` }), 'labels'],
    ['create status', '/api/v1/statuses', () => ({ workspace_id: ids.ws, name: `Status ${fresh()}`, category: 'in_progress' }), 'statuses'],
    ['create folder', '/api/v1/folders', () => ({ workspace_id: ids.ws, name: `Folder ${fresh()}` }), 'folders'],
    ['create list', '/api/v1/lists', () => ({ workspace_id: ids.ws, folder_id: ids.f, name: `List ${fresh()}` }), 'lists'],
    ['create task', '/api/v1/tasks', () => ({ list_id: ids.l, title: `Task ${fresh()}` }), 'tasks'],
    ['create comment', () => `/api/v1/tasks/${ids.t1}/comments`, () => ({ content: `Comment ${fresh()}` }), 'comments'],
  ])('%s: the first answer is stored and a retry replays it byte for byte, once written', async (_name, url, body, table) => {
    const path = typeof url === 'function' ? url() : url;
    const key = fresh();
    const payload = body();
    const before = await count(table, 'true', []);
    const first = await post(path, payload, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(path, payload, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body).toBe(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await count(table, 'true', [])).toBe(before + 1);
  });

  it('without the header nothing is stored and each request runs', async () => {
    const payload = { workspace_id: ids.ws, name: 'Twice' };
    const a = await post('/api/v1/folders', payload);
    const b = await post('/api/v1/folders', payload);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().id).not.toBe(b.json().id);
    expect(a.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('idempotency_keys', 'true', [])).toBeGreaterThan(0);
    expect(await count('folders', 'name = $1', ['Twice'])).toBe(2);
  });

  it('a create task replay carries the stored ETag, even after the task changed or was deleted', async () => {
    const key = fresh();
    const payload = { list_id: ids.l, title: 'Replayed after delete' };
    const first = await post('/api/v1/tasks', payload, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const id = first.json().id;
    expect((await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${id}`, headers: auth(OWNER), payload: { title: 'Changed' } })).statusCode).toBe(200);
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: auth(OWNER) })).statusCode).toBe(204);
    const again = await post('/api/v1/tasks', payload, key);
    expect({ status: again.statusCode, body: again.body, etag: again.headers.etag, replayed: again.headers['idempotent-replayed'] }).toEqual({
      status: 201,
      body: first.body,
      etag: first.headers.etag,
      replayed: 'true',
    });
  });

  it('the stored answer commits with the write: when storing it fails, the write is rolled back and a retry runs anew', async () => {
    // Storing this key's answer fails inside the request's transaction, as a process dying before COMMIT would leave it.
    await t.db.ds.query(`
      CREATE FUNCTION fail_store() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'store failed'; END $$;
      CREATE TRIGGER fail_store BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.key = 'atomic' AND NEW.status IS NOT NULL) EXECUTE FUNCTION fail_store();`);
    const payload = { list_id: ids.l, title: 'Atomic' };
    try {
      const failed = await post('/api/v1/tasks', payload, 'atomic');
      expect({ status: failed.statusCode, body: failed.json() }).toEqual({ status: 500, body: { error: 'Internal server error' } });
    } finally {
      await t.db.ds.query(`DROP TRIGGER fail_store ON idempotency_keys; DROP FUNCTION fail_store();`);
    }
    expect(await count('tasks', 'title = $1', ['Atomic'])).toBe(0);
    expect(await count('idempotency_keys', 'key = $1', ['atomic'])).toBe(0);
    const retry = await post('/api/v1/tasks', payload, 'atomic');
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await count('tasks', 'title = $1', ['Atomic'])).toBe(1);
  });

  it('the same key with another body, path or query: 422, and nothing runs', async () => {
    const key = fresh();
    const payload = { workspace_id: ids.ws, name: 'Original' };
    expect((await post('/api/v1/folders', payload, key)).statusCode).toBe(201);
    const before = await count('folders', 'true', []);
    for (const res of [
      await post('/api/v1/folders', { workspace_id: ids.ws, name: 'Other' }, key),
      await post('/api/v1/folders', JSON.stringify(payload, null, 2), key),
      await post('/api/v1/folders?x=1', payload, key),
      await post('/api/v1/labels', payload, key),
    ]) {
      expect({ status: res.statusCode, body: res.json(), replayed: res.headers['idempotent-replayed'] }).toEqual({
        status: 422,
        body: OTHER_REQUEST,
        replayed: undefined,
      });
    }
    expect(await count('folders', 'true', [])).toBe(before);
  });

  it('the value is compared byte for byte (quotes and case included) and belongs to its API key', async () => {
    const payload = { workspace_id: ids.ws, name: 'Per key' };
    const key = fresh();
    const a = await post('/api/v1/folders', payload, key);
    const b = await post('/api/v1/folders', payload, key.toUpperCase());
    const c = await post('/api/v1/folders', payload, `"${key}"`);
    const d = await post('/api/v1/folders', payload, key, OTHER_KEY);
    for (const res of [a, b, c, d]) {
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a, b, c, d].map((r) => r.json().id)).size).toBe(4);
  });

  it('headers are not compared: a retry with other headers replays', async () => {
    const key = fresh();
    const payload = { workspace_id: ids.ws, name: 'Headers' };
    const first = await post('/api/v1/folders', payload, key);
    const again = await post('/api/v1/folders', payload, key, OWNER, { 'x-request-id': 'another-id', 'user-agent': 'retry/1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('a 4xx of the route (D3 steps 4-9) is stored and replayed; the same request is not run again', async () => {
    const key = fresh();
    const missing = await post('/api/v1/tasks', { title: 'No list' }, key);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({ status: 400, body: { error: 'list_id is required' } });
    expect(missing.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/api/v1/tasks', { title: 'No list' }, key);
    expect({ status: again.statusCode, body: again.body, replayed: again.headers['idempotent-replayed'], type: again.headers['content-type'] }).toEqual({
      status: 400,
      body: missing.body,
      replayed: 'true',
      type: missing.headers['content-type'],
    });

    // A 403 of the role (step 6) and a 409 of a business rule (step 9) likewise.
    const viewerKey = fresh();
    const denied = await post('/api/v1/folders', { workspace_id: ids.ws, name: 'Viewer' }, viewerKey, VIEWER);
    expect({ status: denied.statusCode, body: denied.json() }).toEqual({ status: 403, body: { error: 'Viewers cannot create folders' } });
    const deniedAgain = await post('/api/v1/folders', { workspace_id: ids.ws, name: 'Viewer' }, viewerKey, VIEWER);
    expect([deniedAgain.statusCode, deniedAgain.headers['idempotent-replayed']]).toEqual([403, 'true']);

    expect((await post('/api/v1/labels', { workspace_id: ids.ws, name: 'Dup' })).statusCode).toBe(201);
    const dupKey = fresh();
    const dup = await post('/api/v1/labels', { workspace_id: ids.ws, name: 'Dup' }, dupKey);
    expect({ status: dup.statusCode, body: dup.json() }).toEqual({ status: 409, body: { error: 'A label with this name already exists' } });
    await t.db.ds.query(`DELETE FROM labels WHERE name = 'Dup'`);
    // Replayed even though the name is free now: nothing runs again.
    const dupAgain = await post('/api/v1/labels', { workspace_id: ids.ws, name: 'Dup' }, dupKey);
    expect({ status: dupAgain.statusCode, body: dupAgain.json(), replayed: dupAgain.headers['idempotent-replayed'] }).toEqual({
      status: 409,
      body: { error: 'A label with this name already exists' },
      replayed: 'true',
    });
    expect(await count('labels', 'name = $1', ['Dup'])).toBe(0);
  });

  it('a malformed path id (D3 step 4) is answered after the claim: stored and replayed; a D7 body error still comes first and is not stored', async () => {
    const key = fresh();
    const bad = await post('/api/v1/tasks/abc/comments', { content: 'Path' }, key);
    expect({ status: bad.statusCode, body: bad.json(), replayed: bad.headers['idempotent-replayed'] }).toEqual({
      status: 400,
      body: { error: 'Invalid task ID' },
      replayed: undefined,
    });
    expect(await count('idempotency_keys', 'key = $1', [key])).toBe(1);
    const again = await post('/api/v1/tasks/abc/comments', { content: 'Path' }, key);
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([400, bad.body, 'true']);
    // The same key for another request: 422, although its path id is malformed too.
    const other = await post('/api/v1/tasks/abd/comments', { content: 'Path' }, key);
    expect({ status: other.statusCode, body: other.json() }).toEqual({
      status: 422,
      body: { error: 'Idempotency-Key was already used with a different request' },
    });

    const jsonKey = fresh();
    const both = await post('/api/v1/tasks/abc/comments', '{"content":', jsonKey);
    expect({ status: both.statusCode, body: both.json() }).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
    expect(await count('idempotency_keys', 'key = $1', [jsonKey])).toBe(0);
    // Without a key, the path id is answered at once, and nothing is stored.
    const unkeyed = await post('/api/v1/tasks/abc/comments', { content: 'Path' });
    expect({ status: unkeyed.statusCode, body: unkeyed.json() }).toEqual({ status: 400, body: { error: 'Invalid task ID' } });
  });

  it('a replay is served whatever the caller may do now (only authentication, scope and the key format are checked)', async () => {
    const key = fresh();
    const payload = { workspace_id: ids.ws, name: 'Before demotion' };
    await t.db.ds.query(`UPDATE workspace_members SET role = 'member' WHERE user_id = $1`, [ids.viewer]);
    const first = await post('/api/v1/folders', payload, key, VIEWER);
    expect(first.statusCode).toBe(201);
    await t.db.ds.query(`UPDATE workspace_members SET role = 'viewer' WHERE user_id = $1`, [ids.viewer]);
    const again = await post('/api/v1/folders', payload, key, VIEWER);
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([201, first.body, 'true']);
  });

  it('D7 answers are not stored: the key stays unused', async () => {
    const key = fresh();
    const bad = await post('/api/v1/folders', '{"workspace_id":', key);
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
    const array = await post('/api/v1/folders', '[]', key);
    expect({ status: array.statusCode, body: array.json() }).toEqual({ status: 400, body: { error: 'Request body must be a JSON object' } });
    const typed = await t.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: { ...auth(OWNER), 'content-type': 'text/plain', 'idempotency-key': key },
      payload: 'x',
    });
    expect({ status: typed.statusCode, body: typed.json() }).toEqual({ status: 415, body: { error: 'Content-Type must be application/json' } });
    expect(await count('idempotency_keys', 'key = $1', [key])).toBe(0);
    const ok = await post('/api/v1/folders', { workspace_id: ids.ws, name: 'After D7' }, key);
    expect([ok.statusCode, ok.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });

  describe('format (400, after the scope and before the body)', () => {
    const folder = () => ({ workspace_id: ids.ws, name: 'Format' });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space inside', 'a b'],
      ['a tab inside', 'a\tb'],
      ['non-ASCII', 'cl\u00e9'],
      ['DEL', 'a\u007f'],
    ])('%s: 400', async (_name, value) => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: { ...auth(OWNER), 'content-type': 'application/json', 'idempotency-key': value },
        payload: JSON.stringify(folder()),
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: FORMAT });
    });

    it('255 visible characters, `!` to `~`, are accepted; surrounding whitespace is HTTP\u2019s own and trimmed', async () => {
      const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
      const long = (visible + visible + visible).slice(0, 255);
      expect((await post('/api/v1/folders', folder(), long)).statusCode).toBe(201);
      const key = fresh();
      const first = await post('/api/v1/folders', folder(), `  ${key}  `);
      expect(first.statusCode).toBe(201);
      expect((await post('/api/v1/folders', folder(), key)).headers['idempotent-replayed']).toBe('true');
    });

    it('the header sent twice: 400, even with equal values', async () => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: { ...auth(OWNER), 'content-type': 'application/json', 'idempotency-key': ['same', 'same'] },
        payload: JSON.stringify(folder()),
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: FORMAT });
    });

    it('beats every body error: bad JSON, a non-object, a bad content type, and the route\u2019s own 400s', async () => {
      for (const [payload, type] of [
        ['{', 'application/json'],
        ['[1]', 'application/json'],
        ['x', 'text/plain'],
        ['{}', 'application/json'],
      ]) {
        const res = await t.inject({
          method: 'POST',
          url: '/api/v1/folders',
          headers: { ...auth(OWNER), 'content-type': type, 'idempotency-key': '' },
          payload,
        });
        expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: FORMAT });
      }
      const comment = await t.inject({ method: 'POST', url: '/api/v1/tasks/abc/comments', headers: { ...auth(OWNER), 'idempotency-key': '' }, payload: {} });
      expect({ status: comment.statusCode, body: comment.json() }).toEqual({ status: 400, body: FORMAT });
    });

    it('loses to 401, to the scope\u2019s 403 and to 413', async () => {
      const anonymous = await t.inject({ method: 'POST', url: '/api/v1/folders', headers: { 'idempotency-key': '' }, payload: folder() });
      expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({ status: 401, body: { error: 'API key required' } });
      const scope = await post('/api/v1/folders', folder(), '', NO_SCOPE);
      expect({ status: scope.statusCode, body: scope.json() }).toEqual({ status: 403, body: { error: "Scope 'folders:write' is required for this endpoint" } });
      const big = await post('/api/v1/folders', JSON.stringify({ workspace_id: ids.ws, name: 'x'.repeat(1024 * 1024) }), '');
      expect({ status: big.statusCode, body: big.json() }).toEqual({ status: 413, body: { error: 'Request body is too large' } });
    });

    it('is ignored on other methods and routes', async () => {
      const patch = await t.inject({
        method: 'PATCH',
        url: `/api/v1/tasks/${ids.t1}`,
        headers: { ...auth(OWNER), 'idempotency-key': '' },
        payload: { title: 'Patched' },
      });
      expect(patch.statusCode).toBe(200);
      const get = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t1}`, headers: { ...auth(OWNER), 'idempotency-key': 'a b' } });
      expect(get.statusCode).toBe(200);
      const key = fresh();
      await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.t1}`, headers: { ...auth(OWNER), 'idempotency-key': key }, payload: { title: 'Again' } });
      expect(await count('idempotency_keys', 'key = $1', [key])).toBe(0);
    });
  });

  it('while the first request runs: the same request gets 409 at once, another 422; afterwards the replay', async () => {
    const key = fresh();
    const payload = { list_id: ids.l, title: 'Slow create' };
    // Hold the workspace row that a create task updates (its counter): the first request waits on it.
    const runner = t.db.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    let first: Promise<Awaited<ReturnType<typeof post>>> | undefined;
    try {
      await runner.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [ids.ws]);
      first = post('/api/v1/tasks', payload, key);
      // The claim is committed before the request runs: wait until it is visible.
      while ((await count('idempotency_keys', 'key = $1', [key])) === 0) await new Promise((r) => setImmediate(r));
      const same = await post('/api/v1/tasks', payload, key);
      expect({ status: same.statusCode, body: same.json(), replayed: same.headers['idempotent-replayed'] }).toEqual({
        status: 409,
        body: IN_PROGRESS,
        replayed: undefined,
      });
      const other = await post('/api/v1/tasks', { ...payload, title: 'Other' }, key);
      expect({ status: other.statusCode, body: other.json() }).toEqual({ status: 422, body: OTHER_REQUEST });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    const done = await first!;
    expect(done.statusCode).toBe(201);
    const again = await post('/api/v1/tasks', payload, key);
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([201, done.body, 'true']);
    expect(await count('tasks', 'title = $1', ['Slow create'])).toBe(1);
  });

  it('a claim left by a request that died stops blocking once REQUEST_TIMEOUT_MS has passed', async () => {
    const key = fresh();
    const payload = { workspace_id: ids.ws, name: 'After a crash' };
    const claim = await post('/api/v1/folders', payload, key);
    expect(claim.statusCode).toBe(201);
    // As if the process died after claiming: no answer, claimed just now, then long ago.
    await t.db.ds.query(`UPDATE idempotency_keys SET status = NULL, body = NULL, claimed_at = now() WHERE key = $1`, [key]);
    expect((await post('/api/v1/folders', payload, key)).statusCode).toBe(409);
    await t.db.ds.query(`UPDATE idempotency_keys SET claimed_at = now() - interval '16 seconds' WHERE key = $1`, [key]);
    const rerun = await post('/api/v1/folders', payload, key);
    expect([rerun.statusCode, rerun.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(rerun.json().id).not.toBe(claim.json().id);
  });

  it('a stored answer is replayed until IDEMPOTENCY_TTL_SECONDS after it was stored, then the key is unused; expired keys are pruned', async () => {
    const key = fresh();
    const payload = { workspace_id: ids.ws, name: 'Expiring' };
    const first = await post('/api/v1/folders', payload, key);
    const [{ ttl }] = await t.db.ds.query(`SELECT round(extract(epoch FROM expires_at - now()))::int AS ttl FROM idempotency_keys WHERE key = $1`, [key]);
    expect(ttl).toBe(86400);
    await t.db.ds.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
    const after = await post('/api/v1/folders', payload, key);
    expect([after.statusCode, after.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(after.json().id).not.toBe(first.json().id);

    await t.db.ds.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
    const kept = await count('idempotency_keys', 'expires_at > now()', []);
    expect(await t.app.get(IdempotencyRepository).prune()).toBeGreaterThanOrEqual(1);
    expect(await count('idempotency_keys', 'key = $1', [key])).toBe(0);
    expect(await count('idempotency_keys', 'expires_at > now()', [])).toBe(kept);
  });
});
