import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 18 item 2: a write cut by REQUEST_TIMEOUT_MS does not commit. Another
 * connection holds a row lock the write needs past the deadline; the request
 * answers 503, and once the lock is released the write is not there (its
 * statement was cancelled, its transaction rolled back). With an
 * Idempotency-Key the key is released too: a retry runs anew (D35).
 */

const ENV = { REQUEST_TIMEOUT_MS: '800', DB_STATEMENT_TIMEOUT_MS: '20000' };
const UNAVAILABLE = { error: 'Service unavailable' };

describe('a request cut by the deadline commits nothing (issue 18)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const key = auth('svc_cut_owner');

  beforeAll(async () => {
    t = await createTestApp({ env: ENV });
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@cut.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: 'svc_cut_owner', scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'acme',
          name: 'Acme',
          slug: 'cut-acme',
          owner: 'alice',
          folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'inbox', name: 'Inbox' }] }],
          tasks: [{ ref: 't1', list: 'inbox', title: 'Locked' }],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Runs `request` while another transaction holds `lockSql`; releases it only after the answer. */
  async function whileLocked(lockSql: string, params: unknown[], request: () => Promise<{ statusCode: number; json(): unknown }>) {
    const runner = t.db.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(lockSql, params);
      const res = await request();
      return { status: res.statusCode, body: res.json() };
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }
  const count = async (sql: string, params: unknown[]) => Number((await t.db.ds.query(sql, params))[0].n);
  /** Waits until no other statement runs on the test database: a write still waiting for the released lock, or between its statements, would have committed by then (it must not). */
  const settle = async () => {
    while (
      (await count(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        [],
      )) > 0
    ) {
      await new Promise((r) => setImmediate(r));
    }
  };

  it('create task waiting on the workspace row: 503, and no task once the lock is gone', async () => {
    const answer = await whileLocked('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [ids.acme], () =>
      t.inject({ method: 'POST', url: '/api/v1/tasks', headers: key, payload: { list_id: ids.inbox, title: 'Cut create' } }),
    );
    expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
    await settle();
    expect(await count(`SELECT count(*)::int AS n FROM tasks WHERE title = 'Cut create'`, [])).toBe(0);
  });

  it('update task waiting on the task row: 503, and the title is unchanged', async () => {
    const answer = await whileLocked('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [ids.t1], () =>
      t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.t1}`, headers: key, payload: { title: 'Cut update' } }),
    );
    expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
    await settle();
    expect(await count(`SELECT count(*)::int AS n FROM tasks WHERE title = 'Locked'`, [])).toBe(1);
  });

  it('create list (a transaction of its own) waiting on the folder: 503, and no list', async () => {
    const answer = await whileLocked('SELECT 1 FROM folders WHERE id = $1 FOR UPDATE', [ids.f], () =>
      t.inject({ method: 'POST', url: '/api/v1/lists', headers: key, payload: { workspace_id: ids.acme, folder_id: ids.f, name: 'Cut list' } }),
    );
    expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
    await settle();
    expect(await count(`SELECT count(*)::int AS n FROM lists WHERE name = 'Cut list'`, [])).toBe(0);
  });

  it('with an Idempotency-Key: 503, nothing written, the key released, and the retry runs anew', async () => {
    const headers = { ...key, 'idempotency-key': 'cut-retry' };
    const payload = { list_id: ids.inbox, title: 'Cut keyed' };
    const answer = await whileLocked('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [ids.acme], () =>
      t.inject({ method: 'POST', url: '/api/v1/tasks', headers, payload }),
    );
    expect(answer).toEqual({ status: 503, body: UNAVAILABLE });
    await settle();
    expect(await count(`SELECT count(*)::int AS n FROM tasks WHERE title = 'Cut keyed'`, [])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'cut-retry'`, [])).toBe(0);
    const retry = await t.inject({ method: 'POST', url: '/api/v1/tasks', headers, payload });
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await count(`SELECT count(*)::int AS n FROM tasks WHERE title = 'Cut keyed'`, [])).toBe(1);
  });

  it('the app serves normally afterwards, on every pooled connection', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.t1}`, headers: key, payload: { title: `After ${i}` } });
      expect(res.statusCode).toBe(200);
    }
  });
});
