import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { usersWithKeys } from '../setup/world';

/**
 * Issue 8, items 3-5 (D33): what a restricted member may not see stays invisible
 * through what they may see. Erin is a restricted member granted folder `open`
 * and, on its own, list `lone` (in folder `closed`, which is not granted).
 * Carol is an unrestricted member and sees everything.
 */
const KEY = { erin: 'svc_rv_erin', vera: 'svc_rv_vera', carol: 'svc_rv_carol' } as const;

describe('restricted members: D33', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const req = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string, payload?: object) =>
    t.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, {
      ...usersWithKeys('rv.test', ['alice', 'carol', 'erin', 'vera'], { carol: KEY.carol, erin: KEY.erin, vera: KEY.vera }),
      workspaces: [
        {
          ref: 'ws',
          name: 'RV',
          slug: 'rv',
          owner: 'alice',
          members: [
            { user: 'carol', role: 'member' },
            { user: 'erin', role: 'member', restricted: true, folders: ['open', 'open2'], lists: ['lone'] },
            { user: 'vera', role: 'viewer', restricted: true, folders: ['open'] },
          ],
          folders: [
            { ref: 'open', name: 'Open', lists: [{ ref: 'seen', name: 'Seen' }] },
            { ref: 'open2', name: 'Open too', lists: [{ ref: 'seen2', name: 'Seen too' }] },
            {
              ref: 'closed',
              name: 'Closed',
              lists: [
                { ref: 'hidden', name: 'Hidden' },
                { ref: 'lone', name: 'Lone' },
              ],
            },
          ],
          lists: [{ ref: 'loose', name: 'No folder' }],
          tasks: [
            { ref: 'parent', list: 'seen', title: 'Parent', created_at: '2025-01-01T00:00:00.000Z' },
            // Subtasks oldest first (D16): visible, hidden, visible via the lone list grant, not in a list.
            { ref: 'sub_seen', parent: 'parent', list: 'seen', title: 'Sub seen', created_at: '2025-01-02T00:00:00.000Z' },
            { ref: 'sub_hidden', parent: 'parent', list: 'hidden', title: 'Sub hidden', created_at: '2025-01-03T00:00:00.000Z' },
            { ref: 'sub_lone', parent: 'parent', list: 'lone', title: 'Sub lone', created_at: '2025-01-04T00:00:00.000Z' },
            { ref: 'sub_nolist', parent: 'parent', title: 'Sub without list', created_at: '2025-01-05T00:00:00.000Z' },
            { ref: 'secret', list: 'hidden', title: 'Secret', created_at: '2025-01-06T00:00:00.000Z' },
            { ref: 'nolist', title: 'No list', created_at: '2025-01-07T00:00:00.000Z' },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const titles = (subtasks: Array<{ title: string }>) => subtasks.map((s) => s.title);
  const ALL_SUBTASKS = ['Sub seen', 'Sub hidden', 'Sub lone', 'Sub without list'];

  describe('embedded subtasks (item 4)', () => {
    it('get task embeds only the subtasks in the permitted lists of a restricted member', async () => {
      const res = await req('GET', `/api/v1/tasks/${ids.parent}`, KEY.erin);
      expect(res.statusCode).toBe(200);
      expect(titles(res.json().subtasks)).toEqual(['Sub seen', 'Sub lone']);
      const viewer = await req('GET', `/api/v1/tasks/${ids.parent}`, KEY.vera);
      expect(titles(viewer.json().subtasks)).toEqual(['Sub seen']);
    });

    it('list tasks embeds the same subtasks as get task, and lists only permitted tasks', async () => {
      const res = await req('GET', `/api/v1/workspaces/${ids.ws}/tasks`, KEY.erin);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.map((row: { title: string; subtasks: Array<{ title: string }> }) => [row.title, titles(row.subtasks)])).toEqual([
        ['Parent', ['Sub seen', 'Sub lone']],
      ]);
      expect(res.json().total).toBe(1);
      const filtered = await req('GET', `/api/v1/workspaces/${ids.ws}/tasks?list_id=${ids.seen}`, KEY.vera);
      expect(filtered.json().data.map((row: { subtasks: Array<{ title: string }> }) => titles(row.subtasks))).toEqual([['Sub seen']]);
    });

    it('an unrestricted member still sees every subtask and every task', async () => {
      const one = await req('GET', `/api/v1/tasks/${ids.parent}`, KEY.carol);
      expect(titles(one.json().subtasks)).toEqual(ALL_SUBTASKS);
      const page = await req('GET', `/api/v1/workspaces/${ids.ws}/tasks`, KEY.carol);
      expect(page.json().data.map((row: { title: string; subtasks: Array<{ title: string }> }) => [row.title, titles(row.subtasks)])).toEqual([
        ['No list', []],
        ['Secret', []],
        ['Parent', ALL_SUBTASKS],
      ]);
    });
  });

  describe('parent_id of a new task (item 3)', () => {
    it.each([
      ['a task in a list outside the permitted ones', 'secret'],
      ['a task in no list', 'nolist'],
    ])('answers %s exactly like a missing parent: 404 Parent task not found', async (_case, parent) => {
      const hidden = await req('POST', '/api/v1/tasks', KEY.erin, { list_id: ids.seen, title: 'Probe', parent_id: ids[parent] });
      const missing = await req('POST', '/api/v1/tasks', KEY.erin, { list_id: ids.seen, title: 'Probe', parent_id: 2147483647 });
      expect([hidden.statusCode, hidden.json()]).toEqual([404, { error: 'Parent task not found' }]);
      expect([missing.statusCode, missing.json()]).toEqual([hidden.statusCode, hidden.json()]);
    });

    it('accepts a parent in a permitted list, also via a list granted on its own', async () => {
      const res = await req('POST', '/api/v1/tasks', KEY.erin, { list_id: ids.seen, title: 'Child', parent_id: ids.parent });
      expect(res.statusCode).toBe(201);
    });

    it('an unrestricted member may use any parent of the workspace', async () => {
      const res = await req('POST', '/api/v1/tasks', KEY.carol, { list_id: ids.seen, title: 'Child of secret', parent_id: ids.secret });
      expect(res.statusCode).toBe(201);
    });
  });

  describe('moving a list between folders (item 5)', () => {
    it('needs the current folder granted: a list granted on its own cannot leave a folder not granted', async () => {
      const res = await req('PATCH', `/api/v1/lists/${ids.lone}`, KEY.erin, { folder_id: ids.open });
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'Access denied' }]);
    });

    it('needs the target folder granted', async () => {
      const res = await req('PATCH', `/api/v1/lists/${ids.seen}`, KEY.erin, { folder_id: ids.closed });
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'Access denied' }]);
    });

    it('moves between two granted folders', async () => {
      const res = await req('PATCH', `/api/v1/lists/${ids.seen2}`, KEY.erin, { folder_id: ids.open });
      expect(res.statusCode).toBe(200);
      expect(res.json().folder_id).toBe(ids.open);
    });

    it('still lets a restricted member rename a list granted on its own (no move)', async () => {
      const res = await req('PATCH', `/api/v1/lists/${ids.lone}`, KEY.erin, { name: 'Lone renamed' });
      expect(res.statusCode).toBe(200);
      expect(res.json().folder_id).toBe(ids.closed);
    });

    it('an unrestricted member moves any list', async () => {
      const res = await req('PATCH', `/api/v1/lists/${ids.lone}`, KEY.carol, { folder_id: ids.open2 });
      expect(res.statusCode).toBe(200);
      expect(res.json().folder_id).toBe(ids.open2);
    });
  });
});
