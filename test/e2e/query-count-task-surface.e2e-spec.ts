import type { InjectOptions } from 'fastify';

import { auth } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * SQL round trips of the routes of issue 34 on their success path (the preamble's performance
 * rules; counted at the `pg` driver, the key already cached): each at most 2, label add and remove
 * and comment update one statement after the access check; the reads one statement in all.
 */

const { key } = roleKeys('qs');

describe('SQL round trips of the task-surface routes (issue 34)', () => {
  const { t, ids } = useRoleWorld('qs', (b) => ({
    workspaces: [
      b.team('acme', {
        statuses: [
          { ref: 'a_todo', name: 'To Do', category: 'pending' },
          { ref: 'a_old', name: 'Old', category: 'in_progress' },
          { ref: 'a_done', name: 'Done', category: 'completed' },
        ],
        labels: [{ ref: 'a_red', name: 'Red' }],
        folders: [{ ref: 'a_f', name: 'F', lists: [{ ref: 'a_l', name: 'L' }] }],
        tasks: [
          {
            ref: 'a_task',
            list: 'a_l',
            title: 'Counted',
            status: 'a_old',
            comments: [
              { ref: 'a_c1', user: b.user('owner'), content: 'x' },
              { ref: 'a_c2', user: b.user('owner'), content: 'y' },
            ],
          },
          { ref: 'a_parent', list: 'a_l', title: 'Parent' },
        ],
      }),
    ],
  }));
  const counter = new QueryCounter();
  const measured: Record<string, number> = {};

  beforeAll(async () => {
    counter.install();
    // The key is looked up once, then cached.
    await t.inject({ method: 'GET', url: `/api/v1/tasks/${ids.a_task}`, headers: auth(key('owner')) });
  });
  afterAll(() => {
    counter.uninstall();
    process.stdout.write(`round trips: ${JSON.stringify(measured)}\n`);
  });

  const count = async (name: string, request: () => Omit<InjectOptions, 'headers'>, status: number) => {
    const { result, statements } = await counter.record(() => t.inject({ ...request(), headers: auth(key('owner')) }));
    measured[name] = statements.length;
    expect([name, result.statusCode]).toEqual([name, status]);
    return statements;
  };

  it.each([
    ['add label to task', () => ({ method: 'PUT' as const, url: `/api/v1/tasks/${ids.a_task}/labels/${ids.a_red}` }), 200, 2],
    ['add label to task (no-op)', () => ({ method: 'PUT' as const, url: `/api/v1/tasks/${ids.a_task}/labels/${ids.a_red}` }), 200, 2],
    ['remove label from task', () => ({ method: 'DELETE' as const, url: `/api/v1/tasks/${ids.a_task}/labels/${ids.a_red}` }), 200, 2],
    ['update label', () => ({ method: 'PATCH' as const, url: `/api/v1/labels/${ids.a_red}`, payload: { name: 'Crimson' } }), 200, 2],
    ['update comment', () => ({ method: 'PATCH' as const, url: `/api/v1/comments/${ids.a_c1}`, payload: { content: 'z', resolved: true } }), 200, 2],
    ['delete comment', () => ({ method: 'DELETE' as const, url: `/api/v1/comments/${ids.a_c2}` }), 204, 2],
    ['delete status', () => ({ method: 'DELETE' as const, url: `/api/v1/statuses/${ids.a_old}?replacement_status_id=${ids.a_todo}` }), 204, 2],
    ['get folder', () => ({ method: 'GET' as const, url: `/api/v1/folders/${ids.a_f}` }), 200, 1],
    ['get list', () => ({ method: 'GET' as const, url: `/api/v1/lists/${ids.a_l}` }), 200, 1],
  ])('%s: answers %i in at most %i round trips', async (name, request, status, most) => {
    const statements = await count(name, request, status);
    expect(statements.length).toBeLessThanOrEqual(most);
  });

  it('label add, remove and comment update write in one statement with their event', async () => {
    const add = await count('add label again', () => ({ method: 'PUT', url: `/api/v1/tasks/${ids.a_task}/labels/${ids.a_red}` }), 200);
    expect(add.filter((s) => /INSERT INTO task_labels/.test(s) && /INSERT INTO events/.test(s))).toHaveLength(1);
    const edit = await count('update comment again', () => ({ method: 'PATCH', url: `/api/v1/comments/${ids.a_c1}`, payload: { resolved: false } }), 200);
    expect(edit.filter((s) => /UPDATE comments/.test(s) && /INSERT INTO events/.test(s))).toHaveLength(1);
  });

  it('update task with parent_id: the update\u2019s 3, plus the transaction that locks both tasks first (BEGIN, lock, COMMIT)', async () => {
    const statements = await count(
      'update task parent_id',
      () => ({ method: 'PATCH', url: `/api/v1/tasks/${ids.a_task}`, payload: { parent_id: ids.a_parent } }),
      200,
    );
    expect(statements.length).toBeLessThanOrEqual(6);
  });
});
