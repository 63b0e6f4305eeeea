import { createTestDatabase, TestDatabase } from '../setup/database';
import { pendingDeliveries, recordEvent } from '../setup/events';
import { ensureBuilt, ServerProcess, startServer } from '../setup/server-process';
import { Receiver, startReceiver } from '../setup/webhook-receiver';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Webhook delivery across real server processes (`node dist/main.js`, D38):
 * two processes on one database deliver each event once; a process killed
 * (SIGKILL) or stopped (SIGTERM) in the middle of an attempt leaves the
 * delivery pending, and it is made after a restart, with the same webhook-id.
 */

const ENV = {
  MIGRATIONS_RUN: 'false',
  WEBHOOK_WORKER: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '0,50,100',
  WEBHOOK_TIMEOUT_MS: '1000',
};

let db: TestDatabase;
let w: RoleWorld;
let receiver: Receiver;
const running = new Set<ServerProcess>();

async function server(): Promise<ServerProcess> {
  const s = await startServer({ ...ENV, DATABASE_URL: db.url });
  running.add(s);
  return s;
}

async function stop(s: ServerProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | null> {
  running.delete(s);
  if (signal === 'SIGKILL') {
    const exited = new Promise((done) => s.child.once('exit', done));
    s.child.kill('SIGKILL');
    await exited;
    return null;
  }
  return s.stop();
}

async function createHook(s: ServerProcess): Promise<{ id: number; secret: string }> {
  const res = await fetch(`${s.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.key('owner')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspace_id: w.ids.ws, url: receiver.url }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; secret: string };
}

async function deliveries(s: ServerProcess, id: number): Promise<Array<{ event_id: number; attempt: number; result: string }>> {
  const res = await fetch(`${s.url}/api/v1/webhooks/${id}/deliveries`, { headers: { authorization: `Bearer ${w.key('owner')}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Array<{ event_id: number; attempt: number; result: string }>;
}

async function settled(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await pendingDeliveries(db.ds)) > 0) {
    if (Date.now() > deadline) throw new Error('deliveries still pending after 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase();
  w = await loadRoleWorld(db.ds, 'wp');
  receiver = await startReceiver();
}, 120_000);

afterEach(async () => {
  await db.ds.query(`DELETE FROM webhooks`);
  await settled();
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

afterAll(async () => {
  for (const s of running) await stop(s);
  await receiver?.close();
  await db?.drop();
});

it('two server processes deliver each event exactly once, and both stop cleanly', async () => {
  const [a, b] = await Promise.all([server(), server()]);
  const hook = await createHook(a);
  const events = [];
  for (let i = 0; i < 40; i++) events.push(await recordEvent(db.ds, { workspaceId: w.ids.ws, type: 'label.created', data: { label_id: i } }));
  await receiver.waitFor((got) => got.length >= events.length);
  await settled();
  const ids = receiver.received.map((got) => got.headers['webhook-id']);
  expect([...ids].sort()).toEqual(events.map((e) => `evt_${e.id}`).sort());
  const log = await deliveries(b, hook.id);
  expect(log).toHaveLength(events.length);
  expect(log.every((d) => d.attempt === 1 && d.result === 'delivered')).toBe(true);
  expect(await Promise.all([stop(a), stop(b)])).toEqual([0, 0]);
  // A healthy start warns of nothing: the job queue's pool has its error handlers and a connection per job.
  for (const s of [a, b]) {
    expect(s.stderr()).not.toMatch(/error handlers/);
    expect(s.stdout()).not.toMatch(/"level":"?(40|warn)/);
  }
}, 120_000);

it.each(['SIGKILL', 'SIGTERM'] as const)(
  'a process stopped by %s in the middle of an attempt: the attempt is made again after a restart',
  async (signal) => {
    const first = await server();
    receiver.answer = (_request, index) => (index === 0 ? 'hang' : 200);
    const hook = await createHook(first);
    const e = await recordEvent(db.ds, { workspaceId: w.ids.ws, type: 'label.deleted', data: { label_id: 3 } });
    await receiver.waitFor((got) => got.length === 1);
    // SIGTERM: the attempt in flight is abandoned unrecorded, and the process exits 0 at once.
    expect(await stop(first, signal)).toBe(signal === 'SIGKILL' ? null : 0);
    // Nothing logged at error level (pino level 50) or above: abandoning the attempt is part of a clean stop.
    expect(first.stdout() + first.stderr()).not.toMatch(/"level":(50|60)/);
    const second = await server();
    await receiver.waitFor((got) => got.length === 2, 60_000);
    expect(receiver.received.map((got) => got.headers['webhook-id'])).toEqual([`evt_${e.id}`, `evt_${e.id}`]);
    expect(receiver.received[1].body).toBe(receiver.received[0].body);
    await settled();
    expect(await deliveries(second, hook.id)).toEqual([expect.objectContaining({ event_id: e.id, attempt: 1, result: 'delivered' })]);
    expect(receiver.received).toHaveLength(2);
    expect(await stop(second)).toBe(0);
  },
  120_000,
);
