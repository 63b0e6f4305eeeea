import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { childrenOf } from '../../bench/proc';
import { hashApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { freePort } from '../../src/common/database/embedded';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from '../setup/database';
import { ROOT } from '../setup/paths';
import { answers200, StartedProcess, startProcess } from '../setup/server-process';
import { tsEntryScript } from '../setup/ts-child';

/**
 * The server as real OS processes. `WEB_CONCURRENCY=2` runs two worker
 * processes under one primary (node:cluster), both answering on the one port;
 * a key revoked by SQL is refused by both within 1 s although each kept it in
 * memory; SIGTERM stops them all with exit code 0. The server runs this tree's
 * TypeScript sources (transpiled on the fly), not a stale dist/.
 */

const KEY = 'svc_workers_owner';
const WITHIN_MS = 1000;

// main.ts under a require hook for .ts files; in a file, not `node -e`: cluster workers run the primary's script again.
const ENTRY = tsEntryScript('src/main.ts');

describe('WEB_CONCURRENCY worker processes', () => {
  let db: TestDatabase;
  let dir: string;
  let server: StartedProcess;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    await loadFixture(db.ds, {
      users: [{ ref: 'owner', email: 'owner@workers.test', name: 'Owner' }],
      api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
      workspaces: [{ ref: 'ws', name: 'Workers', slug: 'workers', owner: 'owner' }],
    });
    dir = mkdtempSync(join(tmpdir(), 'wt-workers-'));
    const entry = join(dir, 'main.js');
    writeFileSync(entry, ENTRY);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startProcess({
      name: 'src/main.ts with WEB_CONCURRENCY=2',
      command: process.execPath,
      args: [entry],
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WEB_CONCURRENCY: '2', LOG_LEVEL: 'error' },
      // Both workers listen once the second answers: they start one after the other.
      ready: async (p) => childrenOf(p.child.pid!).length === 2 && answers200(`${base}/health`),
      timeoutMs: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const me = () => fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${KEY}` } });

  it('runs two worker processes under the primary, both serving', async () => {
    expect(childrenOf(server.child.pid!)).toHaveLength(2);
    for (let i = 0; i < 20; i++) expect((await me()).status).toBe(200);
  });

  it('a key revoked by SQL is refused by every worker within 1 s', async () => {
    for (let i = 0; i < 20; i++) expect((await me()).status).toBe(200); // cached in both workers (round-robin)
    await db.ds.query(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, [hashApiKey(KEY)]);
    const started = Date.now();
    let refusedInARow = 0;
    while (refusedInARow < 10 && Date.now() - started <= WITHIN_MS) {
      const res = await me();
      refusedInARow = res.status === 401 ? refusedInARow + 1 : 0;
      if (res.status === 401) expect(await res.json()).toEqual({ error: 'Invalid API key' });
    }
    expect(refusedInARow).toBe(10);
  });

  it('SIGTERM stops the workers and the primary with exit code 0', async () => {
    const workers = childrenOf(server.child.pid!);
    expect(await server.stop()).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 30_000);
});
