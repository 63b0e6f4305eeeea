import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { pendingDeliveries } from '../setup/events';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Issue 35, D40: create, update and delete workspaces. The checks every route
 * makes (keys, scopes, ids, non-members, role messages) are also the route
 * matrix's (route-matrix.e2e-spec.ts); here: bodies, slugs, cascades, events.
 */

const W = roleKeys('wsw');
const WORKSPACE_KEYS = ['color', 'created_at', 'description', 'icon', 'id', 'image_url', 'name', 'owner_id', 'role', 'slug'] satisfies Array<
  keyof Schema<'Workspace'>
>;
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SLUG_400 = 'slug must be 1 to 64 URL-safe characters (letters, digits, ".", "_", "~", "-")';

describe('workspaces: create, update, delete (D40)', () => {
  const { t, ids } = useRoleWorld('wsw', (b) => ({
    workspaces: [b.solo('taken', 'outsider', { name: 'Taken', slug: 'Taken-Slug' })],
  }));

  const send = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, key: string, payload?: unknown) =>
    t.inject({ method, url, headers: auth(key), ...(payload === undefined ? {} : { payload: payload as object }) });
  const create = (payload: unknown, key = W.key('member')) => send('POST', '/api/v1/workspaces', key, payload);
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => t.db.ds.query(sql, params);

  describe('create', () => {
    it('answers 201 with the workspace, the caller as owner, four statuses, the membership, no event', async () => {
      const res = await create({
        name: '  Rocket Lab  ',
        description: '',
        icon: ' r ',
        color: null,
        image_url: 'HTTPS://Example.COM/a b',
        owner_id: 1,
        role: 'viewer',
        id: 5,
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(WORKSPACE_KEYS);
      expect(body).toEqual({
        id: expect.any(Number),
        name: 'Rocket Lab',
        slug: 'rocket-lab',
        description: '',
        icon: ' r ',
        color: null,
        image_url: 'https://example.com/a%20b',
        owner_id: ids.member,
        role: 'owner',
        created_at: expect.stringMatching(TS),
      } satisfies Schema<'Workspace'>);
      expect(await q(`SELECT name, category, color, icon, position FROM statuses WHERE workspace_id = $1 ORDER BY position`, [body.id])).toEqual([
        { name: 'To Do', category: 'pending', color: 'gray', icon: null, position: 1 },
        { name: 'In Progress', category: 'in_progress', color: 'gray', icon: null, position: 2 },
        { name: 'Done', category: 'completed', color: 'gray', icon: null, position: 3 },
        { name: 'Cancelled', category: 'cancelled', color: 'gray', icon: null, position: 4 },
      ]);
      expect(await q(`SELECT user_id, role, is_restricted, api_ts(joined_at) AS joined_at FROM workspace_members WHERE workspace_id = $1`, [body.id])).toEqual([
        { user_id: ids.member, role: 'owner', is_restricted: false, joined_at: body.created_at },
      ]);
      expect(await q(`SELECT id FROM events WHERE workspace_id = $1`, [body.id])).toEqual([]);
      // The new workspace works at once: get, members, a task in it.
      expect((await send('GET', `/api/v1/workspaces/${body.id}`, W.key('member'))).json()).toEqual(body);
      const folder = await send('POST', '/api/v1/folders', W.key('member'), { workspace_id: body.id, name: 'F' } satisfies Schema<'CreateFolder'>);
      expect(folder.statusCode).toBe(201);
    });

    it.each([
      ['Café', 'caf'],
      ['東京', 'workspace'],
      ['--Hello,   World!!--', 'hello-world'],
      ['ÄBC Straße', 'bc-stra-e'],
      ['Ünïcödé ÀÉ', 'n-c-d'],
      ['A'.repeat(70), 'a'.repeat(64)],
      [`${'b'.repeat(63)} c`, 'b'.repeat(63)],
      ['x_y.z~w', 'x-y-z-w'],
    ])('derives the slug of %p as %p (ASCII only)', async (name, slug) => {
      const res = await create({ name } satisfies Schema<'CreateWorkspace'>);
      expect(res.statusCode).toBe(201);
      expect(res.json().slug).toBe(slug);
    });

    it('takes <base>-2, <base>-3 when the slug is taken (ignoring case), cutting the base to fit in 64', async () => {
      expect((await create({ name: 'Taken Slug' })).json().slug).toBe('taken-slug-2');
      expect((await create({ name: 'TAKEN slug' })).json().slug).toBe('taken-slug-3');
      const long = 'l'.repeat(62) + '-x';
      expect((await create({ name: long })).json().slug).toBe(long);
      // <base> cut to 62 for "-2": "lll…l-" loses its trailing "-" again.
      expect((await create({ name: long })).json().slug).toBe('l'.repeat(62) + '-2');
      expect((await create({ name: long })).json().slug).toBe('l'.repeat(62) + '-3');
    });

    it('never gives 409 to concurrent creates of one name: each takes the next free suffix', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, () => create({ name: 'Race Day' })));
      expect(results.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
      const slugs = results.map((r) => r.json().slug).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      expect(slugs).toEqual(['race-day', ...Array.from({ length: 11 }, (_, i) => `race-day-${i + 2}`)]);
    });

    it('a sent slug is stored as sent; one another workspace holds, ignoring case, gives 409', async () => {
      expect((await create({ name: 'S', slug: 'My.Slug_~-1' } satisfies Schema<'CreateWorkspace'>)).json().slug).toBe('My.Slug_~-1');
      expect(await create({ name: 'S', slug: 'taken-SLUG' })).toMatchObject({ statusCode: 409 });
      expect((await create({ name: 'S', slug: 'taken-SLUG' })).json()).toEqual({ error: 'A workspace with this slug already exists' });
      // null: derived.
      expect((await create({ name: 'Null Slug', slug: null } satisfies Schema<'CreateWorkspace'>)).json().slug).toBe('null-slug');
    });

    it('of concurrent creates with one sent slug, one wins and the others get 409', async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'S', slug: 'contested' })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    });

    it.each([
      [{}, 'name is required'],
      [{ name: '   ' }, 'name is required'],
      [{ name: 7 }, 'name is required'],
      [{ name: null }, 'name is required'],
      [{ name: 'a\u0000b' }, 'name must not contain NUL characters'],
      [{ name: 'n'.repeat(256) }, 'name must be at most 255 characters'],
      [{ name: 'A', slug: '' }, SLUG_400],
      [{ name: 'A', slug: '...' }, SLUG_400],
      [{ name: 'A', slug: 'a b' }, SLUG_400],
      [{ name: 'A', slug: 'é' }, SLUG_400],
      [{ name: 'A', slug: 's'.repeat(65) }, SLUG_400],
      [{ name: 'A', slug: 12 }, SLUG_400],
      [{ name: 'A', slug: ['a'] }, SLUG_400],
      [{ name: 'A', description: 5 }, 'description must be a string or null'],
      [{ name: 'A', description: 'd'.repeat(2001) }, 'description must be at most 2000 characters'],
      [{ name: 'A', description: 'a\u0000' }, 'description must not contain NUL characters'],
      [{ name: 'A', icon: {} }, 'icon must be a string or null'],
      [{ name: 'A', icon: 'i'.repeat(65) }, 'icon must be at most 64 characters'],
      [{ name: 'A', color: true }, 'color must be a string or null'],
      [{ name: 'A', color: 'c'.repeat(65) }, 'color must be at most 64 characters'],
      [{ name: 'A', image_url: 'ftp://example.com/x' }, 'image_url must be an http or https URL'],
      [{ name: 'A', image_url: 'not a url' }, 'image_url must be an http or https URL'],
      [{ name: 'A', image_url: 'javascript:alert(1)' }, 'image_url must be an http or https URL'],
      [{ name: 'A', image_url: `https://example.com/${'p'.repeat(1981)}` }, 'image_url must be an http or https URL'],
      [{ name: 'A', image_url: 3 }, 'image_url must be an http or https URL'],
      // The first failing field in the order name, slug, description, icon, color, image_url.
      [{ name: '', slug: '', description: 1 }, 'name is required'],
      [{ name: 'A', slug: '', description: 1 }, SLUG_400],
      [{ name: 'A', description: 1, icon: 1 }, 'description must be a string or null'],
      [{ name: 'A', color: 1, image_url: 'x' }, 'color must be a string or null'],
    ])('400 for %j: %s', async (payload, error) => {
      const res = await create(payload);
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: { error } });
    });

    it('counts lengths in code points: 255 astral characters are a valid name, 64 an icon', async () => {
      const res = await create({
        name: '😀'.repeat(255),
        icon: '😀'.repeat(64),
        image_url: `https://example.com/${'p'.repeat(1980)}`,
      } satisfies Schema<'CreateWorkspace'>);
      expect(res.statusCode).toBe(201);
      expect(res.json().slug).toMatch(/^workspace(-\d+)?$/);
    });

    it('takes an Idempotency-Key: a retry replays the answer and creates nothing more', async () => {
      const keyed = () =>
        t.inject({
          method: 'POST',
          url: '/api/v1/workspaces',
          headers: { ...auth(W.key('viewer')), 'idempotency-key': 'ws-create-1' },
          payload: { name: 'Keyed' },
        });
      const first = await keyed();
      const second = await keyed();
      expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toBe(first.body);
      expect(await q(`SELECT count(*)::int AS n FROM workspaces WHERE name = 'Keyed'`)).toEqual([{ n: 1 }]);
    });

    it('needs workspaces:write; any key of any user may create', async () => {
      expect((await create({ name: 'A' }, W.keyWithout('workspaces:write'))).json()).toEqual({
        error: "Scope 'workspaces:write' is required for this endpoint",
      });
      expect((await create({ name: 'Solo' }, W.key('outsider'))).statusCode).toBe(201);
    });
  });

  describe('update', () => {
    let id: number;
    beforeAll(async () => {
      const res = await create({ name: 'Editable', slug: 'editable' } satisfies Schema<'CreateWorkspace'>, W.key('owner'));
      id = res.json().id;
      await q(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'admin'), ($1, $3, 'member'), ($1, $4, 'viewer')`, [
        id,
        ids.admin,
        ids.member,
        ids.viewer,
      ]);
    });
    const patch = (payload: unknown, key = W.key('admin')) => send('PATCH', `/api/v1/workspaces/${id}`, key, payload);
    /** The workspace as the tests below leave it, seen by `role`. */
    const editable = (role: Schema<'Workspace'>['role'], fields: Partial<Schema<'Workspace'>>) =>
      ({
        id,
        name: 'Editable',
        slug: 'editable',
        description: 'About',
        icon: null,
        color: 'red',
        image_url: null,
        owner_id: ids.owner,
        role,
        created_at: expect.stringMatching(TS),
        ...fields,
      }) satisfies Schema<'Workspace'>;
    const events = () =>
      q<{ type: string; data: unknown; actor_user_id: number }>(`SELECT type, data, actor_user_id FROM events WHERE workspace_id = $1 ORDER BY id`, [id]);

    it("changes only the sent fields, answers with the caller's role, and records workspace.updated with the sorted changes", async () => {
      const res = await patch({ description: 'About', color: 'red', name: null, owner_id: ids.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(editable('admin', {}));
      expect(await events()).toEqual([{ type: 'workspace.updated', data: { changes: ['color', 'description'] }, actor_user_id: ids.admin }]);
    });

    it('a no-op or empty update answers 200 and records nothing', async () => {
      const before = (await events()).length;
      expect((await patch({})).statusCode).toBe(200);
      expect((await patch({ description: 'About', color: 'red' } satisfies Schema<'UpdateWorkspace'>)).statusCode).toBe(200);
      expect((await events()).length).toBe(before);
    });

    it("may change its own slug's case; a slug another holds gives 409; null gives the slug message", async () => {
      const res = await patch({ slug: 'EDITABLE', name: ' Renamed ', image_url: 'http://x.test' } satisfies Schema<'UpdateWorkspace'>, W.key('owner'));
      const renamed = { slug: 'EDITABLE', name: 'Renamed', image_url: 'http://x.test/' };
      expect(res.json()).toEqual(editable('owner', renamed));
      expect((await events()).pop()).toMatchObject({ data: { changes: ['image_url', 'name', 'slug'] } });
      expect((await patch({ slug: 'taken-slug' })).json()).toEqual({ error: 'A workspace with this slug already exists' });
      expect((await patch({ slug: null })).json()).toEqual({ error: SLUG_400 });
      expect((await patch({ name: '  ' })).json()).toEqual({ error: 'name cannot be empty' });
      expect((await patch({ name: 5 })).json()).toEqual({ error: 'name must be a string' });
      expect((await patch({ description: null, icon: null } satisfies Schema<'UpdateWorkspace'>)).json()).toEqual(
        editable('admin', { ...renamed, description: null, icon: null }),
      );
    });

    it('is for owners and admins: members and viewers get 403 before the body is read; non-members 404', async () => {
      expect((await patch({ name: '' }, W.key('member'))).json()).toEqual({ error: 'Only owners and admins can edit workspaces' });
      expect((await patch({ name: '' }, W.key('viewer'))).json()).toEqual({ error: 'Only owners and admins can edit workspaces' });
      const outsider = await patch({ name: 'x' }, W.key('outsider'));
      expect({ status: outsider.statusCode, body: outsider.json() }).toEqual({ status: 404, body: { error: 'Workspace not found' } });
    });
  });

  describe('delete', () => {
    it('is for the owner only: admins and members get 403', async () => {
      for (const role of ['admin', 'member', 'viewer', 'restricted'] as const) {
        const res = await send('DELETE', `/api/v1/workspaces/${ids.ws}`, W.key(role));
        expect({ role, status: res.statusCode, body: res.json() }).toEqual({ role, status: 403, body: { error: 'Only the owner can delete the workspace' } });
      }
      expect((await send('DELETE', `/api/v1/workspaces/${ids.ws}`, W.key('outsider'))).json()).toEqual({ error: 'Workspace not found' });
    });

    it('deletes the workspace and everything in it in one transaction, drops pending webhook attempts, keeps API keys; the slug is free again', async () => {
      const ws = ids.ws;
      const hook = await send('POST', '/api/v1/webhooks', W.key('owner'), {
        workspace_id: ws,
        url: 'https://hooks.example.com/x',
      } satisfies Schema<'CreateWebhook'>);
      expect(hook.statusCode).toBe(201);
      expect((await send('PATCH', `/api/v1/workspaces/${ws}`, W.key('owner'), { name: 'Queued' } satisfies Schema<'UpdateWorkspace'>)).statusCode).toBe(200);
      expect(await pendingDeliveries(t.db.ds)).toBeGreaterThan(0);
      const tables = [
        'folders',
        'lists',
        'tasks',
        'statuses',
        'labels',
        'custom_fields',
        'workspace_members',
        'member_folder_grants',
        'member_list_grants',
        'webhooks',
        'events',
        'attachments',
        'comments',
        'task_custom_field_values',
        'task_assignees',
      ];
      const counts = async () => {
        const out: Record<string, number> = {};
        for (const table of tables) out[table] = (await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [ws]))[0].n;
        return out;
      };
      const before = await counts();
      expect(before.tasks).toBeGreaterThan(0);
      expect(before.member_folder_grants).toBeGreaterThan(0);
      const keysBefore = await q(`SELECT count(*)::int AS n FROM api_keys`);

      const res = await send('DELETE', `/api/v1/workspaces/${ws}`, W.key('owner'));
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
      expect(Object.values(await counts()).every((n) => n === 0)).toBe(true);
      expect(await pendingDeliveries(t.db.ds)).toBe(0);
      expect(await q(`SELECT count(*)::int AS n FROM api_keys`)).toEqual(keysBefore);
      expect(await q(`SELECT to_regclass('task_identifier_' || $1::text) AS seq`, [ws])).toEqual([{ seq: null }]);

      for (const url of [`/api/v1/workspaces/${ws}`, `/api/v1/workspaces/${ws}/members`, `/api/v1/workspaces/${ws}/tasks`]) {
        expect((await send('GET', url, W.key('owner'))).json()).toEqual({ error: 'Workspace not found' });
      }
      expect((await send('DELETE', `/api/v1/workspaces/${ws}`, W.key('owner'))).json()).toEqual({ error: 'Workspace not found' });
      expect((await create({ name: 'Again', slug: 'wsw-ws' } satisfies Schema<'CreateWorkspace'>, W.key('owner'))).statusCode).toBe(201);

      // The keys of the workspace's members still work.
      expect((await send('GET', '/api/v1/me', W.key('member'))).statusCode).toBe(200);
    });
  });
});
