import type { InjectOptions } from 'fastify';

import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * Issue 8: writes racing a delete. Each pair runs ROUNDS times: 8 writers and 1
 * delete start together. Every writer gets what it would get had the delete
 * committed either before or after it (201/200, or the contract's 404 of D4/D14/D27),
 * never a foreign-key 500.
 */

const ROUNDS = 4;
const WRITERS = 8;

const world: FixtureWorld = {
  users: [{ ref: 'alice', email: 'alice@races.test', name: 'Alice' }],
  api_keys: [{ user: 'alice', key: 'svc_race_owner', scopes: [...SCOPES] }],
  workspaces: [{ ref: 'acme', name: 'Acme', slug: 'race-acme', owner: 'alice' }],
};

type Answer = { status: number; body: unknown };

describe('writes racing a delete (issue 8)', () => {
  let t: TestApp;
  let ws: number;
  const key = auth('svc_race_owner');

  beforeAll(async () => {
    t = await createTestApp();
    ws = (await loadFixture(t.db.ds, world)).acme;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = async (method: InjectOptions['method'], url: string, payload?: object): Promise<Answer> => {
    const res = await t.inject({ method, url: `/api/v1${url}`, headers: key, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body) };
  };
  /** Creates through the API and returns the new id (asserting the create worked). */
  const make = async (url: string, payload: object): Promise<number> => {
    const res = await call('POST', url, payload);
    expect(res.status).toBe(201);
    return (res.body as { id: number }).id;
  };
  const folder = () => make('/folders', { workspace_id: ws, name: `F ${Math.random()}` });
  const list = async (folderId?: number) => make('/lists', { workspace_id: ws, folder_id: folderId ?? (await folder()), name: 'L' });
  const task = async (listId?: number) => make('/tasks', { list_id: listId ?? (await list()), title: 'T' });
  const label = () => make('/labels', { workspace_id: ws, name: `B ${Math.random()}` });

  /**
   * Starts the writers and the delete together; returns the writers' answers in
   * a compact form (status, and the error message of a 4xx).
   */
  const race = async (writers: Array<() => Promise<Answer>>, del: () => Promise<Answer>): Promise<string[]> => {
    const [deleted, ...answers] = await Promise.all([del(), ...writers.map((w) => w())]);
    expect(deleted.status).toBe(204);
    return answers.map((a) => (a.status < 300 ? String(a.status) : `${a.status} ${(a.body as { error: string }).error}`));
  };

  /** Every answer is one of `allowed`. */
  const expectOnly = (answers: string[], allowed: string[]) => {
    for (const a of answers) expect(allowed).toContain(a);
  };

  const times = (n: number) => Array.from({ length: n }, (_, i) => i);
  const rounds = times(ROUNDS);

  it.each(rounds)('create task vs delete its list (round %i)', async () => {
    const l = await list();
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', '/tasks', { list_id: l, title: 'x' })),
      () => call('DELETE', `/lists/${l}`),
    );
    expectOnly(answers, ['201', '404 List not found in this workspace']);
  });

  it.each(rounds)('create task vs delete the folder of its list (round %i)', async () => {
    const f = await folder();
    const l = await list(f);
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', '/tasks', { list_id: l, title: 'x' })),
      () => call('DELETE', `/folders/${f}`),
    );
    expectOnly(answers, ['201', '404 List not found in this workspace']);
  });

  it.each(rounds)('create subtask vs delete its parent (round %i)', async () => {
    const l = await list();
    const parent = await task(l);
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', '/tasks', { list_id: l, title: 'x', parent_id: parent })),
      () => call('DELETE', `/tasks/${parent}`),
    );
    expectOnly(answers, ['201', '404 Parent task not found']);
  });

  it.each(rounds)('create task with a label vs delete the label (round %i)', async () => {
    const l = await list();
    const b = await label();
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', '/tasks', { list_id: l, title: 'x', label_ids: [b] })),
      () => call('DELETE', `/labels/${b}`),
    );
    expectOnly(answers, ['201']);
    const page = await call('GET', `/workspaces/${ws}/tasks?list_id=${l}&limit=100`);
    const ids = (page.body as { data: { id: number }[] }).data.map((row) => row.id);
    expect(ids).toHaveLength(WRITERS);
    for (const id of ids) {
      const got = await call('GET', `/tasks/${id}`);
      expect((got.body as { labels: unknown[] }).labels).toEqual([]);
    }
  });

  it.each(rounds)('update task labels vs delete the label (round %i)', async () => {
    const l = await list();
    const tasks = await Promise.all(times(WRITERS).map(() => task(l)));
    const b = await label();
    const answers = await race(
      tasks.map((id) => () => call('PATCH', `/tasks/${id}`, { label_ids: [b] })),
      () => call('DELETE', `/labels/${b}`),
    );
    expectOnly(answers, ['200']);
  });

  it.each(rounds)('move task into a list vs delete that list (round %i)', async () => {
    const from = await list();
    const to = await list();
    const tasks = await Promise.all(times(WRITERS).map(() => task(from)));
    const answers = await race(
      tasks.map((id) => () => call('PATCH', `/tasks/${id}`, { list_id: to })),
      () => call('DELETE', `/lists/${to}`),
    );
    expectOnly(answers, ['200', '404 List not found in this workspace']);
  });

  it.each(rounds)('update task vs delete it (round %i)', async () => {
    const l = await list();
    const b = await label();
    const id = await task(l);
    const answers = await race(
      times(WRITERS).map((i) => () => call('PATCH', `/tasks/${id}`, { title: `t${i}`, label_ids: [b], assignee_ids: [] })),
      () => call('DELETE', `/tasks/${id}`),
    );
    expectOnly(answers, ['200', '404 Task not found']);
  });

  it.each(rounds)('comment on a task vs delete it (round %i)', async () => {
    const id = await task();
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', `/tasks/${id}/comments`, { content: 'hi' })),
      () => call('DELETE', `/tasks/${id}`),
    );
    expectOnly(answers, ['201', '404 Task not found']);
  });

  it.each(rounds)('comment on a task vs delete its list (round %i)', async () => {
    const l = await list();
    const id = await task(l);
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', `/tasks/${id}/comments`, { content: 'hi' })),
      () => call('DELETE', `/lists/${l}`),
    );
    expectOnly(answers, ['201', '404 Task not found']);
  });

  it.each(rounds)('create list in a folder vs delete the folder (round %i)', async () => {
    const f = await folder();
    const answers = await race(
      times(WRITERS).map(() => () => call('POST', '/lists', { workspace_id: ws, folder_id: f, name: 'x' })),
      () => call('DELETE', `/folders/${f}`),
    );
    expectOnly(answers, ['201', '404 Folder not found']);
  });

  it.each(rounds)('move list into a folder vs delete the folder (round %i)', async () => {
    const f = await folder();
    const lists = await Promise.all(times(WRITERS).map(() => list()));
    const answers = await race(
      lists.map((id) => () => call('PATCH', `/lists/${id}`, { folder_id: f })),
      () => call('DELETE', `/folders/${f}`),
    );
    expectOnly(answers, ['200', '404 Folder not found']);
  });

  /** Containers renamed by the writers while being deleted: [kind, route, create one, the 404 answer]. */
  const renamed: Array<[string, string, () => Promise<number>, string]> = [
    ['folder', '/folders', folder, '404 Folder not found'],
    ['list', '/lists', () => list(), '404 List not found'],
  ];

  it.each(renamed.flatMap(([kind, route, create, notFound]) => rounds.map((round) => [kind, round, route, create, notFound] as const)))(
    'update %s vs delete it (round %i)',
    async (_kind, _round, route, create, notFound) => {
      const id = await create();
      const answers = await race(
        times(WRITERS).map((i) => () => call('PATCH', `${route}/${id}`, { name: `n${i}` })),
        () => call('DELETE', `${route}/${id}`),
      );
      expectOnly(answers, ['200', notFound]);
    },
  );
});
