import type { InjectOptions } from 'fastify';

import { hashApiKey } from '../../src/common/auth/api-key';
import { auth } from '../setup/create-app';
import { routeName, ROUTES, RouteSpec, routeUrl } from '../setup/routes';
import { roleKeys, RoleWorld, useRoleWorld, WorldRole } from '../setup/world';

/**
 * Every route of D1 against the checks every route makes, in the order of D3:
 * 401 for no key, a bad key, an expired key and a revoked key (D20), 403 for a
 * key lacking the route's scope (D21); these come before the id is even read,
 * so they are sent with a malformed id. Then 400 for a malformed id (D5, D6),
 * 404 for a well-formed id nothing has (D4), the answer a caller who is not a
 * member of the target's workspace gets (D4), and the role rule of each write
 * route (D2, D30), which comes before the body (D3 step 6). Domain spec files
 * keep only their own rules: these cases live here once.
 */

/** D6: malformed path ids. */
const PATH_400: Record<string, string> = {
  workspace: 'Invalid workspace ID',
  folder: 'Invalid folder ID',
  list: 'Invalid list ID',
  task: 'Invalid task ID',
  status: 'Invalid status ID',
  label: 'Invalid label ID',
  webhook: 'Invalid webhook ID',
  comment: 'Invalid comment ID',
  custom_field: 'Invalid custom field ID',
  attachment: 'Invalid attachment ID',
  user: 'Invalid user ID',
  api_key: 'Invalid API key ID',
};
/** D6: malformed parent ids in a create body. */
const BODY_400: Record<string, string> = { workspace_id: 'workspace_id is required', list_id: 'list_id must be a valid numeric ID' };

/** D5, D6: path ids that are not the digits of a positive integer (`%201` is ` 1`). */
const MALFORMED_PATH_IDS = ['abc', '1.5', '-1', '1e3', '0x10', '12abc', '2.0', '%201'];
/** D5, D6: body parent ids that are not a positive integer nor its digits. */
const MALFORMED_BODY_IDS: unknown[] = ['abc', '1.5', '-1', '1e3', '1.0', 1.5, -1, '', true, false, {}, []];
/** D21: a key with no scopes, and keys whose stored scopes only look like wildcards or differ in case. */
const NO_SCOPE_KEY = 'svc_rm_none';
const WILDCARD_KEYS: Record<string, string[]> = {
  svc_rm_wild_star: ['*'],
  svc_rm_wild_prefix: ['workspaces:*', 'users:*', 'folders:*', 'lists:*', 'tasks:*', 'comments:*'],
  svc_rm_wild_case: ['WORKSPACES:READ', 'Users:Read', 'Folders:Read', 'LISTS:WRITE', 'Tasks:Read', 'COMMENTS:READ'],
};

/** D6: the answer to a create body without its parent id (left out or null). */
const BODY_MISSING: Record<string, string> = { workspace_id: 'workspace_id is required', list_id: 'list_id is required' };
/** D5: well-formed ids nothing has: zero, an unused id, one past the integer range. */
const UNKNOWN_IDS: (string | number)[] = [99999999, 0, '0', '99999999999999'];

/** D4: the answer to an id nothing has, by route. */
const NOT_FOUND: Record<string, string> = {
  workspace: 'Workspace not found',
  folder: 'Folder not found',
  list: 'List not found',
  task: 'Task not found',
  status: 'Status not found',
  label: 'Label not found',
  workspace_id: 'Workspace not found',
  list_id: 'List not found in this workspace',
  webhook: 'Webhook not found',
  comment: 'Comment not found',
  custom_field: 'Custom field not found',
  attachment: 'Attachment not found',
  api_key: 'API key not found',
};

/** D4: what a caller who is not a member of the target's workspace gets, by target. */
const NON_MEMBER: Record<string, [number, string]> = {
  workspace: [404, 'Workspace not found'],
  folder: [404, 'Folder not found'],
  workspace_id: [404, 'Workspace not found'],
  list: [403, 'Access denied'],
  task: [403, 'Access denied'],
  status: [403, 'Access denied'],
  label: [403, 'Access denied'],
  list_id: [403, 'Access denied'],
  webhook: [403, 'Access denied'],
  comment: [403, 'Access denied'],
  custom_field: [403, 'Access denied'],
  attachment: [403, 'Access denied'],
  // D46: a key of another user is no key of the caller's.
  api_key: [404, 'API key not found'],
};

/** The target of each kind in the world's workspace `ws`. */
const TARGET_REF: Record<string, string> = {
  workspace: 'ws',
  folder: 'eng',
  list: 'backlog',
  task: 't_backlog',
  status: 'review',
  label: 'bug',
  workspace_id: 'ws',
  list_id: 'backlog',
  webhook: 'webhook',
  comment: 'comment_backlog',
  custom_field: 'notes',
  attachment: 'attachment',
  api_key: 'k_owner_key',
};
/** The target of each kind in the outsider's workspace `other`, of which the owner of `ws` is no member. */
const OTHER_REF: Record<string, string> = {
  workspace: 'other',
  folder: 'o_folder',
  list: 'o_list',
  task: 'o_task',
  status: 'o_todo',
  label: 'o_bug',
  workspace_id: 'other',
  list_id: 'o_list',
  webhook: 'o_webhook',
  comment: 'o_comment',
  custom_field: 'o_field',
  attachment: 'o_attachment',
  api_key: 'o_key',
};
/** The target of each kind in `ws` not granted to the restricted member (granted folder `eng` only). */
const NOT_GRANTED_REF: Record<string, string> = {
  ...TARGET_REF,
  folder: 'ops',
  list: 'inbox',
  task: 't_inbox',
  list_id: 'inbox',
  comment: 'comment_inbox',
  attachment: 'inbox_attachment',
};

/**
 * D2: the 403 of each write route to the roles its class excludes (writer
 * routes: viewers; manager routes: members and viewers, restricted or not).
 * D3 step 6: the role is checked before the body, so it is sent a bad one too.
 */
const DENIAL: Record<string, string> = {
  'POST /api/v1/labels': 'Only owners and admins can create labels',
  'DELETE /api/v1/labels/:label_id': 'Only owners and admins can delete labels',
  'POST /api/v1/statuses': 'Only owners and admins can create statuses',
  'PATCH /api/v1/statuses/:status_id': 'Only owners and admins can edit statuses',
  'POST /api/v1/folders': 'Viewers cannot create folders',
  'PATCH /api/v1/folders/:folder_id': 'Viewers cannot edit folders',
  'DELETE /api/v1/folders/:folder_id': 'Only owners and admins can delete folders',
  'POST /api/v1/lists': 'Viewers cannot create lists',
  'PATCH /api/v1/lists/:list_id': 'Viewers cannot edit lists',
  'DELETE /api/v1/lists/:list_id': 'Only owners and admins can delete lists',
  'POST /api/v1/tasks': 'Viewers cannot create tasks',
  'PATCH /api/v1/tasks/:task_id': 'Viewers cannot edit tasks',
  'DELETE /api/v1/tasks/:task_id': 'Viewers cannot delete tasks',
  'POST /api/v1/tasks/:task_id/comments': 'Viewers cannot comment',
  'POST /api/v1/webhooks': 'Only owners and admins can manage webhooks',
  'GET /api/v1/workspaces/:workspace_id/webhooks': 'Only owners and admins can manage webhooks',
  'PATCH /api/v1/webhooks/:webhook_id': 'Only owners and admins can manage webhooks',
  'DELETE /api/v1/webhooks/:webhook_id': 'Only owners and admins can manage webhooks',
  'GET /api/v1/webhooks/:webhook_id/deliveries': 'Only owners and admins can manage webhooks',
  'PATCH /api/v1/labels/:label_id': 'Only owners and admins can edit labels',
  'DELETE /api/v1/statuses/:status_id': 'Only owners and admins can delete statuses',
  'PUT /api/v1/tasks/:task_id/labels/:label_id': 'Viewers cannot edit tasks',
  'DELETE /api/v1/tasks/:task_id/labels/:label_id': 'Viewers cannot edit tasks',
  'PATCH /api/v1/comments/:comment_id': 'Viewers cannot edit comments',
  'DELETE /api/v1/comments/:comment_id': 'Viewers cannot delete comments',
  'POST /api/v1/custom-fields': 'Only owners and admins can manage custom fields',
  'GET /api/v1/custom-fields/:custom_field_id': 'Only owners and admins can manage custom fields',
  'PATCH /api/v1/custom-fields/:custom_field_id': 'Only owners and admins can manage custom fields',
  'DELETE /api/v1/custom-fields/:custom_field_id': 'Only owners and admins can manage custom fields',
  'POST /api/v1/tasks/:task_id/attachments': 'Viewers cannot upload attachments',
  'POST /api/v1/attachments/:attachment_id/confirm': 'Viewers cannot upload attachments',
  'DELETE /api/v1/attachments/:attachment_id': 'Viewers cannot delete attachments',
  'PATCH /api/v1/workspaces/:workspace_id': 'Only owners and admins can edit workspaces',
  'DELETE /api/v1/workspaces/:workspace_id': 'Only the owner can delete the workspace',
  'POST /api/v1/workspaces/:workspace_id/members': 'Only owners and admins can manage members',
  'PATCH /api/v1/workspaces/:workspace_id/members/:user_id': 'Only owners and admins can manage members',
  'DELETE /api/v1/workspaces/:workspace_id/members/:user_id': 'Only owners and admins can manage members',
  'GET /api/v1/workspaces/:workspace_id/members/:user_id/access': 'Only owners and admins can manage members',
};
const DENIED_ROLES: Record<'writer' | 'manager' | 'owner', WorldRole[]> = {
  writer: ['viewer', 'restrictedViewer'],
  manager: ['member', 'viewer', 'restricted', 'restrictedViewer'],
  owner: ['admin', 'member', 'viewer', 'restricted', 'restrictedViewer'],
};

const targetKey = (r: RouteSpec): string => (r.target === undefined ? '' : r.target.in === 'path' ? r.target.kind : r.target.field);

/** A valid body for each route that takes one (its target id put in by `request`; a new list goes into `folder`). */
function bodyOf(r: RouteSpec, w: RoleWorld, folder = 'eng'): Record<string, unknown> | undefined {
  switch (routeName(r)) {
    case 'POST /api/v1/labels':
      return { name: 'New label' };
    case 'POST /api/v1/statuses':
      return { name: 'New status', category: 'pending' };
    case 'POST /api/v1/folders':
      return { name: 'New folder' };
    case 'POST /api/v1/lists':
      return { folder_id: w.ids[folder], name: 'New list' };
    case 'POST /api/v1/tasks':
      return { title: 'New task' };
    case 'POST /api/v1/tasks/:task_id/comments':
      return { content: '<p>New</p>' };
    case 'PATCH /api/v1/tasks/:task_id':
      return { title: 'Renamed' };
    case 'POST /api/v1/webhooks':
      return { url: 'https://localhost/hook' };
    case 'POST /api/v1/custom-fields':
      return { name: 'New field', type: 'text' };
    case 'POST /api/v1/tasks/:task_id/attachments':
      return { file_name: 'a.txt', file_size: 1, mime_type: 'text/plain' };
    case 'POST /api/v1/workspaces':
      return { name: 'New workspace' };
    case 'POST /api/v1/workspaces/:workspace_id/members':
      return { user_id: w.ids.outsider };
    case 'PATCH /api/v1/workspaces/:workspace_id/members/:user_id':
      return { role: 'viewer' };
    case 'POST /api/v1/api-keys':
      return { name: 'New key', scopes: ['users:read'] };
    default:
      return r.method === 'PATCH' ? { name: 'Renamed' } : undefined;
  }
}

/** `body` with its text fields blanked: a body the route refuses with a 400 once the role check has passed. */
function blanked(body: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!body) return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, ['name', 'title', 'content'].includes(k) ? '' : v]));
}

/**
 * The request of `r` on target `id` (any value, malformed too), with `key` (none when undefined) and `body` (a valid one by default);
 * a second path id (D39: the member) is `second`, by default the owner of `ws` (a member there, and not the caller of the role checks).
 */
function request(r: RouteSpec, w: RoleWorld, id: unknown, key?: string, body = bodyOf(r, w), second: unknown = w.ids.owner): InjectOptions {
  const options: InjectOptions = {
    method: r.method,
    url: r.target?.in === 'path' ? routeUrl(r, String(id), String(second)) : r.path,
    headers: key ? auth(key) : {},
  };
  if (r.target?.in === 'body') options.payload = { ...body, [r.target.field]: id };
  else if (body) options.payload = body;
  return options;
}

describe('route matrix: every route of D1', () => {
  const { t, ids } = useRoleWorld('rm', (b) => ({
    more: {
      api_keys: [
        { user: b.user('owner'), key: NO_SCOPE_KEY, scopes: [] },
        // D46: a key of the owner and one of the outsider, for the key routes (no scopes: they are only targets).
        { ref: 'k_owner_key', user: b.user('owner'), key: 'svc_rm_target_key', scopes: [] },
        { ref: 'o_key', user: b.user('outsider'), key: 'svc_rm_other_key', scopes: [] },
      ],
    },
    // D39: a custom field in the outsider's workspace too.
    workspaces: [b.solo('o_fields', 'outsider', { custom_fields: [{ ref: 'o_field', name: 'Elsewhere', type: 'text' }] })],
  }));
  const w: RoleWorld = { ...roleKeys('rm'), ids };

  beforeAll(async () => {
    // D21: keys stored with wildcard-looking or miscased scopes carry no scope at all (the loader refuses them, so SQL).
    for (const [key, scopes] of Object.entries(WILDCARD_KEYS)) {
      await t.db.ds.query('INSERT INTO api_keys (user_id, key_hash, scopes) VALUES ($1, $2, $3)', [ids.owner, hashApiKey(key), scopes]);
    }
    // D38: a webhook in each workspace (webhooks are not part of fixtures).
    for (const [ref, ws] of [
      ['webhook', 'ws'],
      ['o_webhook', 'other'],
    ]) {
      const [hook] = await t.db.ds.query(
        `INSERT INTO webhooks (workspace_id, url, events, secret) VALUES ($1, 'https://localhost/hook', '{task.created}', 'whsec_x') RETURNING id`,
        [ids[ws]],
      );
      ids[ref] = hook.id;
    }
    // D47: a confirmed attachment on a task of each workspace, and one outside the restricted member's lists.
    for (const [ref, task] of [
      ['attachment', 't_backlog'],
      ['o_attachment', 'o_task'],
      ['inbox_attachment', 't_inbox'],
    ]) {
      const [att] = await t.db.ds.query(
        `INSERT INTO attachments (workspace_id, task_id, uploader_id, file_name, file_size, mime_type) SELECT workspace_id, id, $2, 'a.txt', 1, 'text/plain' FROM tasks WHERE id = $1 RETURNING id`,
        [ids[task], ids.owner],
      );
      ids[ref] = att.id;
    }
  });

  /** Every row of the tables a refused request could touch: the matrix's requests are all refused, so this never changes. */
  const TABLES = [
    'workspaces',
    'workspace_members',
    'labels',
    'statuses',
    'folders',
    'lists',
    'tasks',
    'task_labels',
    'comments',
    'member_folder_grants',
    'member_list_grants',
    'events',
    'webhooks',
    'custom_fields',
    'custom_field_folder_grants',
    'custom_field_list_overrides',
    'custom_field_allowed_users',
    'task_custom_field_values',
    'attachments',
    'api_keys',
  ];
  const snapshot = async () => {
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      // Authenticating records when a key was last used (D46): every other column stays.
      const columns = table === 'api_keys' ? 'id, user_id, key_hash, scopes, expires_at, revoked_at' : '*';
      rows[table] = await t.db.ds.query(`SELECT ${columns} FROM ${table} ORDER BY 1, 2`);
    }
    return rows;
  };
  let before: Record<string, unknown[]>;
  beforeAll(async () => {
    before = await snapshot();
  });

  const answer = async (options: InjectOptions) => {
    const res = await t.inject(options);
    return { status: res.statusCode, body: res.json() as unknown };
  };

  it('names each route of ROUTES once', () => {
    expect(new Set(ROUTES.map(routeName)).size).toBe(ROUTES.length);
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

    const scope403 = { status: 403, body: { error: `Scope '${r.scope}' is required for this endpoint` } };
    it(`403 for a key lacking ${r.scope} (and only it), before the id is read`, async () => {
      expect(await answer(request(r, w, 'abc', w.keyWithout(r.scope)))).toEqual(scope403);
    });

    it('403 for a key with no scopes, or with wildcard or miscased scopes (D21)', async () => {
      for (const key of [NO_SCOPE_KEY, ...Object.keys(WILDCARD_KEYS)]) {
        const res = await t.inject(request(r, w, w.ids[TARGET_REF[targetKey(r)]] ?? 1, key));
        expect([key, res.statusCode, res.json()]).toEqual([key, 403, scope403.body]);
      }
    });

    it(`403 for a key with another scope only, before the id and the body are read`, async () => {
      const other = r.scope === 'users:read' ? 'tasks:read' : 'users:read';
      expect(await answer(request(r, w, 'abc', w.keyOnly(other), r.method === 'POST' || r.method === 'PATCH' ? {} : undefined))).toEqual(scope403);
    });

    if (r.target === undefined) return;
    const target = targetKey(r);
    const inBody = r.target.in === 'body';
    const message400 = inBody ? BODY_400[target] : PATH_400[target];

    it.each(inBody ? MALFORMED_BODY_IDS : MALFORMED_PATH_IDS)(`400 for the malformed id %p, whatever the role and the body: ${message400}`, async (id) => {
      for (const role of ['owner', 'viewer', 'outsider'] as const) {
        for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
          expect(await answer(request(r, w, id, w.key(role), body))).toEqual({ status: 400, body: { error: message400 } });
        }
      }
    });

    if (inBody) {
      it.each([undefined, null])(`400 ${BODY_MISSING[target]} for the parent id %p, whatever the role and the body`, async (id) => {
        for (const role of ['owner', 'viewer', 'outsider'] as const) {
          for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
            expect(await answer(request(r, w, id, w.key(role), body))).toEqual({ status: 400, body: { error: BODY_MISSING[target] } });
          }
        }
      });
    }

    const second = r.second;
    if (second) {
      const secondMessage = PATH_400[second.kind];
      it.each(MALFORMED_PATH_IDS)(
        `400 ${secondMessage} for the malformed second id %p, whatever the role and the body; the first id is checked first (D39)`,
        async (id) => {
          for (const role of ['owner', 'viewer', 'outsider'] as const) {
            for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
              expect(await answer(request(r, w, w.ids.ws, w.key(role), body, id))).toEqual({ status: 400, body: { error: secondMessage } });
              expect(await answer(request(r, w, 'abc', w.key(role), body, id))).toEqual({ status: 400, body: { error: message400 } });
            }
          }
        },
      );

      it.each(UNKNOWN_IDS)('404 Member not found for the user %p, a member of no workspace or of another, before the role (D39)', async (id) => {
        for (const role of ['owner', 'viewer'] as const) {
          expect(await answer(request(r, w, w.ids.ws, w.key(role), bodyOf(r, w), id))).toEqual({ status: 404, body: { error: 'Member not found' } });
          expect(await answer(request(r, w, w.ids.ws, w.key(role), bodyOf(r, w), w.ids.outsider))).toEqual({
            status: 404,
            body: { error: 'Member not found' },
          });
        }
      });
    }

    it.each(UNKNOWN_IDS)(`404 for the well-formed id %p nothing has, whatever the body: ${NOT_FOUND[target]}`, async (id) => {
      for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
        expect(await answer(request(r, w, id, w.key('owner'), body))).toEqual({ status: 404, body: { error: NOT_FOUND[target] } });
      }
    });

    it(`${NON_MEMBER[target].join(' ')} for a caller who is not a member of the target's workspace, both ways round, whatever the body`, async () => {
      const [status, error] = NON_MEMBER[target];
      for (const [role, ref] of [
        ['outsider', TARGET_REF[target]],
        ['owner', OTHER_REF[target]],
      ] as const) {
        for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
          expect(await answer(request(r, w, w.ids[ref], w.key(role), body))).toEqual({ status, body: { error } });
        }
      }
    });

    if (r.role === 'writer' || r.role === 'manager' || r.role === 'owner') {
      const denial = DENIAL[routeName(r)];
      it.each(DENIED_ROLES[r.role])(`403 ${denial} for the %s, before the body (D2, D3)`, async (role) => {
        for (const body of [bodyOf(r, w), blanked(bodyOf(r, w))]) {
          expect(await answer(request(r, w, w.ids[TARGET_REF[target]], w.key(role), body))).toEqual({ status: 403, body: { error: denial } });
        }
      });

      if (r.role === 'writer') {
        it('403 Access denied for a restricted member on a target not granted, before the body (D30)', async () => {
          const body = bodyOf(r, w, 'ops');
          for (const b of [body, blanked(body)]) {
            expect(await answer(request(r, w, w.ids[NOT_GRANTED_REF[target]], w.key('restricted'), b))).toEqual({
              status: 403,
              body: { error: 'Access denied' },
            });
          }
        });
      }
    }
  });

  it('changed nothing: a refused request writes no row (runs last)', async () => {
    expect(await snapshot()).toEqual(before);
  });

  it('has the role message of D2 for every write route', () => {
    const writes = ROUTES.filter((r) => r.role === 'writer' || r.role === 'manager' || r.role === 'owner').map(routeName);
    expect(writes.filter((name) => DENIAL[name] === undefined)).toEqual([]);
  });
});
