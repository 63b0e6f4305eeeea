import { createServer, IncomingMessage, Server } from 'http';
import type { AddressInfo } from 'net';

import { WEBHOOK_IN_FLIGHT } from '../../src/webhooks/webhook-worker';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { pendingDeliveries, recordEvent } from '../setup/events';
import { Receiver, startReceiver } from '../setup/webhook-receiver';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * D38 (issue 31): tenants do not wait for each other. A workspace with 20
 * webhooks whose receivers accept the connection and never answer (each
 * attempt holds its slot for WEBHOOK_TIMEOUT_MS, 10 s), and writes in it: another
 * workspace's webhook is still delivered within 5 s of its event's commit, and
 * no webhook ever has more than WEBHOOK_IN_FLIGHT attempts in flight (several
 * at once: no order is promised). A workspace holds at most
 * WEBHOOKS_PER_WORKSPACE_MAX webhooks: one more answers 409.
 */

/** An HTTP server on 127.0.0.1 that reads each request and never answers; counts requests in flight by path. */
async function startSilentServer(): Promise<{ url: string; requests: number; maxInFlightPerPath: number; close: () => Promise<void> }> {
  const inFlight = new Map<string, number>();
  const open = new Set<IncomingMessage>();
  const state = { url: '', requests: 0, maxInFlightPerPath: 0, close: async () => undefined as void };
  const server: Server = createServer((request) => {
    const path = request.url ?? '';
    state.requests++;
    open.add(request);
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    state.maxInFlightPerPath = Math.max(state.maxInFlightPerPath, now);
    request.socket.once('close', () => {
      open.delete(request);
      inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
    });
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const request of open) request.socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

describe('webhook delivery: tenants do not wait for each other (D38)', () => {
  const env = { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_DELAYS_MS: '0', WEBHOOK_TIMEOUT_MS: '10000' };
  let t: TestApp;
  let w: RoleWorld;
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp({ env });
    w = await loadRoleWorld(t.db.ds, 'wi');
    silent = await startSilentServer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await silent.close();
    await receiver.close();
  });

  const create = (url: string) =>
    t.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(w.key('owner')), payload: { workspace_id: w.ids.ws, url } });

  it('a workspace holds at most 20 webhooks: concurrent creates past the cap answer 409 with the setting in the message', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => create(`${silent.url}/hook/${i}`)));
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([...Array(20).fill(201), ...Array(4).fill(409)]);
    for (const res of answers.filter((a) => a.statusCode === 409)) expect(res.json()).toEqual({ error: 'A workspace can have at most 20 webhooks' });
    const [{ n }] = await t.db.ds.query(`SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1`, [w.ids.ws]);
    expect(n).toBe(20);
    // After a delete there is room for one again (put back as it was: 20 webhooks, one per path).
    const list = (await t.inject({ method: 'GET', url: `/api/v1/workspaces/${w.ids.ws}/webhooks`, headers: auth(w.key('owner')) })).json();
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${list[0].id}`, headers: auth(w.key('owner')) })).statusCode).toBe(204);
    expect((await create(list[0].url)).statusCode).toBe(201);
    expect((await create(`${silent.url}/hook/extra`)).statusCode).toBe(409);
  });

  it('20 silent receivers and writes in one workspace: another workspace is delivered within 5 s, and no webhook has more than WEBHOOK_IN_FLIGHT attempts in flight', async () => {
    // The other workspace's webhook (its owner is another user: inserted as the create route would, from now on).
    await t.db.ds.query(
      `INSERT INTO webhooks (workspace_id, url, events, secret, dispatched_through)
       VALUES ($1, $2, ARRAY['label.created'], $3, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq))`,
      [w.ids.other, receiver.url, 'whsec_' + Buffer.alloc(32, 3).toString('base64')],
    );
    // More writes in the noisy workspace than a webhook may have attempts in flight: 20 attempts each, each hanging for 10 s.
    for (let i = 0; i < WEBHOOK_IN_FLIGHT + 4; i++) await recordEvent(t.db.ds, { workspaceId: w.ids.ws, type: 'label.created', data: { label_id: i } });
    // Until the silent receivers are busy.
    const deadline = Date.now() + 10_000;
    while (silent.requests < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(silent.requests).toBeGreaterThanOrEqual(3);

    // Then events of the other workspace, one at a time: each delivered within 5 s of its commit.
    for (let i = 0; i < 3; i++) {
      const committed = Date.now();
      const e = await recordEvent(t.db.ds, { workspaceId: w.ids.other, type: 'label.created', data: { label_id: 100 + i } });
      await receiver.waitFor((got) => got.some((r) => r.headers['webhook-id'] === `evt_${e.id}`), 5_000);
      expect(Date.now() - committed).toBeLessThan(5_000);
    }
    expect(silent.maxInFlightPerPath).toBeGreaterThan(1);
    expect(silent.maxInFlightPerPath).toBeLessThanOrEqual(WEBHOOK_IN_FLIGHT);
    // The noisy workspace's deliveries are still pending (its receivers hold them), not lost.
    expect(await pendingDeliveries(t.db.ds)).toBeGreaterThan(0);
  }, 60_000);
});
