import { mkdtempSync } from 'fs';
import { type AddressInfo, connect, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { fileBody } from '../setup/multipart';

/**
 * Issue 31 item 2: a keyed request uses one connection at most, on its error
 * path too. 50 keyed POSTs answering 403 at once (creating a task on another
 * tenant's list) with a pool of 4 connections: each stores its 403 on its own
 * connection, so none waits for a second one while holding the first (which
 * starved the pool: every request of the process waited DB_CONNECT_TIMEOUT_MS
 * and answered 503, and claims were left "in progress"). Another tenant's
 * requests meanwhile stay fast; every claim ends stored.
 */

const POOL = 4;
const FLOOD = 50;
const INTRUDER = 'svc_idpool_intruder';
const NEIGHBOUR = 'svc_idpool_neighbour';
/** Well under DB_CONNECT_TIMEOUT_MS (5 s by default), the wait a starved pool imposes; generous for a loaded machine. */
const NEIGHBOUR_WITHIN_MS = 2_000;

describe('keyed 4xx answers and the pool (issue 31)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp({ env: { DB_POOL_SIZE: String(POOL) } });
    ids = await loadFixture(t.db.ds, {
      users: [
        { ref: 'intruder', email: 'intruder@idpool.test', name: 'Intruder' },
        { ref: 'neighbour', email: 'neighbour@idpool.test', name: 'Neighbour' },
      ],
      api_keys: [
        { ref: 'k_intruder', user: 'intruder', key: INTRUDER, scopes: [...SCOPES] },
        { user: 'neighbour', key: NEIGHBOUR, scopes: [...SCOPES] },
      ],
      workspaces: [
        { ref: 'mine', name: 'Mine', slug: 'idpool-mine', owner: 'intruder', lists: [{ ref: 'my_list', name: 'Mine' }] },
        {
          ref: 'theirs',
          name: 'Theirs',
          slug: 'idpool-theirs',
          owner: 'neighbour',
          lists: [{ ref: 'their_list', name: 'Theirs' }],
          tasks: [{ ref: 'their_task', list: 'their_list', title: 'Theirs' }],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const neighbourRead = async () => {
    const started = Date.now();
    const res = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.their_task}`, headers: auth(NEIGHBOUR) });
    return { status: res.statusCode, ms: Date.now() - started };
  };
  const keyedDenied = (i: number) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: { ...auth(INTRUDER), 'content-type': 'application/json', 'idempotency-key': `flood-${i}` },
      payload: JSON.stringify({ list_id: ids.their_list, title: 'Not mine' }),
    });

  it(`${FLOOD} keyed 403s at once with a pool of ${POOL}: another tenant stays fast, every claim ends stored`, async () => {
    for (let i = 0; i < 5; i++) expect((await neighbourRead()).status).toBe(200);

    let flooding = true;
    const reads: { status: number; ms: number }[] = [];
    const reader = (async () => {
      while (flooding) reads.push(await neighbourRead());
    })();
    const answers = await Promise.all(Array.from({ length: FLOOD }, (_, i) => keyedDenied(i)));
    flooding = false;
    await reader;
    reads.push(await neighbourRead());

    expect(answers.map((a) => [a.statusCode, a.body])).toEqual(Array(FLOOD).fill([403, '{"error":"Access denied"}']));
    expect(reads.filter((r) => r.status !== 200)).toEqual([]);
    expect(reads.filter((r) => r.ms > NEIGHBOUR_WITHIN_MS)).toEqual([]);
    // Every claim was stored with its answer: none is left "in progress".
    const rows: { status: number | null; n: number }[] = await t.db.ds.query(
      `SELECT status, count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1 GROUP BY status`,
      [ids.k_intruder],
    );
    expect(rows).toEqual([{ status: 403, n: FLOOD }]);
    // And each is replayed.
    const again = await keyedDenied(7);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([403, 'true', '{"error":"Access denied"}']);
  }, 60_000);

  it('a keyed 4xx before any statement of the route is stored by a statement of its own (no transaction left open)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: { ...auth(INTRUDER), 'content-type': 'application/json', 'idempotency-key': 'bad-body' },
      payload: JSON.stringify({ list_id: ids.my_list }),
    });
    expect(res.statusCode).toBe(400);
    const rows: { status: number | null }[] = await t.db.ds.query(`SELECT status FROM idempotency_keys WHERE key = 'bad-body'`);
    expect(rows).toEqual([{ status: 400 }]);
  });
});

/**
 * Issue 31 item 2: one API key holds at most its share of the pool (half of
 * it) with write requests, whatever they wait for; its other requests wait on
 * its own queue, so another key still gets connections. The flood's claims are
 * held on a row lock (a transaction of the test that has the same keys
 * uncommitted), so each flood request that reaches the database keeps its
 * connection until the test lets go: without the share all 4 connections are
 * held and another key's requests wait DB_CONNECT_TIMEOUT_MS and get 503.
 */
describe('one key flooding keyed writes leaves the pool to the others (issue 31)', () => {
  const FLOODER = 'svc_idshare_flooder';
  const OTHER = 'svc_idshare_other';
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await createTestApp({ env: { DB_POOL_SIZE: String(POOL), DB_CONNECT_TIMEOUT_MS: '1000' } });
    ids = await loadFixture(t.db.ds, {
      users: [
        { ref: 'flooder', email: 'flooder@idshare.test', name: 'Flooder' },
        { ref: 'other', email: 'other@idshare.test', name: 'Other' },
      ],
      api_keys: [
        { ref: 'k_flooder', user: 'flooder', key: FLOODER, scopes: [...SCOPES] },
        { user: 'other', key: OTHER, scopes: [...SCOPES] },
      ],
      workspaces: [
        { ref: 'flooders', name: 'Flooders', slug: 'idshare-flooder', owner: 'flooder', lists: [{ ref: 'flooder_list', name: 'Flooder' }] },
        {
          ref: 'others',
          name: 'Others',
          slug: 'idshare-other',
          owner: 'other',
          lists: [{ ref: 'other_list', name: 'Other' }],
          tasks: [{ ref: 'other_task', list: 'other_list', title: 'Other' }],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const floodKey = (i: number) => `share-${i}`;
  const lockWaiters = async () =>
    (
      (await t.db.ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)) as {
        n: number;
      }[]
    )[0].n;

  it(`${FLOOD} keyed POSTs of one key stuck on a lock hold at most ${POOL / 2} of ${POOL} connections; another key reads and writes meanwhile`, async () => {
    const blocker = t.db.ds.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    let answers: Promise<{ statusCode: number; body: string }[]> | undefined;
    try {
      await blocker.query(
        `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, token, claimed_at, expires_at)
         SELECT $1, 'share-' || i, '\\x00', gen_random_uuid(), now(), now() + interval '1 day' FROM generate_series(0, $2 - 1) i`,
        [ids.k_flooder, FLOOD],
      );
      answers = Promise.all(
        Array.from({ length: FLOOD }, (_, i) =>
          t.inject({
            method: 'POST',
            url: '/api/v1/tasks',
            headers: { ...auth(FLOODER), 'content-type': 'application/json', 'idempotency-key': floodKey(i) },
            payload: JSON.stringify({ list_id: ids.other_list, title: 'Not mine' }),
          }),
        ),
      );
      // The flood has reached the database: as many claims wait on the lock as the key may hold connections.
      for (let i = 0; i < 200 && (await lockWaiters()) < POOL / 2; i++) await new Promise((done) => setTimeout(done, 25));

      const read = await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.other_task}`, headers: auth(OTHER) });
      expect(read.statusCode).toBe(200);
      const write = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: { ...auth(OTHER), 'content-type': 'application/json', 'idempotency-key': 'other-1' },
        payload: JSON.stringify({ list_id: ids.other_list, title: 'Mine' }),
      });
      expect([write.statusCode, JSON.parse(write.body).title]).toEqual([201, 'Mine']);
      const unkeyed = await t.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: { ...auth(OTHER), 'content-type': 'application/json' },
        payload: JSON.stringify({ list_id: ids.other_list, title: 'Mine too' }),
      });
      expect(unkeyed.statusCode).toBe(201);
      expect(await lockWaiters()).toBe(POOL / 2);
    } finally {
      await blocker.rollbackTransaction();
      await blocker.release();
    }
    // Let go: every flood request answers as before, and each answer is stored (no claim left in progress).
    const done = await answers!;
    expect(done.map((a) => [a.statusCode, a.body])).toEqual(Array(FLOOD).fill([403, '{"error":"Access denied"}']));
    const rows: { status: number | null; n: number }[] = await t.db.ds.query(
      `SELECT status, count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1 GROUP BY status`,
      [ids.k_flooder],
    );
    expect(rows).toEqual([{ status: 403, n: FLOOD }]);
  }, 60_000);
});

/** A write waiting on its key's queue past REQUEST_TIMEOUT_MS answers 503 and never runs afterwards (issue 31). */
describe("a write past its deadline on its key's queue (issue 31)", () => {
  const KEY = 'svc_idqueue_key';
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    // A pool of 2: the key's share is 1 connection, so a second write of the key waits on the key's queue.
    t = await createTestApp({ env: { DB_POOL_SIZE: '2', REQUEST_TIMEOUT_MS: '1500' } });
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'u', email: 'u@idqueue.test', name: 'U' }],
      api_keys: [{ ref: 'k', user: 'u', key: KEY, scopes: [...SCOPES] }],
      workspaces: [{ ref: 'w', name: 'W', slug: 'idqueue', owner: 'u', lists: [{ ref: 'l', name: 'L' }] }],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (key: string, title: string) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: { ...auth(KEY), 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify({ list_id: ids.l, title }),
    });

  it('answers 503; once the queue moves on, nothing of it ran, and a retry runs anew', async () => {
    const blocker = t.db.ds.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    let answers: { statusCode: number }[];
    try {
      await blocker.query(
        `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, token, claimed_at, expires_at) VALUES ($1, 'held', '\\x00', gen_random_uuid(), now(), now() + interval '1 day')`,
        [ids.k],
      );
      const held = create('held', 'Held');
      await new Promise((done) => setTimeout(done, 200));
      const queued = create('queued', 'Queued');
      answers = await Promise.all([held, queued]);
    } finally {
      await blocker.rollbackTransaction();
      await blocker.release();
    }
    expect(answers.map((a) => a.statusCode)).toEqual([503, 503]);
    await new Promise((done) => setTimeout(done, 300));
    const rows = await t.db.ds.query(`SELECT key FROM idempotency_keys WHERE api_key_id = $1`, [ids.k]);
    const tasks = await t.db.ds.query(`SELECT title FROM tasks WHERE list_id = $1`, [ids.l]);
    expect([rows, tasks]).toEqual([[], []]);
    const retry = await create('queued', 'Queued');
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([201, undefined]);
  }, 30_000);
});

/**
 * Issue 37: a key's share limits the connections its writes hold, not the requests it has in
 * flight. With a pool of 2 the key's share is one connection; two uploads of the key that stop
 * sending halfway (one keyed, whose body is read ahead before its claim, one not) hold no
 * connection while they wait for their bytes, so the key's other writes go on meanwhile. When
 * the share was taken for a whole request, both uploads held it and the create waited for them.
 */
describe("a key's share is taken per connection, not per request (issue 37)", () => {
  const KEY = 'svc_idturn_key';
  let t: TestApp;
  let ids: Record<string, number>;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({ env: { DB_POOL_SIZE: '2', REQUEST_TIMEOUT_MS: '10000', STORAGE_DIR: mkdtempSync(join(tmpdir(), 'idturn-')) } });
    ids = await loadFixture(t.db.ds, {
      users: [{ ref: 'u', email: 'u@idturn.test', name: 'U' }],
      api_keys: [{ ref: 'k', user: 'u', key: KEY, scopes: [...SCOPES] }],
      workspaces: [{ ref: 'w', name: 'W', slug: 'idturn', owner: 'u', lists: [{ ref: 'l', name: 'L' }], tasks: [{ ref: 't', list: 'l', title: 'T' }] }],
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  /** An upload that sends its headers and half its body, then waits: its socket, and its answer once the rest is sent. */
  const halfUpload = (extra: Record<string, string>) => {
    const { payload, headers } = fileBody('slow.txt', 'x'.repeat(4096));
    const head = Object.entries({ ...auth(KEY), ...headers, ...extra, 'content-length': String(payload.length), connection: 'close' })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    let socket!: Socket;
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/tasks/${ids.t}/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
        socket.write(payload.subarray(0, payload.length / 2));
      });
      socket.on('data', (data) => (text += data.toString('latin1')));
      socket.on('close', () => resolve(text));
    });
    return { finish: () => socket.write(payload.subarray(payload.length / 2)), answer };
  };

  it('two uploads of the key waiting for their bytes; its create task answers meanwhile', async () => {
    const uploads = [halfUpload({ 'idempotency-key': 'slow-upload' }), halfUpload({})];
    // Both uploads have reached their route (and, before, their turn).
    await new Promise((done) => setTimeout(done, 500));
    const started = Date.now();
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: { ...auth(KEY), 'content-type': 'application/json' },
      payload: JSON.stringify({ list_id: ids.l, title: 'Meanwhile' }),
    });
    const waited = Date.now() - started;
    for (const upload of uploads) upload.finish();
    const answers = await Promise.all(uploads.map((u) => u.answer));
    expect([created.statusCode, JSON.parse(created.body).title]).toEqual([201, 'Meanwhile']);
    expect(waited).toBeLessThan(5_000);
    expect(answers.map((a) => a.split(' ')[1])).toEqual(['201', '201']);
  }, 30_000);
});
