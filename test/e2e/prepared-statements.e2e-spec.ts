import { DataSource } from 'typeorm';

import { SCOPES } from '../../src/common/auth/scope';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { NamedStatementClient } from '../../src/common/database/prepared';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 9: every parameterised statement is a named prepared statement, parsed
 * once per connection, its plan kept. Seen from PostgreSQL itself: the app runs
 * on a pool of ONE connection, so `pg_prepared_statements` read through the app's
 * DataSource lists what that connection prepared and how often each ran.
 */

const KEY = 'svc_prepared_owner';
const RUNS = 12;

describe('named prepared statements (issue 9)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp({ env: { DB_POOL_SIZE: '1' } });
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'owner', email: 'owner@prep.test', name: 'Owner' }],
      api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'ws',
          name: 'Prepared',
          slug: 'prep',
          owner: 'owner',
          folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
          tasks: [
            { ref: 't1', list: 'l', title: 'One', assignees: ['owner'] },
            { ref: 't2', list: 'l', title: 'Two' },
            { ref: 't1_s', parent: 't1', list: 'l', title: 'Sub' },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const prepared = async (): Promise<Array<{ statement: string; runs: number; generic_plans: number }>> =>
    t.app.get(DataSource).query(
      `SELECT statement, (generic_plans + custom_plans)::int AS runs, generic_plans::int AS generic_plans
         FROM pg_prepared_statements WHERE NOT from_sql`,
    );

  it('the pool connects with the naming client', () => {
    const extra = (dataSourceOptions('postgres://x@localhost/x') as { extra: { Client?: unknown } }).extra;
    expect(extra.Client).toBe(NamedStatementClient);
  });

  it('prepares each statement of a route once and reuses it on every request', async () => {
    const routes = [
      `/api/v1/tasks/${ids.t1}`,
      `/api/v1/workspaces/${ids.ws}/tasks?limit=50`,
      `/api/v1/workspaces/${ids.ws}/tasks?limit=100&list_id=${ids.l}`,
      `/api/v1/tasks/${ids.t1}/comments`,
      `/api/v1/workspaces/${ids.ws}/folders`,
    ];
    for (let i = 0; i < RUNS; i++) {
      for (const url of routes) expect((await t.inject({ method: 'GET', url, headers: auth(KEY) })).statusCode).toBe(200);
      const created = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: auth(KEY),
        payload: { list_id: ids.l, title: `n${i}`, assignee_ids: [ids.owner] },
      });
      expect(created.statusCode).toBe(201);
    }
    const rows = await prepared();
    const find = (pattern: RegExp) => rows.filter((r) => pattern.test(r.statement));
    // Exactly one prepared statement per text, run on every request that needs it.
    expect(new Set(rows.map((r) => r.statement)).size).toBe(rows.length);
    // The full shape (get task, inside its access check's statement).
    const task = find(/AS task\s+FROM tasks t WHERE t\.id = \$1::int/);
    expect(task).toHaveLength(1);
    expect(task[0].runs).toBe(RUNS);
    // Create: the insert and its answer (the write shape, with the digest of the full shape: its ETag, D36).
    const create = find(/INSERT INTO tasks/);
    expect(create).toHaveLength(1);
    expect(create[0].runs).toBe(RUNS);
    expect(create[0].statement).toMatch(/AS task, sha256\(/);
    const access = find(/FROM workspace_members|LEFT JOIN workspace_members/);
    expect(access.reduce((sum, r) => sum + r.runs, 0)).toBeGreaterThanOrEqual(RUNS * routes.length);
    for (const pattern of [/AS total/, /FROM comments c/, /FROM folders/]) {
      const found = find(pattern);
      expect(found.length).toBeGreaterThanOrEqual(1);
      expect(found.reduce((sum, r) => sum + r.runs, 0)).toBeGreaterThanOrEqual(RUNS);
    }
    // After its first custom plans, the get-task statement runs on its cached generic plan: not planned again.
    expect(task[0].generic_plans).toBeGreaterThan(0);
  });

  // Issue 16: the client builds pg's Query itself; a failed statement must still carry a stack that
  // leads back to its caller, as pg's own promises do (the 500s' logs show it).
  it('rejects a failed statement with the error pg gives, its stack leading back to the caller', async () => {
    const client = new NamedStatementClient((t.app.get(DataSource).options as { url: string }).url);
    await client.connect();
    try {
      const error = (await client.query('SELECT 1 / $1::int AS q', [0]).catch((e: unknown) => e)) as Error & { code?: string };
      expect(error).toBeInstanceOf(Error);
      expect({ code: error.code, message: error.message }).toEqual({ code: '22012', message: 'division by zero' });
      expect(error.stack).toContain('prepared-statements.e2e-spec');
      // The connection is usable afterwards, and the statement was named.
      expect((await client.query('SELECT 6 / $1::int AS q', [3])).rows).toEqual([{ q: 2 }]);
      expect((await client.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE NOT from_sql`)).rows).toEqual([{ n: 2 }]);
    } finally {
      await client.end();
    }
  });
});
