import { pbkdf2, pbkdf2Sync } from 'crypto';

import { WEBHOOK_IN_FLIGHT } from '../../src/webhooks/webhook-worker';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { pendingDeliveries, recordEvent } from '../setup/events';
import { Receiver, startReceiver } from '../setup/webhook-receiver';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Issue 37 (D38, deliveries): a process keeps several attempts of one webhook
 * in flight at once (no order is promised), each recorded once; and the send
 * lock, taken once for a batch of connected attempts, still keeps every
 * claimed attempt that had not sent its request when DELETE answered 204 from
 * sending it (without that lock they all would: they were claimed while the
 * webhook existed).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds of its value (throws after `ms`). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(value)}`);
    await sleep(25);
  }
}

/**
 * Occupies every thread of libuv's pool (UV_THREADPOOL_SIZE, default 4) for
 * about `ms`: host name resolutions (getaddrinfo runs there) wait until then.
 * Resolves when the threads are free again.
 */
function occupyThreadPool(ms: number): Promise<void> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const started = performance.now();
  pbkdf2Sync('calibrate', 'salt', 100_000, 32, 'sha256');
  const iterations = Math.ceil((100_000 * ms) / Math.max(performance.now() - started, 1));
  return Promise.all(
    Array.from(
      { length: threads },
      () => new Promise<void>((resolve, reject) => pbkdf2('busy', 'salt', iterations, 32, 'sha256', (error) => (error ? reject(error) : resolve()))),
    ),
  ).then(() => undefined);
}

describe('webhook deliveries in batches (D38)', () => {
  const env = {
    WEBHOOK_WORKER: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '',
    WEBHOOK_TIMEOUT_MS: '8000',
  };
  let t: TestApp;
  let w: RoleWorld;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env });
    w = await loadRoleWorld(t.db.ds, 'wb');
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });
  afterEach(async () => {
    await t.db.ds.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [w.ids.ws]);
    await until(
      () => pendingDeliveries(t.db.ds),
      (n) => n === 0,
    );
  });

  const createHook = async (url: string): Promise<number> => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(w.key('owner')), payload: { workspace_id: w.ids.ws, url } });
    expect(res.statusCode).toBe(201);
    return res.json().id;
  };
  const event = (i: number) => recordEvent(t.db.ds, { workspaceId: w.ids.ws, type: 'label.created', data: { label_id: i }, userId: w.ids.owner });

  it('several attempts of one webhook are in flight at once, at most WEBHOOK_IN_FLIGHT; each event is delivered and recorded exactly once', async () => {
    const r = await receiver();
    let inFlight = 0;
    let most = 0;
    r.answer = async () => {
      most = Math.max(most, ++inFlight);
      await sleep(100);
      inFlight -= 1;
      return 204;
    };
    const hookId = await createHook(r.url);
    const events = [];
    for (let i = 0; i < 3 * WEBHOOK_IN_FLIGHT; i++) events.push(await event(i));
    await r.waitFor((got) => got.length >= events.length);
    await until(
      () => pendingDeliveries(t.db.ds),
      (n) => n === 0,
    );
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(WEBHOOK_IN_FLIGHT);
    const ids = r.received.map((got) => String(got.headers['webhook-id'])).sort();
    expect(ids).toEqual(events.map((e) => `evt_${e.id}`).sort());
    const rows: Array<{ event_id: string; attempt: number; result: string }> = await t.db.ds.query(
      `SELECT d.event_id::text, d.attempt, d.result FROM webhook_deliveries d WHERE d.webhook_id = $1 ORDER BY d.event_id`,
      [hookId],
    );
    expect(rows).toEqual(events.map((e) => ({ event_id: String(e.id), attempt: 1, result: 'delivered' })));
  }, 60_000);

  it('DELETE during a batch: claimed attempts that had not sent their request when it answered 204 send nothing', async () => {
    const r = await receiver();
    // A host name: each attempt resolves it first (libuv's thread pool), and the pool is busy, so the claimed attempts wait there.
    const hookId = await createHook(`http://localhost:${r.port}/hook`);
    const busy = occupyThreadPool(2_000);
    for (let i = 0; i < WEBHOOK_IN_FLIGHT; i++) await event(i);
    // Until the worker has claimed attempts (their jobs become stand-ins, due later): they are resolving the host name.
    await until(
      async () =>
        (
          await t.db.ds.query(
            `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'webhook_delivery' AND run_at > now() AND key LIKE $1`,
            [`webhook:${hookId}:%`],
          )
        )[0].n as number,
      (n) => n > 0,
    );
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${hookId}`, headers: auth(w.key('owner')) })).statusCode).toBe(204);
    await busy;
    // Resolved and connected now, each attempt asks to send: the webhook is gone.
    await until(
      () => pendingDeliveries(t.db.ds),
      (n) => n === 0,
    );
    await sleep(200);
    expect(r.received).toEqual([]);
  }, 60_000);

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
});
