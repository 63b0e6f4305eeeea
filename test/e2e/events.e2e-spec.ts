import { EVENT_TYPES } from '../../src/events/event-types';
import { EventsRetention } from '../../src/events/events-retention';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { CONTRACT_EVENT_TYPES } from '../setup/events';
import { loadRoleWorld, RoleWorld, WorldRole } from '../setup/world';

/**
 * D37: events recorded by every write of its table, in the write's own
 * transaction, and the feed GET /api/v1/workspaces/:id/events (errors in
 * D37's order, restricted visibility, scopes and roles, retention).
 * The concurrent polling promise: events-polling.e2e-spec.ts.
 */
describe('events (D37)', () => {
  let t: TestApp;
  let w: RoleWorld;
  let ids: Record<string, number>;
  /** The feed position of the owner's reading: each test reads what its writes recorded. */
  let cursor = 0;

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, role: WorldRole = 'owner') =>
    t.inject({ method, url, headers: auth(w.key(role)), payload });
  const feed = (query = '', key = w.key('owner'), workspace = ids.ws) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/events${query}`, headers: auth(key) });
  /** The events recorded since the last call, read as the owner. */
  const recorded = async () => {
    const res = await feed(`?after=${cursor}&limit=100`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    if (body.data.length) cursor = body.next_after;
    return body.data as Array<Record<string, any>>;
  };
  const sql = (text: string, params: unknown[] = []) => t.db.ds.query(text, params);
  const keyId = async (role: WorldRole) =>
    (await sql(`SELECT id FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND expires_at IS NULL ORDER BY id LIMIT 1`, [ids[role]]))[0].id;

  /** The one event recorded by a write, checked whole: type, workspace, actor, data, occurred_at = `stamp`. */
  const expectOne = async (type: Schema<'Event'>['type'], data: Schema<'Event'>['data'], stamp?: string, role: WorldRole = 'owner') => {
    const events = await recorded();
    expect(events).toEqual([
      {
        id: expect.any(Number),
        type,
        workspace_id: ids.ws,
        occurred_at: stamp ?? expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        actor: { user_id: ids[role], api_key_id: await keyId(role) },
        data,
      } satisfies Schema<'Event'>,
    ]);
    expect(Object.keys(events[0].data).sort()).toEqual(Object.keys(data).sort());
    return events[0];
  };

  beforeAll(async () => {
    t = await createTestApp();
    w = await loadRoleWorld(t.db.ds, 'ev');
    ids = w.ids;
  });
  afterAll(async () => {
    await t.close();
  });

  it('seeding records no event (D37)', async () => {
    expect(await recorded()).toEqual([]);
    expect(await sql('SELECT count(*)::int AS n FROM events')).toEqual([{ n: 0 }]);
  });

  describe('tasks', () => {
    let task: number;
    it('create task: task.created with task_id, list_id, parent_id; occurred_at = created_at', async () => {
      const res = await call('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'Evented', assignee_ids: [ids.member], label_ids: [ids.bug] });
      expect(res.statusCode).toBe(201);
      task = res.json().id;
      await expectOne('task.created', { task_id: task, list_id: ids.backlog, parent_id: null }, res.json().created_at);
      const sub = await call('POST', '/api/v1/tasks', { list_id: ids.inbox, title: 'Sub', parent_id: task }, 'admin');
      expect(sub.statusCode).toBe(201);
      await expectOne('task.created', { task_id: sub.json().id, list_id: ids.inbox, parent_id: task }, sub.json().created_at, 'admin');
    });

    it('update task: task.updated with the sorted names of the fields that changed; occurred_at = updated_at', async () => {
      const res = await call('PATCH', `/api/v1/tasks/${task}`, {
        title: ' Renamed ',
        priority: 'high',
        list_id: ids.inbox,
        assignee_ids: [ids.admin, ids.member],
        label_ids: [ids.bug],
        custom_fields: [{ id: ids.notes, value: 'x' }],
        due_date: '2025-01-01',
        description: '<p>d</p>',
        status_id: ids.review,
        start_date: null,
      });
      expect(res.statusCode).toBe(200);
      await expectOne(
        'task.updated',
        {
          task_id: task,
          list_id: ids.inbox,
          previous_list_id: ids.backlog,
          parent_id: null,
          changes: ['assignee_ids', 'custom_fields', 'description', 'due_date', 'list_id', 'priority', 'status_id', 'title'],
        },
        res.json().updated_at,
      );
    });

    it('a PATCH that changes no stored value records nothing but still sets updated_at (D34)', async () => {
      const stamp = async () => (await sql('SELECT updated_at FROM tasks WHERE id = $1', [task]))[0].updated_at.getTime();
      const before = await stamp();
      const res = await call('PATCH', `/api/v1/tasks/${task}`, {
        title: 'Renamed  ',
        priority: 'high',
        list_id: ids.inbox,
        assignee_ids: [ids.member, ids.admin, ids.admin, 999999],
        label_ids: [ids.bug, ids.o_bug],
        custom_fields: [{ id: ids.notes, value: 'x' }],
        due_date: '2025-01-01T00:00:00Z',
        description: '<p>d</p><script>x()</script>',
        start_date: '',
      });
      expect(res.statusCode).toBe(200);
      expect(await stamp()).toBeGreaterThan(before);
      expect(await recorded()).toEqual([]);
      expect((await call('PATCH', `/api/v1/tasks/${task}`, {})).statusCode).toBe(200);
      expect(await recorded()).toEqual([]);
    });

    it('each kind of change names itself: labels, start_date, clearing a value', async () => {
      expect((await call('PATCH', `/api/v1/tasks/${task}`, { label_ids: [] })).statusCode).toBe(200);
      await expectOne('task.updated', { task_id: task, list_id: ids.inbox, previous_list_id: ids.inbox, parent_id: null, changes: ['label_ids'] });
      expect((await call('PATCH', `/api/v1/tasks/${task}`, { start_date: '2025-02-01', custom_fields: [{ id: ids.notes, value: null }] })).statusCode).toBe(
        200,
      );
      await expectOne('task.updated', {
        task_id: task,
        list_id: ids.inbox,
        previous_list_id: ids.inbox,
        parent_id: null,
        changes: ['custom_fields', 'start_date'],
      });
    });

    it('a failed write records nothing', async () => {
      expect((await call('PATCH', `/api/v1/tasks/${task}`, { title: 'x', status_id: 999999 })).statusCode).toBe(404);
      expect((await call('PATCH', `/api/v1/tasks/${task}`, { title: '' })).statusCode).toBe(400);
      expect((await call('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'x', parent_id: 999999 })).statusCode).toBe(404);
      expect((await call('PATCH', `/api/v1/tasks/${task}`, { title: 'by a viewer' }, 'viewer')).statusCode).toBe(403);
      expect(await recorded()).toEqual([]);
    });

    it("comment: comment.created with comment_id, task_id and the task's list_id", async () => {
      const res = await call('POST', `/api/v1/tasks/${task}/comments`, { content: 'hello' }, 'member');
      expect(res.statusCode).toBe(201);
      await expectOne('comment.created', { comment_id: res.json().id, task_id: task, list_id: ids.inbox }, res.json().created_at, 'member');
    });

    it('delete task: one task.deleted, none for its subtasks', async () => {
      expect((await call('DELETE', `/api/v1/tasks/${task}`)).statusCode).toBe(204);
      await expectOne('task.deleted', { task_id: task, list_id: ids.inbox, parent_id: null });
      expect((await call('DELETE', `/api/v1/tasks/${task}`)).statusCode).toBe(404);
      expect(await recorded()).toEqual([]);
    });
  });

  describe('folders, lists, statuses, labels', () => {
    let folder: number;
    let list: number;
    it('folder created, updated (only changed fields), no-op update records nothing', async () => {
      const res = await call('POST', '/api/v1/folders', { workspace_id: ids.ws, name: 'Evented' }, 'member');
      expect(res.statusCode).toBe(201);
      folder = res.json().id;
      await expectOne('folder.created', { folder_id: folder }, res.json().created_at, 'member');
      expect(
        (await call('PATCH', `/api/v1/folders/${folder}`, { name: ' Renamed ', color: 'blue', icon: 'x', position: res.json().position })).statusCode,
      ).toBe(200);
      await expectOne('folder.updated', { folder_id: folder, changes: ['icon', 'name'] });
      expect((await call('PATCH', `/api/v1/folders/${folder}`, { name: 'Renamed', icon: 'x' })).statusCode).toBe(200);
      expect((await call('PATCH', `/api/v1/folders/${folder}`, {})).statusCode).toBe(200);
      expect(await recorded()).toEqual([]);
    });

    it('list created, updated with a move (folder_id and previous_folder_id), no-op records nothing', async () => {
      const res = await call('POST', '/api/v1/lists', { workspace_id: ids.ws, folder_id: folder, name: 'L' });
      expect(res.statusCode).toBe(201);
      list = res.json().id;
      await expectOne('list.created', { list_id: list, folder_id: folder }, res.json().created_at);
      expect((await call('PATCH', `/api/v1/lists/${list}`, { folder_id: ids.eng, color: 'red', position: 77 })).statusCode).toBe(200);
      await expectOne('list.updated', { list_id: list, folder_id: ids.eng, previous_folder_id: folder, changes: ['color', 'folder_id', 'position'] });
      expect((await call('PATCH', `/api/v1/lists/${list}`, { name: 'L', folder_id: ids.eng })).statusCode).toBe(200);
      expect(await recorded()).toEqual([]);
      expect((await call('PATCH', `/api/v1/lists/${list}`, { name: 'M' })).statusCode).toBe(200);
      await expectOne('list.updated', { list_id: list, folder_id: ids.eng, previous_folder_id: ids.eng, changes: ['name'] });
    });

    it('delete list: one list.deleted, none for its tasks', async () => {
      const task = (await call('POST', '/api/v1/tasks', { list_id: list, title: 'goes' })).json().id;
      await call('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'sub elsewhere', parent_id: task });
      await recorded();
      expect((await call('DELETE', `/api/v1/lists/${list}`)).statusCode).toBe(204);
      await expectOne('list.deleted', { list_id: list, folder_id: ids.eng });
      expect(await sql('SELECT count(*)::int AS n FROM tasks WHERE id = $1 OR parent_id = $1', [task])).toEqual([{ n: 0 }]);
    });

    it('delete folder: one folder.deleted, none for its lists and their tasks', async () => {
      const inner = (await call('POST', '/api/v1/lists', { workspace_id: ids.ws, folder_id: folder, name: 'Inner' })).json().id;
      await call('POST', '/api/v1/tasks', { list_id: inner, title: 'goes too' });
      await recorded();
      expect((await call('DELETE', `/api/v1/folders/${folder}`)).statusCode).toBe(204);
      await expectOne('folder.deleted', { folder_id: folder });
      expect(await sql('SELECT count(*)::int AS n FROM lists WHERE id = $1', [inner])).toEqual([{ n: 0 }]);
    });

    it('status created, updated, no-op, and the rolled-back last-completed update records nothing', async () => {
      const res = await call('POST', '/api/v1/statuses', { workspace_id: ids.ws, name: 'QA', category: 'in_progress' }, 'admin');
      expect(res.statusCode).toBe(201);
      await expectOne('status.created', { status_id: res.json().id }, res.json().created_at, 'admin');
      expect((await call('PATCH', `/api/v1/statuses/${res.json().id}`, { name: 'QA', category: 'completed', color: 'gray' })).statusCode).toBe(200);
      await expectOne('status.updated', { status_id: res.json().id, changes: ['category'] });
      expect((await call('PATCH', `/api/v1/statuses/${res.json().id}`, { name: 'Review' })).statusCode).toBe(409);
      expect((await call('PATCH', `/api/v1/statuses/${ids.done}`, { category: 'pending' })).statusCode).toBe(200);
      await expectOne('status.updated', { status_id: ids.done, changes: ['category'] });
      // The last completed status: the update is rolled back (400), and its event with it.
      const last = await call('PATCH', `/api/v1/statuses/${res.json().id}`, { category: 'pending', name: 'QA2' });
      expect(last.json()).toEqual({ error: 'At least one completed status must remain in the workspace' });
      expect(await recorded()).toEqual([]);
    });

    it('label created and deleted; a duplicate records nothing', async () => {
      const res = await call('POST', '/api/v1/labels', { workspace_id: ids.ws, name: 'Evented' });
      expect(res.statusCode).toBe(201);
      await expectOne('label.created', { label_id: res.json().id }, res.json().created_at);
      expect((await call('POST', '/api/v1/labels', { workspace_id: ids.ws, name: 'evented' })).statusCode).toBe(409);
      expect(await recorded()).toEqual([]);
      expect((await call('DELETE', `/api/v1/labels/${res.json().id}`)).statusCode).toBe(204);
      await expectOne('label.deleted', { label_id: res.json().id });
    });

    it('events go to the workspace written; ids grow', async () => {
      const other = await t.inject({
        method: 'POST',
        url: '/api/v1/labels',
        headers: auth(w.key('outsider')),
        payload: { workspace_id: ids.other, name: 'Elsewhere' },
      });
      expect(other.statusCode).toBe(201);
      expect(await recorded()).toEqual([]);
      const theirs = (await feed('', w.key('outsider'), ids.other)).json();
      expect(theirs.data.map((e: { type: string; workspace_id: number }) => [e.type, e.workspace_id])).toEqual([['label.created', ids.other]]);
      const all = (await feed('?limit=100')).json().data.map((e: { id: number }) => e.id);
      expect(all).toEqual([...all].sort((a, b) => a - b));
    });
  });

  describe('the feed', () => {
    it('pages with after and limit; next_after is the last id, or after when empty', async () => {
      const all = (await feed('?limit=100')).json();
      expect(all.data.length).toBeGreaterThan(5);
      expect(all.next_after).toBe(all.data[all.data.length - 1].id);
      const first = (await feed('?limit=2')).json();
      expect(first.data).toEqual(all.data.slice(0, 2));
      expect(first.next_after).toBe(all.data[1].id);
      const second = (await feed(`?limit=2&after=${first.next_after}`)).json();
      expect(second.data).toEqual(all.data.slice(2, 4));
      expect((await feed(`?after=${all.next_after}`)).json()).toEqual({ data: [], next_after: all.next_after } satisfies Schema<'EventPage'>);
      // eslint-disable-next-line no-loss-of-precision -- the number as JSON.parse reads the answer's digits
      expect((await feed('?after=0099999999999999999999')).json()).toEqual({ data: [], next_after: 99999999999999999999 } satisfies Schema<'EventPage'>);
      expect((await feed('')).json()).toEqual({
        data: all.data.slice(0, 50),
        next_after: all.data[Math.min(50, all.data.length) - 1].id,
      } satisfies Schema<'EventPage'>);
    });

    it('filters by type (comma list, repeated) and task_id inside the page, so a page is full', async () => {
      const all = (await feed('?limit=100')).json().data;
      const wanted = all.filter((e: { type: string }) => ['label.created', 'status.updated'].includes(e.type));
      expect((await feed('?type=label.created,status.updated&limit=100')).json().data).toEqual(wanted);
      expect((await feed('?type=label.created&type=status.updated&limit=2')).json()).toEqual({
        data: wanted.slice(0, 2),
        next_after: wanted[1].id,
      } satisfies Schema<'EventPage'>);
      const task = all.find((e: { type: string }) => e.type === 'task.updated').data.task_id;
      const about = all.filter((e: { data: { task_id?: number } }) => e.data.task_id === task);
      expect(about.map((e: { type: string }) => e.type)).toEqual([
        'task.created',
        'task.updated',
        'task.updated',
        'task.updated',
        'comment.created',
        'task.deleted',
      ]);
      expect((await feed(`?task_id=${task}&limit=100`)).json().data).toEqual(about);
      expect((await feed(`?task_id="${task}"`)).statusCode).toBe(400);
      expect((await feed('?task_id=99999999999')).json()).toEqual({ data: [], next_after: 0 } satisfies Schema<'EventPage'>);
    });

    it.each([
      ['?foo=1&after=x', 'Unknown query parameter: foo'],
      ['?Limit=1', 'Unknown query parameter: Limit'],
      ['?type[]=task.created', 'Unknown query parameter: type[]'],
      ['?after=x&limit=0&type=nope&task_id=x', 'after must be a non-negative integer'],
      ['?after=-1', 'after must be a non-negative integer'],
      ['?after=', 'after must be a non-negative integer'],
      ['?after=1.0', 'after must be a non-negative integer'],
      ['?after=1&after=2', 'after must be given only once'],
      ['?limit=0&type=nope', 'limit must be an integer between 1 and 100'],
      ['?limit=101', 'limit must be an integer between 1 and 100'],
      ['?limit=1&limit=1', 'limit must be given only once'],
      ['?type=nope&task_id=x', `Invalid type. Must be one of: ${EVENT_TYPES.join(', ')}`],
      ['?type=task.created,', `Invalid type. Must be one of: ${EVENT_TYPES.join(', ')}`],
      ['?type=Task.created', `Invalid type. Must be one of: ${EVENT_TYPES.join(', ')}`],
      [`?type=${Array(101).fill('task.created').join(',')}&task_id=x`, 'type accepts at most 100 values'],
      ['?task_id=x', 'task_id must be a valid numeric ID'],
      ['?task_id=-1', 'task_id must be a valid numeric ID'],
      ['?task_id=1&task_id=2', 'task_id must be given only once'],
    ])('400 %s: %s (D37 order)', async (query, message) => {
      const res = await feed(query);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: message });
    });

    it('the message lists every type in table order', () => {
      expect(EVENT_TYPES).toEqual(CONTRACT_EVENT_TYPES);
    });

    it('membership before the query: a non-member gets 404 Workspace not found even with a bad query', async () => {
      for (const query of ['', '?foo=1', '?after=x']) {
        const res = await feed(query, w.key('outsider'));
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'Workspace not found' });
      }
      expect((await feed('', w.key('owner'), 99999999)).json()).toEqual({ error: 'Workspace not found' });
      expect((await t.inject({ method: 'GET', url: '/api/v1/workspaces/abc/events?foo=1', headers: auth(w.key('owner')) })).json()).toEqual({
        error: 'Invalid workspace ID',
      });
    });

    it('scope events:read is required, and only it (D21)', async () => {
      const res = await feed('?foo=1', w.keyWithout('events:read'));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: "Scope 'events:read' is required for this endpoint" });
      expect((await feed('', w.keyWithout('workspaces:read'))).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/events` })).json()).toEqual({ error: 'API key required' });
    });

    it.each(['owner', 'admin', 'member', 'viewer'] as const)('any member reads the whole feed: %s', async (role) => {
      expect((await feed('?limit=100', w.key(role))).json()).toEqual((await feed('?limit=100')).json());
    });
  });

  describe('restricted members (judged now, against current grants)', () => {
    it('see task and comment events of permitted lists, list events of permitted lists or granted folders, folder events of granted folders, all status and label events', async () => {
      await recorded();
      // `restricted` is granted folder eng (list backlog); `restrictedViewer` list inbox.
      const inEng = (await call('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'eng' })).json().id;
      const inOps = (await call('POST', '/api/v1/tasks', { list_id: ids.inbox, title: 'ops' })).json().id;
      const loose = (await call('POST', '/api/v1/tasks', { list_id: ids.loose, title: 'loose' })).json().id;
      await call('PATCH', `/api/v1/tasks/${inOps}`, { list_id: ids.backlog }); // moved into backlog: both see it
      await call('POST', `/api/v1/tasks/${loose}/comments`, { content: 'c' });
      const subOfOps = (await call('POST', '/api/v1/tasks', { list_id: ids.backlog, title: 'sub', parent_id: loose })).json().id;
      await call('PATCH', `/api/v1/folders/${ids.eng}`, { icon: 'gear' });
      await call('PATCH', `/api/v1/folders/${ids.ops}`, { icon: 'gear' });
      const engList = (await call('POST', '/api/v1/lists', { workspace_id: ids.ws, folder_id: ids.eng, name: 'More' })).json().id;
      await call('PATCH', `/api/v1/lists/${engList}`, { folder_id: ids.ops }); // previous folder granted to `restricted`
      await call('PATCH', `/api/v1/lists/${ids.inbox}`, { color: 'red' });
      await call('POST', '/api/v1/labels', { workspace_id: ids.ws, name: 'Seen by all' });
      await call('PATCH', `/api/v1/statuses/${ids.review}`, { color: 'red' });
      const all = await recorded();
      const summary = (events: Array<Record<string, any>>) => events.map((e) => [e.type, e.data.task_id ?? e.data.list_id ?? e.data.folder_id ?? null]);
      expect(summary(all)).toEqual([
        ['task.created', inEng],
        ['task.created', inOps],
        ['task.created', loose],
        ['task.updated', inOps],
        ['comment.created', loose],
        ['task.created', subOfOps],
        ['folder.updated', ids.eng],
        ['folder.updated', ids.ops],
        ['list.created', engList],
        ['list.updated', engList],
        ['list.updated', ids.inbox],
        ['label.created', null],
        ['status.updated', null],
      ]);
      const seen = async (role: WorldRole) => (await feed(`?after=${all[0].id - 1}&limit=100`, w.key(role))).json().data;
      const restricted = await seen('restricted');
      expect(summary(restricted)).toEqual([
        ['task.created', inEng],
        ['task.updated', inOps],
        ['task.created', subOfOps],
        ['folder.updated', ids.eng],
        ['list.created', engList],
        ['list.updated', engList],
        ['label.created', null],
        ['status.updated', null],
      ]);
      // The parent of subOfOps is in a list outside theirs: it reads null (D33); the owner sees it.
      expect(restricted.find((e: any) => e.data.task_id === subOfOps).data).toEqual({ task_id: subOfOps, list_id: ids.backlog, parent_id: null });
      expect(all.find((e: any) => e.data.task_id === subOfOps)?.data).toEqual({ task_id: subOfOps, list_id: ids.backlog, parent_id: loose });
      expect(summary(await seen('restrictedViewer'))).toEqual([
        ['task.created', inOps],
        ['task.updated', inOps],
        ['list.updated', ids.inbox],
        ['label.created', null],
        ['status.updated', null],
      ]);
      // A page is full when more visible events exist: limit counts visible events only.
      const page = (await feed(`?after=${all[0].id - 1}&limit=3`, w.key('restricted'))).json();
      expect(page).toEqual({ data: restricted.slice(0, 3), next_after: restricted[2].id } satisfies Schema<'EventPage'>);
      // Grants are judged now: granting list inbox shows its events at once.
      await sql(`INSERT INTO member_list_grants (workspace_id, user_id, list_id) VALUES ($1, $2, $3)`, [ids.ws, ids.restricted, ids.inbox]);
      expect(summary(await seen('restricted'))).toEqual([
        ['task.created', inEng],
        ['task.created', inOps],
        ['task.updated', inOps],
        ['task.created', subOfOps],
        ['folder.updated', ids.eng],
        ['list.created', engList],
        ['list.updated', engList],
        ['list.updated', ids.inbox],
        ['label.created', null],
        ['status.updated', null],
      ]);
      await sql(`DELETE FROM member_list_grants WHERE user_id = $1 AND list_id = $2`, [ids.restricted, ids.inbox]);
      // Events of a list that no longer exists: only unrestricted members see them (its grants went with it).
      expect((await call('DELETE', `/api/v1/lists/${ids.inbox}`)).statusCode).toBe(204);
      const gone = (await recorded()).map((e) => e.type);
      expect(gone).toEqual(['list.deleted']);
      expect(summary(await seen('restrictedViewer'))).toEqual([
        ['label.created', null],
        ['status.updated', null],
      ]);
    });
  });

  describe('retention (EVENTS_RETENTION_DAYS, default 30)', () => {
    it('prunes events older than the retention; an after below the oldest kept is not an error', async () => {
      const ws = ids.ws;
      const kept = (await feed('?limit=100')).json().data;
      const old = kept.slice(0, 3).map((e: { id: number }) => e.id);
      await sql(`UPDATE events SET occurred_at = now() - interval '31 days' WHERE id = ANY($1)`, [old]);
      await sql(`UPDATE events SET occurred_at = now() - interval '29 days' WHERE id = $1`, [kept[3].id]);
      expect(await t.app.get(EventsRetention).prune()).toBe(3);
      const after = (await feed('?after=0&limit=100')).json();
      expect(after.data).toEqual(kept.slice(3).map((e: Record<string, unknown>) => (e.id === kept[3].id ? { ...e, occurred_at: expect.any(String) } : e)));
      expect((await feed(`?after=${old[0]}&limit=1`)).json().data[0].id).toBe(kept[3].id);
      expect(await t.app.get(EventsRetention).prune()).toBe(0);
      expect((await feed('?after=0&limit=100', w.key('owner'), ws)).json().data[0].id).toBe(kept[3].id);
    });
  });
});
