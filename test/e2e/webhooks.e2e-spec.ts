import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { CONTRACT_EVENT_TYPES } from '../setup/events';
import { loadRoleWorld, RoleWorld, WorldRole } from '../setup/world';

/**
 * Webhook routes (D38): create, list, update, delete, deliveries; their
 * messages, the order of checks (D3), body rules, roles (managers) and scopes
 * (D21). Delivery itself: webhook-delivery.e2e-spec.ts.
 */

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WEBHOOK_KEYS = ['active', 'created_at', 'events', 'id', 'url', 'workspace_id'] satisfies Array<keyof Schema<'Webhook'>>;
const CREATED_WEBHOOK_KEYS = ['active', 'created_at', 'events', 'id', 'secret', 'url', 'workspace_id'] satisfies Array<keyof Schema<'CreatedWebhook'>>;
const ROLE_DENIED = { error: 'Only owners and admins can manage webhooks' };
const URL_MESSAGE = { error: 'url must be an https URL' };
const PRIVATE_MESSAGE = { error: 'url must not point to a private address' };
const EVENTS_MESSAGE = { error: 'events must be a non-empty array of event types' };

describe('webhook routes (D38)', () => {
  let t: TestApp;
  let w: RoleWorld;

  beforeAll(async () => {
    t = await createTestApp();
    w = await loadRoleWorld(t.db.ds, 'wh');
  });
  afterAll(async () => {
    await t.close();
  });

  const send = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: unknown) => {
    const res = await t.inject({ method, url, headers: auth(key), ...(payload !== undefined ? { payload: payload as object } : {}) });
    return { status: res.statusCode, body: res.body === '' ? undefined : (res.json() as unknown), headers: res.headers };
  };
  const create = (payload: Record<string, unknown>, role: WorldRole = 'owner') =>
    send('POST', '/api/v1/webhooks', w.key(role), { workspace_id: w.ids.ws, ...payload });
  const eventCount = async () => Number((await t.db.ds.query(`SELECT count(*)::int AS n FROM events`))[0].n);

  describe('POST /api/v1/webhooks', () => {
    it('201: the webhook with its secret, all event types by default, active, the URL as the WHATWG parser serializes it', async () => {
      const res = await create({ url: 'HTTPS://Hooks.Example.COM:443/a/../b?x=1', active: false, unknown: 1 });
      expect(res.status).toBe(201);
      const body = res.body as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(CREATED_WEBHOOK_KEYS);
      expect(body).toEqual({
        id: expect.any(Number),
        workspace_id: w.ids.ws,
        url: 'https://hooks.example.com/b?x=1',
        events: CONTRACT_EVENT_TYPES,
        active: true,
        created_at: expect.stringMatching(TS),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      } satisfies Schema<'CreatedWebhook'>);
      expect(Buffer.from((body.secret as string).slice(6), 'base64')).toHaveLength(32);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('each webhook gets its own secret; a URL may be subscribed twice', async () => {
      const a = (await create({ url: 'https://localhost/twice' })).body as { secret: string; id: number };
      const b = (await create({ url: 'https://localhost/twice' })).body as { secret: string; id: number };
      expect(a.secret).not.toBe(b.secret);
      expect(a.id).not.toBe(b.id);
    });

    it('admins may create; members, viewers and restricted members get 403', async () => {
      expect((await create({ url: 'https://localhost/admin' }, 'admin')).status).toBe(201);
      for (const role of ['member', 'viewer', 'restricted', 'restrictedViewer'] as const) {
        expect(await create({ url: 'https://localhost/x' }, role)).toMatchObject({ status: 403, body: ROLE_DENIED });
      }
    });

    it('the role is checked before the body (D3): a member with a bad url gets 403', async () => {
      expect(await create({ url: 5, events: 'x' }, 'member')).toMatchObject({ status: 403, body: ROLE_DENIED });
    });

    it('non-members and unknown workspaces get 404 Workspace not found; a bad workspace_id 400 first', async () => {
      expect(await create({ url: 5 }, 'outsider')).toMatchObject({ status: 404, body: { error: 'Workspace not found' } });
      expect(await send('POST', '/api/v1/webhooks', w.key('owner'), { workspace_id: 99999999, url: 5 })).toMatchObject({
        status: 404,
        body: { error: 'Workspace not found' },
      });
      expect(await send('POST', '/api/v1/webhooks', w.key('owner'), { url: 'https://localhost/' })).toMatchObject({
        status: 400,
        body: { error: 'workspace_id is required' },
      });
      expect(await send('POST', '/api/v1/webhooks', w.key('owner'), { workspace_id: '1.5', url: 5 })).toMatchObject({
        status: 400,
        body: { error: 'workspace_id is required' },
      });
    });

    it.each([
      ['missing', undefined],
      ['null', null],
      ['a number', 5],
      ['an array', ['https://localhost/']],
      ['unparsable', 'not a url'],
      ['relative', '/hook'],
      ['another scheme', 'ftp://localhost/hook'],
      ['http (not allowed by default)', 'http://localhost/hook'],
      ['a user name', 'https://user@localhost/hook'],
      ['a user and password', 'https://user:pw@localhost/hook'],
      ['a fragment', 'https://localhost/hook#part'],
      ['an empty fragment', 'https://localhost/hook#'],
      ['over 2,000 characters serialized', 'https://localhost/' + 'a'.repeat(1983)],
    ])('400 url must be an https URL: %s', async (_case, url) => {
      expect(await create(url === undefined ? {} : { url })).toMatchObject({ status: 400, body: URL_MESSAGE });
    });

    it('a URL of exactly 2,000 characters is accepted', async () => {
      const url = 'https://localhost/' + 'a'.repeat(1982);
      expect(url).toHaveLength(2000);
      expect(await create({ url })).toMatchObject({ status: 201, body: { url } });
    });

    it.each([
      'https://127.0.0.1/',
      'https://127.1.2.3:8443/x',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://10.1.2.3/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://169.254.169.254/latest',
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
      'https://192.0.2.1/',
      'https://[::1]/',
      'https://[::]/',
      'https://[fe80::1]/',
      'https://[fc00::1]/',
      'https://[fd12:3456::1]/',
      'https://[ff02::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[2001:db8::1]/',
      // Reserved IPv6 outside global unicast, and IPv4-compatible forms (issue 31).
      'https://[::127.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[::8.8.8.8]/',
      'https://[::2]/',
      'https://[4000::1]/',
      'https://[100::1]/',
      'https://[64:ff9b::808:808]/',
      'https://[8000::1]/',
      'https://[e000::1]/',
      'https://[2001::1]/',
      'https://[2002:7f00:1::]/',
    ])('400 url must not point to a private address: %s', async (url) => {
      expect(await create({ url })).toMatchObject({ status: 400, body: PRIVATE_MESSAGE });
    });

    it('public IP addresses and any host name are accepted (host names are judged at delivery)', async () => {
      expect(await create({ url: 'https://93.184.215.14/hook' })).toMatchObject({ status: 201, body: { url: 'https://93.184.215.14/hook' } });
      expect(await create({ url: 'https://[2606:4700::1]/hook' })).toMatchObject({ status: 201, body: { url: 'https://[2606:4700::1]/hook' } });
      expect(await create({ url: 'https://[::ffff:93.184.215.14]/' })).toMatchObject({ status: 201, body: { url: 'https://[::ffff:5db8:d70e]/' } });
      expect(await create({ url: 'https://localhost:8443/hook' })).toMatchObject({ status: 201, body: { url: 'https://localhost:8443/hook' } });
    });

    it.each([
      ['null', null],
      ['empty', []],
      ['a string', 'task.created'],
      ['an object', { 'task.created': true }],
      ['an unknown type', ['task.created', 'task.exploded']],
      ['a number element', [1]],
      ['a wrong case', ['Task.Created']],
    ])('400 events must be a non-empty array of event types: %s', async (_case, events) => {
      expect(await create({ url: 'https://localhost/', events })).toMatchObject({ status: 400, body: EVENTS_MESSAGE });
    });

    it('events are stored without duplicates in table order', async () => {
      const res = await create({ url: 'https://localhost/', events: ['label.deleted', 'task.created', 'label.deleted', 'comment.created'] });
      expect(res).toMatchObject({ status: 201, body: { events: ['task.created', 'comment.created', 'label.deleted'] } });
    });

    it('url is checked before events', async () => {
      expect(await create({ url: 'ftp://x/', events: [] })).toMatchObject({ status: 400, body: URL_MESSAGE });
      expect(await create({ url: 'https://10.0.0.1/', events: [] })).toMatchObject({ status: 400, body: PRIVATE_MESSAGE });
    });

    it('records no event', async () => {
      const before = await eventCount();
      expect((await create({ url: 'https://localhost/quiet' })).status).toBe(201);
      expect(await eventCount()).toBe(before);
    });
  });

  describe('the other routes', () => {
    let hook: Omit<Schema<'Webhook'>, 'active' | 'workspace_id'>;
    let otherHook: number;

    beforeAll(async () => {
      const { secret, active, workspace_id, ...created } = (
        await create({ url: 'https://localhost/managed', events: ['task.created'] } satisfies Omit<Schema<'CreateWebhook'>, 'workspace_id'>)
      ).body as Schema<'CreatedWebhook'>;
      expect({ active, workspace_id }).toEqual({ active: true, workspace_id: w.ids.ws });
      expect(secret).toMatch(/^whsec_/);
      hook = created;
      otherHook = (
        (await send('POST', '/api/v1/webhooks', w.key('outsider'), { workspace_id: w.ids.other, url: 'https://localhost/other' })).body as { id: number }
      ).id;
    });

    it("GET list: the workspace's webhooks by id, without secrets; query parameters are ignored", async () => {
      const res = await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks?limit=1&page=x`, w.key('admin'));
      expect(res.status).toBe(200);
      const list = res.body as Array<Record<string, unknown>>;
      expect(list.length).toBeGreaterThan(3);
      for (const item of list) expect(Object.keys(item).sort()).toEqual(WEBHOOK_KEYS);
      expect(list.map((h) => h.id)).toEqual([...list.map((h) => h.id as number)].sort((a, b) => a - b));
      expect(list).toContainEqual({ ...hook, active: true, workspace_id: w.ids.ws } satisfies Schema<'Webhook'>);
      expect(JSON.stringify(list)).not.toContain('whsec_');
      expect(list.every((h) => h.workspace_id === w.ids.ws)).toBe(true);
      const other = await send('GET', `/api/v1/workspaces/${w.ids.other}/webhooks`, w.key('outsider'));
      expect(other.body).toEqual([expect.objectContaining({ id: otherHook })]);
    });

    it('GET list: empty array for a workspace without webhooks', async () => {
      await t.db.ds.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [w.ids.other]);
      expect(await send('GET', `/api/v1/workspaces/${w.ids.other}/webhooks`, w.key('outsider'))).toMatchObject({ status: 200, body: [] });
      otherHook = (
        (await send('POST', '/api/v1/webhooks', w.key('outsider'), { workspace_id: w.ids.other, url: 'https://localhost/other' })).body as { id: number }
      ).id;
    });

    it('GET list: members and viewers 403; non-members 404; bad id 400', async () => {
      for (const role of ['member', 'viewer', 'restricted'] as const) {
        expect(await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, w.key(role))).toMatchObject({ status: 403, body: ROLE_DENIED });
      }
      expect(await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, w.key('outsider'))).toMatchObject({
        status: 404,
        body: { error: 'Workspace not found' },
      });
      expect(await send('GET', `/api/v1/workspaces/99999999/webhooks`, w.key('owner'))).toMatchObject({ status: 404, body: { error: 'Workspace not found' } });
      expect(await send('GET', `/api/v1/workspaces/abc/webhooks`, w.key('owner'))).toMatchObject({ status: 400, body: { error: 'Invalid workspace ID' } });
    });

    it('PATCH changes only the fields sent and answers the webhook without its secret', async () => {
      const url = `/api/v1/webhooks/${hook.id}`;
      expect(await send('PATCH', url, w.key('owner'), {} satisfies Schema<'UpdateWebhook'>)).toMatchObject({
        status: 200,
        body: { ...hook, active: true, workspace_id: w.ids.ws } satisfies Schema<'Webhook'>,
      });
      expect(Object.keys((await send('PATCH', url, w.key('owner'), {})).body as object).sort()).toEqual(WEBHOOK_KEYS);
      const moved = await send('PATCH', url, w.key('admin'), { url: 'https://LOCALHOST:443/moved' } satisfies Schema<'UpdateWebhook'>);
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ ...hook, url: 'https://localhost/moved', active: true, workspace_id: w.ids.ws } satisfies Schema<'Webhook'>);
      const later = { ...hook, url: 'https://localhost/moved', events: ['task.deleted', 'list.updated'], workspace_id: w.ids.ws } satisfies Omit<
        Schema<'Webhook'>,
        'active'
      >;
      expect(
        await send('PATCH', url, w.key('owner'), { events: ['list.updated', 'task.deleted', 'list.updated'], active: false } satisfies Schema<'UpdateWebhook'>),
      ).toMatchObject({ status: 200, body: { ...later, active: false } satisfies Schema<'Webhook'> });
      expect(await send('PATCH', url, w.key('owner'), { active: true } satisfies Schema<'UpdateWebhook'>)).toMatchObject({
        status: 200,
        body: { ...later, active: true } satisfies Schema<'Webhook'>,
      });
      const listed = (await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, w.key('owner'))).body as Array<{ id: number }>;
      expect(listed.find((h) => h.id === hook.id)).toEqual({ ...later, active: true } satisfies Schema<'Webhook'>);
    });

    it.each([
      [{ url: null }, URL_MESSAGE],
      [{ url: 'http://localhost/' }, URL_MESSAGE],
      [{ url: 'https://[::1]/' }, PRIVATE_MESSAGE],
      [{ events: null }, EVENTS_MESSAGE],
      [{ events: [] }, EVENTS_MESSAGE],
      [{ active: 'false' }, { error: 'active must be a boolean' }],
      [{ active: null }, { error: 'active must be a boolean' }],
      [{ active: 0 }, { error: 'active must be a boolean' }],
      [{ url: 'x', events: [], active: 1 }, URL_MESSAGE],
      [{ events: ['nope'], active: 1 }, EVENTS_MESSAGE],
    ])('PATCH 400 for %j', async (payload, error) => {
      expect(await send('PATCH', `/api/v1/webhooks/${hook.id}`, w.key('owner'), payload)).toMatchObject({ status: 400, body: error });
    });

    it.each([
      ['PATCH', { active: 'x' }],
      ['DELETE', undefined],
      ['GET', undefined],
    ] as const)('%s: members and viewers 403 (before the body), non-members 403 Access denied, unknown 404, bad id 400', async (method, payload) => {
      const path = (id: string | number) => (method === 'GET' ? `/api/v1/webhooks/${id}/deliveries` : `/api/v1/webhooks/${id}`);
      for (const role of ['member', 'viewer', 'restrictedViewer'] as const) {
        expect(await send(method, path(hook.id), w.key(role), payload)).toMatchObject({ status: 403, body: ROLE_DENIED });
      }
      expect(await send(method, path(hook.id), w.key('outsider'), payload)).toMatchObject({ status: 403, body: { error: 'Access denied' } });
      expect(await send(method, path(otherHook), w.key('owner'), payload)).toMatchObject({ status: 403, body: { error: 'Access denied' } });
      expect(await send(method, path(99999999), w.key('owner'), payload)).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
      expect(await send(method, path(0), w.key('owner'), payload)).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
      for (const bad of ['abc', '1.5', '-1', '1e3']) {
        expect(await send(method, path(bad), w.key('owner'), payload)).toMatchObject({ status: 400, body: { error: 'Invalid webhook ID' } });
      }
    });

    it('GET deliveries: an empty array before any attempt', async () => {
      expect(await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=5`, w.key('admin'))).toMatchObject({ status: 200, body: [] });
    });

    it('PATCH and DELETE record no event', async () => {
      const before = await eventCount();
      await send('PATCH', `/api/v1/webhooks/${hook.id}`, w.key('owner'), { active: false });
      const doomed = (await create({ url: 'https://localhost/doomed' })).body as { id: number };
      await send('DELETE', `/api/v1/webhooks/${doomed.id}`, w.key('owner'));
      expect(await eventCount()).toBe(before);
    });

    it('DELETE: 204 without a body; then the webhook is gone from every route', async () => {
      const doomed = (await create({ url: 'https://localhost/doomed' })).body as { id: number };
      const res = await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${doomed.id}`, headers: auth(w.key('admin')) });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(await send('DELETE', `/api/v1/webhooks/${doomed.id}`, w.key('owner'))).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
      expect(await send('PATCH', `/api/v1/webhooks/${doomed.id}`, w.key('owner'), {})).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
      expect(await send('GET', `/api/v1/webhooks/${doomed.id}/deliveries`, w.key('owner'))).toMatchObject({
        status: 404,
        body: { error: 'Webhook not found' },
      });
      const listed = (await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, w.key('owner'))).body as Array<{ id: number }>;
      expect(listed.map((h) => h.id)).not.toContain(doomed.id);
    });
  });

  describe('scopes (D21): exactly the ones a key lists', () => {
    it('webhooks:read lists but does not write; webhooks:write writes but does not list', async () => {
      const readOnly = w.keyWithout('webhooks:write');
      const writeOnly = w.keyWithout('webhooks:read');
      expect((await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, readOnly)).status).toBe(200);
      expect(await send('POST', '/api/v1/webhooks', readOnly, { workspace_id: w.ids.ws, url: 'https://localhost/' })).toMatchObject({
        status: 403,
        body: { error: "Scope 'webhooks:write' is required for this endpoint" },
      });
      expect((await send('POST', '/api/v1/webhooks', writeOnly, { workspace_id: w.ids.ws, url: 'https://localhost/' })).status).toBe(201);
      expect(await send('GET', `/api/v1/workspaces/${w.ids.ws}/webhooks`, writeOnly)).toMatchObject({
        status: 403,
        body: { error: "Scope 'webhooks:read' is required for this endpoint" },
      });
    });
  });
});
