import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import type { Schema } from '../setup/api-types';
import { usersWithKeys } from '../setup/world';

/**
 * The world of the task specs (test/e2e/tasks-*.e2e-spec.ts): one workspace with
 * every role, a restricted member, custom fields covering the D19 applicability
 * matrix, and a second workspace for the cross-workspace cases. Each spec file
 * loads it into its own database.
 */

const ALL = [...SCOPES];

/** Keys by role (all scopes) plus the scope-less ones. */
export const KEYS = {
  owner: 'svc_tk_owner',
  admin: 'svc_tk_admin',
  member: 'svc_tk_member',
  viewer: 'svc_tk_viewer',
  restricted: 'svc_tk_restricted',
  restrictedViewer: 'svc_tk_restricted_viewer',
  nonMember: 'svc_tk_outsider',
  fay: 'svc_tk_fay',
  noTasks: 'svc_tk_no_tasks',
  readOnly: 'svc_tk_read_only',
} as const;

/** Key sets of D16 (sorted), for exact field-set assertions; each a key of its schema in the document. */
export const FIELDS = {
  write: [
    'assignees',
    'created_at',
    'creator_id',
    'custom_fields',
    'description',
    'due_date',
    'id',
    'identifier',
    'list_id',
    'priority',
    'start_date',
    'status',
    'title',
    'workspace_id',
  ] satisfies Array<keyof Schema<'TaskWrite'>>,
  full: [
    'assignees',
    'attachments',
    'created_at',
    'creator_id',
    'custom_fields',
    'description',
    'due_date',
    'id',
    'identifier',
    'labels',
    'list_id',
    'priority',
    'start_date',
    'status',
    'subtasks',
    'title',
    'workspace_id',
  ] satisfies Array<keyof Schema<'Task'>>,
  listItem: [
    'assignees',
    'created_at',
    'creator_id',
    'custom_fields',
    'due_date',
    'id',
    'identifier',
    'list_id',
    'priority',
    'start_date',
    'status',
    'subtasks',
    'title',
    'workspace_id',
  ] satisfies Array<keyof Schema<'TaskListItem'>>,
  subtask: ['assignees', 'id', 'identifier', 'priority', 'status', 'title'] satisfies Array<keyof Schema<'Subtask'>>,
  attachment: ['created_at', 'file_name', 'file_size', 'id', 'mime_type', 'uploader'] satisfies Array<keyof Schema<'Attachment'>>,
  assignee: ['avatar_url', 'id', 'name'] satisfies Array<keyof Schema<'Assignee'>>,
  status: ['category', 'color', 'icon', 'id', 'name'] satisfies Array<keyof Schema<'StatusSummary'>>,
  label: ['color', 'id', 'name'] satisfies Array<keyof Schema<'LabelSummary'>>,
  customField: ['config', 'id', 'name', 'position', 'type', 'value'] satisfies Array<keyof Schema<'CustomFieldEntry'>>,
};

/** `Object.keys` sorted: the exact key set of a response object. */
export const keys = (o: unknown) => Object.keys(o as object).sort();

/** Convention 2 timestamps. */
export const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The task world (refs as named above). */
export function tasksWorld(): FixtureWorld {
  const { users, api_keys } = usersWithKeys(
    'tasks.test',
    ['alice', 'bob', 'carol', 'dave', 'erin', 'vera', 'olga', 'fay'],
    {
      alice: KEYS.owner,
      bob: KEYS.admin,
      carol: KEYS.member,
      dave: KEYS.viewer,
      erin: KEYS.restricted,
      vera: KEYS.restrictedViewer,
      olga: KEYS.nonMember,
      fay: KEYS.fay,
    },
    { alice: { avatar_url: 'https://img.test/alice.png' }, carol: { avatar_url: 'https://img.test/carol.png' } },
  );
  return {
    users,
    api_keys: [
      ...api_keys!,
      { user: 'alice', key: KEYS.noTasks, scopes: ALL.filter((s) => !s.startsWith('tasks:')) },
      { user: 'alice', key: KEYS.readOnly, scopes: ['tasks:read'] },
    ],
    workspaces: [
      {
        ref: 'acme',
        name: 'Acme',
        slug: 'tk-acme',
        owner: 'alice',
        members: [
          { user: 'bob', role: 'admin' },
          { user: 'carol', role: 'member' },
          { user: 'dave', role: 'viewer' },
          { user: 'erin', role: 'member', restricted: true, folders: ['eng'], lists: ['ops_granted'] },
          { user: 'vera', role: 'viewer', restricted: true, folders: ['eng'] },
          { user: 'fay', role: 'member' },
        ],
        // D17: the default is the pending status of lowest position (todo), not the first pending one by id (later).
        statuses: [
          { ref: 'review', name: 'Review', category: 'in_progress', position: 1 },
          { ref: 'later', name: 'Later', category: 'pending', position: 3, color: 'purple' },
          { ref: 'todo', name: 'To Do', category: 'pending', position: 2, icon: 'circle' },
          { ref: 'done', name: 'Done', category: 'completed', position: 4, color: 'green' },
        ],
        labels: [
          { ref: 'bug', name: 'bug', color: 'red' },
          { ref: 'feature', name: 'Feature', color: 'blue' },
          { ref: 'chore', name: 'Chore', color: null },
        ],
        folders: [
          {
            ref: 'eng',
            name: 'Engineering',
            lists: [
              { ref: 'backlog', name: 'Backlog' },
              { ref: 'sprint', name: 'Sprint' },
            ],
          },
          {
            ref: 'ops',
            name: 'Ops',
            lists: [
              { ref: 'inbox', name: 'Inbox' },
              { ref: 'ops_granted', name: 'Granted' },
            ],
          },
        ],
        lists: [{ ref: 'loose', name: 'No folder' }],
        custom_fields: [
          // D19 matrix: unrestricted; granted folder with a denied override; granted override outside granted folders;
          // allowed users; configs of D18.
          { ref: 'cf_open', name: 'Notes', type: 'text', position: 1 },
          {
            ref: 'cf_eng',
            name: 'Estimate',
            type: 'number',
            position: 2,
            is_scope_restricted: true,
            granted_folders: ['eng'],
            list_overrides: [{ list: 'sprint', access: 'denied' }],
          },
          {
            ref: 'cf_inbox',
            name: 'Channel',
            type: 'dropdown',
            position: 3,
            config: { options: ['mail', 'phone'] },
            is_scope_restricted: true,
            list_overrides: [{ list: 'inbox', access: 'granted' }],
          },
          { ref: 'cf_secret', name: 'Secret', type: 'checkbox', position: 4, allowed_users: ['bob', 'fay'] },
          { ref: 'cf_stars', name: 'Stars', type: 'rating', position: 5, config: { iconName: 'star', color: 'orange' } },
          { ref: 'cf_money', name: 'Budget', type: 'money', position: 5, config: { currency: 'EUR', decimals: 2 } },
          { ref: 'cf_nowhere', name: 'Nowhere', type: 'date', position: 0, is_scope_restricted: true },
        ],
        tasks: [
          {
            ref: 't_full',
            list: 'backlog',
            title: 'Ship it',
            description: '<p>now</p>',
            priority: 'high',
            status: 'review',
            creator: 'carol',
            assignees: ['carol', 'bob'],
            labels: ['feature', 'bug'],
            due_date: '2025-03-01T12:00:00.000Z',
            start_date: '2025-02-20T08:30:00.000Z',
            created_at: '2025-02-01T12:00:00.000Z',
            custom_fields: [
              { field: 'cf_open', value: 'hello' },
              { field: 'cf_eng', value: '5' },
              { field: 'cf_secret', value: 'true' },
              { field: 'cf_inbox', value: 'mail' },
              { field: 'cf_stars', value: '4' },
            ],
            attachments: [
              { ref: 'a2', file_name: 'later.png', file_size: 10, mime_type: 'image/png', uploader: 'carol', created_at: '2025-02-03T00:00:00.000Z' },
              { ref: 'a1', file_name: 'spec.pdf', file_size: 1024, mime_type: 'application/pdf', uploader: 'alice', created_at: '2025-02-02T00:00:00.000Z' },
              { ref: 'a_hidden', file_name: 'draft.txt', file_size: 1, mime_type: 'text/plain', uploader: 'alice', confirmed: false },
            ],
            comments: [{ user: 'bob', content: '<p>on it</p>' }],
          },
          { ref: 't_sub2', parent: 't_full', list: 'backlog', title: 'Second step', creator: 'bob', created_at: '2025-02-05T00:00:00.000Z', status: null },
          {
            ref: 't_sub1',
            parent: 't_full',
            list: 'backlog',
            title: 'First step',
            creator: 'bob',
            priority: 'low',
            created_at: '2025-02-04T00:00:00.000Z',
            assignees: ['dave'],
            status: 'done',
          },
          { ref: 't_sprint', list: 'sprint', title: 'Sprint task', created_at: '2025-01-10T00:00:00.000Z', custom_fields: [{ field: 'cf_eng', value: '8' }] },
          { ref: 't_inbox', list: 'inbox', title: 'Inbox task', created_at: '2025-01-11T00:00:00.000Z' },
          { ref: 't_granted', list: 'ops_granted', title: 'Granted task', created_at: '2025-01-12T00:00:00.000Z' },
          { ref: 't_loose', list: 'loose', title: 'Loose task', created_at: '2025-01-13T00:00:00.000Z' },
          { ref: 't_nolist', title: 'No list task', created_at: '2025-01-14T00:00:00.000Z', custom_fields: [{ field: 'cf_eng', value: '1' }] },
        ],
      },
      {
        ref: 'other',
        name: 'Other',
        slug: 'tk-other',
        owner: 'olga',
        statuses: [
          { ref: 'o_todo', name: 'Todo', category: 'pending' },
          { ref: 'o_done', name: 'Done', category: 'completed' },
        ],
        labels: [{ ref: 'o_label', name: 'Elsewhere' }],
        folders: [{ ref: 'o_folder', name: 'F', lists: [{ ref: 'o_list', name: 'L' }] }],
        tasks: [{ ref: 'o_task', list: 'o_list', title: 'Elsewhere' }],
      },
      // D17: statuses but none pending; no statuses at all.
      {
        ref: 'nopending',
        name: 'No pending',
        slug: 'tk-nopending',
        owner: 'alice',
        statuses: [{ name: 'Done', category: 'completed' }],
        lists: [{ ref: 'np_list', name: 'L' }],
      },
      { ref: 'nostatus', name: 'No status', slug: 'tk-nostatus', owner: 'alice', statuses: [], lists: [{ ref: 'ns_list', name: 'L' }] },
      // D15 and D22: a workspace without tasks.
      { ref: 'empty', name: 'Empty', slug: 'tk-empty', owner: 'alice', lists: [{ ref: 'empty_list', name: 'L' }] },
    ],
  };
}
