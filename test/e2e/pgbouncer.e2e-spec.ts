import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';

import { revokeKey } from '../../src/cli/admin';
import { ApiKeyCache } from '../../src/common/auth/api-key.cache';
import { SCOPES } from '../../src/common/auth/scope';
import { POOLER_PREPARED_HINT } from '../../src/common/database/pg-errors';
import { createRootLogger, nestLogger, processLogger, replaceRootLogger } from '../../src/common/logging/logger';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { adminUrl } from '../setup/database';
import { PgBouncer, startPgBouncer } from '../setup/pgbouncer';
import { FIELDS, KEYS, keys, tasksWorld } from './tasks-world';

/**
 * Issue 16: the service behind a real PgBouncer (Debian's package; CI installs
 * it) in transaction mode, with a server pool of 2 so that the app's 10
 * connections really share server connections. One database, three apps on it:
 * `direct` (no pooler) answers every read first, as the reference; `pooled`
 * (DB_PREPARED_STATEMENTS=false) must answer the same, bytes for bytes, under
 * concurrent requests; `named` (the default, naming on) shows what an operator
 * who forgot the setting gets: 500s, and one log line saying what to set.
 *
 * Log lines of every app of this file are read from the root logger (as
 * logs.e2e-spec.ts does); the apps log at `warn` and above.
 */

const WARM_KEY = 'svc_pgb_revoke_warm';
const COLD_KEY = 'svc_pgb_revoke_cold';
const ROUNDS = 4;
/** Concurrent requests sent at once in the checks below. */
const CONCURRENCY = 24;

describe('behind PgBouncer in transaction mode (issue 16)', () => {
  const lines: Array<Record<string, unknown>> = [];
  let previousLogger: ReturnType<typeof replaceRootLogger>;
  let bouncer: PgBouncer | undefined;
  let direct: TestApp | undefined;
  let ids: Record<string, number>;
  let urls: string[];

  beforeAll(async () => {
    previousLogger = replaceRootLogger(createRootLogger({ logLevel: 'warn', logFormat: 'json' }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
    // Missing pgbouncer fails here with how to install it: CI installs it, so this never skips.
    bouncer = await startPgBouncer(adminUrl(), 2);
    direct = await createTestApp();
    const world = tasksWorld();
    ids = await loadFixture(direct.db.ds, {
      ...world,
      api_keys: [
        ...(world.api_keys ?? []),
        { ref: 'k_warm', user: 'alice', key: WARM_KEY, scopes: [...SCOPES] },
        { ref: 'k_cold', user: 'alice', key: COLD_KEY, scopes: [...SCOPES] },
      ],
    });
    // Reads: get task (full shape, subtasks, attachments), list with filters and sorts, both cursor pages.
    const list = `/api/v1/workspaces/${ids.acme}/tasks`;
    const first = await direct.inject({ method: 'GET', url: `${list}?include_total=false&limit=2&sort=title`, headers: auth(KEYS.owner) });
    expect(first.statusCode).toBe(200);
    const cursor = (first.json() as { next_cursor: string | null }).next_cursor;
    expect(cursor).toEqual(expect.any(String));
    urls = [
      `/api/v1/tasks/${ids.t_full}`,
      `/api/v1/tasks/${ids.t_sprint}`,
      `/api/v1/tasks/${ids.t_sub1}`,
      `${list}?limit=50`,
      `${list}?list_id=${ids.backlog}&sort=priority,-created_at`,
      `${list}?status_category=pending,in_progress&sort=-title`,
      `${list}?assignee_id=me&include_subtasks=true&sort=identifier`,
      `${list}?q=step&include_subtasks=true`,
      `${list}?include_total=false&limit=2&sort=title`,
      `${list}?include_total=false&limit=2&sort=title&cursor=${cursor}`,
    ];
  });
  afterAll(async () => {
    // The pooled apps close in their describes; then the pooler, then the database.
    await bouncer?.stop();
    await direct?.close();
    replaceRootLogger(previousLogger);
  });

  /** What the direct app answers for each of `urls` (with the owner's key). */
  const reference = async (): Promise<Map<string, LightMyRequestResponse>> => {
    const answers = new Map<string, LightMyRequestResponse>();
    for (const url of urls) {
      const res = await direct!.inject({ method: 'GET', url, headers: auth(KEYS.owner) });
      expect(res.statusCode).toBe(200);
      answers.set(url, res);
    }
    return answers;
  };

  /** `CONCURRENCY` reads of `urls` (round-robin) sent to `app` at once. */
  const concurrentReads = (app: TestApp) =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) => urls[i % urls.length]).map(async (url) => ({
        url,
        res: await app.inject({ method: 'GET', url, headers: auth(KEYS.owner) }),
      })),
    );

  /** Lines logged at `warn` or above (the apps log nothing below). */
  const logged = () => lines.filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');

  /**
   * An app reaching the test's database through PgBouncer with DB_PREPARED_STATEMENTS=`prepared`,
   * logging into `lines` (emptied); closing it also restores the environment.
   */
  const startPooled = async (prepared: 'true' | 'false', validateResponses?: boolean): Promise<TestApp> => {
    const app = await createTestApp({
      database: direct!.db,
      connectVia: (url) => bouncer!.via(url),
      validateResponses,
      env: { DB_PREPARED_STATEMENTS: prepared },
    });
    app.app.useLogger(nestLogger(processLogger()));
    lines.length = 0;
    return app;
  };

  describe('DB_PREPARED_STATEMENTS=false: everything works', () => {
    let pooled: TestApp;

    beforeAll(async () => {
      pooled = await startPooled('false');
    });
    afterAll(async () => {
      await pooled?.close();
    });

    it('the app connects through PgBouncer', async () => {
      const url = (pooled.app.get(DataSource).options as { url: string }).url;
      expect(url).toBe(bouncer!.via(direct!.db.url));
      expect(new URL(url).port).not.toBe(new URL(direct!.db.url).port);
    });

    it('concurrent reads (get task, list with filters, sorts and cursor pages) answer exactly what the direct app answers', async () => {
      const expected = await reference();
      for (let round = 0; round < ROUNDS; round++) {
        for (const { url, res } of await concurrentReads(pooled)) {
          expect({ url, status: res.statusCode, body: res.body }).toEqual({ url, status: 200, body: expected.get(url)!.body });
        }
      }
    });

    it('concurrent creates, updates and deletes', async () => {
      const n = 8;
      const headers = auth(KEYS.owner);
      const created = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          pooled.inject({
            method: 'POST',
            url: '/api/v1/tasks',
            headers,
            payload: { list_id: ids.backlog, title: `Pooled ${i}`, priority: 'high', assignee_ids: [ids.bob] },
          }),
        ),
      );
      const tasks = created.map((res, i) => {
        expect(res.statusCode).toBe(201);
        const task = res.json() as Record<string, unknown>;
        expect(keys(task)).toEqual(FIELDS.write);
        expect(task).toMatchObject({ title: `Pooled ${i}`, priority: 'high', list_id: ids.backlog, workspace_id: ids.acme, creator_id: ids.alice });
        expect(task.assignees).toEqual([expect.objectContaining({ id: ids.bob, name: 'Bob' })]);
        return task as Record<string, unknown> & { id: number };
      });
      expect(new Set(tasks.map((task) => task.id)).size).toBe(n);

      const updated = await Promise.all(
        tasks.map((task, i) =>
          pooled.inject({ method: 'PATCH', url: `/api/v1/tasks/${task.id}`, headers, payload: { title: `Renamed ${i}`, priority: 'low', assignee_ids: [] } }),
        ),
      );
      updated.forEach((res, i) => {
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ ...tasks[i], title: `Renamed ${i}`, priority: 'low', assignees: [] });
      });
      // Seen by the direct app exactly as the pooled one answers it.
      for (const task of tasks) {
        const [viaPooler, viaDirect] = await Promise.all(
          [pooled, direct!].map((app) => app.inject({ method: 'GET', url: `/api/v1/tasks/${task.id}`, headers })),
        );
        expect(viaPooler.statusCode).toBe(200);
        expect(viaPooler.body).toBe(viaDirect.body);
      }

      const deleted = await Promise.all(tasks.map((task) => pooled.inject({ method: 'DELETE', url: `/api/v1/tasks/${task.id}`, headers })));
      for (const res of deleted) expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
      const gone = await Promise.all(
        tasks.flatMap((task) => [pooled, direct!].map((app) => app.inject({ method: 'GET', url: `/api/v1/tasks/${task.id}`, headers }))),
      );
      for (const res of gone) expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 404, body: { error: 'Task not found' } });
    });

    it('a key revoked (keys revoke) before the pooled app saw it is refused', async () => {
      await revokeKey(direct!.db.ds, ids.k_cold);
      const answers = await Promise.all(Array.from({ length: 4 }, () => pooled.inject({ method: 'GET', url: '/api/v1/me', headers: auth(COLD_KEY) })));
      for (const res of answers) expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 401, body: { error: 'Invalid API key' } });
    });

    /*
     * Through transaction pooling, LISTEN runs on whichever server connection is free and
     * hears nothing afterwards. The key cache finds out at start (its probe notification is
     * never heard) and stays off, so a revoke counts at once instead of after the cache's 30 s.
     */
    it('the key cache knows it cannot hear changes through PgBouncer, and stays off', () => {
      expect(pooled.app.get(ApiKeyCache).listening).toBe(false);
      expect(direct!.app.get(ApiKeyCache).listening).toBe(true);
    });

    it('a key in use is refused within 1 s of its revoke', async () => {
      for (let i = 0; i < 2; i++) expect((await pooled.inject({ method: 'GET', url: '/api/v1/me', headers: auth(WARM_KEY) })).statusCode).toBe(200);
      await revokeKey(direct!.db.ds, ids.k_warm);
      const started = Date.now();
      let res = await pooled.inject({ method: 'GET', url: '/api/v1/me', headers: auth(WARM_KEY) });
      while (res.statusCode === 200 && Date.now() - started < 1000) {
        await new Promise((done) => setTimeout(done, 50));
        res = await pooled.inject({ method: 'GET', url: '/api/v1/me', headers: auth(WARM_KEY) });
      }
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 401, body: { error: 'Invalid API key' } });
    });

    it('nothing was logged at warn or above', () => {
      expect(logged()).toEqual([]);
    });
  });

  describe('DB_PREPARED_STATEMENTS=true (the default): 500s, and one line telling the operator what to set', () => {
    let named: TestApp;

    beforeAll(async () => {
      // Its 500s are not in the OpenAPI document: no response validation.
      named = await startPooled('true', false);
    });
    afterAll(async () => {
      await named?.close();
    });

    it('concurrent requests answer 200 (the direct answer) or 500 `Internal server error`, and the hint is logged once', async () => {
      const expected = await reference();
      let failures = 0;
      // Statements prepared on one server connection meet another: a few rounds always show it, many times over.
      for (let round = 0; round < 20 && failures < CONCURRENCY; round++) {
        for (const { url, res } of await concurrentReads(named)) {
          if (res.statusCode === 500) {
            failures++;
            expect(res.json()).toEqual({ error: 'Internal server error' });
          } else {
            expect({ url, status: res.statusCode, body: res.body }).toEqual({ url, status: 200, body: expected.get(url)!.body });
          }
        }
      }
      expect(failures).toBeGreaterThanOrEqual(CONCURRENCY);

      // Each 500 logs its error (42P05 or 26000) as before; the hint once for the process.
      const hints = lines.filter((l) => l.msg === POOLER_PREPARED_HINT);
      expect(hints).toEqual([expect.objectContaining({ level: 'error', msg: POOLER_PREPARED_HINT })]);
      const errors = lines.filter((l) => l.err !== undefined) as Array<{ err: { code?: string; message?: string } }>;
      expect(errors).toHaveLength(failures);
      for (const { err } of errors) {
        expect(['42P05', '26000']).toContain(err.code);
        expect(err.message).toMatch(/^prepared statement "q_[A-Za-z0-9_-]{24}" (already exists|does not exist)$/);
      }
    });
  });
});
