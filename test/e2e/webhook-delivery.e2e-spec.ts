import { ChildProcess, spawn } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import { Webhook } from 'standardwebhooks';

import { createRootLogger, replaceRootLogger } from '../../src/common/logging/logger';
import { signedHeaders } from '../../src/webhooks/webhook-sender';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { EventObject, pendingDeliveries, recordEvent } from '../setup/events';
import { freePort, ROOT } from '../setup/server-process';
import { Receiver, startReceiver } from '../setup/webhook-receiver';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Webhook delivery (D38), in process, to real HTTP receivers on 127.0.0.1:
 * Standard Webhooks signatures checked by the `standardwebhooks` verifier,
 * retries on the WEBHOOK_RETRY_DELAYS_MS schedule with the same webhook-id,
 * the deliveries log, inactive and deleted webhooks, URL changes, pending
 * deliveries' own copy of the event, redirects, timeouts, metrics and the
 * log line of each attempt; then, without WEBHOOK_ALLOW_PRIVATE, a host name
 * resolving to loopback is `blocked`. Events are recorded as API writes
 * record them (test/setup/events.ts). Across processes: webhook-processes.e2e-spec.ts.
 */

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DELIVERY_KEYS = ['attempt', 'attempted_at', 'duration_ms', 'event_id', 'id', 'response_status', 'result'];
type Delivery = { id: number; event_id: number; attempt: number; result: string; response_status: number | null; duration_ms: number; attempted_at: string };

/** Polls `read` until `done` holds of its value; returns that value (throws after `ms`). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhook delivery (D38)', () => {
  const env = {
    WEBHOOK_WORKER: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '0,50,100',
    WEBHOOK_TIMEOUT_MS: '1000',
  };
  const lines: Array<Record<string, unknown>> = [];
  let previousLogger: ReturnType<typeof replaceRootLogger>;
  let t: TestApp;
  let w: RoleWorld;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    previousLogger = replaceRootLogger(createRootLogger({ logLevel: 'info', logFormat: 'json' }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
    t = await createTestApp({ env });
    w = await loadRoleWorld(t.db.ds, 'wd');
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
    replaceRootLogger(previousLogger);
  });

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  const createHook = async (url: string, events?: string[]) => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(w.key('owner')),
      payload: { workspace_id: w.ids.ws, url, ...(events ? { events } : {}) },
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number; secret: string; url: string };
  };
  const patchHook = (id: number, payload: object) => t.inject({ method: 'PATCH', url: `/api/v1/webhooks/${id}`, headers: auth(w.key('owner')), payload });
  const deliveries = async (id: number): Promise<Delivery[]> => {
    const res = await t.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries`, headers: auth(w.key('admin')) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const event = (type = 'label.created', data: Record<string, unknown> = { label_id: 1 }) =>
    recordEvent(t.db.ds, { workspaceId: w.ids.ws, type, data, userId: w.ids.owner });
  const settled = () =>
    until(
      () => pendingDeliveries(t.db.ds),
      (n) => n === 0,
    );

  // Each test's webhooks go with it, so later events reach only the next test's.
  afterEach(async () => {
    await t.db.ds.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [w.ids.ws]);
    await settled();
  });

  it('POSTs the event object with Standard Webhooks headers that the standardwebhooks verifier accepts', async () => {
    const r = await receiver();
    const hook = await createHook(r.url);
    const e = await event('label.created', { label_id: 77 });
    await r.waitFor((got) => got.length === 1);
    const [got] = r.received;
    expect(got.headers['webhook-id']).toBe(`evt_${e.id}`);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const verified = new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(e);
    expect(JSON.parse(got.body)).toEqual({
      id: e.id,
      type: 'label.created',
      workspace_id: w.ids.ws,
      occurred_at: expect.stringMatching(TS),
      actor: { user_id: w.ids.owner, api_key_id: null },
      data: { label_id: 77 },
    });
    // Another secret does not verify it.
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(got.body, got.headers as Record<string, string>)).toThrow();
    const log = await until(
      () => deliveries(hook.id),
      (d) => d.length === 1,
    );
    expect(Object.keys(log[0]).sort()).toEqual(DELIVERY_KEYS);
    expect(log).toEqual([
      {
        id: expect.any(Number),
        event_id: e.id,
        attempt: 1,
        result: 'delivered',
        response_status: 200,
        duration_ms: expect.any(Number),
        attempted_at: expect.stringMatching(TS),
      },
    ]);
    expect(Number.isInteger(log[0].duration_ms)).toBe(true);
    await settled();
  });

  it("only subscribed types of the webhook's own workspace are delivered", async () => {
    const r = await receiver();
    const hook = await createHook(r.url, ['task.created']);
    await recordEvent(t.db.ds, { workspaceId: w.ids.other, type: 'task.created', data: { task_id: 1, list_id: null, parent_id: null } });
    await event('label.created');
    const wanted = await event('task.created', { task_id: 5, list_id: null, parent_id: null });
    await settled();
    expect(r.received.map((got) => got.headers['webhook-id'])).toEqual([`evt_${wanted.id}`]);
    expect((await deliveries(hook.id)).map((d) => d.event_id)).toEqual([wanted.id]);
  });

  it('a receiver down for 3 attempts then up gets the event on attempt 4, with the same webhook-id each time; the log lists each attempt', async () => {
    const r = await receiver();
    r.answer = (_request, index) => (index < 3 ? 500 : 204);
    const hook = await createHook(r.url);
    const e = await event();
    await r.waitFor((got) => got.length === 4);
    expect(r.received.map((got) => got.headers['webhook-id'])).toEqual(Array(4).fill(`evt_${e.id}`));
    for (const got of r.received) expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(e);
    const log = await until(
      () => deliveries(hook.id),
      (d) => d.length === 4,
    );
    expect(log.map(({ attempt, result, response_status, event_id }) => ({ attempt, result, response_status, event_id }))).toEqual([
      { attempt: 4, result: 'delivered', response_status: 204, event_id: e.id },
      { attempt: 3, result: 'failed', response_status: 500, event_id: e.id },
      { attempt: 2, result: 'failed', response_status: 500, event_id: e.id },
      { attempt: 1, result: 'failed', response_status: 500, event_id: e.id },
    ]);
    // Newest first by attempted_at, then id.
    expect([...log].sort((a, b) => (a.attempted_at === b.attempted_at ? b.id - a.id : a.attempted_at < b.attempted_at ? 1 : -1))).toEqual(log);
    await settled();
    expect(r.received).toHaveLength(4);
  });

  it('at most 1 + N attempts (N delays), every failure alike: 3xx not followed, 410, 429; then nothing is pending', async () => {
    const r = await receiver();
    const statuses = [302, 410, 429, 503];
    r.answer = (_request, index) => statuses[index] ?? 500;
    const hook = await createHook(r.url);
    await event();
    await until(
      () => deliveries(hook.id),
      (d) => d.length === 4,
    );
    await settled();
    expect(r.received).toHaveLength(4);
    expect(r.received.every((got) => got.headers.host === `127.0.0.1:${r.port}`)).toBe(true);
    expect((await deliveries(hook.id)).map((d) => [d.attempt, d.result, d.response_status])).toEqual([
      [4, 'failed', 503],
      [3, 'failed', 429],
      [2, 'failed', 410],
      [1, 'failed', 302],
    ]);
  });

  it('no answer within WEBHOOK_TIMEOUT_MS is a timeout without status; a closed port fails without status', async () => {
    const r = await receiver();
    r.answer = () => 'hang';
    const hook = await createHook(r.url);
    const closed = await receiver();
    const closedUrl = closed.url;
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    const dead = await createHook(closedUrl);
    await event();
    const log = await until(
      () => deliveries(hook.id),
      (d) => d.length === 4,
      60_000,
    );
    expect(log.map((d) => [d.result, d.response_status])).toEqual(Array(4).fill(['timeout', null]));
    // The whole timeout elapsed (timers may fire up to a millisecond early).
    for (const d of log) expect(d.duration_ms).toBeGreaterThanOrEqual(990);
    const deadLog = await until(
      () => deliveries(dead.id),
      (d) => d.length === 4,
    );
    expect(deadLog.map((d) => [d.result, d.response_status])).toEqual(Array(4).fill(['failed', null]));
    await settled();
  });

  it('an attempt falling due while the webhook is inactive is dropped for good; after re-activation only new events come', async () => {
    const r = await receiver();
    let hookId = 0;
    r.answer = async (_request, index) => {
      if (index === 0) expect((await patchHook(hookId, { active: false })).statusCode).toBe(200);
      return index === 0 ? 500 : 200;
    };
    hookId = (await createHook(r.url)).id;
    const first = await event();
    await r.waitFor((got) => got.length === 1);
    await settled();
    const whileInactive = await event();
    expect(await pendingDeliveries(t.db.ds)).toBe(0);
    expect((await patchHook(hookId, { active: true })).statusCode).toBe(200);
    const after = await event();
    await r.waitFor((got) => got.length === 2);
    await settled();
    expect(r.received.map((got) => got.headers['webhook-id'])).toEqual([`evt_${first.id}`, `evt_${after.id}`]);
    expect(whileInactive.id).toBeLessThan(after.id);
    expect((await deliveries(hookId)).map((d) => [d.event_id, d.attempt, d.result])).toEqual([
      [after.id, 1, 'delivered'],
      [first.id, 1, 'failed'],
    ]);
  });

  it('an attempt that fell due while the webhook was inactive is dropped even when it runs after re-activation', async () => {
    const r = await receiver();
    const hook = await createHook(r.url);
    expect((await patchHook(hook.id, { active: false })).statusCode).toBe(200);
    expect((await patchHook(hook.id, { active: true })).statusCode).toBe(200);
    // An attempt that fell due a minute ago, during the pause, and runs only now (a backlog): queued as the worker queues retries.
    const e = await event('label.deleted');
    await r.waitFor((got) => got.length === 1);
    await t.db.ds.query(`SELECT graphile_worker.add_job('webhook_delivery', $1::json, run_at := now() - interval '1 minute', job_key := $2)`, [
      JSON.stringify({ webhook_id: hook.id, event_id: e.id + 1000, attempt: 2, body: e }),
      `webhook:${hook.id}:${e.id + 1000}`,
    ]);
    await settled();
    expect(r.received.map((got) => got.headers['webhook-id'])).toEqual([`evt_${e.id}`]);
    expect((await deliveries(hook.id)).map((d) => d.event_id)).toEqual([e.id]);
  });

  it('after DELETE no new attempt starts', async () => {
    const r = await receiver();
    let hookId = 0;
    r.answer = async () => {
      expect((await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${hookId}`, headers: auth(w.key('owner')) })).statusCode).toBe(204);
      return 500;
    };
    hookId = (await createHook(r.url)).id;
    await event();
    await r.waitFor((got) => got.length === 1);
    await settled();
    await event();
    expect(await pendingDeliveries(t.db.ds)).toBe(0);
    expect(r.received).toHaveLength(1);
  });

  it.each([
    ['a delete', 'DELETE FROM webhooks WHERE id = $1'],
    ['a pause', 'UPDATE webhooks SET active = false WHERE id = $1'],
  ])('an event committed while %s is pending is not sent once it has committed', async (_case, change) => {
    const r = await receiver();
    const hook = await createHook(r.url);
    const runner = t.db.ds.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(change, [hook.id]);
      // Committed before the change: the dispatcher does not queue it for a webhook a change holds (issue 31: it
      // skips the row), or an attempt that started waits for the change after connecting (sendLocked).
      await event();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(r.received).toHaveLength(0);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await settled();
    expect(r.received).toHaveLength(0);
    expect(await t.db.ds.query(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1`, [hook.id])).toEqual([]);
  });

  it('each attempt uses the URL as it is when the attempt starts', async () => {
    const first = await receiver();
    const second = await receiver();
    let hookId = 0;
    first.answer = async () => {
      expect((await patchHook(hookId, { url: second.url })).statusCode).toBe(200);
      return 500;
    };
    hookId = (await createHook(first.url)).id;
    const e = await event();
    await second.waitFor((got) => got.length === 1);
    await settled();
    expect(first.received).toHaveLength(1);
    expect(second.received[0].headers['webhook-id']).toBe(`evt_${e.id}`);
    expect((await deliveries(hookId)).map((d) => [d.attempt, d.result])).toEqual([
      [2, 'delivered'],
      [1, 'failed'],
    ]);
  });

  it('narrowing events does not cancel a pending delivery; a pending delivery keeps its own copy of the event', async () => {
    const r = await receiver();
    let hookId = 0;
    let e: EventObject | undefined;
    r.answer = async (_request, index) => {
      if (index > 0) return 200;
      expect((await patchHook(hookId, { events: ['task.deleted'] })).statusCode).toBe(200);
      await t.db.ds.query(`DELETE FROM events WHERE id = $1`, [e!.id]);
      return 500;
    };
    hookId = (await createHook(r.url, ['label.created'])).id;
    e = await event('label.created', { label_id: 9 });
    await r.waitFor((got) => got.length === 2);
    await settled();
    expect(JSON.parse(r.received[1].body)).toEqual(e);
    expect(r.received[1].body).toBe(r.received[0].body);
  });

  it('a rolled-back write queues nothing', async () => {
    const r = await receiver();
    await createHook(r.url);
    const runner = t.db.ds.createQueryRunner();
    await runner.startTransaction();
    await runner.query(`INSERT INTO events (id, workspace_id, type, occurred_at, data) VALUES (nextval('events_id_seq'), $1, 'label.created', now(), '{}')`, [
      w.ids.ws,
    ]);
    await runner.rollbackTransaction();
    await runner.release();
    expect(await pendingDeliveries(t.db.ds)).toBe(0);
    const e = await event();
    await r.waitFor((got) => got.length === 1);
    expect(r.received[0].headers['webhook-id']).toBe(`evt_${e.id}`);
    await settled();
  });

  it('the deliveries route shows the 100 most recent attempts', async () => {
    const r = await receiver();
    const hook = await createHook(r.url);
    await t.db.ds.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, result, response_status, duration_ms, attempted_at)
       SELECT $1, 1000 + g, 1, 'blocked', NULL, 0, timestamptz '2025-01-01T00:00:00Z' + g * interval '1 second' FROM generate_series(1, 105) g`,
      [hook.id],
    );
    // Two attempts at the same instant: the higher id first.
    await t.db.ds.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, result, response_status, duration_ms, attempted_at)
       VALUES ($1, 2000, 1, 'failed', 302, 12, '2025-02-01T00:00:00Z'), ($1, 2001, 1, 'timeout', NULL, 1000, '2025-02-01T00:00:00Z')`,
      [hook.id],
    );
    const log = await deliveries(hook.id);
    expect(log).toHaveLength(100);
    expect(log[0]).toEqual({
      id: expect.any(Number),
      event_id: 2001,
      attempt: 1,
      result: 'timeout',
      response_status: null,
      duration_ms: 1000,
      attempted_at: '2025-02-01T00:00:00.000Z',
    });
    expect(log[1]).toMatchObject({ event_id: 2000, result: 'failed', response_status: 302, duration_ms: 12 });
    expect(log[2]).toMatchObject({ event_id: 1105, attempted_at: '2025-01-01T00:01:45.000Z' });
    expect(log[99]).toMatchObject({ event_id: 1008 });
  });

  it('the log keeps the 100 most recent attempts of a webhook', async () => {
    const r = await receiver();
    r.answer = () => 500;
    const hook = await createHook(r.url);
    for (let i = 0; i < 26; i++) await event();
    // Each retry is looked for when it falls due (50 and 100 ms), not at the queue's next idle look a second later.
    await r.waitFor((got) => got.length === 104, 30_000);
    await settled();
    const [{ n }] = await t.db.ds.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [hook.id]);
    expect(n).toBe(100);
    const log = await deliveries(hook.id);
    expect(log).toHaveLength(100);
    expect(log.map((d) => d.id)).toEqual(
      (
        (await t.db.ds.query(`SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT 100`, [hook.id])) as Array<{
          id: number;
        }>
      ).map((d) => d.id),
    );
  }, 60_000);

  it('the receiver of docs/webhooks.md, run as printed, verifies a delivery, refuses a bad signature and skips a repeated webhook-id', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Events and webhooks'));
    const code = /```js\n([\s\S]*?)```/.exec(section)![1];
    const port = await freePort();
    const hook = await createHook(`http://127.0.0.1:${port}/`, ['label.created']);
    const child: ChildProcess = spawn(process.execPath, ['-e', code], {
      cwd: ROOT,
      env: { ...process.env, WEBHOOK_SECRET: hook.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const post = (body: string, headers: Record<string, string>) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
      await until(
        () =>
          post('{}', {}).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 400,
      );
      const e = await event('label.created', { label_id: 5 });
      await until(
        async () => out,
        (text) => text.includes('\n'),
      );
      expect(out).toBe('label.created {"label_id":5}\n');
      const body = JSON.stringify(e);
      const headers = signedHeaders(hook.secret, `evt_${e.id}`, new Date(), body);
      expect((await post(body, headers)).status).toBe(204);
      expect((await post(body.replace('"label_id":5', '"label_id":6'), headers)).status).toBe(400);
      expect((await post(body, signedHeaders('whsec_' + Buffer.alloc(32, 7).toString('base64'), `evt_${e.id}`, new Date(), body))).status).toBe(400);
      expect(out).toBe('label.created {"label_id":5}\n');
      expect((await deliveries(hook.id)).map((d) => [d.event_id, d.result, d.response_status])).toEqual([[e.id, 'delivered', 204]]);
    } finally {
      child.kill();
    }
  });

  it('metrics: attempts by result, pending deliveries and the age of the oldest one due', async () => {
    const res = await t.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(res.body)?.[1]);
    // The attempts of the tests above: each test's own webhooks only (afterEach).
    expect(value('work_tracking_webhook_delivery_attempts_total{result="delivered"}')).toBe(9);
    expect(value('work_tracking_webhook_delivery_attempts_total{result="failed"}')).toBe(15 + 104);
    expect(value('work_tracking_webhook_delivery_attempts_total{result="timeout"}')).toBe(4);
    expect(value('work_tracking_webhook_delivery_attempts_total{result="blocked"}')).toBe(0);
    expect(value('work_tracking_webhook_deliveries_pending')).toBe(0);
    expect(value('work_tracking_webhook_delivery_oldest_pending_seconds')).toBe(0);
  });

  it('one log line per attempt, without the secret or the body', async () => {
    const metrics = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    const total = [...metrics.matchAll(/^work_tracking_webhook_delivery_attempts_total\{result="\w+"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const attempts = lines.filter((l) => l.msg === 'webhook delivery attempt');
    expect(total).toBeGreaterThan(20);
    expect(attempts).toHaveLength(total);
    expect(attempts[0]).toEqual(
      expect.objectContaining({
        webhook_id: expect.any(Number),
        event_id: expect.any(Number),
        attempt: 1,
        host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        result: 'delivered',
        response_status: 200,
        duration_ms: expect.any(Number),
      }),
    );
    const text = JSON.stringify(attempts);
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain('label_id');
    expect(text).not.toContain('/hook');
  });
});

describe('webhook delivery without WEBHOOK_ALLOW_PRIVATE (D38)', () => {
  const env = { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_DELAYS_MS: '0', WEBHOOK_TIMEOUT_MS: '1000' };
  let t: TestApp;
  let w: RoleWorld;
  let r: Receiver;

  beforeAll(async () => {
    t = await createTestApp({ env });
    w = await loadRoleWorld(t.db.ds, 'wb');
    r = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await r.close();
  });

  it('a host name resolving to a loopback address is blocked without connecting (duration 0), each attempt', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(w.key('owner')),
      payload: { workspace_id: w.ids.ws, url: `http://localhost:${r.port}/hook` },
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json() as { id: number };
    const e = await recordEvent(t.db.ds, { workspaceId: w.ids.ws, type: 'label.deleted' });
    const log = await until(
      async () => (await t.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries`, headers: auth(w.key('owner')) })).json() as Delivery[],
      (d) => d.length === 2,
    );
    expect(log.map(({ event_id, attempt, result, response_status, duration_ms }) => ({ event_id, attempt, result, response_status, duration_ms }))).toEqual([
      { event_id: e.id, attempt: 2, result: 'blocked', response_status: null, duration_ms: 0 },
      { event_id: e.id, attempt: 1, result: 'blocked', response_status: null, duration_ms: 0 },
    ]);
    await until(
      () => pendingDeliveries(t.db.ds),
      (n) => n === 0,
    );
    expect(r.received).toHaveLength(0);
  });

  it('an IP address URL to a private range is refused at create', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(w.key('owner')),
      payload: { workspace_id: w.ids.ws, url: `http://127.0.0.1:${r.port}/hook` },
    });
    expect([res.statusCode, res.json()]).toEqual([400, { error: 'url must not point to a private address' }]);
  });
});
