import { generateApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { createRootLogger, nestLogger, replaceRootLogger, rootLogger } from '../../src/common/logging/logger';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 12: structured request logs (pino). The app of this file logs
 * through a root logger whose lines the tests read.
 */

describe('request logs', () => {
  let t: TestApp;
  const lines: Array<Record<string, unknown>> = [];
  const key = generateApiKey();
  let ids: Record<string, number>;
  let previous: ReturnType<typeof replaceRootLogger>;

  beforeAll(async () => {
    previous = replaceRootLogger(createRootLogger({ logLevel: 'info', logFormat: 'json' }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
    t = await createTestApp();
    // As buildApp does for the server: Nest's own logs (the error filter's) through pino.
    t.app.useLogger(nestLogger(rootLogger({ logLevel: 'info', logFormat: 'json' })));
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'ann', email: 'ann@logs.test', name: 'Ann' }],
      api_keys: [{ ref: 'k', user: 'ann', key, scopes: [...SCOPES] }],
      workspaces: [{ ref: 'ws', name: 'Logs', slug: 'logs', owner: 'ann' }],
    });
  });
  afterAll(async () => {
    await t.close();
    replaceRootLogger(previous);
  });

  const requestLines = () => lines.filter((l) => 'duration_ms' in l);

  it('one JSON line per request: method, route, status, duration, request id, workspace id, key id; the key never', async () => {
    lines.length = 0;
    const before = Date.now();
    const res = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/labels`, headers: { 'x-api-key': key } });
    const after = Date.now();
    expect(res.statusCode).toBe(200);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const [line] = requestLines();
    expect(requestLines()).toHaveLength(1);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'GET /api/v1/workspaces/:workspace_id/labels 200',
      request_id: requestId,
      route: '/api/v1/workspaces/:workspace_id/labels',
      workspace_id: ids.ws,
      key_id: ids.k,
      req: { method: 'GET', url: `/api/v1/workspaces/${ids.ws}/labels` },
      res: { status: 200 },
    });
    expect(typeof line.duration_ms).toBe('number');
    // The time the line was written: ISO 8601 in UTC with milliseconds, within the request.
    expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(line.time as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(line.time as string)).toBeLessThanOrEqual(after);
    expect((line.req as { headers: Record<string, string> }).headers['x-api-key']).toBe('[redacted]');
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  // Issue 32: search text and other values of the query string stay out of the logs; the names show what was asked.
  it('of a query string, only the parameter names are logged (the request line, the 500 line, the referer)', async () => {
    lines.length = 0;
    const url = `/api/v1/workspaces/${ids.ws}/tasks?q=salary%20review&limit=5`;
    const res = await t.inject({ method: 'GET', url, headers: { ...auth(key), referer: 'https://app.example.com/search?q=private%20words&tab=2' } });
    expect(res.statusCode).toBe(200);
    const [line] = requestLines();
    expect(line).toMatchObject({
      msg: 'GET /api/v1/workspaces/:workspace_id/tasks 200',
      req: { url: `/api/v1/workspaces/${ids.ws}/tasks?q&limit`, headers: { referer: 'https://app.example.com/search?q&tab' } },
    });
    lines.length = 0;
    expect((await t.inject({ method: 'GET', url: '/nowhere?token=abc123&=x&flag&token=again' })).statusCode).toBe(404);
    expect(requestLines()).toEqual([
      expect.objectContaining({ msg: 'GET /nowhere?token&flag 404', req: expect.objectContaining({ url: '/nowhere?token&flag' }) }),
    ]);
    await t.db.ds.query('ALTER TABLE labels RENAME TO labels_gone');
    lines.length = 0;
    try {
      expect((await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/labels?secret=hunter2`, headers: auth(key) })).statusCode).toBe(500);
    } finally {
      await t.db.ds.query('ALTER TABLE labels_gone RENAME TO labels');
    }
    expect(lines.filter((l) => l.level === 'error').map((l) => l.url ?? (l.req as { url: string }).url)).toContain(
      `/api/v1/workspaces/${ids.ws}/labels?secret`,
    );
    expect(JSON.stringify(lines)).not.toMatch(/salary|again|private|abc123|hunter2/);
  });

  it('a client X-Request-Id is kept and returned; Authorization is redacted', async () => {
    lines.length = 0;
    const res = await t.inject({ method: 'GET', url: '/api/v1/me', headers: { ...auth(key), 'x-request-id': 'lb-7f3a.42' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('lb-7f3a.42');
    const [line] = requestLines();
    expect(line).toMatchObject({ request_id: 'lb-7f3a.42', route: '/api/v1/me', key_id: ids.k });
    expect((line.req as { headers: Record<string, string> }).headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('shows allowlisted request headers only, each cut at 256 characters (issue 19)', async () => {
    lines.length = 0;
    const huge = 'a'.repeat(12_000);
    const res = await t.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { ...auth(key), 'user-agent': huge, 'x-custom-secret': 'hunter2', cookie: 'session=abc' },
    });
    expect(res.statusCode).toBe(200);
    const [line] = requestLines();
    expect((line.req as { headers: Record<string, string> }).headers).toEqual({
      host: 'localhost:80',
      'user-agent': 'a'.repeat(256),
      authorization: '[redacted]',
      cookie: '[redacted]',
    });
    expect(JSON.stringify(line).length).toBeLessThan(2_000);
  });

  it('an unusable X-Request-Id is replaced; unknown routes are logged with their URL', async () => {
    lines.length = 0;
    const res = await t.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'has spaces and "quotes"' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLines()).toEqual([expect.objectContaining({ msg: 'GET /nowhere 404', request_id: res.headers['x-request-id'] })]);
  });

  it('a 500 logs its error on one line with the request id and the path', async () => {
    await t.db.ds.query('ALTER TABLE labels RENAME TO labels_gone');
    lines.length = 0;
    try {
      const res = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/labels`, headers: auth(key) });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'Internal server error' });
      const id = res.headers['x-request-id'];
      const errors = lines.filter((l) => l.level === 'error');
      expect(errors.length).toBeGreaterThanOrEqual(2);
      // The filter's error line and the request line both carry the id; the stack is inside one JSON line.
      for (const line of errors) expect(line.request_id).toBe(id);
      expect(errors.some((l) => (l.err as { stack?: string } | undefined)?.stack?.includes('labels'))).toBe(true);
      expect(errors.some((l) => l.msg === `GET /api/v1/workspaces/:workspace_id/labels 500`)).toBe(true);
    } finally {
      await t.db.ds.query('ALTER TABLE labels_gone RENAME TO labels');
    }
  });
});
