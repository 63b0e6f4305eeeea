import { readFileSync } from 'fs';
import { join } from 'path';

import { hashApiKey } from '../../src/common/auth/api-key';
import { demoWorld } from '../../src/fixtures/demo-world';
import { FixtureError, loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from '../setup/database';

/** The fixture loader against a real database (FIXTURES.md, D17, D24, D9). */

const readJson = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8'));

const TABLES = [
  'users',
  'api_keys',
  'workspaces',
  'workspace_members',
  'statuses',
  'labels',
  'folders',
  'lists',
  'member_folder_grants',
  'member_list_grants',
  'custom_fields',
  'custom_field_folder_grants',
  'custom_field_list_overrides',
  'custom_field_allowed_users',
  'tasks',
  'task_assignees',
  'task_labels',
  'task_custom_field_values',
  'attachments',
  'comments',
];

let db: TestDatabase;
const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => db.ds.query(sql, params);

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = (await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`))[0].n;
  return out;
}

/** Loads `world` and returns the error it throws (failing the test when it loads). */
async function loadError(world: unknown): Promise<FixtureError> {
  try {
    await loadFixture(db.ds, world);
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError);
    return error as FixtureError;
  }
  throw new Error('the fixture loaded');
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('the FIXTURES.md example', () => {
  let ids: Record<string, number>;

  beforeAll(async () => {
    ids = await loadFixture(db.ds, readJson('example-world.json'));
  });

  it('maps every ref of the file to an id', () => {
    expect(Object.keys(ids).sort()).toEqual(
      [
        'a1',
        'acme',
        'alice',
        'alice_all',
        'backlog',
        'bob',
        'bug',
        'c1',
        'carol',
        'done',
        'eng',
        'est',
        'loose',
        'ops_inbox',
        'stars',
        't1',
        't1a',
        'todo',
      ].sort(),
    );
    for (const id of Object.values(ids)) expect(Number.isInteger(id) && id > 0).toBe(true);
    expect(ids.bob).toBe(ids.alice + 1);
    expect(ids.t1a).toBe(ids.t1 + 1);
  });

  it('stores users and the key (as its hash only)', async () => {
    expect(await q('SELECT id, email, name, avatar_url, api_ts(created_at) AS created_at FROM users ORDER BY id')).toEqual([
      { id: ids.alice, email: 'alice@example.com', name: 'Alice', avatar_url: null, created_at: '2025-01-01T00:00:00.000Z' },
      { id: ids.bob, email: 'bob@example.com', name: 'Bob', avatar_url: null, created_at: '2025-01-02T00:00:00.000Z' },
      expect.objectContaining({ id: ids.carol, email: 'carol@example.com', name: 'Carol', avatar_url: null }),
    ]);
    expect(await q('SELECT id, user_id, key_hash, name, scopes, expires_at, revoked_at FROM api_keys')).toEqual([
      {
        id: ids.alice_all,
        user_id: ids.alice,
        key_hash: hashApiKey('svc_alice_all_3f9c2a'),
        name: 'integration',
        scopes: ['tasks:read', 'tasks:write'],
        expires_at: null,
        revoked_at: null,
      },
    ]);
  });

  it('stores the workspace, its identifier sequence and its members with their grants', async () => {
    expect(
      await q(`SELECT id, name, slug, owner_id, description, icon, color, image_url,
                           pg_sequence_last_value(task_identifier_sequence(id)) AS last_identifier, api_ts(created_at) AS created_at FROM workspaces`),
    ).toEqual([
      {
        id: ids.acme,
        name: 'Acme',
        slug: 'acme',
        owner_id: ids.alice,
        description: null,
        icon: null,
        color: null,
        image_url: null,
        last_identifier: 2,
        created_at: '2025-01-01T00:00:00.000Z',
      },
    ]);
    const members = await q('SELECT user_id, role, is_restricted, api_ts(joined_at) AS joined_at FROM workspace_members ORDER BY user_id');
    expect(members.map(({ joined_at, ...m }) => m)).toEqual([
      { user_id: ids.alice, role: 'owner', is_restricted: false },
      { user_id: ids.bob, role: 'admin', is_restricted: false },
      { user_id: ids.carol, role: 'member', is_restricted: true },
    ]);
    // The owner joins when the workspace is created; bob as listed.
    expect(members.slice(0, 2).map((m) => m.joined_at)).toEqual(['2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z']);
    expect(await q('SELECT workspace_id, user_id, folder_id FROM member_folder_grants')).toEqual([
      { workspace_id: ids.acme, user_id: ids.carol, folder_id: ids.eng },
    ]);
    expect(await q('SELECT workspace_id, user_id, list_id FROM member_list_grants')).toEqual([
      { workspace_id: ids.acme, user_id: ids.carol, list_id: ids.ops_inbox },
    ]);
  });

  it('stores statuses, labels, folders and lists with their defaults', async () => {
    expect(await q('SELECT id, workspace_id, name, icon, color, category, position FROM statuses ORDER BY id')).toEqual([
      { id: ids.todo, workspace_id: ids.acme, name: 'To Do', icon: null, color: 'gray', category: 'pending', position: 1 },
      { id: ids.done, workspace_id: ids.acme, name: 'Done', icon: null, color: 'gray', category: 'completed', position: 2 },
    ]);
    expect(await q('SELECT id, workspace_id, name, color FROM labels')).toEqual([{ id: ids.bug, workspace_id: ids.acme, name: 'Bug', color: 'red' }]);
    expect(await q('SELECT id, workspace_id, name, icon, color, position FROM folders')).toEqual([
      { id: ids.eng, workspace_id: ids.acme, name: 'Engineering', icon: 'code', color: 'blue', position: 1 },
    ]);
    expect(await q('SELECT id, workspace_id, folder_id, name, icon, color, position FROM lists ORDER BY id')).toEqual([
      { id: ids.backlog, workspace_id: ids.acme, folder_id: ids.eng, name: 'Backlog', icon: null, color: 'gray', position: 1 },
      { id: ids.loose, workspace_id: ids.acme, folder_id: null, name: 'No folder', icon: null, color: 'gray', position: 2 },
      { id: ids.ops_inbox, workspace_id: ids.acme, folder_id: null, name: 'Ops inbox', icon: null, color: 'gray', position: 3 },
    ]);
  });

  it('stores custom fields with grants, overrides and no allowed-users list', async () => {
    expect(await q('SELECT id, name, type, config, position, is_scope_restricted, has_allowed_users FROM custom_fields ORDER BY id')).toEqual([
      { id: ids.est, name: 'Estimate', type: 'number', config: null, position: 1, is_scope_restricted: true, has_allowed_users: false },
      {
        id: ids.stars,
        name: 'Stars',
        type: 'rating',
        config: { iconName: 'star', color: 'orange' },
        position: 2,
        is_scope_restricted: false,
        has_allowed_users: false,
      },
    ]);
    expect(await q('SELECT field_id, folder_id, workspace_id FROM custom_field_folder_grants')).toEqual([
      { field_id: ids.est, folder_id: ids.eng, workspace_id: ids.acme },
    ]);
    expect(await q('SELECT field_id, list_id, workspace_id, access FROM custom_field_list_overrides')).toEqual([
      { field_id: ids.est, list_id: ids.backlog, workspace_id: ids.acme, access: 'denied' },
    ]);
    expect(await q('SELECT * FROM custom_field_allowed_users')).toEqual([]);
  });

  it('stores tasks with identifiers, statuses, assignees, labels, values, attachments and comments', async () => {
    expect(
      await q(`SELECT id, workspace_id, list_id, parent_id, identifier, title, description, priority, status_id,
        due_date, start_date, creator_id, api_ts(created_at) AS created_at FROM tasks ORDER BY id`),
    ).toEqual([
      {
        id: ids.t1,
        workspace_id: ids.acme,
        list_id: ids.backlog,
        parent_id: null,
        identifier: 1,
        title: 'Ship it',
        description: '<p>now</p>',
        priority: 'high',
        status_id: ids.todo,
        due_date: null,
        start_date: null,
        creator_id: ids.alice,
        created_at: '2025-02-01T12:00:00.000Z',
      },
      expect.objectContaining({
        id: ids.t1a,
        workspace_id: ids.acme,
        list_id: ids.backlog,
        parent_id: ids.t1,
        identifier: 2,
        title: 'Sub step',
        description: null,
        priority: 'none',
        status_id: ids.todo,
        creator_id: ids.bob,
      }),
    ]);
    expect(await q('SELECT task_id, user_id, workspace_id FROM task_assignees')).toEqual([{ task_id: ids.t1, user_id: ids.bob, workspace_id: ids.acme }]);
    expect(await q('SELECT task_id, label_id, workspace_id FROM task_labels')).toEqual([{ task_id: ids.t1, label_id: ids.bug, workspace_id: ids.acme }]);
    expect(await q('SELECT task_id, field_id, workspace_id, value FROM task_custom_field_values')).toEqual([
      { task_id: ids.t1, field_id: ids.stars, workspace_id: ids.acme, value: '4' },
    ]);
    expect(await q('SELECT id, workspace_id, task_id, uploader_id, file_name, file_size, mime_type, confirmed FROM attachments')).toEqual([
      {
        id: ids.a1,
        workspace_id: ids.acme,
        task_id: ids.t1,
        uploader_id: ids.alice,
        file_name: 'spec.pdf',
        file_size: 1024,
        mime_type: 'application/pdf',
        confirmed: true,
      },
    ]);
    expect(await q('SELECT id, workspace_id, task_id, user_id, parent_comment_id, content, resolved FROM comments')).toEqual([
      { id: ids.c1, workspace_id: ids.acme, task_id: ids.t1, user_id: ids.bob, parent_comment_id: null, content: '<p>on it</p>', resolved: true },
    ]);
  });

  it('cannot be loaded twice: the email is taken, and nothing of the second load is written', async () => {
    const before = await counts();
    const error = await loadError(readJson('example-world.json'));
    expect(error.message).toBe('Invalid fixture: user "alice" (users[0]): email "alice@example.com" is already taken in the database');
    expect(await counts()).toEqual(before);
  });
});

describe('the FIXTURES.md example as printed, on a database of its own', () => {
  // The same alice and slug as example-world.json, hence a second database.
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own.drop();
  });

  it('defines every ref it uses, and loads with each of them mapped', async () => {
    const ids = await loadFixture(own.ds, readJson('fixtures-md-example.json'));
    expect(Object.keys(ids).sort()).toEqual(
      ['a1', 'acme', 'alice', 'alice_all', 'backlog', 'bob', 'bug', 'c1', 'carol', 'done', 'eng', 'est', 'loose', 'stars', 't1', 't1a', 'todo'].sort(),
    );
    expect(await own.ds.query('SELECT id, email FROM users ORDER BY id')).toEqual([
      { id: ids.alice, email: 'alice@example.com' },
      { id: ids.bob, email: 'bob@example.com' },
      { id: ids.carol, email: 'carol@example.com' },
    ]);
    expect(await own.ds.query('SELECT user_id, folder_id FROM member_folder_grants')).toEqual([{ user_id: ids.carol, folder_id: ids.eng }]);
    expect(await own.ds.query('SELECT count(*)::int AS n FROM member_list_grants')).toEqual([{ n: 0 }]);
  });
});

describe('defaults', () => {
  it('gives the four default statuses, positions max + 1, default colors and D17 statuses', async () => {
    const ids = await loadFixture(db.ds, {
      users: [{ ref: 'd_owner', email: 'd-owner@example.com', name: 'Owner' }],
      workspaces: [
        {
          ref: 'd_ws',
          name: 'Defaults',
          slug: 'defaults',
          owner: 'd_owner',
          created_at: '2025-03-04T05:06:07',
          folders: [
            { ref: 'd_f1', name: 'F1', position: 5 },
            { ref: 'd_f2', name: 'F2', icon: 'chart', color: null },
          ],
          lists: [{ ref: 'd_l1', name: 'L1' }],
          custom_fields: [{ ref: 'd_cf', name: 'Notes', type: 'text' }],
          tasks: [
            { ref: 'd_t1', title: '  Padded  ', due_date: '2025-05-01', start_date: '2025-04-01T10:00:00+02:00', created_at: '2025-03-05T00:00:00.123456Z' },
            { ref: 'd_t2', title: 'No status', status: null, list: 'd_l1' },
          ],
        },
      ],
    });
    expect(await q('SELECT name, icon, color, category, position FROM statuses WHERE workspace_id = $1 ORDER BY id', [ids.d_ws])).toEqual([
      { name: 'To Do', icon: null, color: 'gray', category: 'pending', position: 1 },
      { name: 'In Progress', icon: null, color: 'gray', category: 'in_progress', position: 2 },
      { name: 'Done', icon: null, color: 'gray', category: 'completed', position: 3 },
      { name: 'Cancelled', icon: null, color: 'gray', category: 'cancelled', position: 4 },
    ]);
    const [todo] = await q<{ id: number }>(`SELECT id FROM statuses WHERE workspace_id = $1 AND name = 'To Do'`, [ids.d_ws]);
    expect(await q('SELECT id, name, icon, color, position FROM folders WHERE workspace_id = $1 ORDER BY id', [ids.d_ws])).toEqual([
      { id: ids.d_f1, name: 'F1', icon: null, color: 'blue', position: 5 },
      { id: ids.d_f2, name: 'F2', icon: 'chart', color: null, position: 6 },
    ]);
    expect(await q('SELECT color, position, folder_id FROM lists WHERE id = $1', [ids.d_l1])).toEqual([{ color: 'gray', position: 1, folder_id: null }]);
    expect(await q('SELECT position, is_scope_restricted, has_allowed_users, config FROM custom_fields WHERE id = $1', [ids.d_cf])).toEqual([
      { position: 1, is_scope_restricted: false, has_allowed_users: false, config: null },
    ]);
    expect(
      await q(
        `SELECT id, title, priority, status_id, list_id, creator_id, api_ts(due_date) AS due_date, api_ts(start_date) AS start_date,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at FROM tasks WHERE workspace_id = $1 ORDER BY id`,
        [ids.d_ws],
      ),
    ).toEqual([
      {
        id: ids.d_t1,
        title: 'Padded',
        priority: 'none',
        status_id: todo.id,
        list_id: null,
        creator_id: ids.d_owner,
        due_date: '2025-05-01T00:00:00.000Z',
        start_date: '2025-04-01T08:00:00.000Z',
        created_at: '2025-03-05T00:00:00.123456',
      },
      expect.objectContaining({ id: ids.d_t2, title: 'No status', status_id: null, list_id: ids.d_l1 }),
    ]);
    // The owner joins at the workspace's created_at, given without a zone: UTC.
    expect(await q('SELECT user_id, role, api_ts(joined_at) AS joined_at FROM workspace_members WHERE workspace_id = $1', [ids.d_ws])).toEqual([
      { user_id: ids.d_owner, role: 'owner', joined_at: '2025-03-04T05:06:07.000Z' },
    ]);
  });

  it('gives no statuses for [], picks the first pending status by position, and fills value, attachment and comment defaults', async () => {
    const ids = await loadFixture(db.ds, {
      users: [
        { ref: 'e_owner', email: 'e-owner@example.com', name: 'Owner' },
        { ref: 'e_viewer', email: 'E-Viewer@Example.com', name: 'Viewer' },
      ],
      workspaces: [
        { ref: 'e_empty', name: 'Empty', slug: 'empty', owner: 'e_owner', statuses: [], tasks: [{ ref: 'e_t0', title: 'Loose' }] },
        {
          ref: 'e_ws',
          name: 'E',
          slug: 'e-ws',
          owner: 'e_owner',
          members: [
            { user: 'e_owner', role: 'owner', joined_at: '2024-12-31T23:00:00-01:00' },
            { user: 'e_viewer', role: 'viewer' },
          ],
          statuses: [
            { ref: 'e_later', name: 'Later', category: 'pending', position: 3 },
            { ref: 'e_done', name: 'Done', category: 'completed' },
            { ref: 'e_first', name: 'First', category: 'pending', position: 2 },
          ],
          custom_fields: [
            { ref: 'e_secret', name: 'Secret', type: 'number', allowed_users: ['e_owner', 'e_owner'], position: 7 },
            { ref: 'e_nobody', name: 'Nobody', type: 'checkbox', allowed_users: [] },
            { ref: 'e_pick', name: 'Pick', type: 'dropdown', config: { options: ['a', 'b'] } },
          ],
          tasks: [
            {
              ref: 'e_t1',
              title: 'Values',
              creator: 'e_viewer',
              assignees: ['e_viewer', 'e_viewer', 'e_owner'],
              custom_fields: [
                { field: 'e_secret', value: 5 },
                { field: 'e_nobody', value: true },
                { field: 'e_pick', value: null },
              ],
              attachments: [
                { ref: 'e_a1', file_name: 'a.txt', file_size: 0, mime_type: 'text/plain' },
                { ref: 'e_a2', file_name: 'b.txt', file_size: 3, mime_type: 'text/plain', confirmed: false, uploader: 'e_owner' },
              ],
              comments: [
                { ref: 'e_c1', content: 'First' },
                { ref: 'e_c2', user: 'e_owner', content: 'Reply', parent: 'e_c1' },
              ],
            },
          ],
        },
      ],
    });
    expect(await q('SELECT count(*)::int AS n FROM statuses WHERE workspace_id = $1', [ids.e_empty])).toEqual([{ n: 0 }]);
    expect(await q('SELECT status_id FROM tasks WHERE id = $1', [ids.e_t0])).toEqual([{ status_id: null }]);
    expect(await q('SELECT id, position FROM statuses WHERE workspace_id = $1 ORDER BY id', [ids.e_ws])).toEqual([
      { id: ids.e_later, position: 3 },
      { id: ids.e_done, position: 4 },
      { id: ids.e_first, position: 2 },
    ]);
    expect(await q('SELECT status_id, creator_id FROM tasks WHERE id = $1', [ids.e_t1])).toEqual([{ status_id: ids.e_first, creator_id: ids.e_viewer }]);
    expect(
      await q('SELECT user_id, role, api_ts(joined_at) AS joined_at FROM workspace_members WHERE workspace_id = $1 AND role = $2', [ids.e_ws, 'owner']),
    ).toEqual([{ user_id: ids.e_owner, role: 'owner', joined_at: '2025-01-01T00:00:00.000Z' }]);
    expect(await q('SELECT count(*)::int AS n FROM workspace_members WHERE workspace_id = $1', [ids.e_ws])).toEqual([{ n: 2 }]);
    expect(await q('SELECT user_id FROM task_assignees WHERE task_id = $1 ORDER BY user_id', [ids.e_t1])).toEqual([
      { user_id: ids.e_owner },
      { user_id: ids.e_viewer },
    ]);
    expect(await q('SELECT id, position, has_allowed_users, config FROM custom_fields WHERE workspace_id = $1 ORDER BY id', [ids.e_ws])).toEqual([
      { id: ids.e_secret, position: 7, has_allowed_users: true, config: null },
      { id: ids.e_nobody, position: 8, has_allowed_users: true, config: null },
      { id: ids.e_pick, position: 9, has_allowed_users: false, config: { options: ['a', 'b'] } },
    ]);
    expect(await q('SELECT field_id, user_id FROM custom_field_allowed_users WHERE workspace_id = $1', [ids.e_ws])).toEqual([
      { field_id: ids.e_secret, user_id: ids.e_owner },
    ]);
    expect(await q('SELECT field_id, value FROM task_custom_field_values WHERE task_id = $1 ORDER BY field_id', [ids.e_t1])).toEqual([
      { field_id: ids.e_secret, value: '5' },
      { field_id: ids.e_nobody, value: 'true' },
    ]);
    expect(await q('SELECT id, uploader_id, confirmed, file_size FROM attachments WHERE task_id = $1 ORDER BY id', [ids.e_t1])).toEqual([
      { id: ids.e_a1, uploader_id: ids.e_viewer, confirmed: true, file_size: 0 },
      { id: ids.e_a2, uploader_id: ids.e_owner, confirmed: false, file_size: 3 },
    ]);
    expect(await q('SELECT id, user_id, parent_comment_id, content, resolved FROM comments WHERE task_id = $1 ORDER BY id', [ids.e_t1])).toEqual([
      { id: ids.e_c1, user_id: ids.e_viewer, parent_comment_id: null, content: 'First', resolved: false },
      { id: ids.e_c2, user_id: ids.e_owner, parent_comment_id: ids.e_c1, content: 'Reply', resolved: false },
    ]);
  });
});

describe('identifiers', () => {
  it('come from each workspace counter in file order, subtasks included', async () => {
    const ids = await loadFixture(db.ds, {
      users: [{ ref: 'i_u', email: 'i@example.com', name: 'I' }],
      workspaces: [
        {
          ref: 'i_w1',
          name: 'W1',
          slug: 'i-w1',
          owner: 'i_u',
          tasks: [
            { ref: 'i_a', title: 'A' },
            { ref: 'i_b', title: 'B' },
            { ref: 'i_a1', title: 'A1', parent: 'i_a' },
            { ref: 'i_c', title: 'C' },
            { ref: 'i_b1', title: 'B1', parent: 'i_b' },
          ],
        },
        { ref: 'i_w2', name: 'W2', slug: 'i-w2', owner: 'i_u', tasks: [{ ref: 'i_x', title: 'X' }] },
      ],
    });
    expect(await q('SELECT id, title, identifier, parent_id FROM tasks WHERE workspace_id = ANY($1) ORDER BY id', [[ids.i_w1, ids.i_w2]])).toEqual([
      { id: ids.i_a, title: 'A', identifier: 1, parent_id: null },
      { id: ids.i_b, title: 'B', identifier: 2, parent_id: null },
      { id: ids.i_a1, title: 'A1', identifier: 3, parent_id: ids.i_a },
      { id: ids.i_c, title: 'C', identifier: 4, parent_id: null },
      { id: ids.i_b1, title: 'B1', identifier: 5, parent_id: ids.i_b },
      { id: ids.i_x, title: 'X', identifier: 1, parent_id: null },
    ]);
    expect(
      await q('SELECT id, pg_sequence_last_value(task_identifier_sequence(id)) AS last_identifier FROM workspaces WHERE id = ANY($1) ORDER BY id', [
        [ids.i_w1, ids.i_w2],
      ]),
    ).toEqual([
      { id: ids.i_w1, last_identifier: 5 },
      { id: ids.i_w2, last_identifier: 1 },
    ]);
  });
});

describe('sanitizing (D9)', () => {
  it('sanitizes task descriptions and comment contents as the API does', async () => {
    const ids = await loadFixture(db.ds, {
      users: [{ ref: 's_u', email: 's@example.com', name: 'S' }],
      workspaces: [
        {
          ref: 's_w',
          name: 'S',
          slug: 's-w',
          owner: 's_u',
          tasks: [
            {
              ref: 's_t1',
              title: 'Dirty',
              description:
                '<p onclick="x()">Hi<script>alert(1)</script></p><a href="javascript:alert(1)">x</a><img src="https://e.com/a.png" onerror="y"><style>p{}</style>',
              comments: [{ ref: 's_c1', content: '  <b>ok</b><iframe src="https://e.com"></iframe>  ' }],
            },
            { ref: 's_t2', title: 'Empty', description: '' },
            { ref: 's_t3', title: 'Only script', description: '<script>alert(1)</script>' },
          ],
        },
      ],
    });
    expect(await q('SELECT id, description FROM tasks WHERE workspace_id = $1 ORDER BY id', [ids.s_w])).toEqual([
      { id: ids.s_t1, description: '<p>Hi</p><a>x</a><img src="https://e.com/a.png" />' },
      { id: ids.s_t2, description: null },
      { id: ids.s_t3, description: null },
    ]);
    expect(await q('SELECT content FROM comments WHERE id = $1', [ids.s_c1])).toEqual([{ content: '<b>ok</b>' }]);
  });

  it('rejects a comment with nothing left after sanitizing, naming it', async () => {
    const error = await loadError({
      users: [{ ref: 's2_u', email: 's2@example.com', name: 'S' }],
      workspaces: [
        {
          ref: 's2_w',
          name: 'S',
          slug: 's2-w',
          owner: 's2_u',
          tasks: [{ ref: 's2_t', title: 'T', comments: [{ ref: 's2_c', content: '<script>alert(1)</script>' }] }],
        },
      ],
    });
    expect(error.message).toBe('Invalid fixture: comment "s2_c" (workspaces[0].tasks[0].comments[0]): content is empty after sanitizing');
  });
});

describe('bad fixtures write nothing and name the bad ref', () => {
  type World = { users: Array<Record<string, unknown>>; workspaces: Array<Record<string, unknown> & { tasks: Array<Record<string, unknown>> }> };
  const base = (): World => ({
    users: [
      { ref: 'b_u', email: 'b@example.com', name: 'B' },
      { ref: 'b_v', email: 'b2@example.com', name: 'B2' },
    ],
    workspaces: [
      {
        ref: 'b_w',
        name: 'B',
        slug: 'b-w',
        owner: 'b_u',
        folders: [{ ref: 'b_f', name: 'F', lists: [{ ref: 'b_l', name: 'L' }] }],
        tasks: [
          { ref: 'b_t1', title: 'T1', list: 'b_l' },
          { ref: 'b_t2', title: 'T2', status: 'nope' },
        ],
      },
      { ref: 'b_w2', name: 'B2', slug: 'b-w2', owner: 'b_v', lists: [{ ref: 'b_l2', name: 'Other' }], tasks: [] },
    ],
  });

  it.each<[string, (w: World) => void, string]>([
    ['an unresolved pointer', () => undefined, 'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): status "nope" names nothing in the file'],
    [
      'a pointer to the wrong kind',
      (w) => (w.workspaces[0].tasks[1].status = 'b_l'),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): status "b_l" is a list, not a status',
    ],
    [
      'a pointer into another workspace',
      (w) => {
        Object.assign(w.workspaces[0].tasks[1], { status: undefined, list: 'b_l2' });
      },
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): list "b_l2" is a list of another workspace',
    ],
    [
      'a duplicate ref',
      (w) => (w.workspaces[0].tasks[1].ref = 'b_l'),
      'Invalid fixture: task "b_l" (workspaces[0].tasks[1]): ref "b_l" is already used by list "b_l" (workspaces[0].folders[0].lists[0])',
    ],
    [
      'a duplicate email',
      (w) => (w.users[1].email = 'B@example.com'),
      'Invalid fixture: user "b_v" (users[1]): email "B@example.com" is already used by user "b_u" (users[0])',
    ],
    [
      'a duplicate slug',
      (w) => (w.workspaces[1].slug = 'b-w'),
      'Invalid fixture: workspace "b_w2" (workspaces[1]): slug "b-w" is already used by workspace "b_w" (workspaces[0])',
    ],
    [
      'a bad enum',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, priority: 'asap' }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): priority must be one of: urgent, high, medium, low, none',
    ],
    [
      'a parent listed later',
      (w) => Object.assign(w.workspaces[0].tasks[0], { parent: 'b_t2' }),
      'Invalid fixture: task "b_t1" (workspaces[0].tasks[0]): parent "b_t2" must be a task listed earlier',
    ],
    [
      'a restricted admin',
      (w) => Object.assign(w.workspaces[0], { members: [{ user: 'b_v', role: 'admin', restricted: true }] }),
      'Invalid fixture: member "b_v" (workspaces[0].members[0]): a member with role admin cannot be restricted',
    ],
    [
      'an unknown scope',
      (w) => Object.assign(w, { api_keys: [{ ref: 'b_k', user: 'b_u', key: 'svc_b', scopes: ['tasks:*'] }] }),
      'Invalid fixture: api_key "b_k" (api_keys[0]): scope "tasks:*" is not one of: tasks:read, tasks:write, comments:read, comments:write, folders:read, folders:write, lists:write, workspaces:read, workspaces:write, users:read, events:read, webhooks:read, webhooks:write, members:write, attachments:read, attachments:write, api_keys:read, api_keys:write',
    ],
    [
      'an impossible date',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, due_date: '2025-02-30' }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): due_date "2025-02-30" is not an ISO 8601 timestamp',
    ],
    // Issue 10: users and member grants are as strict as every other pointer (no implicit users, no skipped grants).
    [
      'an undefined member user',
      (w) => Object.assign(w.workspaces[0], { members: [{ user: 'bob', role: 'admin' }] }),
      'Invalid fixture: member "bob" (workspaces[0].members[0]): user "bob" names nothing in the file',
    ],
    [
      'an undefined workspace owner',
      (w) => Object.assign(w.workspaces[0], { owner: 'carol', tasks: [] }),
      'Invalid fixture: workspace "b_w" (workspaces[0]): owner "carol" names nothing in the file',
    ],
    [
      'an undefined assignee',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, assignees: ['b_v', 'dora'] }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): assignees[1] "dora" names nothing in the file',
    ],
    [
      'an undefined folder grant',
      (w) => Object.assign(w.workspaces[0], { members: [{ user: 'b_v', role: 'member', restricted: true, folders: ['b_f', 'ops'] }] }),
      'Invalid fixture: member "b_v" (workspaces[0].members[0]): folders[1] "ops" names nothing in the file',
    ],
    [
      'an undefined list grant',
      (w) => Object.assign(w.workspaces[0], { members: [{ user: 'b_v', role: 'viewer', restricted: true, lists: ['ops_inbox'] }] }),
      'Invalid fixture: member "b_v" (workspaces[0].members[0]): lists[0] "ops_inbox" names nothing in the file',
    ],
    [
      'a grant of another workspace',
      (w) => Object.assign(w.workspaces[0], { members: [{ user: 'b_v', role: 'viewer', restricted: true, lists: ['b_l2'] }] }),
      'Invalid fixture: member "b_v" (workspaces[0].members[0]): lists[0] "b_l2" is a list of another workspace',
    ],
    // Issue 8: PostgreSQL text and jsonb reject U+0000; the API's text rule, naming the ref.
    [
      'NUL in a title',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, title: 'T\u0000' }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): title must not contain NUL characters',
    ],
    [
      'NUL in a description',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, description: '<p>\u0000</p>' }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): description must not contain NUL characters',
    ],
    ['NUL in a user name', (w) => (w.users[1].name = 'B\u0000'), 'Invalid fixture: user "b_v" (users[1]): name must not contain NUL characters'],
    [
      'NUL in a custom field config',
      (w) =>
        Object.assign(w.workspaces[1], {
          custom_fields: [{ ref: 'b_cf', name: 'Pick', type: 'dropdown', config: { options: ['a', 'b\u0000'] } }],
        }),
      'Invalid fixture: custom_field "b_cf" (workspaces[1].custom_fields[0]): config must not contain NUL characters',
    ],
    [
      'NUL in a custom field value',
      (w) =>
        Object.assign(w.workspaces[1], {
          custom_fields: [{ ref: 'b_cf', name: 'Note', type: 'text' }],
          tasks: [{ ref: 'b_t3', title: 'T3', custom_fields: [{ field: 'b_cf', value: 'x\u0000' }] }],
        }),
      'Invalid fixture: task "b_t3" (workspaces[1].tasks[0]): custom_fields[0].value must not contain NUL characters',
    ],
    [
      'NUL in an unknown ref',
      (w) => Object.assign(w.workspaces[0].tasks[1], { status: undefined, creator: 'x\u0000' }),
      'Invalid fixture: task "b_t2" (workspaces[0].tasks[1]): creator "x\u0000" names nothing in the file',
    ],
  ])('%s', async (_name, mutate, message) => {
    const before = await counts();
    const world = base();
    mutate(world);
    const error = await loadError(world);
    expect(error.message).toBe(message);
    expect(await counts()).toEqual(before);
  });

  it('loads once the bad ref is fixed, additively', async () => {
    const before = await counts();
    const world = base();
    delete world.workspaces[0].tasks[1].status;
    const ids = await loadFixture(db.ds, world);
    expect(Object.keys(ids)).toEqual(['b_u', 'b_v', 'b_w', 'b_f', 'b_l', 'b_t1', 'b_t2', 'b_w2', 'b_l2']);
    const after = await counts();
    expect(after.users - before.users).toBe(2);
    expect(after.workspaces - before.workspaces).toBe(2);
    expect(after.tasks - before.tasks).toBe(2);
    expect(after.statuses - before.statuses).toBe(8);
    expect(after.workspace_members - before.workspace_members).toBe(2);
  });
});

describe('demoWorld()', () => {
  it('loads, with an owner key that has every scope', async () => {
    const key = 'svc_' + 'd'.repeat(64);
    const ids = await loadFixture(db.ds, demoWorld(key));
    expect(await q('SELECT user_id, scopes, revoked_at, expires_at FROM api_keys WHERE key_hash = $1', [hashApiKey(key)])).toEqual([
      {
        user_id: ids.demo_owner,
        scopes: [
          'tasks:read',
          'tasks:write',
          'comments:read',
          'comments:write',
          'folders:read',
          'folders:write',
          'lists:write',
          'workspaces:read',
          'workspaces:write',
          'users:read',
          'events:read',
          'webhooks:read',
          'webhooks:write',
          'members:write',
          'attachments:read',
          'attachments:write',
          'api_keys:read',
          'api_keys:write',
        ],
        revoked_at: null,
        expires_at: null,
      },
    ]);
    expect(await q('SELECT role, is_restricted FROM workspace_members WHERE workspace_id = $1 ORDER BY joined_at, user_id', [ids.demo])).toEqual([
      { role: 'owner', is_restricted: false },
      { role: 'admin', is_restricted: false },
      { role: 'member', is_restricted: false },
      { role: 'viewer', is_restricted: false },
      { role: 'member', is_restricted: true },
    ]);
  });
});
