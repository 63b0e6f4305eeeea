import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { Schema } from '../setup/api-types';
import { auth, useTestApp } from '../setup/create-app';
import { FIELDS, KEYS, keys, tasksWorld } from './tasks-world';

/**
 * Get task: GET /api/v1/tasks/:id.
 * spec: Get task, Task fields; D1, D3, D4, D5, D16, D18, D19, D23, D30.
 * The checks every route makes (keys, scopes, ids, non-members, the D2 role
 * messages) are the route matrix's (route-matrix.e2e-spec.ts).
 */
describe('GET /api/v1/tasks/:id', () => {
  const { t, ids } = useTestApp((ds) => loadFixture(ds, tasksWorld()));
  const get = (taskId: number | string, key: string = KEYS.owner) => t.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers: auth(key) });

  it('returns the whole task: status, assignees, labels, subtasks, confirmed attachments, custom fields (D16, D18)', async () => {
    const res = await get(ids.t_full, KEYS.admin);
    expect(res.statusCode).toBe(200);
    const alice = { id: ids.alice, name: 'Alice', avatar_url: 'https://img.test/alice.png' };
    const bob = { id: ids.bob, name: 'Bob', avatar_url: null };
    const carol = { id: ids.carol, name: 'Carol', avatar_url: 'https://img.test/carol.png' };
    expect(res.json()).toEqual({
      id: ids.t_full,
      workspace_id: ids.acme,
      list_id: ids.backlog,
      title: 'Ship it',
      description: '<p>now</p>',
      priority: 'high',
      identifier: 1,
      due_date: '2025-03-01T12:00:00.000Z',
      start_date: '2025-02-20T08:30:00.000Z',
      creator_id: ids.carol,
      created_at: '2025-02-01T12:00:00.000Z',
      status: { id: ids.review, name: 'Review', icon: null, color: 'gray', category: 'in_progress' },
      // D12: ascending user id, whatever the order given.
      assignees: [bob, carol].sort((a, b) => a.id - b.id),
      // D23: labels by name ignoring case.
      labels: [
        { id: ids.bug, name: 'bug', color: 'red' },
        { id: ids.feature, name: 'Feature', color: 'blue' },
      ],
      // D16: oldest first by created_at (t_sub1 was created earlier though listed later).
      subtasks: [
        {
          id: ids.t_sub1,
          title: 'First step',
          priority: 'low',
          identifier: 3,
          status: { id: ids.done, name: 'Done', icon: null, color: 'green', category: 'completed' },
          assignees: [{ id: ids.dave, name: 'Dave', avatar_url: null }],
        },
        { id: ids.t_sub2, title: 'Second step', priority: 'none', identifier: 2, status: null, assignees: [] },
      ],
      // Confirmed only, oldest first.
      attachments: [
        { id: ids.a1, file_name: 'spec.pdf', file_size: 1024, mime_type: 'application/pdf', created_at: '2025-02-02T00:00:00.000Z', uploader: alice },
        { id: ids.a2, file_name: 'later.png', file_size: 10, mime_type: 'image/png', created_at: '2025-02-03T00:00:00.000Z', uploader: carol },
      ],
      // D18: by position then id; cf_inbox does not apply to this list, its value stays hidden.
      custom_fields: [
        { id: ids.cf_open, name: 'Notes', type: 'text', config: null, position: 1, value: 'hello' },
        { id: ids.cf_eng, name: 'Estimate', type: 'number', config: null, position: 2, value: '5' },
        { id: ids.cf_secret, name: 'Secret', type: 'checkbox', config: null, position: 4, value: 'true' },
        { id: ids.cf_stars, name: 'Stars', type: 'rating', config: { icon: 'star', color: 'orange' }, position: 5, value: '4' },
        { id: ids.cf_money, name: 'Budget', type: 'money', config: { currency: 'EUR', decimals: 2 }, position: 5, value: null },
      ],
    } satisfies Schema<'Task'>);
  });

  it('has exactly the field sets of D16 at every level', async () => {
    const task = (await get(ids.t_full, KEYS.admin)).json();
    expect(keys(task)).toEqual(FIELDS.full);
    expect(keys(task.status)).toEqual(FIELDS.status);
    expect(task.assignees.map(keys)).toEqual([FIELDS.assignee, FIELDS.assignee]);
    expect(task.labels.map(keys)).toEqual([FIELDS.label, FIELDS.label]);
    expect(task.subtasks.map(keys)).toEqual([FIELDS.subtask, FIELDS.subtask]);
    expect(keys(task.subtasks[0].status)).toEqual(FIELDS.status);
    expect(keys(task.subtasks[0].assignees[0])).toEqual(FIELDS.assignee);
    expect(task.attachments.map(keys)).toEqual([FIELDS.attachment, FIELDS.attachment]);
    expect(keys(task.attachments[0].uploader)).toEqual(FIELDS.assignee);
    expect(task.custom_fields.map(keys)).toEqual(task.custom_fields.map(() => FIELDS.customField));
  });

  it('gives a task without status, assignees, labels, subtasks or attachments null and empty arrays; list_id null when not in a list', async () => {
    const task = (await get(ids.t_nolist)).json();
    expect(task).toMatchObject({
      list_id: null,
      description: null,
      due_date: null,
      start_date: null,
      assignees: [],
      labels: [],
      subtasks: [],
      attachments: [],
    } satisfies Partial<Schema<'Task'>>);
    expect(task.status).toEqual({ id: ids.todo, name: 'To Do', icon: 'circle', color: 'gray', category: 'pending' });
  });

  it('gives a subtask its own full view', async () => {
    const task = (await get(ids.t_sub1)).json();
    expect(keys(task)).toEqual(FIELDS.full);
    expect(task).toMatchObject({ id: ids.t_sub1, title: 'First step', subtasks: [], creator_id: ids.bob } satisfies Partial<Schema<'Task'>>);
  });

  describe('custom fields: applicability (D19) and visibility (D18)', () => {
    const open = 'cf_open',
      eng = 'cf_eng',
      inbox = 'cf_inbox',
      secret = 'cf_secret',
      stars = 'cf_stars',
      money = 'cf_money';
    it.each([
      ['unrestricted fields and a granted folder', 't_full', 'fay', [open, eng, secret, stars, money]],
      ['a denied override under a granted folder hides the field (and its value)', 't_sprint', 'fay', [open, secret, stars, money]],
      ['a granted override outside the granted folders', 't_inbox', 'fay', [open, inbox, secret, stars, money]],
      ['a list of a folder without grants', 't_granted', 'fay', [open, secret, stars, money]],
      ['a list without folder', 't_loose', 'fay', [open, secret, stars, money]],
      ['a task without list gets only unrestricted fields', 't_nolist', 'fay', [open, secret, stars, money]],
      ['allowed users: the owner is not exempt', 't_full', 'owner', [open, eng, stars, money]],
      ['allowed users: an admin in the list sees it', 't_full', 'admin', [open, eng, secret, stars, money]],
      ['allowed users: a member outside the list does not', 't_full', 'member', [open, eng, stars, money]],
    ] as const)('%s', async (_case, task, who, expected) => {
      const key = who === 'fay' ? KEYS.fay : KEYS[who];
      const res = await get(ids[task], key);
      expect(res.statusCode).toBe(200);
      expect(res.json().custom_fields.map((f: { id: number }) => f.id)).toEqual(expected.map((ref) => ids[ref]));
    });

    it('gives configs per type: rating {icon, color}, dropdown and money as stored, others null', async () => {
      const [inboxTask, full] = await Promise.all([get(ids.t_inbox), get(ids.t_full)]);
      const configs = Object.fromEntries(
        [...inboxTask.json().custom_fields, ...full.json().custom_fields].map((f: { name: string; config: unknown }) => [f.name, f.config]),
      );
      expect(configs).toEqual({
        Notes: null,
        Estimate: null,
        Channel: { options: ['mail', 'phone'] },
        Stars: { icon: 'star', color: 'orange' },
        Budget: { currency: 'EUR', decimals: 2 },
      });
    });

    it('keeps the values of fields that do not apply hidden, not lost (D13)', async () => {
      const [row] = await t.db.ds.query(`SELECT value FROM task_custom_field_values WHERE task_id = $1 AND field_id = $2`, [ids.t_sprint, ids.cf_eng]);
      expect(row).toEqual({ value: '8' });
    });
  });

  describe('roles and access (D1, D4, D30)', () => {
    it.each([
      ['owner', KEYS.owner, 't_full', 200, null],
      ['admin', KEYS.admin, 't_inbox', 200, null],
      ['member', KEYS.member, 't_nolist', 200, null],
      ['viewer', KEYS.viewer, 't_full', 200, null],
      ['restricted member, granted folder', KEYS.restricted, 't_full', 200, null],
      ['restricted member, granted list', KEYS.restricted, 't_granted', 200, null],
      ['restricted viewer, granted folder', KEYS.restrictedViewer, 't_sprint', 200, null],
      ['restricted member, list outside', KEYS.restricted, 't_inbox', 403, 'Access denied'],
      ['restricted member, list without folder', KEYS.restricted, 't_loose', 403, 'Access denied'],
      ['restricted member, task not in a list', KEYS.restricted, 't_nolist', 403, 'Access denied'],
      ['restricted viewer, list granted to someone else', KEYS.restrictedViewer, 't_granted', 403, 'Access denied'],
    ] as const)('%s', async (_who, key, task, status, error) => {
      const res = await get(ids[task], key);
      expect(res.statusCode).toBe(status);
      if (error) expect(res.json()).toEqual({ error });
      else expect(res.json().id).toBe(ids[task]);
    });

    it('lets the outsider read tasks of its own workspace', async () => {
      const res = await get(ids.o_task, KEYS.nonMember);
      expect(res.statusCode).toBe(200);
      expect(res.json().custom_fields).toEqual([]);
    });
  });

  describe('errors', () => {
    it('accepts a key with only tasks:read (D21)', async () => {
      expect((await get(ids.t_full, KEYS.readOnly)).statusCode).toBe(200);
    });
  });
});
