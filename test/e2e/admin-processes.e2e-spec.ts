import { LAST_USED_FLUSH_MS } from '../../src/common/auth/last-used';
import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { ensureBuilt, ServerProcess, startServer } from '../setup/server-process';

/**
 * Issue 35, D41, D46, across real processes: two servers (`node dist/main.js`)
 * on one database, each with its API-key cache warm (keys answered from memory).
 * A change of membership, role or grants made through one counts for the very
 * next request through the other; a key revoked through one is refused by the
 * other at once; `last_used_at` of a key used only from memory is written within
 * a flush.
 */

const OWNER = 'svc_procs_owner';
const MEMBER = 'svc_procs_member';
let db: TestDatabase;
let a: ServerProcess;
let b: ServerProcess;
let ids: Record<string, number>;

async function call(server: ServerProcess, method: string, path: string, key: string, body?: object): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Uses `key` on both servers until each answers from memory (a second request after the lookup). */
async function warm(key: string, path = '/api/v1/me'): Promise<void> {
  for (const server of [a, b]) {
    for (let i = 0; i < 3; i++) expect((await call(server, 'GET', path, key)).status).toBe(200);
  }
}

beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase();
  ids = await loadFixture(db.ds, {
    users: [
      { ref: 'owner', email: 'owner@procs.test', name: 'Owner' },
      { ref: 'member', email: 'member@procs.test', name: 'Member' },
    ],
    api_keys: [
      { user: 'owner', key: OWNER, scopes: [...SCOPES] },
      { user: 'member', key: MEMBER, scopes: [...SCOPES] },
    ],
    workspaces: [
      {
        ref: 'ws',
        name: 'Procs',
        slug: 'procs',
        owner: 'owner',
        members: [{ user: 'member', role: 'member' }],
        folders: [
          { ref: 'eng', name: 'Eng', lists: [{ ref: 'backlog', name: 'Backlog' }] },
          { ref: 'ops', name: 'Ops' },
        ],
      },
    ],
  });
  const env = { DATABASE_URL: db.url, MIGRATIONS_RUN: 'false', WEBHOOK_WORKER: 'false' };
  [a, b] = await Promise.all([startServer(env), startServer(env)]);
}, 120_000);

afterAll(async () => {
  if (a && b) expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
  await db?.drop();
});

it('a role, a restriction, a removal and a new membership made through one process count for the next request through the other', async () => {
  const members = `/api/v1/workspaces/${ids.ws}/members`;
  await warm(MEMBER, `/api/v1/workspaces/${ids.ws}`);
  for (let round = 0; round < 3; round++) {
    expect((await call(a, 'PATCH', `${members}/${ids.member}`, OWNER, { role: 'viewer' })).status).toBe(200);
    expect(await call(b, 'POST', '/api/v1/folders', MEMBER, { workspace_id: ids.ws, name: 'X' })).toEqual({
      status: 403,
      body: { error: 'Viewers cannot create folders' },
    });

    expect((await call(a, 'PATCH', `${members}/${ids.member}`, OWNER, { role: 'member', restricted: true, folder_ids: [ids.eng] })).status).toBe(200);
    expect((await call(b, 'GET', `/api/v1/workspaces/${ids.ws}/folders`, MEMBER)).body.map((f: { id: number }) => f.id)).toEqual([ids.eng]);
    expect((await call(a, 'PATCH', `${members}/${ids.member}`, OWNER, { folder_ids: [ids.ops] })).status).toBe(200);
    expect((await call(b, 'GET', `/api/v1/workspaces/${ids.ws}/folders`, MEMBER)).body.map((f: { id: number }) => f.id)).toEqual([ids.ops]);

    expect((await call(a, 'DELETE', `${members}/${ids.member}`, OWNER)).status).toBe(204);
    expect(await call(b, 'GET', `/api/v1/workspaces/${ids.ws}`, MEMBER)).toEqual({ status: 404, body: { error: 'Workspace not found' } });

    expect((await call(a, 'POST', members, OWNER, { user_id: ids.member })).status).toBe(201);
    expect((await call(b, 'POST', '/api/v1/folders', MEMBER, { workspace_id: ids.ws, name: `Back ${round}` })).status).toBe(201);
  }
});

it('a key revoked through one process is refused by the other at once, with its cache warm', async () => {
  for (let round = 0; round < 5; round++) {
    const made = await call(a, 'POST', '/api/v1/api-keys', MEMBER, { name: `round ${round}`, scopes: ['users:read'] });
    expect(made.status).toBe(201);
    await warm(made.body.key);
    const [revoker, other] = round % 2 ? [b, a] : [a, b];
    expect((await call(revoker, 'DELETE', `/api/v1/api-keys/${made.body.id}`, MEMBER)).status).toBe(204);
    expect(await call(other, 'GET', '/api/v1/me', made.body.key)).toEqual({ status: 401, body: { error: 'Invalid API key' } });
    expect(await call(revoker, 'GET', '/api/v1/me', made.body.key)).toEqual({ status: 401, body: { error: 'Invalid API key' } });
  }
});

it('last_used_at of a key answered from memory is written within a flush (at most 60 s stale)', async () => {
  await warm(OWNER);
  // Set back by SQL (no notification: the key stays cached); the next uses come from memory.
  await db.ds.query(`UPDATE api_keys SET last_used_at = '2000-01-01Z' WHERE user_id = $1`, [ids.owner]);
  const used = Date.now();
  expect((await call(b, 'GET', '/api/v1/me', OWNER)).status).toBe(200);
  const deadline = used + LAST_USED_FLUSH_MS + 5_000;
  let at = 0;
  while (Date.now() < deadline) {
    const [row] = await db.ds.query(`SELECT last_used_at FROM api_keys WHERE user_id = $1 ORDER BY id LIMIT 1`, [ids.owner]);
    at = new Date(row.last_used_at).getTime();
    if (at >= used - 1000) break;
    await new Promise((done) => setTimeout(done, 250));
  }
  expect(at).toBeGreaterThanOrEqual(used - 1000);
  expect(at).toBeLessThanOrEqual(Date.now());
}, 40_000);
