import type { Middleware } from 'openapi-fetch';

import { type ApiClient, createApiClient, etagOf, isReplay, newIdempotencyKey } from '../../clients/typescript';
import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestApp, TestApp } from '../setup/create-app';
import { OpenApiResponseValidator } from '../setup/openapi-validator';

/**
 * Issue 5: the typed client of clients/typescript (openapi-typescript types,
 * openapi-fetch) drives a real listening server over HTTP, and nothing else
 * does: folder, list, task with assignees and custom fields, update, list,
 * comment, delete. Every answer is also checked against the served document.
 */

const TS = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

const world: FixtureWorld = {
  users: [
    { ref: 'alice', email: 'alice@client.test', name: 'Alice', avatar_url: 'https://img.test/alice.png' },
    { ref: 'bob', email: 'bob@client.test', name: 'Bob' },
  ],
  api_keys: [{ user: 'alice', key: 'svc_client_owner', scopes: [...SCOPES] }],
  workspaces: [
    {
      ref: 'acme',
      name: 'Acme',
      slug: 'client-acme',
      owner: 'alice',
      members: [{ user: 'bob', role: 'member' }],
      statuses: [
        { ref: 'todo', name: 'To Do', category: 'pending', position: 1 },
        { ref: 'doing', name: 'Doing', category: 'in_progress', icon: 'chart', color: 'orange', position: 2 },
        { ref: 'done', name: 'Done', category: 'completed', position: 3 },
      ],
      custom_fields: [
        { ref: 'size', name: 'Size', type: 'text', config: null, position: 1 },
        { ref: 'stars', name: 'Stars', type: 'rating', config: { iconName: 'star', color: 'orange' }, position: 2 },
      ],
    },
  ],
};

describe('typed client over HTTP (issue 5)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let api: ApiClient;
  const checked: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = await t.app.getUrl();
    const validator = new OpenApiResponseValidator((await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as Record<string, unknown>);
    // Every answer the client gets must match the document it was generated from.
    const validate: Middleware = {
      async onResponse({ request, response }) {
        const url = new URL(request.url);
        validator.assert({
          method: request.method,
          url: url.pathname + url.search,
          status: response.status,
          contentType: response.headers.get('content-type') ?? undefined,
          body: await response.clone().text(),
        });
        checked.push(`${request.method} ${url.pathname} ${response.status}`);
      },
    };
    api = createApiClient(baseUrl, 'svc_client_owner');
    api.use(validate);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a folder and a list, then a task with assignees and custom fields, updates, lists, comments on and deletes it', async () => {
    const workspaceId = ids.acme;

    const folder = await api.POST('/api/v1/folders', { body: { workspace_id: workspaceId, name: 'Engineering' } });
    expect(folder.response.status).toBe(201);
    expect(folder.data).toEqual({
      id: expect.any(Number),
      workspace_id: ids.acme,
      name: 'Engineering',
      icon: null,
      color: 'blue',
      position: 1,
      created_at: TS,
    });

    const list = await api.POST('/api/v1/lists', { body: { workspace_id: workspaceId, folder_id: folder.data!.id, name: 'Backlog' } });
    expect(list.response.status).toBe(201);
    expect(list.data).toEqual({
      id: expect.any(Number),
      workspace_id: ids.acme,
      folder_id: folder.data!.id,
      name: 'Backlog',
      icon: null,
      color: 'gray',
      position: 1,
      created_at: TS,
    });
    const listId = list.data!.id;

    const created = await api.POST('/api/v1/tasks', {
      body: {
        list_id: listId,
        title: '  Ship the client  ',
        priority: 'high',
        due_date: '2025-03-01',
        assignee_ids: [ids.bob, ids.alice],
        custom_fields: [
          { id: ids.size, value: 'M' },
          { id: ids.stars, value: '4' },
        ],
      },
    });
    expect(created.response.status).toBe(201);
    const task = created.data!;
    expect(task).toEqual({
      id: expect.any(Number),
      workspace_id: ids.acme,
      list_id: listId,
      title: 'Ship the client',
      description: null,
      priority: 'high',
      identifier: 1,
      due_date: '2025-03-01T00:00:00.000Z',
      start_date: null,
      creator_id: ids.alice,
      created_at: TS,
      status: { id: ids.todo, name: 'To Do', icon: null, color: 'gray', category: 'pending' },
      assignees: [
        { id: ids.alice, name: 'Alice', avatar_url: 'https://img.test/alice.png' },
        { id: ids.bob, name: 'Bob', avatar_url: null },
      ],
      custom_fields: [
        { id: ids.size, name: 'Size', type: 'text', config: null, position: 1, value: 'M' },
        { id: ids.stars, name: 'Stars', type: 'rating', config: { icon: 'star', color: 'orange' }, position: 2, value: '4' },
      ],
    });

    const updated = await api.PATCH('/api/v1/tasks/{task_id}', {
      params: { path: { task_id: task.id } },
      body: { status_id: ids.doing, assignee_ids: [ids.bob], custom_fields: [{ id: ids.size, value: null }], description: '<p>now</p>' },
    });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toEqual({
      ...task,
      description: '<p>now</p>',
      status: { id: ids.doing, name: 'Doing', icon: 'chart', color: 'orange', category: 'in_progress' },
      assignees: [{ id: ids.bob, name: 'Bob', avatar_url: null }],
      custom_fields: [
        { id: ids.size, name: 'Size', type: 'text', config: null, position: 1, value: null },
        { id: ids.stars, name: 'Stars', type: 'rating', config: { icon: 'star', color: 'orange' }, position: 2, value: '4' },
      ],
    });

    const page = await api.GET('/api/v1/workspaces/{workspace_id}/tasks', {
      params: { path: { workspace_id: ids.acme }, query: { list_id: listId, limit: 10 } },
    });
    expect(page.response.status).toBe(200);
    const { description: _description, ...listed } = updated.data!;
    expect(page.data).toEqual({ data: [{ ...listed, subtasks: [] }], page: 1, limit: 10, total: 1, total_pages: 1 });

    // Task queries (issue 11; D34): array parameters go out repeated; a keyset page answers next_cursor.
    const filtered = await api.GET('/api/v1/workspaces/{workspace_id}/tasks', {
      params: {
        path: { workspace_id: ids.acme },
        query: {
          list_id: listId,
          status_category: ['in_progress', 'completed'],
          assignee_id: [ids.bob, 'none'],
          q: 'ship',
          sort: '-priority,title',
          include_total: false,
          limit: 1,
        },
      },
    });
    expect(filtered.response.status).toBe(200);
    expect(filtered.data).toEqual({ data: [{ ...listed, subtasks: [] }], limit: 1, next_cursor: null });

    const comment = await api.POST('/api/v1/tasks/{task_id}/comments', { params: { path: { task_id: task.id } }, body: { content: '<p>Looks good</p>' } });
    expect(comment.response.status).toBe(201);
    expect(comment.data).toEqual({
      id: expect.any(Number),
      task_id: task.id,
      user_id: ids.alice,
      name: 'Alice',
      avatar_url: 'https://img.test/alice.png',
      content: '<p>Looks good</p>',
      parent_comment_id: null,
      resolved: false,
      created_at: TS,
    });
    const comments = await api.GET('/api/v1/tasks/{task_id}/comments', { params: { path: { task_id: task.id } } });
    expect(comments.data).toEqual([comment.data]);

    const deleted = await api.DELETE('/api/v1/tasks/{task_id}', { params: { path: { task_id: task.id } } });
    expect(deleted.response.status).toBe(204);
    expect(deleted.error).toBeUndefined();

    const gone = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: task.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: 'Task not found' });

    expect(checked).toEqual([
      'POST /api/v1/folders 201',
      'POST /api/v1/lists 201',
      'POST /api/v1/tasks 201',
      `PATCH /api/v1/tasks/${task.id} 200`,
      `GET /api/v1/workspaces/${ids.acme}/tasks 200`,
      `GET /api/v1/workspaces/${ids.acme}/tasks 200`,
      `POST /api/v1/tasks/${task.id}/comments 201`,
      `GET /api/v1/tasks/${task.id}/comments 200`,
      `DELETE /api/v1/tasks/${task.id} 204`,
      `GET /api/v1/tasks/${task.id} 404`,
    ]);
  });

  it('follows the events feed with after = next_after (D37)', async () => {
    const first = await api.GET('/api/v1/workspaces/{workspace_id}/events', { params: { path: { workspace_id: ids.acme }, query: { limit: 2 } } });
    expect(first.error).toBeUndefined();
    expect(first.data!.data.map((e) => e.type)).toEqual(['folder.created', 'list.created']);
    const rest = await api.GET('/api/v1/workspaces/{workspace_id}/events', {
      params: { path: { workspace_id: ids.acme }, query: { after: first.data!.next_after, type: ['task.created', 'task.deleted'] } },
    });
    expect(rest.data!.data.map((e) => [e.type, e.actor.user_id])).toEqual([
      ['task.created', ids.alice],
      ['task.deleted', ids.alice],
    ]);
    expect(rest.data!.next_after).toBe(rest.data!.data[1].id);
    // The document types `after` as an integer; what the service says of anything else, sent past the types:
    const bad = await api.GET('/api/v1/workspaces/{workspace_id}/events', {
      params: { path: { workspace_id: ids.acme }, query: { after: 'x' as unknown as number } },
    });
    expect(bad.error).toEqual({ error: 'after must be a non-negative integer' });
  });

  it('returns typed errors: a wrong key is 401, a bad body 400 (D7, D20)', async () => {
    const stranger = createApiClient(await t.app.getUrl(), 'svc_nobody');
    const me = await stranger.GET('/api/v1/me');
    expect(me.response.status).toBe(401);
    expect(me.error).toEqual({ error: 'Invalid API key' });

    const bad = await api.POST('/api/v1/folders', { body: { workspace_id: ids.acme, name: '   ' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toEqual({ error: 'name is required' });
  });

  it('sends Idempotency-Key and If-Match, and reads Idempotent-Replayed and ETag (D35, D36)', async () => {
    const folder = await api.POST('/api/v1/folders', { body: { workspace_id: ids.acme, name: 'Retries' } });
    const list = await api.POST('/api/v1/lists', { body: { workspace_id: ids.acme, folder_id: folder.data!.id, name: 'Retried' } });
    const key = newIdempotencyKey();
    const create = () =>
      api.POST('/api/v1/tasks', { params: { header: { 'Idempotency-Key': key } }, body: { list_id: list.data!.id, title: 'Once', priority: 'none' } });
    const first = await create();
    const retry = await create();
    expect([first.response.status, isReplay(first.response)]).toEqual([201, false]);
    expect([retry.response.status, isReplay(retry.response)]).toEqual([201, true]);
    expect(retry.data).toEqual(first.data);
    const etag = etagOf(first.response)!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(etagOf(retry.response)).toBe(etag);

    const taskId = first.data!.id;
    const read = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: taskId }, header: { 'If-None-Match': etag } } });
    expect([read.response.status, read.data, etagOf(read.response)]).toEqual([304, undefined, etag]);

    const edit = (ifMatch: string) =>
      api.PATCH('/api/v1/tasks/{task_id}', { params: { path: { task_id: taskId }, header: { 'If-Match': ifMatch } }, body: { title: 'Edited' } });
    const edited = await edit(etag);
    expect([edited.response.status, edited.data?.title]).toEqual([200, 'Edited']);
    const stale = await edit(etag);
    expect([stale.response.status, stale.error]).toEqual([412, { error: 'Precondition failed' }]);
    const removed = await api.DELETE('/api/v1/tasks/{task_id}', { params: { path: { task_id: taskId }, header: { 'If-Match': etagOf(edited.response)! } } });
    expect(removed.response.status).toBe(204);
  });
});
