import type { InjectOptions } from 'fastify';

import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { KEYS, tasksWorld } from './tasks-world';

/**
 * Cache-Control (D31, issue 19 D): every answer of a route that needs a key
 * carries `Cache-Control: no-store`, errors included; get task's 200 carries
 * `private, no-cache` instead (D36); public routes carry no `no-store`.
 */
describe('Cache-Control (D31)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  /** Every operation of the served document that needs a key (`x-scope`), with its path id replaced. */
  let keyed: Array<{ method: InjectOptions['method']; template: string; url: (id: string) => string; scope: string }>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, tasksWorld());
    const doc = (await t.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    keyed = Object.entries<Record<string, { 'x-scope'?: string }>>(doc.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([, op]) => op['x-scope'])
        .map(([method, op]) => ({
          method: method.toUpperCase() as InjectOptions['method'],
          template,
          url: (id: string) => template.replace(/\{[a-z_]+\}/, id),
          scope: op['x-scope']!,
        })),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (method: InjectOptions['method'], url: string, key?: string, payload?: unknown) =>
    t.inject({ method, url, headers: key ? auth(key) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
  /** Status and Cache-Control of an answer. */
  const cacheOf = (res: { statusCode: number; headers: Record<string, unknown> }) => [res.statusCode, res.headers['cache-control']];

  it('covers every keyed operation of the document', () => {
    expect(keyed.length).toBeGreaterThanOrEqual(26);
  });

  it('401 without a key, 401 with an unknown key, 403 without the scope: no-store on every keyed operation', async () => {
    for (const op of keyed) {
      const url = op.url(String(ids.t_full));
      const answers = [await send(op.method, url), await send(op.method, url, 'svc_unknown_key'), await send(op.method, url, KEYS.readOnly)];
      const expected: unknown[] = [
        [401, 'no-store'],
        [401, 'no-store'],
        [op.scope === 'tasks:read' ? expect.any(Number) : 403, 'no-store'],
      ];
      // A tasks:read route answers the read-only key itself: its answer is checked below, except get task's 200.
      if (op.scope === 'tasks:read' && op.method === 'GET' && op.template === '/api/v1/tasks/{task_id}') expected[2] = [200, 'private, no-cache'];
      expect([op.method, op.template, answers.map(cacheOf)]).toEqual([op.method, op.template, expected]);
    }
  });

  it('404 and 400 answers of keyed operations: no-store', async () => {
    for (const op of keyed) {
      for (const id of ['99999999', 'abc']) {
        if (!op.template.includes('{')) continue;
        const res = await send(op.method, op.url(id), KEYS.owner, ['POST', 'PATCH'].includes(op.method as string) ? {} : undefined);
        expect([op.method, op.template, id, res.statusCode >= 400, res.headers['cache-control']]).toEqual([op.method, op.template, id, true, 'no-store']);
      }
    }
  });

  it('success answers: 200, 201 and 204 carry no-store; get task carries private, no-cache', async () => {
    const me = await send('GET', '/api/v1/me', KEYS.owner);
    const list = await send('GET', `/api/v1/workspaces/${ids.acme}/tasks`, KEYS.owner);
    const created = await send('POST', '/api/v1/tasks', KEYS.owner, { list_id: ids.backlog, title: 'Cached?' });
    const id = created.json().id;
    const got = await send('GET', `/api/v1/tasks/${id}`, KEYS.owner);
    const updated = await send('PATCH', `/api/v1/tasks/${id}`, KEYS.owner, { title: 'Still not' });
    const deleted = await send('DELETE', `/api/v1/tasks/${id}`, KEYS.owner);
    const gone = await send('GET', `/api/v1/tasks/${id}`, KEYS.owner);
    expect([me, list, created, got, updated, deleted, gone].map(cacheOf)).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [201, 'no-store'],
      [200, 'private, no-cache'],
      [200, 'no-store'],
      [204, 'no-store'],
      [404, 'no-store'],
    ]);
  });

  it('body, access and validation errors: no-store', async () => {
    const answers = [
      await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: { ...auth(KEYS.owner), 'content-type': 'application/json' }, payload: '{"bad' }),
      await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: { ...auth(KEYS.owner), 'content-type': 'text/plain' }, payload: 'x' }),
      await send('POST', '/api/v1/tasks', KEYS.viewer, { list_id: ids.backlog, title: 'x' }),
      await send('GET', `/api/v1/tasks/${ids.t_full}`, KEYS.nonMember),
      await send('GET', `/api/v1/workspaces/${ids.acme}/tasks?nope=1`, KEYS.owner),
    ];
    expect(answers.map(cacheOf)).toEqual([
      [400, 'no-store'],
      [415, 'no-store'],
      [403, 'no-store'],
      [403, 'no-store'],
      [400, 'no-store'],
    ]);
  });

  it('answers given before any route runs on a keyed path: no-store (413, 414; malformed URLs in http-edges)', async () => {
    const answers = [
      await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: { ...auth(KEYS.owner), 'content-type': 'application/json' },
        payload: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
      }),
      await send('GET', `/api/v1/tasks/${'9'.repeat(1001)}`, KEYS.owner),
    ];
    expect(answers.map(cacheOf)).toEqual([
      [413, 'no-store'],
      [414, 'no-store'],
    ]);
  });

  it.each(['/health', '/health/live', '/health/ready', '/api/v1/openapi.json', '/metrics'])('public route %s does not carry no-store', async (url) => {
    const res = await send('GET', url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBeUndefined();
  });
});
