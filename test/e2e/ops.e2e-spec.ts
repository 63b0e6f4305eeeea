import { readdirSync, readFileSync } from 'fs';
import type { AddressInfo } from 'net';
import { join } from 'path';

import { generateApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { ConfigError, loadEnv, VARIABLES } from '../../src/config/env';
import { DEFAULT_TIMEOUTS } from '../../src/config/timeouts';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { markShuttingDown } from '../../src/health/shutdown-state';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { ROOT } from '../setup/paths';
import { QueryCounter } from '../setup/query-counter';
import { rawRequest } from '../setup/raw-http';

/**
 * Issue 12, operations: the validated configuration (and the README table
 * that documents it), request logs, health probes, rate limits, security
 * headers, CORS, the docs switch and metrics, each on an app of its own
 * configuration.
 */

/** A world with one owner, their key (random: Redis budgets are shared between runs) and a workspace. */
function world(key: string, slug: string): FixtureWorld {
  return {
    users: [{ ref: 'ann', email: `ann@${slug}.test`, name: 'Ann' }],
    api_keys: [{ ref: 'k', user: 'ann', key, scopes: [...SCOPES] }],
    workspaces: [{ ref: 'ws', name: 'Ops', slug, owner: 'ann', labels: [{ ref: 'bug', name: 'Bug' }] }],
  };
}

/** createTestApp with configuration variables `env`. */
function appWith(env: Record<string, string>, options: { validateResponses?: boolean } = {}): Promise<TestApp> {
  return createTestApp({ ...options, env });
}

/** Runs `run` against an app booted with `env` (see appWith), closing the app afterwards. */
async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>, options: { validateResponses?: boolean } = {}): Promise<void> {
  const t = await appWith(env, options);
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

describe('configuration (validated at boot)', () => {
  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT="abc": expected a port number from 0 to 65535'],
    [{ DB_POOL_SIZE: 'abc' }, 'Invalid configuration: DB_POOL_SIZE="abc": expected an integer from 1 to 1000'],
    [{ LOG_LEVEL: 'bogus' }, 'Invalid configuration: LOG_LEVEL="bogus": expected one of fatal, error, warn, log, info, debug, verbose, trace, silent'],
    [{ MIGRATIONS_RUN: 'maybe' }, 'Invalid configuration: MIGRATIONS_RUN="maybe": expected true or false'],
    [{ DATABASE_URL: 'garbage' }, 'Invalid configuration: DATABASE_URL="garbage": expected a postgres://user:pass@host:port/db URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'Invalid configuration: REDIS_URL="localhost:6379": expected a redis://host:port URL'],
    [{ IDEMPOTENCY_TTL_SECONDS: '0' }, 'Invalid configuration: IDEMPOTENCY_TTL_SECONDS="0": expected a whole number of seconds from 1 to 315360000'],
    [{ IDEMPOTENCY_TTL_SECONDS: '1e3' }, 'Invalid configuration: IDEMPOTENCY_TTL_SECONDS="1e3": expected a whole number of seconds from 1 to 315360000'],
    [{ REQUIRE_IF_MATCH: 'maybe' }, 'Invalid configuration: REQUIRE_IF_MATCH="maybe": expected true or false'],
    [
      { CORS_ORIGINS: 'app.example.com' },
      'Invalid configuration: CORS_ORIGINS="app.example.com": expected * or a comma-separated list of origins such as https://app.example.com',
    ],
    [{ SHUTDOWN_TIMEOUT_MS: '10s' }, 'Invalid configuration: SHUTDOWN_TIMEOUT_MS="10s": expected a whole number of milliseconds from 1 to 2147483647'],
    [{ WEB_CONCURRENCY: 'auto' }, 'Invalid configuration: WEB_CONCURRENCY="auto": expected an integer from 1 to 256'],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, 'Invalid configuration: RATE_LIMIT_PER_MINUTE="-1": expected an integer, 0 or more (0 turns rate limiting off)'],
  ])('%j stops with one line naming the variable and what it accepts', (env, message) => {
    expect(() => loadEnv(env)).toThrow(new ConfigError(message));
  });

  it('defaults, and the accepted spellings of booleans', () => {
    const env = loadEnv({});
    expect(env).toEqual({
      databaseUrl: undefined,
      port: 3000,
      portSet: false,
      host: '0.0.0.0',
      dataDir: '.data',
      embeddedPgPort: undefined,
      migrationsRun: true,
      dbPoolSize: 10,
      logLevel: 'log',
      logFormat: 'auto',
      rateLimitPerMinute: 0,
      redisUrl: undefined,
      trustProxy: false,
      corsOrigins: [],
      docsEnabled: true,
      metricsEnabled: true,
      timeouts: DEFAULT_TIMEOUTS,
      preparedStatements: true,
      webConcurrency: 1,
      eventsRetentionDays: 30,
      idempotencyTtlSeconds: 86400,
      requireIfMatch: false,
      webhooks: {
        timeoutMs: 10000,
        retryDelaysMs: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
        allowPrivate: false,
        allowHttp: false,
        worker: true,
        perWorkspaceMax: 20,
      },
      // D47.
      attachments: {
        maxBytes: 26214400,
        uploadTtlSeconds: 3600,
        downloadTtlSeconds: 300,
        workspaceQuotaBytes: 0,
        worker: true,
        driver: 'local',
        dir: join('.data', 'files'),
        s3: { bucket: undefined, region: undefined, endpoint: undefined, forcePathStyle: false },
        publicUrl: 'http://localhost:3000',
      },
    });
    // D47: PUBLIC_URL's default follows HOST and PORT; the s3 driver needs its bucket.
    expect(loadEnv({ HOST: '127.0.0.1', PORT: '8080' }).attachments.publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadEnv({ HOST: '::', PORT: '8080' }).attachments.publicUrl).toBe('http://localhost:8080');
    expect(loadEnv({ HOST: '::1' }).attachments.publicUrl).toBe('http://[::1]:3000');
    expect(loadEnv({ PUBLIC_URL: 'https://api.example.com/' }).attachments.publicUrl).toBe('https://api.example.com');
    expect(loadEnv({ DATA_DIR: '/srv/data' }).attachments.dir).toBe(join('/srv/data', 'files'));
    expect(() => loadEnv({ STORAGE_DRIVER: 's3' })).toThrow('Invalid configuration: S3_BUCKET="": expected an S3 bucket name (STORAGE_DRIVER is s3)');
    expect(() => loadEnv({ STORAGE_DRIVER: 'ftp' })).toThrow('Invalid configuration: STORAGE_DRIVER="ftp": expected one of local, s3');
    expect(() => loadEnv({ ATTACHMENT_MAX_BYTES: '1e6' })).toThrow('Invalid configuration: ATTACHMENT_MAX_BYTES="1e6": expected a whole number of bytes');
    expect(() => loadEnv({ PUBLIC_URL: 'ftp://x' })).toThrow(
      'Invalid configuration: PUBLIC_URL="ftp://x": expected an http or https URL such as https://api.example.com',
    );
    expect(loadEnv({ IDEMPOTENCY_TTL_SECONDS: '60', REQUIRE_IF_MATCH: 'yes' })).toMatchObject({ idempotencyTtlSeconds: 60, requireIfMatch: true });
    // D37: EVENTS_RETENTION_DAYS, an integer >= 1.
    expect(loadEnv({ EVENTS_RETENTION_DAYS: ' 365 ' }).eventsRetentionDays).toBe(365);
    for (const bad of ['0', '-1', '1.5', '1e3', 'abc']) {
      expect(() => loadEnv({ EVENTS_RETENTION_DAYS: bad })).toThrow(
        `Invalid configuration: EVENTS_RETENTION_DAYS=${JSON.stringify(bad)}: expected a whole number of days, 1 or more`,
      );
    }
    // D38: WEBHOOK_RETRY_DELAYS_MS: digits only, each at most a day; empty means no retries.
    expect(loadEnv({ WEBHOOK_RETRY_DELAYS_MS: '' }).webhooks.retryDelaysMs).toEqual([]);
    expect(loadEnv({ WEBHOOK_RETRY_DELAYS_MS: '0, 50,86400000' }).webhooks.retryDelaysMs).toEqual([0, 50, 86400000]);
    for (const bad of ['86400001', '1e3', '5,,6', '-1', 'x']) {
      expect(() => loadEnv({ WEBHOOK_RETRY_DELAYS_MS: bad })).toThrow(
        `Invalid configuration: WEBHOOK_RETRY_DELAYS_MS=${JSON.stringify(bad)}: expected a comma-separated list of whole numbers of milliseconds from 0 to 86400000, or nothing`,
      );
    }
    expect(loadEnv({ MIGRATIONS_RUN: '0' }).migrationsRun).toBe(false);
    expect(loadEnv({ MIGRATIONS_RUN: 'FALSE' }).migrationsRun).toBe(false);
    expect(loadEnv({ DOCS_ENABLED: 'off', CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' })).toMatchObject({
      docsEnabled: false,
      corsOrigins: ['https://a.example.com', 'http://localhost:5173'],
    });
  });

  it("settings are read once: no source file but config/settings.ts reads process.env (npm's own variables aside), and they are frozen", () => {
    const files = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    const readers = files.filter((f) => /process\.env\b(?!\.(npm_lifecycle_event|INIT_CWD)\b)/.test(readFileSync(join(ROOT, 'src', f), 'utf8')));
    expect(readers.map((f) => f.split('\\').join('/'))).toEqual(['config/settings.ts']);
    const env = loadEnv({ REQUEST_TIMEOUT_MS: '100' });
    expect(Object.isFrozen(env) && Object.isFrozen(env.timeouts) && Object.isFrozen(env.corsOrigins)).toBe(true);
  });

  it('the README configuration table lists exactly the validated variables, with their defaults', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'));
    const rows = [...section.slice(0, section.indexOf('\n\n', section.indexOf('| Variable'))).matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)];
    const table = Object.fromEntries(rows.map(([, name, def]) => [name, def.trim()]));
    const expected = Object.fromEntries(
      Object.entries(VARIABLES).map(([name, v]) => [name, 'defaultText' in v ? v.defaultText : 'default' in v ? '`' + v.default + '`' : 'unset']),
    );
    expect(table).toEqual(expected);
  });
});

describe('health probes (@nestjs/terminus)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('/health keeps its D1 answer; /health/live answers without touching the database', async () => {
    const health = await t.inject({ method: 'GET', url: '/health' });
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
    const live = await t.inject({ method: 'GET', url: '/health/live' });
    expect([live.statusCode, live.json()]).toEqual([200, { status: 'ok', info: {}, error: {}, details: {} }]);
  });

  it('/health/ready: 200 with database and migrations up', async () => {
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    const up = { status: 'up', responseTime: expect.any(Number) };
    const checks = { shutdown: { status: 'up' }, database: up, migrations: up };
    expect(ready.json()).toEqual({ status: 'ok', info: checks, error: {}, details: checks });
  });

  it('/health/ready: 503 while a migration is missing', async () => {
    const [[applied]] = await t.db.ds.query('DELETE FROM migrations RETURNING *');
    try {
      const ready = await t.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      // Status words only (issue 19): no message, no response time.
      expect(ready.json()).toEqual({
        status: 'error',
        info: { shutdown: { status: 'up' }, database: { status: 'up' } },
        error: { migrations: { status: 'down' } },
        details: { shutdown: { status: 'up' }, database: { status: 'up' }, migrations: { status: 'down' } },
      });
    } finally {
      await t.db.ds.query('INSERT INTO migrations (id, timestamp, name) VALUES ($1, $2, $3)', [applied.id, applied.timestamp, applied.name]);
    }
  });
});

describe('rate limits (@nestjs/throttler)', () => {
  describe.each([
    ['in memory', {}],
    ['in Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ])('%s', (_storage, extra: Record<string, string>) => {
    let t: TestApp;
    const key = generateApiKey();
    const other = generateApiKey();
    let ids: Record<string, number>;
    beforeAll(async () => {
      t = await appWith({ RATE_LIMIT_PER_MINUTE: '5', ...extra });
      ids = await loadFixture(t.db.ds, {
        ...world(key, 'limits'),
        api_keys: [
          { ref: 'k', user: 'ann', key, scopes: [...SCOPES] },
          { user: 'ann', key: other, scopes: [...SCOPES] },
        ],
      });
    });
    afterAll(() => t.close());

    it('a key gets RATE_LIMIT_PER_MINUTE requests a minute across all routes, then 429 with Retry-After', async () => {
      const urls = ['/api/v1/me', `/api/v1/workspaces/${ids.ws}`, '/api/v1/me', `/api/v1/workspaces/${ids.ws}/labels`, '/api/v1/me'];
      for (const [i, url] of urls.entries()) {
        const res = await t.inject({ method: 'GET', url, headers: auth(key) });
        expect(res.statusCode).toBe(200);
        expect([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]).toEqual(['5', String(4 - i)]);
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
      const refused = await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(key) });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ error: 'Too many requests' });
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // D31: the 429 of a keyed route is not stored either.
      expect(refused.headers['cache-control']).toBe('no-store');
      // Another key has a budget of its own; health probes are never limited.
      expect((await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(other) })).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    });
  });

  it('requests without a valid key count per client IP, before authentication answers', async () => {
    await withApp({ RATE_LIMIT_PER_MINUTE: '3' }, async (t) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(generateApiKey()) });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Another client address has its own budget.
      const res = await t.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: '10.1.2.3' });
      expect([res.statusCode, res.json()]).toEqual([401, { error: 'API key required' }]);
    });
  });

  // Issue 19: behind the compose nginx (one proxy, X-Forwarded-For overwritten with the peer's address) TRUST_PROXY=1
  // takes the client from the rightmost entry: a value the client put on the left does not choose its budget.
  it('TRUST_PROXY=1: a spoofed leftmost X-Forwarded-For value is not the client IP; with true it would be', async () => {
    const spoofed = (n: number, client = '198.51.100.7') => ({ 'x-forwarded-for': `203.0.113.${n}, ${client}` });
    const statuses = async (t: TestApp, n: number, headers: (i: number) => Record<string, string>) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await t.inject({ method: 'GET', url: '/api/v1/me', headers: headers(i) })).statusCode);
      return out;
    };
    await withApp({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' }, async (t) => {
      expect(await statuses(t, 4, (i) => spoofed(i))).toEqual([401, 401, 429, 429]);
      // The address the proxy reports is the client: another one has a budget of its own.
      expect(await statuses(t, 1, () => spoofed(9, '198.51.100.8'))).toEqual([401]);
    });
    await withApp({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'true' }, async (t) => {
      expect(await statuses(t, 4, (i) => spoofed(i))).toEqual([401, 401, 401, 401]);
    });
  });

  it('the rate limiter and the API-key guard share one key lookup per request', async () => {
    await withApp({ RATE_LIMIT_PER_MINUTE: '100' }, async (t) => {
      const counter = new QueryCounter().install();
      try {
        // An unknown key is never kept by the key cache: each lookup is a round trip.
        const { result, statements } = await counter.record(() => t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(generateApiKey()) }));
        expect([result.statusCode, result.json()]).toEqual([401, { error: 'Invalid API key' }]);
        expect(result.headers['ratelimit-limit']).toBe('100');
        expect(statements.filter((s) => /FROM api_keys/.test(s))).toHaveLength(1);
      } finally {
        counter.uninstall();
      }
    });
  });

  // Issue 19: a request over the limit is refused from its headers: its body is neither waited for nor parsed.
  it('over the limit, 429 comes before the body is read', async () => {
    await withApp({ RATE_LIMIT_PER_MINUTE: '1' }, async (t) => {
      await t.app.listen(0, '127.0.0.1');
      const port = (t.app.getHttpServer().address() as AddressInfo).port;
      const head = `POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n`;
      // The first request uses the budget; the second sends its headers and a piece of a large body only.
      expect((await t.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: '127.0.0.1' })).statusCode).toBe(401);
      const refused = await rawRequest(port, [head + '{"title"']);
      expect({ status: refused.status, body: JSON.parse(refused.body) }).toEqual({ status: 429, body: { error: 'Too many requests' } });
      expect(refused.ms).toBeLessThan(2_000);
      expect(refused.headers['retry-after']).toMatch(/^[0-9]+$/);
    });
  });

  it('RATE_LIMIT_PER_MINUTE=0 turns it off: no headers, never 429', async () => {
    await withApp({ RATE_LIMIT_PER_MINUTE: '0' }, async (t) => {
      for (let i = 0; i < 20; i++) {
        const res = await t.inject({ method: 'GET', url: '/api/v1/me' });
        expect(res.statusCode).toBe(401);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });
  });
});

describe('security headers, CORS, docs switch, metrics', () => {
  it('helmet headers on every answer; CORS off by default (a preflight is an unknown route)', async () => {
    await withApp({}, async (t) => {
      const res = await t.inject({ method: 'GET', url: '/health' });
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'strict-transport-security': expect.stringContaining('max-age='),
        'content-security-policy': expect.stringContaining("default-src 'self'"),
      });
      // Served over plain HTTP too: /docs must not have its own requests upgraded to https.
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      const preflight = await t.inject({
        method: 'OPTIONS',
        url: '/api/v1/me',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      });
      expect([preflight.statusCode, preflight.json()]).toEqual([404, { error: 'Not found' }]);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('CORS_ORIGINS: preflight answered for allowed origins only; answers carry the CORS headers', async () => {
    await withApp(
      { CORS_ORIGINS: 'https://app.example.com' },
      async (t) => {
        const preflight = await t.inject({
          method: 'OPTIONS',
          url: '/api/v1/tasks/1',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'PATCH',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
        expect(preflight.statusCode).toBe(204);
        expect(preflight.headers).toMatchObject({
          'access-control-allow-origin': 'https://app.example.com',
          // D47: PUT and HEAD for the attachment links.
          'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
          // D35, D36: the conditional and idempotency request headers; D47: Range on downloads.
          'access-control-allow-headers': 'Authorization, X-API-Key, Content-Type, X-Request-Id, If-Match, If-None-Match, Idempotency-Key, Range',
        });
        const get = await t.inject({ method: 'GET', url: '/api/v1/me', headers: { origin: 'https://app.example.com' } });
        expect([get.statusCode, get.headers['access-control-allow-origin']]).toEqual([401, 'https://app.example.com']);
        expect(get.headers['access-control-expose-headers']).toBe(
          'ETag, Idempotent-Replayed, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id, Content-Disposition, Content-Range, Location',
        );
        const elsewhere = await t.inject({ method: 'GET', url: '/api/v1/me', headers: { origin: 'https://evil.example.com' } });
        expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
      },
      { validateResponses: false },
    );
  });

  it('DOCS_ENABLED=false: no Swagger UI, the OpenAPI document stays', async () => {
    await withApp({ DOCS_ENABLED: 'false' }, async (t) => {
      const docs = await t.inject({ method: 'GET', url: '/docs' });
      expect([docs.statusCode, docs.json()]).toEqual([404, { error: 'Not found' }]);
      expect((await t.inject({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode).toBe(200);
    });
  });

  it('/metrics: requests by route and status, durations, pool and process metrics', async () => {
    await withApp({}, async (t) => {
      const key = generateApiKey();
      await loadFixture(t.db.ds, world(key, 'metrics'));
      await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(key) });
      await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth(key) });
      await t.inject({ method: 'GET', url: '/api/v1/me' });
      await t.inject({ method: 'GET', url: '/api/v1/tasks/12345', headers: auth(key) });
      const res = await t.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      const text = res.body;
      expect(text).toContain('work_tracking_http_requests_total{method="GET",route="/api/v1/me",status="200"} 2');
      expect(text).toContain('work_tracking_http_requests_total{method="GET",route="/api/v1/me",status="401"} 1');
      expect(text).toContain('work_tracking_http_requests_total{method="GET",route="/api/v1/tasks/:task_id",status="404"} 1');
      expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/me",status="200"\} 2/);
      expect(text).toMatch(/^work_tracking_db_pool_connections_in_use \d+$/m);
      expect(text).toMatch(/^work_tracking_db_pool_connections_idle [1-9]\d*$/m);
      expect(text).toMatch(/^work_tracking_db_pool_requests_waiting 0$/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    });
  });

  it('METRICS_ENABLED=false: no /metrics', async () => {
    await withApp({ METRICS_ENABLED: 'false' }, async (t) => {
      const res = await t.inject({ method: 'GET', url: '/metrics' });
      expect([res.statusCode, res.json()]).toEqual([404, { error: 'Not found' }]);
    });
  });
});

// Last in this file: the shutdown flag is process-wide (each test file has its own module registry).
describe('readiness during shutdown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('/health/ready: 503 as soon as shutdown begins, while /health/live still answers 200', async () => {
    markShuttingDown();
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'error', error: { shutdown: { status: 'down' } } });
    expect(ready.body).not.toContain('message');
    expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });
});
