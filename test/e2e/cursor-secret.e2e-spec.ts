import { ServerSecrets1795600000000 } from '../../src/common/database/migrations/1795600000000-server-secrets';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { MISSING_CURSOR_SECRET, readCursorSecret } from '../../src/tasks/cursor-secret';
import { cursorSecret } from '../../src/tasks/task-cursor';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { KEYS, tasksWorld } from './tasks-world';

/**
 * Issue 19: no built-in cursor secret. Without CURSOR_SECRET the server signs
 * cursors with a random secret the migrations created in the database (one for
 * every process on it), read once at start-up; CURSOR_SECRET set wins.
 */
describe('cursor secret', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const stored = async (): Promise<string> => (await t.db.ds.query(`SELECT value FROM server_secrets WHERE name = 'cursor'`))[0].value;
  const page = (cursor?: string) =>
    t.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${ids.acme}/tasks?include_total=false&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      headers: auth(KEYS.owner),
    });

  beforeAll(async () => {
    expect(process.env.CURSOR_SECRET).toBeUndefined();
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, tasksWorld());
  });
  afterAll(() => t.close());

  it('without CURSOR_SECRET: the random secret the migration stored, read once at start-up (not per cursor)', async () => {
    const secret = await stored();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(cursorSecret()).toBe(secret);
    const cursor = (await page()).json().next_cursor;
    expect((await page(cursor)).statusCode).toBe(200);
    // Changed in the database after start-up: this process keeps the secret it read.
    await t.db.ds.query(`UPDATE server_secrets SET value = repeat('0', 64)`);
    try {
      expect(cursorSecret()).toBe(secret);
      expect((await page(cursor)).statusCode).toBe(200);
    } finally {
      await t.db.ds.query(`UPDATE server_secrets SET value = $1`, [secret]);
    }
  });

  it('the migration creates a new random secret each time it runs', async () => {
    const before = await stored();
    const runner = t.db.ds.createQueryRunner();
    try {
      await runner.startTransaction();
      const migration = new ServerSecrets1795600000000();
      const seen = new Set([before]);
      for (let i = 0; i < 3; i++) {
        await migration.down(runner);
        await migration.up(runner);
        const [{ value }] = await runner.query(`SELECT value FROM server_secrets`);
        expect(value).toMatch(/^[0-9a-f]{64}$/);
        seen.add(value);
      }
      expect(seen.size).toBe(4);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await stored()).toBe(before);
  });

  it('a database whose migrations have not run stops the start with a line saying what to do', async () => {
    const runner = t.db.ds.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('DROP TABLE server_secrets');
      await expect(readCursorSecret(runner)).rejects.toThrow(MISSING_CURSOR_SECRET);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('CURSOR_SECRET set wins over the stored secret', async () => {
    const other = await createTestApp({ database: t.db, env: { CURSOR_SECRET: 'a secret of our own' } });
    try {
      expect(cursorSecret()).toBe('a secret of our own');
    } finally {
      await other.close();
    }
    expect(await readCursorSecret(t.db.ds)).toBe(await stored());
  });
});
