import { chmodSync, existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir, userInfo } from 'os';
import { join } from 'path';

import { firstBlockedDirectory, osUser, reachableHome, reachablePlace } from '../../src/common/database/os-access';
import { ensureBuilt, freePort, ROOT, startServer } from '../setup/server-process';

/**
 * Issue 19 (was issue 8 item 10): `npm start` as root, with embedded PostgreSQL,
 * works wherever the checkout and the data directory are. PostgreSQL runs as
 * the OS user `postgres`; what that user cannot enter (a directory of mode
 * 0700, like /root) is placed where it can, and the server says where: the data
 * directory always here (it lies in a 0700 directory), the programs when the
 * checkout itself is out of reach (CI runs this file from a 0700 copy). Only
 * root runs PostgreSQL as another user, so only root can meet this.
 */

const asRoot = userInfo().uid === 0;

(asRoot ? describe : describe.skip)('npm start as root with a data directory postgres cannot reach', () => {
  let locked: string;
  let placed: string;

  beforeAll(() => {
    ensureBuilt();
    locked = mkdtempSync(join(tmpdir(), 'wt-locked-'));
    chmodSync(locked, 0o700);
    placed = reachablePlace(reachableHome(osUser('postgres')), 'data', join(locked, 'data'));
  });
  afterAll(() => {
    rmSync(locked, { recursive: true, force: true });
    rmSync(placed, { recursive: true, force: true });
  });

  it('serves, with the data directory in a reachable place it names, and stops cleanly', async () => {
    const server = await startServer(
      { DATABASE_URL: '', DATA_DIR: join(locked, 'data'), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'log' },
      90_000,
    );
    let code: number | null;
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      code = await server.stop();
    }
    const output = server.stdout() + server.stderr();
    expect(code).toBe(0);
    expect(output).toContain(`The OS user postgres cannot enter ${locked}: the data directory is ${placed} instead of ${join(locked, 'data')}`);
    expect(existsSync(join(placed, 'pg', 'PG_VERSION'))).toBe(true);
    // The programs: copied only when the checkout is out of reach too.
    const postgres = osUser('postgres') ?? { uid: -1, gids: [] };
    const checkoutBlocked = firstBlockedDirectory(join(ROOT, 'node_modules'), postgres);
    if (checkoutBlocked) expect(output).toContain(`The OS user postgres cannot enter ${checkoutBlocked}: PostgreSQL's programs are run from a copy in `);
    else expect(output).not.toContain("PostgreSQL's programs are run from a copy");
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain('EACCES');
  }, 120_000);
});
