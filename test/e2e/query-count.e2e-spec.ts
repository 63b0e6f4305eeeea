import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureTask, FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { fileBody } from '../setup/multipart';
import { QueryCounter } from '../setup/query-counter';

/**
 * SQL round trips per request (issues 4 and 9; performance rules of the
 * preamble, D22): counted at the `pg` driver, guard and access check included.
 * The first request of a key looks it up; later ones find it in the guard's
 * cache (kept honest by LISTEN/NOTIFY, api-key-cache.e2e-spec.ts).
 * Reads: at most 2, the same for limit=1 and limit=100, with or without list_id.
 * Create and update: at most 3, the same whatever the number of assignees, labels and values.
 */

const TOP_LEVEL = 120;
const KEY = 'svc_qc_owner';
const MEMBERS = Array.from({ length: 12 }, (_, i) => `m${i}`);

function world(): FixtureWorld {
  const tasks: FixtureTask[] = [];
  for (let i = 0; i < TOP_LEVEL; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    tasks.push({
      ref: `t${i}`,
      list: i % 2 ? 'backlog' : 'sprint',
      title: `Task ${i}`,
      description: `<p>Task ${i}</p>`,
      created_at: `2025-0${1 + (i % 9)}-${day}T10:00:00.000Z`,
      assignees: [MEMBERS[i % 12], MEMBERS[(i + 1) % 12], MEMBERS[(i + 2) % 12]],
      labels: ['l0', 'l1'],
      custom_fields: [
        { field: 'f_text', value: `v${i}` },
        { field: 'f_num', value: i },
        { field: 'f_stars', value: '3' },
      ],
      attachments: [{ file_name: `f${i}.txt`, file_size: i, mime_type: 'text/plain', uploader: 'owner' }],
    });
    for (let s = 0; s < 2; s++) {
      tasks.push({ ref: `t${i}_s${s}`, parent: `t${i}`, list: 'backlog', title: `Sub ${i}.${s}`, assignees: [MEMBERS[s]] });
    }
  }
  return {
    users: [
      { ref: 'owner', email: 'owner@qc.test', name: 'Owner' },
      { ref: 'extra', email: 'extra@qc.test', name: 'Extra' },
      ...MEMBERS.map((m) => ({ ref: m, email: `${m}@qc.test`, name: m.toUpperCase() })),
    ],
    api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
    workspaces: [
      {
        ref: 'ws',
        name: 'Counted',
        slug: 'qc',
        owner: 'owner',
        members: MEMBERS.map((user) => ({ user, role: 'member' as const })),
        labels: Array.from({ length: 12 }, (_, i) => ({ ref: `l${i}`, name: `Label ${i}` })),
        folders: [
          {
            ref: 'eng',
            name: 'Eng',
            lists: [
              { ref: 'backlog', name: 'Backlog' },
              { ref: 'sprint', name: 'Sprint' },
            ],
          },
        ],
        custom_fields: [
          { ref: 'f_text', name: 'Text', type: 'text', position: 1 },
          { ref: 'f_num', name: 'Num', type: 'number', position: 2, is_scope_restricted: true, granted_folders: ['eng'] },
          { ref: 'f_stars', name: 'Stars', type: 'rating', position: 3, config: { iconName: 'star', color: 'red' } },
          ...Array.from({ length: 9 }, (_, i) => ({ ref: `f_x${i}`, name: `Extra ${i}`, type: 'text' as const, position: 4 + i })),
        ],
        tasks,
      },
    ],
  };
}

describe('SQL round trips of the task routes', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const counter = new QueryCounter();
  const measured: Record<string, number> = {};

  /** Sends one request and returns its status, body and the number of statements it cost. */
  const count = async (name: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const { result, statements } = await counter.record(() => t.inject({ method, url, headers: auth(KEY), payload }));
    measured[name] = statements.length;
    return { status: result.statusCode, body: result.statusCode === 204 ? null : result.json(), trips: statements.length, statements };
  };

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world());
    counter.install();
  });
  afterAll(async () => {
    counter.uninstall();
    // The numbers, for the record (issue 4 report).
    process.stdout.write(`round trips: ${JSON.stringify(measured)}\n`);
    await t.close();
  });

  it('sees the app\u2019s statements (same pg instance as the app); the key is looked up once, then cached', async () => {
    const { trips, statements } = await count('probe', 'GET', `/api/v1/tasks/${ids.t0}`);
    expect(trips).toBeGreaterThan(0);
    expect(statements.some((s) => /FROM api_keys/.test(s))).toBe(true);
    const again = await count('probe again', 'GET', `/api/v1/tasks/${ids.t0}`);
    expect(again.statements.some((s) => /FROM api_keys/.test(s))).toBe(false);
    expect(again.trips).toBe(trips - 1);
  });

  it('get task: 1 (the access check and the whole task in one statement, issue 16)', async () => {
    const { status, body, trips } = await count('get task', 'GET', `/api/v1/tasks/${ids.t5}`);
    expect(status).toBe(200);
    expect(body.subtasks).toHaveLength(2);
    expect(body.assignees).toHaveLength(3);
    expect(body.labels).toHaveLength(2);
    expect(body.attachments).toHaveLength(1);
    expect(body.custom_fields).toHaveLength(12);
    expect(trips).toBe(1);
  });

  it('list tasks: 1 (the access check and the page in one statement, issue 37), the same for limit=1 and limit=100', async () => {
    const one = await count('list limit=1', 'GET', `/api/v1/workspaces/${ids.ws}/tasks?limit=1`);
    const hundred = await count('list limit=100', 'GET', `/api/v1/workspaces/${ids.ws}/tasks?limit=100`);
    expect(one.status).toBe(200);
    expect(hundred.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(hundred.body.data).toHaveLength(100);
    expect(hundred.body.total).toBe(TOP_LEVEL);
    for (const task of hundred.body.data) {
      expect(task.subtasks).toHaveLength(2);
      expect(task.assignees).toHaveLength(3);
      expect(task.custom_fields.length).toBeGreaterThanOrEqual(11);
    }
    expect(hundred.trips).toBe(1);
    expect(one.trips).toBe(hundred.trips);
  });

  it('list tasks filtered on a list: 1, the same for limit=1 and limit=100', async () => {
    const one = await count('list list_id limit=1', 'GET', `/api/v1/workspaces/${ids.ws}/tasks?limit=1&list_id=${ids.backlog}`);
    const hundred = await count('list list_id limit=100', 'GET', `/api/v1/workspaces/${ids.ws}/tasks?limit=100&list_id=${ids.backlog}`);
    expect(hundred.body.data).toHaveLength(TOP_LEVEL / 2);
    expect(hundred.trips).toBe(1);
    expect(one.trips).toBe(hundred.trips);
  });

  it('create task: the same with 1 and with 10 assignees, labels and custom-field values', async () => {
    const payload = (n: number) => ({
      list_id: ids.backlog,
      title: `Created with ${n}`,
      status_id: undefined,
      assignee_ids: MEMBERS.slice(0, n).map((m) => ids[m]),
      label_ids: Array.from({ length: n }, (_, i) => ids[`l${i}`]),
      custom_fields: [{ id: ids.f_text, value: 'x' }, ...Array.from({ length: n - 1 }, (_, i) => ({ id: ids[`f_x${i}`], value: String(i) }))],
    });
    const small = await count('create 1', 'POST', '/api/v1/tasks', payload(1));
    const large = await count('create 10', 'POST', '/api/v1/tasks', payload(10));
    // D37: the event is a CTE of the insert's statement, not a statement of its own.
    expect(large.statements.filter((s) => /INSERT INTO events/.test(s))).toHaveLength(1);
    expect(large.statements.filter((s) => /INSERT INTO events/.test(s) && /INSERT INTO tasks/.test(s))).toHaveLength(1);
    expect(small.status).toBe(201);
    expect(large.status).toBe(201);
    expect(large.body.assignees).toHaveLength(10);
    expect(large.body.custom_fields.filter((f: { value: unknown }) => f.value !== null)).toHaveLength(10);
    expect(large.trips).toBe(small.trips);
    // The access check, the create checks, the insert and the answer are one statement.
    expect(large.trips).toBe(1);
  });

  it('update task: the same with 1 and with 10 assignees, labels and custom-field values', async () => {
    const payload = (n: number) => ({
      title: `Updated with ${n}`,
      list_id: ids.sprint,
      status_id: undefined,
      assignee_ids: MEMBERS.slice(0, n).map((m) => ids[m]),
      label_ids: Array.from({ length: n }, (_, i) => ids[`l${i}`]),
      custom_fields: Array.from({ length: n }, (_, i) => ({ id: ids[`f_x${i}`], value: i % 2 ? null : 'v' })),
    });
    const small = await count('update 1', 'PATCH', `/api/v1/tasks/${ids.t10}`, payload(1));
    const large = await count('update 10', 'PATCH', `/api/v1/tasks/${ids.t11}`, payload(10));
    expect(small.status).toBe(200);
    expect(large.status).toBe(200);
    expect(large.body.assignees).toHaveLength(10);
    expect(large.trips).toBe(small.trips);
    expect(large.trips).toBeLessThanOrEqual(3);
  });

  it('update task with a move and a status: at most 3, checks included', async () => {
    const statusId = (await t.db.ds.query(`SELECT id FROM statuses WHERE workspace_id = $1 ORDER BY id LIMIT 1`, [ids.ws]))[0].id;
    const { status, body, trips } = await count('update move+status', 'PATCH', `/api/v1/tasks/${ids.t12}`, { list_id: ids.backlog, status_id: statusId });
    expect(status).toBe(200);
    expect(body.list_id).toBe(ids.backlog);
    expect(trips).toBeLessThanOrEqual(3);
  });

  it('get task with If-None-Match: still 1, for the 304 and for the 200 (D36)', async () => {
    const first = await count('get task', 'GET', `/api/v1/tasks/${ids.t5}`);
    const etag = (await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t5}`, headers: auth(KEY) })).headers.etag as string;
    const { result, statements } = await counter.record(() =>
      t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t5}`, headers: { ...auth(KEY), 'if-none-match': etag } }),
    );
    measured['get task 304'] = statements.length;
    expect(result.statusCode).toBe(304);
    expect(statements.length).toBe(first.trips);
  });

  it('update task with If-Match: the same as without (the check is in the write statement, D36)', async () => {
    const etag = (await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.t13}`, headers: auth(KEY) })).headers.etag as string;
    const plain = await count('update', 'PATCH', `/api/v1/tasks/${ids.t14}`, { title: 'Plain' });
    const { result, statements } = await counter.record(() =>
      t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.t13}`, headers: { ...auth(KEY), 'if-match': etag }, payload: { title: 'Conditional' } }),
    );
    measured['update If-Match'] = statements.length;
    expect(result.statusCode).toBe(200);
    expect(statements.length).toBe(plain.trips);
    const { result: del, statements: delStatements } = await counter.record(() =>
      t.inject({ method: 'DELETE', url: `/api/v1/tasks/${ids.t21}`, headers: { ...auth(KEY), 'if-match': '*' } }),
    );
    measured['delete If-Match'] = delStatements.length;
    expect(del.statusCode).toBe(204);
    expect(delStatements.length).toBeLessThanOrEqual(2);
  });

  it('create task with an Idempotency-Key: the claim, BEGIN, the same 3, the stored answer and COMMIT; its replay: the claim alone (D35)', async () => {
    const payload = { list_id: ids.backlog, title: 'Keyed', assignee_ids: [ids.m0], label_ids: [ids.l0] };
    const plain = await count('create', 'POST', '/api/v1/tasks', payload);
    const keyed = (headers: Record<string, string>) =>
      counter.record(() => t.inject({ method: 'POST', url: '/api/v1/tasks', headers: { ...auth(KEY), ...headers }, payload }));
    const first = await keyed({ 'idempotency-key': 'qc-create' });
    measured['create keyed'] = first.statements.length;
    expect(first.result.statusCode).toBe(201);
    expect(first.statements.length).toBe(plain.trips + 4);
    const replay = await keyed({ 'idempotency-key': 'qc-create' });
    measured['create keyed replay'] = replay.statements.length;
    expect([replay.result.statusCode, replay.result.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.statements.length).toBe(1);
  });

  it('delete task: the access check and one delete', async () => {
    const { status, trips } = await count('delete', 'DELETE', `/api/v1/tasks/${ids.t20}`);
    expect(status).toBe(204);
    expect(trips).toBeLessThanOrEqual(2);
  });

  it('events: the writes above recorded theirs in their own statements (their counts above); the feed costs at most 3 (membership, the horizon under the workspace event lock, the page), the same for limit=1 and limit=100 (D37)', async () => {
    const one = await count('events limit=1', 'GET', `/api/v1/workspaces/${ids.ws}/events?limit=1`);
    const hundred = await count('events limit=100', 'GET', `/api/v1/workspaces/${ids.ws}/events?limit=100&type=task.created,task.updated,task.deleted`);
    expect(one.body.data).toHaveLength(1);
    // The writes above, in order: two creates, five updates (If-Match included), the If-Match delete, a create and
    // a keyed create (its replay records nothing), a delete.
    expect(hundred.body.data.map((e: { type: string }) => e.type)).toEqual([
      'task.created',
      'task.created',
      'task.updated',
      'task.updated',
      'task.updated',
      'task.updated',
      'task.updated',
      'task.deleted',
      'task.created',
      'task.created',
      'task.deleted',
    ]);
    expect(hundred.trips).toBeLessThanOrEqual(3);
    expect(one.trips).toBe(hundred.trips);
  });

  it('comments: 1 (the access check and the listing in one statement, issue 16)', async () => {
    const { status, body, trips } = await count('comments', 'GET', `/api/v1/tasks/${ids.t5}/comments`);
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    expect(trips).toBe(1);
  });

  it('attachment download: 1 (the access check and the row in one statement, issue 36); its link: 1 (the row)', async () => {
    const file = fileBody('a.txt', 'bytes');
    const uploaded = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${ids.t5}/attachments`,
      headers: { ...auth(KEY), ...file.headers },
      payload: file.payload,
    });
    expect(uploaded.statusCode).toBe(201);
    const id = (uploaded.json() as { id: number }).id;
    const redirect = await counter.record(() => t.inject({ method: 'GET', url: `/api/v1/attachments/${id}/download`, headers: auth(KEY) }));
    measured['attachment download'] = redirect.statements.length;
    expect(redirect.result.statusCode).toBe(302);
    expect(redirect.statements).toHaveLength(1);
    const link = await counter.record(() => t.inject({ method: 'GET', url: new URL(redirect.result.headers.location as string).pathname }));
    measured['download link'] = link.statements.length;
    expect([link.result.statusCode, link.result.body]).toEqual([200, 'bytes']);
    expect(link.statements).toHaveLength(1);
  });

  it.each([
    ['custom fields', () => `/api/v1/workspaces/${ids.ws}/custom-fields`],
    ['folders', () => `/api/v1/workspaces/${ids.ws}/folders`],
    ['lists', () => `/api/v1/folders/${ids.eng}/lists`],
    ['statuses', () => `/api/v1/workspaces/${ids.ws}/statuses`],
    ['labels', () => `/api/v1/workspaces/${ids.ws}/labels`],
    ['members', () => `/api/v1/workspaces/${ids.ws}/members`],
    ['workspace', () => `/api/v1/workspaces/${ids.ws}`],
  ])('%s: at most 2', async (name, url) => {
    const { status, trips } = await count(name, 'GET', url());
    expect(status).toBe(200);
    expect(trips).toBeLessThanOrEqual(2);
  });

  it('custom-field definitions (D42): create, get, update, delete each at most 2, authentication included, whatever the sets sent', async () => {
    const sets = (n: number) => ({
      granted_folder_ids: n ? [ids.eng] : [],
      list_overrides: [
        { list_id: ids.backlog, access: 'granted' },
        { list_id: ids.sprint, access: 'denied' },
      ].slice(0, n),
      allowed_user_ids: MEMBERS.slice(0, n * 5).map((m) => ids[m]),
    });
    const created = await count('create custom field', 'POST', '/api/v1/custom-fields', {
      workspace_id: ids.ws,
      name: 'Counted field',
      type: 'dropdown',
      config: { options: ['a', 'b'] },
      is_scope_restricted: true,
      ...sets(2),
    });
    expect(created.status).toBe(201);
    expect(created.trips).toBeLessThanOrEqual(2);
    const id = created.body.id as number;
    const got = await count('get custom field', 'GET', `/api/v1/custom-fields/${id}`);
    expect([got.status, got.trips]).toEqual([200, 1]);
    for (const n of [0, 2]) {
      const updated = await count(`update custom field ${n}`, 'PATCH', `/api/v1/custom-fields/${id}`, {
        name: `Counted ${n}`,
        config: { options: ['a'] },
        position: 9,
        ...sets(n),
      });
      expect(updated.status).toBe(200);
      expect(updated.trips).toBeLessThanOrEqual(2);
    }
    const deleted = await count('delete custom field', 'DELETE', `/api/v1/custom-fields/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.trips).toBeLessThanOrEqual(2);
  });

  it('the workspace, member and API-key routes of D39: at most 2 each, authentication included (issue 35; runs last: it changes members)', async () => {
    await count('warm', 'GET', '/api/v1/me');
    const trips: Record<string, number> = {};
    const run = async (name: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, expected: number, payload?: object) => {
      const res = await count(name, method, url, payload);
      expect([name, res.status]).toEqual([name, expected]);
      trips[name] = res.trips;
      return res.body;
    };
    const created = await run('create workspace', 'POST', '/api/v1/workspaces', 201, { name: 'Counted Too' });
    await run('update workspace', 'PATCH', `/api/v1/workspaces/${ids.ws}`, 200, { description: 'counted' });
    await run('add member', 'POST', `/api/v1/workspaces/${ids.ws}/members`, 201, {
      email: 'EXTRA@qc.test',
      restricted: true,
      folder_ids: [ids.eng],
      list_ids: [ids.backlog],
    });
    await run('update member', 'PATCH', `/api/v1/workspaces/${ids.ws}/members/${ids.m0}`, 200, { role: 'viewer', restricted: true, folder_ids: [ids.eng] });
    await run('member access', 'GET', `/api/v1/workspaces/${ids.ws}/members/${ids.m0}/access`, 200);
    await run('remove member', 'DELETE', `/api/v1/workspaces/${ids.ws}/members/${ids.m1}`, 204);
    const key = await run('create API key', 'POST', '/api/v1/api-keys', 201, { name: 'counted', scopes: ['users:read'] });
    await run('list API keys', 'GET', '/api/v1/api-keys', 200);
    await run('revoke API key', 'DELETE', `/api/v1/api-keys/${key.id}`, 204);
    await run('delete workspace', 'DELETE', `/api/v1/workspaces/${created.id}`, 204);
    expect(Object.entries(trips).filter(([, n]) => n > 2)).toEqual([]);
  });
});
