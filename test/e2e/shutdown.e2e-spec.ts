import { connect, Socket } from 'net';

import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { ROOT } from '../setup/paths';
import { rawRequest } from '../setup/raw-http';
import { freePort, StartedProcess, startProcess } from '../setup/server-process';
import { tsEntryScript } from '../setup/ts-child';

/**
 * The server process of D32 (src/main.ts, run from the sources) on SIGTERM:
 * nothing in flight → exit 0; a request still in flight when
 * SHUTDOWN_TIMEOUT_MS runs out → it is cut, logged, and the exit code is 1.
 * With SHUTDOWN_DELAY_MS (issue 32), a readiness probe sees the 503 while the
 * server still accepts and serves, before the listener closes.
 */

const KEY = 'svc_shutdown_owner';
const DRAIN_MS = 800;

interface Server extends StartedProcess {
  port: number;
}

/** Starts src/main.ts on this file's database and resolves once it listens. */
async function startServer(db: TestDatabase, extra: NodeJS.ProcessEnv = {}): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'log',
    SHUTDOWN_TIMEOUT_MS: String(DRAIN_MS),
    ...extra,
  };
  const server = await startProcess({
    name: 'src/main.ts',
    command: process.execPath,
    args: ['-e', tsEntryScript('src/main.ts', 'main')],
    cwd: ROOT,
    env,
    ready: (p) => p.output().includes('Listening on'),
    timeoutMs: 60_000,
    pollMs: 50,
  });
  return { ...server, port };
}

describe('SIGTERM (D32)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await loadFixture(db.ds, {
      users: [{ ref: 'alice', email: 'alice@shutdown.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
    });
  });
  afterAll(async () => {
    await db.drop();
  });

  it('exits 0 when nothing is in flight', async () => {
    const server = await startServer(db);
    const me = await rawRequest(server.port, [`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`]);
    expect(me.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toContain('cut');
  }, 90_000);

  it('with SHUTDOWN_DELAY_MS, a probe sees readiness 503 while other requests are still served, then it exits 0', async () => {
    const DELAY_MS = 2000;
    const server = await startServer(db, { SHUTDOWN_DELAY_MS: String(DELAY_MS) });
    const get = (path: string, auth = false) =>
      rawRequest(server.port, [`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth ? `Authorization: Bearer ${KEY}\r\n` : ''}Connection: close\r\n\r\n`]);
    expect((await get('/health/ready')).status).toBe(200);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    // A probe every 50 ms, as a load balancer's would be (only faster): it must see the 503 before the port closes.
    const seen: number[] = [];
    while (!seen.includes(503) && Date.now() - signalled < DELAY_MS) seen.push((await get('/health/ready')).status);
    expect(seen).toContain(503);
    const ready = await get('/health/ready');
    expect({ status: ready.status, body: JSON.parse(ready.body).status }).toEqual({ status: 503, body: 'error' });
    // Everything else is still served, and new connections are still accepted.
    expect((await get('/api/v1/me', true)).status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(DELAY_MS);
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DELAY_MS);
    expect(server.output()).toContain(`SIGTERM received: readiness answers 503; still serving for ${DELAY_MS} ms`);
  }, 90_000);

  it('cuts a request still in flight after SHUTDOWN_TIMEOUT_MS, logs it and exits 1', async () => {
    const server = await startServer(db);
    // A request whose body never completes: in flight until cut.
    const socket: Socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((done) => socket.on('connect', done));
    socket.write(`POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(new RegExp(`Shutdown: 1 request still in flight after ${DRAIN_MS / 1000} s, cut: POST /api/v1/labels #`));
    socket.destroy();
  }, 90_000);
});
