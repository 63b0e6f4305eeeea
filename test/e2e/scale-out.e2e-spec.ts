import { spawnSync } from 'child_process';
import { join } from 'path';

import { generateApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { ensureBuilt, ROOT, ServerProcess, startServer } from '../setup/server-process';

/**
 * Issue 12, scale-out on one machine: two server processes (`node dist/main.js`)
 * on one database and one Redis, as the replicas of docker-compose.yml run.
 * Concurrent creates through both keep identifiers unique and the unique rules
 * whole; the rate limit is one budget across both; a key revoked is refused by
 * both. startServer (test/setup/server-process.ts) is the reusable harness.
 */

const LIMIT = 60;
let db: TestDatabase;
let servers: ServerProcess[];
let ids: Record<string, number>;
// Random keys: Redis (shared by every test run on this machine) counts per key.
const writer = generateApiKey();
const limited = generateApiKey();
const revoked = generateApiKey();

async function call(server: ServerProcess, method: string, path: string, key: string, body?: object): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase();
  ids = await loadFixture(db.ds, {
    users: [{ ref: 'owner', email: 'owner@scale.test', name: 'Owner' }],
    api_keys: [
      { ref: 'k_writer', user: 'owner', key: writer, scopes: [...SCOPES] },
      { ref: 'k_limited', user: 'owner', key: limited, scopes: [...SCOPES] },
      { ref: 'k_revoked', user: 'owner', key: revoked, scopes: [...SCOPES] },
    ],
    workspaces: [
      {
        ref: 'ws',
        name: 'Scale',
        slug: 'scale',
        owner: 'owner',
        folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
      },
    ],
  });
  const env = { DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PER_MINUTE: String(LIMIT), MIGRATIONS_RUN: 'false' };
  servers = await Promise.all([startServer(env), startServer(env)]);
}, 120_000);

afterAll(async () => {
  // D32: each process exits 0 on SIGTERM.
  if (servers) expect(await Promise.all(servers.map((s) => s.stop()))).toEqual([0, 0]);
  await db?.drop();
});

it('concurrent creates through both processes: every one succeeds, ids unique', async () => {
  const created = await Promise.all(
    Array.from({ length: 40 }, (_, i) => call(servers[i % 2], 'POST', '/api/v1/tasks', writer, { list_id: ids.l, title: `Task ${i}` })),
  );
  expect(created.map((r) => r.status)).toEqual(Array(40).fill(201));
  const taskIds = created.map((r) => r.body.id as number);
  expect(new Set(taskIds).size).toBe(40);
  const page = await call(servers[0], 'GET', `/api/v1/workspaces/${ids.ws}/tasks?limit=100`, writer);
  expect(page.body.total).toBe(40);
});

it('concurrent creates of one label name through both: one 201, the rest 409', async () => {
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => call(servers[i % 2], 'POST', '/api/v1/labels', writer, { workspace_id: ids.ws, name: 'Same' })),
  );
  expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  expect(answers.filter((r) => r.status === 409).map((r) => r.body)).toEqual(Array(9).fill({ error: 'A label with this name already exists' }));
});

it('the rate limit is one budget across both processes (Redis)', async () => {
  const remaining: number[] = [];
  for (let i = 0; i < LIMIT; i++) {
    const r = await call(servers[i % 2], 'GET', '/api/v1/me', limited);
    expect(r.status).toBe(200);
    remaining.push(Number(r.headers.get('ratelimit-remaining')));
  }
  // Counted once across both: LIMIT-1 down to 0, alternating processes.
  expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
  for (const server of servers) {
    const r = await call(server, 'GET', '/api/v1/me', limited);
    expect([r.status, r.body]).toEqual([429, { error: 'Too many requests' }]);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  }
});

it('a key revoked (CLI) is refused by both processes', async () => {
  for (const server of servers) expect((await call(server, 'GET', '/api/v1/me', revoked)).status).toBe(200);
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'keys', 'revoke', '--id', String(ids.k_revoked)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  for (const server of servers) {
    const answer = await call(server, 'GET', '/api/v1/me', revoked);
    expect([answer.status, answer.body]).toEqual([401, { error: 'Invalid API key' }]);
  }
});
