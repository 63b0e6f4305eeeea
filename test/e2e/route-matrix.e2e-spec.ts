import type { InjectOptions } from 'fastify';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { ROUTES, routeName, RouteSpec, routeUrl } from '../setup/routes';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Every route of D1 against the checks every route makes, in the order of D3
 * (issue 10, item 7): 401 for no key, a bad key, an expired key and a revoked
 * key (D20), 403 for a key lacking the route's scope (D21); these come before
 * the id is even read, so they are sent with a malformed id. Then 400 for a
 * malformed id (D5, D6), 404 for a well-formed id nothing has (D4), and the
 * answer a caller who is not a member of the target's workspace gets (D4).
 */

/** D6: malformed path ids. */
const PATH_400: Record<string, string> = {
  workspace: 'Invalid workspace ID', folder: 'Invalid folder ID', list: 'Invalid list ID',
  task: 'Invalid task ID', status: 'Invalid status ID', label: 'Invalid label ID', webhook: 'Invalid webhook ID',
};
/** D6: malformed parent ids in a create body. */
const BODY_400: Record<string, string> = { workspace_id: 'workspace_id is required', list_id: 'list_id must be a valid numeric ID' };

/** D4: the answer to an id nothing has, by route. */
const NOT_FOUND: Record<string, string> = {
  workspace: 'Workspace not found', folder: 'Folder not found', list: 'List not found', task: 'Task not found',
  status: 'Status not found', label: 'Label not found', workspace_id: 'Workspace not found', list_id: 'List not found in this workspace',
  webhook: 'Webhook not found',
};

/** D4: what a caller who is not a member of the target's workspace gets, by target. */
const NON_MEMBER: Record<string, [number, string]> = {
  workspace: [404, 'Workspace not found'], folder: [404, 'Folder not found'], workspace_id: [404, 'Workspace not found'],
  list: [403, 'Access denied'], task: [403, 'Access denied'], status: [403, 'Access denied'], label: [403, 'Access denied'],
  list_id: [403, 'Access denied'], webhook: [403, 'Access denied'],
};

/** The target of each kind in the world's workspace `ws`. */
const TARGET_REF: Record<string, string> = {
  workspace: 'ws', folder: 'eng', list: 'backlog', task: 't_backlog', status: 'review', label: 'bug', workspace_id: 'ws', list_id: 'backlog',
  webhook: 'webhook',
};

const targetKey = (r: RouteSpec): string => (r.target === undefined ? '' : r.target.in === 'path' ? r.target.kind : r.target.field);

/** A valid body for each route that takes one (its target id put in by `request`). */
function bodyOf(r: RouteSpec, w: RoleWorld): Record<string, unknown> | undefined {
  switch (routeName(r)) {
    case 'POST /api/v1/labels': return { name: 'New label' };
    case 'POST /api/v1/statuses': return { name: 'New status', category: 'pending' };
    case 'POST /api/v1/folders': return { name: 'New folder' };
    case 'POST /api/v1/lists': return { folder_id: w.ids.eng, name: 'New list' };
    case 'POST /api/v1/tasks': return { title: 'New task' };
    case 'POST /api/v1/tasks/:task_id/comments': return { content: '<p>New</p>' };
    case 'POST /api/v1/webhooks': return { url: 'https://localhost/hook' };
    default: return r.method === 'PATCH' ? { name: 'Renamed' } : undefined;
  }
}

/** The request of `r` on target `id` (any text, malformed too), with `key` (none when undefined). */
function request(r: RouteSpec, w: RoleWorld, id: string | number, key?: string): InjectOptions {
  const body = bodyOf(r, w);
  const options: InjectOptions = { method: r.method, url: r.target?.in === 'path' ? routeUrl(r, id) : r.path, headers: key ? auth(key) : {} };
  if (r.target?.in === 'body') options.payload = { ...body, [r.target.field]: id };
  else if (body) options.payload = body;
  return options;
}

describe('route matrix: every route of D1 (issue 10)', () => {
  let t: TestApp;
  let w: RoleWorld;

  beforeAll(async () => {
    t = await createTestApp();
    w = await loadRoleWorld(t.db.ds, 'rm');
    // D38: the world's webhook (webhooks are not part of fixtures).
    const [hook] = await t.db.ds.query(`INSERT INTO webhooks (workspace_id, url, events, secret) VALUES ($1, 'https://localhost/hook', '{task.created}', 'whsec_x') RETURNING id`, [w.ids.ws]);
    w.ids.webhook = hook.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const answer = async (options: InjectOptions) => {
    const res = await t.inject(options);
    return { status: res.statusCode, body: res.json() as unknown };
  };

  it('covers the 26 routes of D1 and the 5 of D38, each once', () => {
    expect(new Set(ROUTES.map(routeName)).size).toBe(31);
  });

  describe.each(ROUTES.map((r) => [routeName(r), r] as const))('%s', (_name, r) => {
    it.each([
      ['no key', () => undefined, 'API key required'],
      ['a key without the prefix', () => 'key_without_prefix', 'API key required'],
      ['an unknown key', () => 'svc_rm_nobody', 'Invalid API key'],
      ['an expired key', () => w.expiredKey, 'API key has expired'],
      ['a revoked key', () => w.revokedKey, 'Invalid API key'],
    ])('401 for %s, before the id is read, with WWW-Authenticate: Bearer', async (_case, key, message) => {
      const res = await t.inject(request(r, w, 'abc', key()));
      expect([res.statusCode, res.json()]).toEqual([401, { error: message }]);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it(`403 for a key lacking ${r.scope} (and only it), before the id is read`, async () => {
      expect(await answer(request(r, w, 'abc', w.keyWithout(r.scope)))).toEqual({ status: 403, body: { error: `Scope '${r.scope}' is required for this endpoint` } });
    });

    if (r.target === undefined) return;
    const target = targetKey(r);
    const message400 = r.target.in === 'path' ? PATH_400[target] : BODY_400[target];

    it.each(['abc', '1.5', '-1', '1e3'])(`400 for the malformed id %p: ${message400}`, async (id) => {
      expect(await answer(request(r, w, id, w.key('owner')))).toEqual({ status: 400, body: { error: message400 } });
    });

    it(`404 for a well-formed id nothing has: ${NOT_FOUND[target]}`, async () => {
      expect(await answer(request(r, w, 99999999, w.key('owner')))).toEqual({ status: 404, body: { error: NOT_FOUND[target] } });
    });

    it(`${NON_MEMBER[target].join(' ')} for a caller who is not a member of the target's workspace`, async () => {
      const [status, error] = NON_MEMBER[target];
      expect(await answer(request(r, w, w.ids[TARGET_REF[target]], w.key('outsider')))).toEqual({ status, body: { error } });
    });
  });
});
