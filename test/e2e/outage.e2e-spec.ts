import type { InjectOptions } from 'fastify';
import { DataSource } from 'typeorm';

import { SCOPES } from '../../src/common/auth/scope';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { withBoundedWaits } from '../../src/common/database/pool-options';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp, testSettings } from '../setup/create-app';
import { adminUrl } from '../setup/database';
import { CutMode, TcpProxy } from '../setup/tcp-proxy';

/**
 * Issue 8 item 7: the app reaches PostgreSQL through a TCP proxy that the test
 * cuts (connections reset, or silent like an unreachable host) and restores.
 * While cut, requests and GET /health answer 503 within the configured
 * timeouts; afterwards the app recovers by itself; no write it acknowledged is lost.
 */

const TIMEOUTS = { DB_CONNECT_TIMEOUT_MS: '800', DB_STATEMENT_TIMEOUT_MS: '800', REQUEST_TIMEOUT_MS: '3000' };
/** Slowest acceptable 503 during a cut: the client read timeout (statement + 1 s) plus slack for a loaded machine. */
const ANSWER_WITHIN_MS = 5_000;
/** Longest wait for the app to serve again once the proxy is restored. */
const RECOVER_WITHIN_MS = 10_000;
const UNAVAILABLE = { error: 'Service unavailable' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('database outage (issue 8)', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let listId: number;
  const key = auth('svc_outage_owner');

  beforeAll(async () => {
    const admin = new URL(adminUrl());
    proxy = await TcpProxy.start(admin.hostname, Number(admin.port || 5432));
    t = await createTestApp({ connectVia: (url) => proxy.via(url), env: TIMEOUTS });
    const ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@outage.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: 'svc_outage_owner', scopes: [...SCOPES] }],
      workspaces: [{ ref: 'acme', name: 'Acme', slug: 'outage-acme', owner: 'alice', lists: [{ ref: 'inbox', name: 'Inbox' }] }],
    });
    listId = ids.inbox;
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  /** A request through the app, timed. */
  const timed = async (options: InjectOptions) => {
    const started = Date.now();
    const res = await t.inject(options);
    return { status: res.statusCode, body: JSON.parse(res.body), ms: Date.now() - started, type: res.headers['content-type'] };
  };
  const createTask = (title: string) => timed({ method: 'POST', url: '/api/v1/tasks', headers: key, payload: { list_id: listId, title } });
  const getMe = () => timed({ method: 'GET', url: '/api/v1/me', headers: key });
  const health = () => timed({ method: 'GET', url: '/health' });

  /** Polls GET /api/v1/me until it answers 200; returns how long that took. */
  const recovered = async (): Promise<number> => {
    const started = Date.now();
    while (Date.now() - started < RECOVER_WITHIN_MS) {
      if ((await getMe()).status === 200) return Date.now() - started;
      await sleep(100);
    }
    throw new Error(`not recovered within ${RECOVER_WITHIN_MS} ms`);
  };

  it.each<[CutMode, boolean]>([
    ['refuse', false],
    ['blackhole', false],
    ['blackhole', true],
    ['refuse', false],
  ])(
    'answers 503 quickly while the database is cut (%s; stale connections silent for good: %p), recovers, and loses no acknowledged write',
    async (mode, staleStaySilent) => {
      // Writers keep going through the whole cut: each answer is 201 or 503, never 500.
      let writing = true;
      const acknowledged: { id: number; title: string }[] = [];
      const answers: number[] = [];
      const writer = async (n: number) => {
        for (let i = 0; writing; i++) {
          const res = await createTask(`w${n}-${i}-${mode}`);
          answers.push(res.status);
          if (res.status === 201) acknowledged.push({ id: res.body.id, title: res.body.title });
          else expect(res.body).toEqual(UNAVAILABLE);
          await sleep(20);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await sleep(300);

      proxy.cut(mode);
      await sleep(50);
      for (const call of [getMe, health, () => createTask('during the cut')]) {
        const res = await call();
        expect(res.status).toBe(503);
        expect(res.type).toMatch(/^application\/json/);
        expect(res.ms).toBeLessThan(ANSWER_WITHIN_MS);
      }
      expect((await getMe()).body).toEqual(UNAVAILABLE);
      expect((await health()).body).toEqual({ status: 'unavailable' });
      // Readiness during the outage: status words only, never the database's host, port or error text (issue 19).
      const ready = await timed({ method: 'GET', url: '/health/ready' });
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(ANSWER_WITHIN_MS);
      const down = { status: 'down' };
      expect(ready.body).toEqual({
        status: 'error',
        info: { shutdown: { status: 'up' } },
        error: { database: down, migrations: down },
        details: { shutdown: { status: 'up' }, database: down, migrations: down },
      });
      await sleep(1_500);

      proxy.restore(staleStaySilent);
      await recovered();
      // Recovered for good: no connection left stuck in the pool answers a later request.
      const after = await Promise.all(Array.from({ length: 20 }, () => getMe()));
      expect(after.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(await health()).toMatchObject({ status: 200, body: { status: 'ok' } });
      await sleep(300);
      writing = false;
      await Promise.all(writers);

      expect(answers.filter((s) => s !== 201 && s !== 503)).toEqual([]);
      expect(answers).toContain(201);
      expect(answers).toContain(503);
      // Every acknowledged write is in the database, as acknowledged.
      const rows: { id: number; title: string }[] = await t.db.ds.query(`SELECT id, title FROM tasks WHERE id = ANY($1::int[]) ORDER BY id`, [
        acknowledged.map((a) => a.id),
      ]);
      expect(rows).toEqual([...acknowledged].sort((a, b) => a.id - b.id));
    },
    40_000,
  );

  it('does not hand out again a pooled connection whose statement got no answer (stays silent after the cut)', async () => {
    const ds = new DataSource(withBoundedWaits({ ...dataSourceOptions(proxy.via(t.db.url)), extra: { max: 3 } }, testSettings(TIMEOUTS).timeouts));
    await ds.initialize();
    try {
      await Promise.all([1, 2, 3].map(() => ds.query('SELECT 1')));
      proxy.cut('blackhole');
      const cut = await Promise.all(
        [1, 2, 3].map(() =>
          ds.query('SELECT 1').then(
            () => 'ok',
            (e: Error) => e.message,
          ),
        ),
      );
      expect(cut).toEqual(Array(3).fill('Query read timeout'));
      proxy.restore(true);
      const after: string[] = [];
      for (let i = 0; i < 6; i++)
        after.push(
          await ds.query('SELECT 1 AS one').then(
            () => 'ok',
            (e: Error) => e.message,
          ),
        );
      expect(after).toEqual(Array(6).fill('ok'));
    } finally {
      await ds.destroy().catch(() => undefined);
      proxy.restore();
    }
  });
});
