import type { FixtureWorkspace } from '../../src/fixtures/fixture.types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WorldBuilder } from '../setup/world';

/**
 * One write path: what a fixture leaves out of an object gets the default the
 * API gives the same object created through it (colours, D24 positions, the
 * D17 status, the priority, the D15 counter, a new comment's state). The
 * workspaces `wa` and `wb` start alike; the fixture gives `wa` one more
 * folder, list, status, label, task and comment with every optional field
 * left out, and the API creates the same objects in `wb`; both read back alike.
 */

const { key } = roleKeys('defaults');

/** The content both workspaces start with: statuses out of position order (D17 picks `Next`), a folder and a list at position 5, a task. */
const start = (w: string): Partial<FixtureWorkspace> => ({
  statuses: [
    { ref: `${w}_doing`, name: 'Doing', category: 'in_progress', position: 1 },
    { ref: `${w}_later`, name: 'Later', category: 'pending', position: 3 },
    { ref: `${w}_next`, name: 'Next', category: 'pending', position: 2 },
  ],
  folders: [{ ref: `${w}_folder`, name: 'Given', position: 5, lists: [{ ref: `${w}_list`, name: 'Given', position: 5 }] }],
  tasks: [{ ref: `${w}_task`, list: `${w}_list`, title: 'Given', priority: 'high', status: `${w}_doing` }],
});

function withNewObjects(b: WorldBuilder): FixtureWorkspace {
  const s = start('wa');
  return b.team('wa', {
    statuses: [...s.statuses!, { ref: 'wa_new_status', name: 'New', category: 'pending' }],
    labels: [{ ref: 'wa_new_label', name: 'New' }],
    folders: [
      { ...s.folders![0], lists: [...s.folders![0].lists!, { ref: 'wa_new_list', name: 'New' }] },
      { ref: 'wa_new_folder', name: 'New' },
    ],
    tasks: [
      { ...s.tasks![0], comments: [{ ref: 'wa_new_comment', user: b.user('owner'), content: '<p>New</p>' }] },
      { ref: 'wa_new_task', list: 'wa_list', title: 'New' },
    ],
  });
}

const { t, ids } = useRoleWorld('defaults', (b) => ({ workspaces: [withNewObjects(b), b.team('wb', start('wb'))] }));

async function send(method: 'GET' | 'POST', url: string, payload?: object): Promise<any> {
  const res = await t.inject({ method, url, headers: auth(key('owner')), ...(payload ? { payload } : {}) });
  expect(res.statusCode).toBe(method === 'POST' ? 201 : 200);
  return res.json();
}

/** The object named `New` of a listing. */
const named = (items: Array<{ name: string }>) => items.find((item) => item.name === 'New');

/** `value` without the keys that differ between the two workspaces by construction (ids, parents, creation times). */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  const kept = Object.entries(value).filter(([k]) => !['id', 'workspace_id', 'folder_id', 'list_id', 'task_id', 'created_at'].includes(k));
  return Object.fromEntries(kept.map(([k, v]) => [k, comparable(v)]));
}

describe('an object the fixture leaves fields out of and the same object created through the API', () => {
  /** The `New` objects of `wa` (from the fixture) and of `wb` (from the API), read back through the API. */
  let fromFixture: Record<string, unknown>;
  let fromApi: Record<string, unknown>;

  const readBack = async (w: 'wa' | 'wb', taskId: number) => ({
    folder: named(await send('GET', `/api/v1/workspaces/${ids[w]}/folders`)),
    list: named(await send('GET', `/api/v1/folders/${ids[`${w}_folder`]}/lists`)),
    status: named(await send('GET', `/api/v1/workspaces/${ids[w]}/statuses`)),
    label: named(await send('GET', `/api/v1/workspaces/${ids[w]}/labels`)),
    task: await send('GET', `/api/v1/tasks/${taskId}`),
    comment: (await send('GET', `/api/v1/tasks/${ids[`${w}_task`]}/comments`))[0],
  });

  beforeAll(async () => {
    const ws = ids.wb;
    await send('POST', '/api/v1/folders', { workspace_id: ws, name: 'New' });
    await send('POST', '/api/v1/lists', { workspace_id: ws, folder_id: ids.wb_folder, name: 'New' });
    await send('POST', '/api/v1/statuses', { workspace_id: ws, name: 'New', category: 'pending' });
    await send('POST', '/api/v1/labels', { workspace_id: ws, name: 'New' });
    const task = await send('POST', '/api/v1/tasks', { list_id: ids.wb_list, title: 'New' });
    await send('POST', `/api/v1/tasks/${ids.wb_task}/comments`, { content: '<p>New</p>' });
    fromFixture = await readBack('wa', ids.wa_new_task);
    fromApi = await readBack('wb', task.id);
  });

  it.each(['folder', 'list', 'status', 'label', 'task', 'comment'])('%s: the same fields', (kind) => {
    expect(fromFixture[kind]).toBeDefined();
    expect(comparable(fromFixture[kind])).toEqual(comparable(fromApi[kind]));
  });

  it('are the defaults of the specification', () => {
    expect(comparable(fromApi)).toMatchObject({
      folder: { name: 'New', icon: null, color: 'blue', position: 6 },
      list: { name: 'New', icon: null, color: 'gray', position: 6 },
      status: { name: 'New', icon: null, color: 'gray', category: 'pending', position: 4 },
      label: { name: 'New', color: null },
      task: { title: 'New', description: null, priority: 'none', identifier: 2, status: { name: 'Next', category: 'pending' } },
      comment: { content: '<p>New</p>', parent_comment_id: null, resolved: false },
    });
  });
});
