import { spawnSync } from 'child_process';
import { chmodSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir, userInfo } from 'os';
import { join } from 'path';
import { tsEntryScript } from '../setup/ts-child';
import { ROOT } from '../setup/paths';

/**
 * Issue 8 item 10: `npm start` as root (embedded PostgreSQL, no DATABASE_URL)
 * whose data directory lies under a directory the OS user `postgres` cannot
 * enter (mode 0700, like /root) stops with one sentence saying what to do,
 * exit 1, no stack. Only root runs PostgreSQL as another user, so only root can
 * meet this; as another user the check does not apply.
 */

const asRoot = userInfo().uid === 0;

(asRoot ? describe : describe.skip)('npm start as root with a data directory postgres cannot reach (issue 8)', () => {
  let locked: string;

  beforeAll(() => {
    locked = mkdtempSync(join(tmpdir(), 'wt-locked-'));
    chmodSync(locked, 0o700);
  });
  afterAll(() => {
    rmSync(locked, { recursive: true, force: true });
  });

  it('stops with one sentence naming the directory and what to do', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(locked, 'data'), LOG_LEVEL: 'log' };
    delete env.DATABASE_URL;
    const r = spawnSync(process.execPath, ['-e', tsEntryScript('src/main.ts', 'main')], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    const output = r.stdout + r.stderr;
    expect(output).toContain(
      `that user cannot enter ${locked}, on the way to its data directory ${join(locked, 'data', 'pg')}: set DATA_DIR to a directory every user may enter`,
    );
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain('EACCES');
  });
});
