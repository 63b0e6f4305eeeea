import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 8 item 7: a request whose handler runs past REQUEST_TIMEOUT_MS answers
 * 503 `Service unavailable` (here: an update waiting on a row another
 * transaction holds, with the statement timeout far away), and the app serves
 * on normally once the handler's late result arrives.
 */

const ENV = { REQUEST_TIMEOUT_MS: '800', DB_STATEMENT_TIMEOUT_MS: '20000' };

describe('request deadline (issue 8)', () => {
  let t: TestApp;
  let taskId: number;
  const key = auth('svc_deadline_owner');

  beforeAll(async () => {
    t = await createTestApp({ env: ENV });
    const ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@deadline.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: 'svc_deadline_owner', scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'acme',
          name: 'Acme',
          slug: 'deadline-acme',
          owner: 'alice',
          lists: [{ ref: 'inbox', name: 'Inbox' }],
          tasks: [{ ref: 't1', list: 'inbox', title: 'Locked' }],
        },
      ],
    });
    taskId = ids.t1;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 503 when the handler outlives REQUEST_TIMEOUT_MS, then serves normally', async () => {
    const runner = t.db.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query('SELECT id FROM tasks WHERE id = $1 FOR UPDATE', [taskId]);
      const res = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${taskId}`, headers: key, payload: { title: 'Renamed' } });
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 503, body: { error: 'Service unavailable' } });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    const res = await t.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers: key });
    expect(res.statusCode).toBe(200);
  });
});
