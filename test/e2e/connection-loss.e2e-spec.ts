import { createTestDatabase, TestDatabase, withAdmin } from '../setup/database';
import { ensureBuilt, ServerProcess, startServer } from '../setup/server-process';
import { TcpProxy } from '../setup/tcp-proxy';
import { Receiver, startReceiver } from '../setup/webhook-receiver';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Issue 31 item 1: a lost database connection fails one request at most, never
 * the process. A real server process (`node dist/main.js`) reaches PostgreSQL
 * through a TCP proxy while feed pages, keyed writes (Idempotency-Key) and
 * webhook deliveries run; every backend of its database is terminated
 * (`pg_terminate_backend`) again and again, then the proxy resets every
 * connection and refuses new ones for a while (a PostgreSQL restart), three
 * times. The process stays up, every answer meanwhile is a 2xx or a 503, and
 * afterwards it serves reads, keyed writes, feed pages and deliveries again:
 * every event reaches every webhook within seconds, without waiting for the
 * takeover of a dead process's jobs.
 */

const ENV = {
  MIGRATIONS_RUN: 'false',
  WEBHOOK_WORKER: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '0,50,100',
  WEBHOOK_TIMEOUT_MS: '2000',
  DB_CONNECT_TIMEOUT_MS: '1000',
  REQUEST_TIMEOUT_MS: '4000',
};
/** Rounds of terminating every backend, and the pause between them. */
const ROUNDS = 12;
const ROUND_PAUSE_MS = 120;
/** How long the proxy refuses connections (the database "restarting"), how many times, and the pause after each. */
const RESTART_MS = 1_500;
const RESTARTS = 3;
const RESTART_PAUSE_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
let w: RoleWorld;
let receiver: Receiver;
let proxy: TcpProxy;
let server: ServerProcess;
let exitCode: number | null | undefined;

beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase();
  w = await loadRoleWorld(db.ds, 'cl');
  receiver = await startReceiver();
  // Slow enough that attempts are in flight, and their records being written, when connections die.
  receiver.answer = async () => {
    await sleep(30);
    return 200;
  };
  const target = new URL(db.url);
  proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  server = await startServer({ ...ENV, DATABASE_URL: proxy.via(db.url) });
  server.child.once('exit', (code) => (exitCode = code));
}, 120_000);

afterAll(async () => {
  if (server && exitCode === undefined) await server.stop();
  await proxy?.close();
  await receiver?.close();
  await db?.drop();
});

/** A request to the server: its status, or 0 when the connection failed (the process is gone). */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
  try {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${w.key('owner')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Fails with the end of the server's output when it has exited. */
function stillUp(): void {
  const tail = exitCode === undefined ? '' : (server.stdout() + server.stderr()).slice(-4000);
  expect({ exitCode, tail }).toEqual({ exitCode: undefined, tail: '' });
}

/** Terminates every backend of the test database but the caller's. */
async function terminateAll(): Promise<number> {
  const name = new URL(db.url).pathname.slice(1);
  return withAdmin(async (c) => {
    const { rows } = await c.query(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
      name,
    ]);
    return rows[0].n as number;
  });
}

/** The workspace's webhooks and the last event before each (its dispatch cursor when created: nothing is written yet). */
async function webhookStarts(): Promise<{ url: string; since: string }[]> {
  return db.ds.query(`SELECT url, dispatched_through::text AS since FROM webhooks WHERE workspace_id = $1`, [w.ids.ws]);
}

/** Every (webhook path, `webhook-id`) the receiver is to get: each event of the workspace committed after each webhook's creation. */
async function expectedDeliveries(starts: { url: string; since: string }[]): Promise<string[]> {
  const events: { id: string }[] = await db.ds.query(`SELECT id::text AS id FROM events WHERE workspace_id = $1`, [w.ids.ws]);
  return starts.flatMap((s) => events.filter((e) => BigInt(e.id) > BigInt(s.since)).map((e) => `${new URL(s.url).pathname} evt_${e.id}`));
}

it('terminated connections and a database restart fail requests with 503 at most; the process stays up and serves again', async () => {
  for (let i = 0; i < 3; i++) expect(await call('POST', '/api/v1/webhooks', { workspace_id: w.ids.ws, url: `${receiver.url}/hook${i}` })).toBe(201);
  const starts = await webhookStarts();
  expect(starts).toHaveLength(3);

  let running = true;
  const answers: number[] = [];
  const loop = async (request: (i: number) => Promise<number>) => {
    for (let i = 0; running; i++) {
      answers.push(await request(i));
      await sleep(5);
    }
  };
  let keyed = 0;
  const keyedWrite = () => call('POST', '/api/v1/tasks', { list_id: w.ids.backlog, title: `keyed ${keyed}` }, { 'idempotency-key': `k-${keyed++}` });
  const feedPage = () => call('GET', `/api/v1/workspaces/${w.ids.ws}/events?limit=100`);
  const loops = [loop(keyedWrite), loop(keyedWrite), loop(feedPage), loop(feedPage), loop(() => call('GET', '/api/v1/me'))];

  await receiver.waitFor((got) => got.length >= 6);
  let terminated = 0;
  for (let round = 0; round < ROUNDS; round++) {
    terminated += await terminateAll();
    await sleep(ROUND_PAUSE_MS);
  }
  // Restarts: every connection reset, new ones refused, then the database is back; three times.
  for (let restart = 0; restart < RESTARTS; restart++) {
    proxy.cut('refuse');
    await sleep(RESTART_MS);
    proxy.restore();
    await sleep(RESTART_PAUSE_MS);
  }
  running = false;
  await Promise.all(loops);

  stillUp();
  expect(terminated).toBeGreaterThan(ROUNDS);
  const unexpected = answers.filter((s) => !(s === 200 || s === 201 || s === 503));
  expect(unexpected).toEqual([]);
  expect(answers).toContain(503);

  // Serving again, by itself: reads, keyed writes, feed pages and deliveries.
  const deadline = Date.now() + 15_000;
  while ((await call('GET', '/api/v1/me')) !== 200) {
    if (Date.now() > deadline) throw new Error(`not serving again within 15 s:\n${server.stdout().slice(-3000)}${server.stderr().slice(-3000)}`);
    await sleep(100);
  }
  const after = await Promise.all(Array.from({ length: 10 }, () => call('GET', '/api/v1/me')));
  expect(after).toEqual(Array(10).fill(200));
  expect(await keyedWrite()).toBe(201);
  expect(await feedPage()).toBe(200);
  const res = await fetch(`${server.url}/api/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.key('owner')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ list_id: w.ids.backlog, title: 'after the restart' }),
  });
  expect(res.status).toBe(201);
  // Deliveries resume by themselves: every event committed after a webhook was created reaches it at least once
  // (in any order: the events written during the outage wait in the same queue).
  const expected = await expectedDeliveries(starts);
  expect(expected.length).toBeGreaterThan(6);
  const got = () => new Set(receiver.received.map((r) => `${r.url} ${String(r.headers['webhook-id'])}`));
  await receiver
    .waitFor(() => expected.every((d) => got().has(d)), 20_000)
    .catch(async (error: Error) => {
      const missing = expected.filter((d) => !got().has(d));
      const queue = (server.stdout() + server.stderr()).split('\n').filter((line) => /JobQueue|Webhooks/.test(line) && !/notify listener|UNLISTEN/.test(line));
      const jobs = await db.ds.query(
        `SELECT count(*)::int AS n, locked_at IS NOT NULL AS locked, run_at <= now() AS due, attempts < max_attempts AS runnable
         FROM graphile_worker.jobs GROUP BY 2, 3, 4`,
      );
      const hooks = await db.ds.query(`SELECT id, dispatched_through, attempt_until FROM webhooks ORDER BY id`);
      const state = JSON.stringify({ jobs, hooks });
      throw new Error(
        `${error.message}; ${missing.length} of ${expected.length} deliveries missing; queue ${state}; the job queue said:\n${queue.slice(-40).join('\n')}`,
      );
    });
  stillUp();
}, 120_000);
